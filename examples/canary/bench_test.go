package main

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/deploymath/deploymath/sim"
)

// rollout1000 is one canary rollout of 1,000 pods: web:1 created at
// time 0, web:2 applied at 5 minutes and rolled out in steps of 10%, 50%
// and 100% with maxSurge and maxUnavailable 25%, on two nodes of 1,000
// pods.
func rollout1000() *sim.Scenario {
	surge := intstr.FromString("25%")
	k := &Canary{
		TypeMeta:   metav1.TypeMeta{APIVersion: GroupVersion.String(), Kind: "Canary"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: CanarySpec{Replicas: 1000, Steps: []int32{10, 50, 100}, MaxSurge: &surge, MaxUnavailable: &surge,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web:1"}}},
			}},
	}
	v2 := k.DeepCopy()
	v2.Spec.Template.Spec.Containers[0].Image = "web:2"
	off := false
	sc := sim.NewScenario("canary-1000").WithSeed(1).
		WithCluster(sim.Cluster{DeploymentController: &off, Nodes: []sim.NodeSpec{{Name: "node-1", Capacity: 1000}, {Name: "node-2", Capacity: 1000}}}).
		WithObject(k).
		WithApply(5*time.Minute, v2)
	sc.Until = sim.Duration(time.Hour)
	return sc
}

// checkPromoted fails unless the run ended with web:2 promoted.
func checkPromoted(s *sim.Sim) error {
	return promoted(s.APIReader())
}

// BenchmarkCanaryRollout1000 is one simulated rollout of a canary of
// 1,000 pods (without the trace: BenchmarkCanaryRollout1000Trace builds
// it too).
func BenchmarkCanaryRollout1000(b *testing.B)      { benchRollout(b, true) }
func BenchmarkCanaryRollout1000Trace(b *testing.B) { benchRollout(b, false) }

func benchRollout(b *testing.B, noTrace bool) {
	sc := rollout1000()
	b.ReportAllocs()
	for b.Loop() {
		o := Options()
		o.NoTrace = noTrace
		s, err := sim.New(sc, o)
		if err != nil {
			b.Fatal(err)
		}
		res, err := s.Run()
		if err != nil {
			b.Fatal(err)
		}
		if err := checkPromoted(s); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Stats.Reconciles), "reconciles/op")
		b.ReportMetric(res.Summary.End.Seconds(), "simulated-s/op")
	}
}

// The 1,000-pod rollout is promoted, every step in order, within the
// canary's invariants (checked after each of its 2,492 reconciles' writes
// and at every instant).
func TestRollout1000(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1,000-pod rollout: seconds under -race")
	}
	o := Options()
	o.Invariants = invariants()
	o.NoTrace = true // the trace is most of the run's time, and nothing reads it
	s, err := sim.New(rollout1000(), o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	if err := checkPromoted(s); err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Violations {
		t.Error(v)
	}

}

// BenchmarkDeploymentRollout1000 is the reference: the built-in
// Deployment controller rolling a Deployment of 1,000 pods from web:1 to
// web:2 (maxSurge and maxUnavailable 25%) on the same cluster.
func BenchmarkDeploymentRollout1000(b *testing.B) {
	replicas := int32(1000)
	quarter := intstr.FromString("25%")
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &quarter, MaxUnavailable: &quarter}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web:1"}}}}},
	}
	sc := sim.NewScenario("deployment-1000").WithSeed(1).
		WithCluster(sim.Cluster{Nodes: []sim.NodeSpec{{Name: "node-1", Capacity: 1000}, {Name: "node-2", Capacity: 1000}}}).
		WithDeployment(d).
		WithSteps(sim.Step{At: sim.Duration(5 * time.Minute), SetImage: &sim.SetImage{Container: "web", Image: "web:2"}})
	sc.Until = sim.Duration(time.Hour)
	b.ReportAllocs()
	for b.Loop() {
		res, err := sim.Run(sc, sim.Options{NoTrace: true})
		if err != nil {
			b.Fatal(err)
		}
		if !res.Summary.Completed {
			b.Fatal("not complete")
		}
	}
}
