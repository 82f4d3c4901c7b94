package rollout_test

import (
	"strings"
	"testing"

	"github.com/deploymath/deploymath/fencepost"
	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"
)

// Params.MinAvailable is fencepost.MinAvailable (upstream's MinAvailable)
// for every strategy: 0 for Recreate, replicas − maxUnavailable for
// RollingUpdate.
func TestParamsMinAvailableIsFenceposts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := &appsv1.Deployment{}
		d.Spec.Replicas = i32p(rapid.Int32Range(0, 1000).Draw(t, "replicas"))
		d.Spec.Strategy.Type = rapid.SampledFrom([]appsv1.DeploymentStrategyType{
			appsv1.RollingUpdateDeploymentStrategyType, appsv1.RecreateDeploymentStrategyType}).Draw(t, "strategy")
		if d.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType {
			fp := func(label string) *intstr.IntOrString {
				v := intstr.FromInt32(rapid.Int32Range(0, 20).Draw(t, label))
				if rapid.Bool().Draw(t, label+" percent") {
					v = intstr.FromString(rapid.SampledFrom([]string{"0%", "10%", "25%", "50%", "100%"}).Draw(t, label+"%"))
				}
				return &v
			}
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: fp("surge"), MaxUnavailable: fp("unavailable")}
			if fencepost.Validate(d) != nil {
				t.Skip("invalid fenceposts")
			}
		}
		p, err := rollout.ParamsOf(d)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := p.MinAvailable(), fencepost.MinAvailable(d); got != want {
			t.Fatalf("Params.MinAvailable = %d, fencepost.MinAvailable = %d", got, want)
		}
	})
	recreate := rollout.Params{Replicas: 5, Strategy: appsv1.RecreateDeploymentStrategyType}
	if got := recreate.MinAvailable(); got != 0 {
		t.Errorf("Recreate: MinAvailable %d, want 0", got)
	}
}

// ParamsOf refuses what the blocks refuse, naming the field.
func TestParamsOfRefusesWhatBlocksRefuse(t *testing.T) {
	d := upDeployment(3, 1, 0)
	if _, err := rollout.ParamsOf(d); err != nil {
		t.Fatalf("a valid Deployment: %v", err)
	}
	neg := d.DeepCopy()
	neg.Spec.Replicas = i32p(-1)
	if _, err := rollout.ParamsOf(neg); err == nil || !strings.HasPrefix(err.Error(), "spec.replicas: invalid value -1") {
		t.Errorf("replicas -1: err = %v, want one naming spec.replicas", err)
	}
	if _, err := rollout.NewRSNewReplicas(&rollout.Params{Replicas: -1}, nil, 0); err == nil {
		t.Error("NewRSNewReplicas accepts replicas -1: the two would disagree")
	}
	negLimit := d.DeepCopy()
	negLimit.Spec.RevisionHistoryLimit = i32p(-2)
	if _, err := rollout.ParamsOf(negLimit); err == nil || !strings.HasPrefix(err.Error(), "spec.revisionHistoryLimit: invalid value -2") {
		t.Errorf("revisionHistoryLimit -2: err = %v, want one naming spec.revisionHistoryLimit", err)
	}
	if _, err := rollout.HistoryToDelete(&rollout.Params{RevisionHistoryLimit: i32p(-2)}, nil); err == nil {
		t.Error("HistoryToDelete accepts revisionHistoryLimit -2: the two would disagree")
	}
	noReplicas := d.DeepCopy()
	noReplicas.Spec.Replicas = nil
	if _, err := rollout.ParamsOf(noReplicas); err == nil || !strings.HasPrefix(err.Error(), "spec.replicas: required value") {
		t.Errorf("no replicas: err = %v", err)
	}
}
