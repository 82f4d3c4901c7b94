package fencepost

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

var sinkSurge, sinkUnavailable int32

func BenchmarkResolveFenceposts(b *testing.B) {
	for _, bc := range []struct {
		name               string
		surge, unavailable intstr.IntOrString
	}{
		{"int", intstr.FromInt32(2), intstr.FromInt32(1)},
		{"percent", intstr.FromString("25%"), intstr.FromString("25%")},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkSurge, sinkUnavailable, _ = ResolveFenceposts(&bc.surge, &bc.unavailable, 100)
			}
		})
	}
}

func BenchmarkMaxUnavailable(b *testing.B) {
	d := rollingDeployment(100, ios("25%"), ios("25%"))
	b.ReportAllocs()
	for b.Loop() {
		sinkUnavailable = MaxUnavailable(d)
	}
}

func BenchmarkValidate(b *testing.B) {
	d := rollingDeployment(100, ios("25%"), ios("25%"))
	b.ReportAllocs()
	for b.Loop() {
		_ = Validate(d)
	}
}
