package hashing

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

var sinkString string
var sinkBool bool

// BenchmarkPodTemplateHash compares the literal upstream steps (spew dump,
// then FNV) with the streaming writer, on the realistic two-container
// template of fixtures_test.go, in the same run.
func BenchmarkPodTemplateHash(b *testing.B) {
	tpl := realisticTemplate()
	cc := int32(3)
	b.Run("spew-reference", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkString = referenceHash(tpl, &cc)
		}
	})
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkString = PodTemplateHash(tpl, &cc)
		}
	})
}

// BenchmarkEqualIgnoreHash compares a template with its hash-labelled copy
// (equal) and with a copy whose image differs in the last container.
func BenchmarkEqualIgnoreHash(b *testing.B) {
	a := realisticTemplate()
	labelled := TemplateWithHash(a, PodTemplateHash(a, nil))
	changed := realisticTemplate()
	changed.Spec.Containers[1].Image = "registry.example.com/proxy:2.5"
	b.Run("equal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkBool = EqualIgnoreHash(a, labelled)
		}
	})
	b.Run("different", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkBool = EqualIgnoreHash(a, changed)
		}
	})
	b.Run("deepcopy-reference", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkBool = referenceEqualIgnoreHash(a, labelled)
		}
	})
}

var _ = corev1.PodTemplateSpec{}
