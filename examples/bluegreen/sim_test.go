package bluegreen_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/examples/bluegreen"
	v1 "github.com/deploymath/deploymath/examples/bluegreen/api/v1"
	"github.com/deploymath/deploymath/sim"
	"github.com/deploymath/deploymath/sim/crsim"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

var update = flag.Bool("update", false, "rewrite testdata/bluegreen.golden")

// setup builds the controller as SetupWithManager does for a real
// manager, on a simulator's manager, and returns the run's options.
func setup(t interface{ Fatal(...any) }, o sim.Options) sim.Options {
	scheme := runtime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	mgr, err := crsim.NewManager(crsim.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	r := &bluegreen.Reconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorderFor("bluegreen")}
	// The same calls as SetupWithManager's, on crsim's builder.
	if err := crsim.NewControllerManagedBy(mgr).For(&v1.BlueGreen{}).Owns(&appsv1.ReplicaSet{}).Complete(r); err != nil {
		t.Fatal(err)
	}
	return mgr.SimOptions(o)
}

func loadScenario(t testing.TB, name string) *sim.Scenario {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := sim.ParseScenario(src)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// Outcome is what a run of the scenario did, as the control plane test
// compares it: the BlueGreen's events (as the events API holds them:
// repeated ones counted), every size each ReplicaSet was written with,
// the final status and the ReplicaSets' images.
type Outcome struct {
	Events []string
	Sizes  map[string][]int32
	Status v1.BlueGreenStatus
	Images map[string]string
}

// outcome reads a finished run.
func outcome(t testing.TB, s *sim.Sim, res *sim.Result) Outcome {
	t.Helper()
	o := Outcome{Sizes: map[string][]int32{}, Images: map[string]string{}}
	for _, e := range res.Events {
		if e.Object == "bluegreen/web" {
			o.Events = append(o.Events, fmt.Sprintf("%s: %s (x%d)", e.Reason, e.Message, e.Count))
		}
	}
	for _, w := range res.Writes {
		if w.Kind != "ReplicaSet" || (w.Verb != "create" && w.Verb != "update") {
			continue
		}
		n := w.Replicas
		if sz := o.Sizes[w.Name]; len(sz) == 0 || sz[len(sz)-1] != n {
			o.Sizes[w.Name] = append(sz, n)
		}
	}
	var bg v1.BlueGreen
	if err := s.APIReader().Get(types.NamespacedName{Namespace: "default", Name: "web"}, &bg); err != nil {
		t.Fatal(err)
	}
	o.Status = bg.Status
	for _, c := range []string{"blue", "green"} {
		var rs appsv1.ReplicaSet
		if err := s.APIReader().Get(types.NamespacedName{Namespace: "default", Name: "web-" + c}, &rs); err != nil {
			t.Fatal(err)
		}
		o.Images[rs.Name] = rs.Spec.Template.Spec.Containers[0].Image
	}
	return o
}

// The bundled scenario: web:1 comes up blue, web:2 moves to green,
// web:broken never becomes active (green serves on), web:3 moves to blue.
func TestScenario(t *testing.T) {
	sc := loadScenario(t, "bluegreen.yaml")
	s, err := sim.New(sc, setup(t, sim.Options{Writes: true}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	got := outcome(t, s, res)
	if got.Status.Active != v1.Blue || got.Status.Phase != v1.PhaseStable || got.Status.AvailableReplicas != 3 || got.Status.ObservedGeneration != 4 {
		t.Errorf("final status %+v, want blue active, stable, 3 available, generation 4 observed", got.Status)
	}
	if got.Images["web-blue"] != "web:3" || got.Images["web-green"] != "web:2" {
		t.Errorf("images %v, want web:3 on blue (idle from 30s, given web:broken at 1m, then web:3) and web:2 (scaled to zero) on green", got.Images)
	}
	text := got.String()
	golden := filepath.Join("testdata", "bluegreen.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), text); diff != "" {
		t.Errorf("outcome (-want +got):\n%s", diff)
	}
}

// String prints the outcome as the golden file holds it.
func (o Outcome) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "status: active %s, phase %s, available %d, observed generation %d, hash %s\n",
		o.Status.Active, o.Status.Phase, o.Status.AvailableReplicas, o.Status.ObservedGeneration, o.Status.ActiveHash)
	for _, rs := range []string{"web-blue", "web-green"} {
		fmt.Fprintf(&b, "%s: image %s, sizes %v\n", rs, o.Images[rs], o.Sizes[rs])
	}
	b.WriteString("events:\n")
	for _, e := range o.Events {
		fmt.Fprintf(&b, "  %s\n", e)
	}
	return b.String()
}
