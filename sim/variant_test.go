package sim

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestVariant: a variant edits copies of the scenario's Deployments and
// cluster, leaves the scenario as it was, and refuses an edit the API
// server would refuse, naming the Deployment.
func TestVariant(t *testing.T) {
	sc, err := LoadScenario(filepath.Join(scenarioDir, "nginx-rolling-update.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := sc.Marshal()
	three := intstr.FromInt32(3)
	v, err := sc.Variant(func(d *appsv1.Deployment) *appsv1.Deployment {
		d.Spec.Strategy.RollingUpdate.MaxSurge = &three
		return d
	}, func(c *Cluster) { c.ControllerLatency = Duration(5 * time.Millisecond) })
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := sc.Marshal(); string(after) != string(before) || sc.deployments[0].Spec.Strategy.RollingUpdate != nil || sc.Cluster.ControllerLatency != 0 {
		t.Fatal("Variant changed the scenario")
	}
	if got := v.deployments[0].Spec.Strategy.RollingUpdate.MaxSurge.String(); got != "3" || v.Cluster.ControllerLatency != Duration(5*time.Millisecond) {
		t.Errorf("variant: maxSurge %s, controllerLatency %v", got, time.Duration(v.Cluster.ControllerLatency))
	}
	res, err := Run(v, Options{NoTrace: true})
	if err != nil || !res.Summary.Completed || res.Summary.PeakPods != 6 {
		t.Errorf("variant run: err %v, completed %v, peak pods %d (want 3 + maxSurge 3)", err, res != nil && res.Summary.Completed, res.Summary.PeakPods)
	}
	zero := intstr.FromInt32(0)
	_, err = sc.Variant(func(d *appsv1.Deployment) *appsv1.Deployment {
		d.Spec.Strategy.RollingUpdate.MaxSurge, d.Spec.Strategy.RollingUpdate.MaxUnavailable = &zero, &zero
		return d
	}, nil)
	if err == nil || !strings.Contains(err.Error(), "deployment nginx-deployment: spec.strategy.rollingUpdate.maxUnavailable") {
		t.Errorf("invalid variant: %v", err)
	}
}
