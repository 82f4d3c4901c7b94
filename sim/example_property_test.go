package sim_test

import (
	"fmt"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"
)

// surgeBound is a property of rolling updates, checked on the simulator
// with a scenario built in Go: for any replicas, maxSurge and
// maxUnavailable, the rollout completes, and the Deployment's ReplicaSets
// never ask for more than replicas + maxSurge pods. In a test:
//
//	func TestSurgeBound(t *testing.T) { rapid.Check(t, surgeBound) }
func surgeBound(t *rapid.T) {
	replicas := rapid.Int32Range(1, 10).Draw(t, "replicas")
	fencepost := rapid.SampledFrom([]string{"0", "1", "3", "25%", "50%", "100%"})
	surge := intstr.Parse(fencepost.Draw(t, "maxSurge"))
	unavailable := intstr.Parse(fencepost.Draw(t, "maxUnavailable"))
	if surge.String() == "0" && unavailable.String() == "0" {
		unavailable = intstr.FromInt32(1) // the API server refuses both 0
	}
	labels := map[string]string{"app": "web"}
	d := rollout.Default(&appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web:1"}}},
			},
			Strategy: appsv1.DeploymentStrategy{
				Type:          appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable},
			},
		},
	})
	at := sim.Duration(30 * time.Second)
	sc := sim.NewScenario("surge-bound").
		WithSeed(rapid.Uint64().Draw(t, "seed")).
		WithDeployment(d).
		WithSteps(
			sim.Step{At: at, SetImage: &sim.SetImage{Container: "web", Image: "web:2"}},
			sim.Step{At: at, StopWhenConverged: true},
		)
	res, err := sim.Run(sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Summary.Completed {
		t.Fatalf("the rollout did not complete by %s", res.Summary.End)
	}
	params, _ := rollout.ParamsOf(d)
	maxSurge, _ := params.Limits()
	for _, f := range res.Trace.Frames {
		for _, dep := range f.Deployments {
			var desired int32
			for _, rs := range dep.ReplicaSets {
				desired += rs.Desired
			}
			if desired > replicas+maxSurge {
				t.Fatalf("t=%s: the replica sets want %d pods, above replicas %d + maxSurge %d", f.At, desired, replicas, maxSurge)
			}
		}
	}
}

// A property test of the simulator written in Go, with rapid: random
// strategies, a scenario built with NewScenario, a law checked on the
// result. A test runs it with rapid.Check(t, surgeBound); here a stand-in
// for *testing.T prints what rapid reports.
func ExampleNewScenario() {
	var tb printTB
	rapid.Check(&tb, surgeBound)
	if !tb.Failed() {
		fmt.Println("every rollout completed within replicas + maxSurge")
	}
	// Output:
	// every rollout completed within replicas + maxSurge
}

// printTB is what rapid.Check needs of a *testing.T, outside a test: it
// prints failures.
type printTB struct{ failed bool }

func (*printTB) Helper()                      {}
func (*printTB) Name() string                 { return "ExampleNewScenario" }
func (*printTB) Logf(string, ...any)          {}
func (*printTB) Log(...any)                   {}
func (*printTB) Skipf(string, ...any)         {}
func (*printTB) Skip(...any)                  {}
func (*printTB) SkipNow()                     {}
func (tb *printTB) Errorf(f string, a ...any) { tb.failed = true; fmt.Printf(f+"\n", a...) }
func (tb *printTB) Error(a ...any)            { tb.failed = true; fmt.Println(a...) }
func (tb *printTB) Fatalf(f string, a ...any) { tb.Errorf(f, a...) }
func (tb *printTB) Fatal(a ...any)            { tb.Error(a...) }
func (tb *printTB) FailNow()                  { tb.failed = true }
func (tb *printTB) Fail()                     { tb.failed = true }
func (tb *printTB) Failed() bool              { return tb.failed }
