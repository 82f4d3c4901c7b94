package sim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/sim"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A scenario built in Go with an object of a custom kind (WithObject) and
// an apply of a new version of it (WithApply) prints as a file that
// replays the same run: the same trace, byte for byte.
func TestWithObjectRoundTrip(t *testing.T) {
	r := &Replicated{
		TypeMeta:   metav1.TypeMeta{APIVersion: replicatedGV.String(), Kind: "Replicated"},
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: ReplicatedSpec{Replicas: 2, Template: corev1.PodTemplateSpec{
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web:1"}}}}},
	}
	scaled := r.DeepCopyObject().(*Replicated)
	scaled.Spec.Replicas = 4
	off := false
	sc := sim.NewScenario("built-custom").WithSeed(5).
		WithCluster(sim.Cluster{DeploymentController: &off, Nodes: []sim.NodeSpec{{Name: "n1", Capacity: 10}}}).
		WithObject(r).
		WithObject(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}}).
		WithApply(20*time.Second, scaled)
	sc.Until = sim.Duration(time.Minute)
	opts := func() sim.Options {
		return sim.Options{Scheme: testScheme(t), Controllers: []sim.Controller{&replicator{}}}
	}
	built, err := sim.Run(sc, opts())
	if err != nil {
		t.Fatal(err)
	}
	src, err := sc.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "kind: Replicated") {
		t.Fatalf("the file lacks the custom object:\n%s", src)
	}
	parsed, err := sim.ParseScenario(src)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	replayed, err := sim.Run(parsed, opts())
	if err != nil {
		t.Fatal(err)
	}
	if built.Text() != replayed.Text() {
		t.Errorf("the file replays differently:\n--- built\n%s\n--- replayed\n%s", built.Text(), replayed.Text())
	}
	if !strings.Contains(built.Text(), "apply updates replicated web") {
		t.Errorf("no apply in the trace:\n%s", built.Text())
	}

	bad := sim.NewScenario("no-kind").WithObject(&Replicated{ObjectMeta: metav1.ObjectMeta{Name: "x"}})
	if _, err := sim.Run(bad, opts()); err == nil || !strings.Contains(err.Error(), "apiVersion and kind are required") {
		t.Errorf("a custom object without its kind: %v", err)
	}
	var nilPod *corev1.Pod
	if _, err := sim.Run(sim.NewScenario("nil").WithObject(nilPod), opts()); err == nil || !strings.Contains(err.Error(), "must not be nil") {
		t.Errorf("a nil pod: %v", err)
	}
}
