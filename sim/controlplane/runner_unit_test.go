package controlplane

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploymath/deploymath/sim"
)

// TestCorrelate checks the simulator's events as the events API would hold
// them: nine distinct messages stay raw, the tenth and later are one
// "(combined from similar events)" event carrying the last message and a
// count; equal events are counted, not repeated.
func TestCorrelate(t *testing.T) {
	var evs []timedEvent
	for i := range 12 {
		evs = append(evs, timedEvent{At: time.Duration(i) * time.Second, Type: "Normal", Reason: "ScalingReplicaSet",
			Message: fmt.Sprintf("Scaled down replica set web-1 from %d to %d", 20-i, 19-i)})
	}
	got := correlate(evs, "web")
	if len(got) != 12 {
		t.Fatalf("%d events, want 12 (9 raw, one combined with count 3): %q", len(got), got)
	}
	for i := range 9 {
		if want := "Normal ScalingReplicaSet: " + evs[i].Message; got[i] != want {
			t.Errorf("event %d: %q, want %q", i, got[i], want)
		}
	}
	combined := "Normal ScalingReplicaSet: (combined from similar events): " + evs[11].Message
	for i := 9; i < 12; i++ {
		if got[i] != combined {
			t.Errorf("event %d: %q, want %q", i, got[i], combined)
		}
	}

	same := []timedEvent{
		{At: 0, Type: "Warning", Reason: "SelectingAll", Message: "This deployment is selecting all pods."},
		{At: time.Second, Type: "Warning", Reason: "SelectingAll", Message: "This deployment is selecting all pods."},
	}
	if got := correlate(same, "web"); len(got) != 2 || got[0] != got[1] || strings.Contains(got[0], "combined") {
		t.Errorf("two equal events: %q, want the event twice (one Event, count 2)", got)
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
