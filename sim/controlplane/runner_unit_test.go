package controlplane

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploymath/deploymath/sim"
)

// TestSimEvents checks how the simulator's Events are read: only the
// Deployment's (not another Deployment's, not one of another namespace),
// by first time and then by name (the creation instant in nanoseconds,
// within a whole second), each repeated count times.
func TestSimEvents(t *testing.T) {
	ev := func(name, object, msg string, count int32, first time.Duration) sim.ClusterEvent {
		return sim.ClusterEvent{Name: name, Object: object, Type: "Normal", Reason: "ScalingReplicaSet", Message: msg,
			Count: count, FirstSeen: first, LastSeen: first}
	}
	events := []sim.ClusterEvent{
		ev("web.18a0000000000002", "deployment/web", "(combined from similar events): Scaled down replica set web-1 from 3 to 2", 2, 2*time.Second),
		ev("web.18a0000000000001", "deployment/web", "Scaled up replica set web-2 from 1 to 2", 1, 2*time.Second),
		ev("api.18a0000000000000", "deployment/api", "Scaled up replica set api-1 from 0 to 1", 1, 0),
		ev("web.18a0000000000000", "other/deployment/web", "Scaled up replica set web-1 from 0 to 9", 1, 0),
		ev("web.1800000000000000", "deployment/web", "Scaled up replica set web-1 from 0 to 3", 1, time.Second),
	}
	got := simEvents(events, "web")
	want := []string{
		"Normal ScalingReplicaSet: Scaled up replica set web-1 from 0 to 3",
		"Normal ScalingReplicaSet: Scaled up replica set web-2 from 1 to 2",
		"Normal ScalingReplicaSet: (combined from similar events): Scaled down replica set web-1 from 3 to 2",
		"Normal ScalingReplicaSet: (combined from similar events): Scaled down replica set web-1 from 3 to 2",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("simEvents (-want +got):\n%s", diff)
	}
}

// TestSimEventsAggregated runs a bundled scenario whose rollouts record
// more than nine distinct scaling events in ten minutes (undo) and checks
// that the simulator's Events hold the aggregated form the control
// plane's events API holds in such a run: "(combined from similar events): "
// events, and as many events, counts expanded, as the simulator recorded.
func TestSimEventsAggregated(t *testing.T) {
	sc := loadScenario(t, "undo")
	res, err := sim.Run(sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var raw int
	for _, f := range res.Trace.Frames {
		for _, e := range f.Events {
			if e.Object == "web" {
				raw++
			}
		}
	}
	got := simEvents(res.Events, "web")
	if len(got) != raw {
		t.Errorf("%d events, counts expanded; the simulator recorded %d:\n%s", len(got), raw, strings.Join(got, "\n"))
	}
	combined := 0
	for _, e := range got {
		if strings.Contains(e, "(combined from similar events): ") {
			combined++
		}
	}
	if raw <= 9 || combined == 0 {
		t.Errorf("%d events recorded, %d combined; want more than nine, some combined:\n%s", raw, combined, strings.Join(got, "\n"))
	}
}

// TestFixTimings checks that every range becomes its midpoint and that a
// 0s–0s range (the simulator's default) is resolved first.
func TestFixTimings(t *testing.T) {
	sc := &sim.Scenario{Cluster: sim.Cluster{
		Startup:   sim.Range{Min: sim.Duration(2 * time.Second), Max: sim.Duration(5 * time.Second)},
		Readiness: sim.Range{Min: 0, Max: sim.Duration(time.Second + time.Millisecond)},
	}}
	st, rd, tm := fixTimings(sc)
	if st != 3500*time.Millisecond || rd != 501*time.Millisecond || tm != time.Second {
		t.Errorf("fixTimings: %v %v %v, want 3.5s 501ms 1s", st, rd, tm)
	}
	if sc.Cluster.Startup.Min != sc.Cluster.Startup.Max || time.Duration(sc.Cluster.Termination.Max) != time.Second {
		t.Errorf("the scenario's ranges: %+v", sc.Cluster)
	}
}

// TestFailureMode checks the kubelet driver's matching of failure rules.
func TestFailureMode(t *testing.T) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "cache"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web:v2"}}},
	}
	for _, tc := range []struct {
		rules []sim.FailureRule
		want  string
	}{
		{nil, ""},
		{[]sim.FailureRule{{Image: "web:v1", Mode: "crashloop"}}, ""},
		{[]sim.FailureRule{{Image: "web:v2", Mode: "crashloop"}}, "crashloop"},
		{[]sim.FailureRule{{Labels: map[string]string{"tier": "cache"}, Mode: "never-ready"}}, "never-ready"},
		{[]sim.FailureRule{{Image: "web:v2", Labels: map[string]string{"tier": "db"}, Mode: "never-ready"}}, ""},
		{[]sim.FailureRule{{Image: "web:v9", Mode: "crashloop"}, {Image: "web:v2", Mode: "image-pull-error"}}, "image-pull-error"},
	} {
		if got := failureMode(tc.rules, pod); got != tc.want {
			t.Errorf("failureMode(%+v) = %q, want %q", tc.rules, got, tc.want)
		}
	}
}

// TestInexpressible checks which scenarios the harness refuses, and why:
// the bundled node failure and quota scenarios are played; a failure rule
// with a probability and a pod step other than delete are not.
func TestInexpressible(t *testing.T) {
	for name, want := range map[string]string{
		"nginx-rolling-update": "",
		"pod-quota":            "",
		"node-failure":         "",
		"unreachable-node":     "",
		"restart-burst-counts": "",
	} {
		got := inexpressible(loadScenario(t, name))
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	half := 0.5
	for _, tc := range []struct {
		name string
		sc   *sim.Scenario
		want string
	}{
		{"probability", &sim.Scenario{Cluster: sim.Cluster{Failures: []sim.FailureRule{{Image: "web:v2", Mode: "crashloop", Probability: &half}}}}, "probability"},
		{"pod phase", &sim.Scenario{Steps: []sim.Step{{FailNode: "node-1"}, {Pod: &sim.PodStep{Phase: "Failed"}}}}, "steps[1].pod"},
		{"pod delete", &sim.Scenario{Steps: []sim.Step{{Pod: &sim.PodStep{Delete: true}}}}, ""},
	} {
		got := inexpressible(tc.sc)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
