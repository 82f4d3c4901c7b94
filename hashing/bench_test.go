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

// BenchmarkEqualIgnoreHash is in equal_test.go.

var _ = corev1.PodTemplateSpec{}
