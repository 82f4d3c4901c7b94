package fencepost

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"
)

func genValue(t *rapid.T, label string) *intstr.IntOrString {
	switch rapid.IntRange(0, 4).Draw(t, label+"Kind") {
	case 0:
		return nil
	case 1:
		v := intstr.FromInt32(rapid.Int32Range(-3, 1<<30).Draw(t, label+"Int"))
		return &v
	case 2:
		v := intstr.FromString(fmt.Sprintf("%d%%", rapid.IntRange(-5, 2_000_000_000).Draw(t, label+"Pct")))
		return &v
	case 3:
		v := intstr.FromString(rapid.SampledFrom([]string{"0%", "100%", "101%", "12x", "%", "", "+5%", "05%", "9999999999%", " 5%"}).Draw(t, label+"Str"))
		return &v
	}
	v := intstr.FromInt32(0)
	return &v
}

// The fast path of Validate never accepts what the full validation refuses.
func TestPropertyCertainlyValidIsSound(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := &appsv1.Deployment{}
		if rapid.IntRange(0, 5).Draw(t, "nilReplicas") > 0 {
			r := rapid.Int32Range(-2, 1<<31-1).Draw(t, "replicas")
			d.Spec.Replicas = &r
		}
		d.Spec.Strategy.Type = appsv1.DeploymentStrategyType(rapid.SampledFrom([]string{"RollingUpdate", "Recreate", "", "Blue"}).Draw(t, "type"))
		if rapid.IntRange(0, 5).Draw(t, "nilRollingUpdate") > 0 {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: genValue(t, "surge"), MaxUnavailable: genValue(t, "unavailable")}
		}
		if certainlyValid(d) {
			if err := validateFull(d); err != nil {
				t.Fatalf("fast path accepts what validation refuses: %v", err)
			}
		}
	})
}
