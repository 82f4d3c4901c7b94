package main

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/deploymath/deploymath/rollout"
)

// demo is a rollout of 10 replicas, maxSurge and maxUnavailable 25% (3
// and 2), steps 20%, 50%, 100%, a two-minute progress deadline, at its
// first step with the canary not yet grown.
func demo() Rollout {
	surge, unavailable := intstr.FromString("25%"), intstr.FromString("25%")
	deadline, limit := int32(120), int32(1)
	return Rollout{
		Name: "web",
		Params: rollout.Params{Replicas: 10, Strategy: appsv1.RollingUpdateDeploymentStrategyType,
			MaxSurge: &surge, MaxUnavailable: &unavailable, ProgressDeadlineSeconds: &deadline, RevisionHistoryLimit: &limit},
		Steps:  []int32{20, 50, 100},
		Stable: rollout.ReplicaSet{Name: "web-v1", Created: t0, Replicas: 10, StatusReplicas: 10, ReadyReplicas: 10, AvailableReplicas: 10, ObservedGeneration: 1, Generation: 1},
		Canary: rollout.ReplicaSet{Name: "web-v2", Created: t0.Add(time.Hour), Generation: 1, ObservedGeneration: 1},
		Status: appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing,
			Status: corev1.ConditionTrue, Reason: rollout.ReplicaSetUpdatedReason, LastUpdateTime: metav1.NewTime(t0.Add(time.Hour))}}},
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Rollout)
		want string
	}{
		{"no steps", func(c *Rollout) { c.Steps = nil }, "steps: []: must end with 100"},
		{"last step not 100", func(c *Rollout) { c.Steps = []int32{50} }, "steps: [50]: must end with 100"},
		{"steps not increasing", func(c *Rollout) { c.Steps = []int32{50, 50, 100} }, "steps[1]: 50"},
		{"step of 0", func(c *Rollout) { c.Steps = []int32{0, 100} }, "steps[0]: 0"},
		{"step negative", func(c *Rollout) { c.Step = -1 }, "step: -1: out of range"},
		{"step beyond promotion", func(c *Rollout) { c.Step = len(c.Steps) + 1 }, "step: 4: out of range [0, 3]"},
		{"under way without a canary", func(c *Rollout) { c.Canary = rollout.ReplicaSet{} }, "canary.name: required"},
	} {
		c := demo()
		tc.edit(&c)
		if _, err := Decide(c, t0); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	if err := demo().Validate(); err != nil {
		t.Errorf("demo: %v", err)
	}
}

func TestTarget(t *testing.T) {
	for _, tc := range []struct{ weight, replicas, want int32 }{
		{20, 10, 2}, {25, 10, 3}, {33, 3, 1}, {1, 1000, 10}, {1, 7, 1}, {100, 7, 7}, {50, 0, 0},
	} {
		if got := Target(tc.weight, tc.replicas); got != tc.want {
			t.Errorf("Target(%d, %d) = %d, want %d", tc.weight, tc.replicas, got, tc.want)
		}
	}
}

// One decision at a time, the rule's steps in order: grow the canary,
// shrink the stable side within the budget, reach the step, promote.
func TestDecideSteps(t *testing.T) {
	now := t0.Add(time.Hour + time.Minute)
	c := demo()
	out, err := Decide(c, now)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Scale{{"web-v2", 0, 2}}, out.Scale); diff != "" {
		t.Errorf("grow (-want +got):\n%s", diff)
	}
	c.Canary.Replicas, c.Canary.StatusReplicas = 2, 2
	out, _ = Decide(c, now)
	if diff := cmp.Diff([]Scale{{"web-v1", 10, 8}}, out.Scale); diff != "" {
		t.Errorf("shrink (-want +got):\n%s", diff)
	}
	// 2 unavailable canary pods: the budget 12 - 8 - 2 = 2 is spent.
	c.Stable.Replicas, c.Stable.StatusReplicas, c.Stable.AvailableReplicas = 8, 8, 8
	out, _ = Decide(c, now)
	if len(out.Scale) != 0 || out.Step != 0 {
		t.Errorf("waiting for the canary: %+v", out)
	}
	c.Canary.AvailableReplicas, c.Canary.ReadyReplicas = 2, 2
	out, _ = Decide(c, now)
	if out.Step != 1 || len(out.Scale) != 0 || out.Events[0].Reason != "StepReached" {
		t.Errorf("step reached: %+v", out)
	}
	// The last step reached: promotion deletes the old stable side beyond
	// the history limit of 1 (web-v0 is older).
	c.Step = 2
	c.History = []rollout.ReplicaSet{{Name: "web-v0", Created: t0.Add(-time.Hour), Generation: 1, ObservedGeneration: 1}}
	c.Canary = rollout.ReplicaSet{Name: "web-v2", Created: t0.Add(time.Hour), Replicas: 10, StatusReplicas: 10, ReadyReplicas: 10, AvailableReplicas: 10, Generation: 1, ObservedGeneration: 1}
	c.Stable = rollout.ReplicaSet{Name: "web-v1", Created: t0, Generation: 2, ObservedGeneration: 2}
	out, _ = Decide(c, now)
	if !out.Promote || out.Step != 3 || !cmp.Equal(out.Delete, []string{"web-v0"}) {
		t.Errorf("promotion: %+v", out)
	}
	if cond := progressing(out.Status.Conditions); cond == nil || cond.Reason != rollout.NewRSAvailableReason {
		t.Errorf("promoted: Progressing %+v", cond)
	}
}

// Past the progress deadline a rollout halts, says so once, and stays
// halted: nothing is scaled any more.
func TestDecideHalts(t *testing.T) {
	c := demo()
	c.Canary.Replicas, c.Canary.StatusReplicas = 2, 2
	c.Stable.Replicas, c.Stable.StatusReplicas, c.Stable.AvailableReplicas, c.Stable.ReadyReplicas = 8, 8, 8, 8
	last := t0.Add(time.Hour) // the last progress
	out, _ := Decide(c, last)
	c.Status = out.Status
	before, at := last.Add(2*time.Minute-10*time.Second), last.Add(2*time.Minute+time.Second)
	out, _ = Decide(c, before)
	if out.Halted || out.Requeue.After != 11*time.Second {
		t.Errorf("10s before the deadline: %+v, want a requeue a second after it", out)
	}
	out, _ = Decide(c, at)
	if !out.Halted || len(out.Scale) != 0 || len(out.Events) != 1 || out.Events[0].Type != corev1.EventTypeWarning {
		t.Fatalf("past the deadline: %+v", out)
	}
	c.Status = out.Status
	c.Canary.AvailableReplicas = 2 // progress after the halt does not resume it
	out, _ = Decide(c, at.Add(time.Minute))
	if !out.Halted || len(out.Scale) != 0 || len(out.Events) != 0 || out.Step != 0 {
		t.Errorf("after the halt: %+v", out)
	}
}

// Without a rollout under way the stable side follows replicas; old
// ReplicaSets with pods are emptied once the stable side is available.
func TestDecideSteady(t *testing.T) {
	c := demo()
	c.Canary, c.Step = rollout.ReplicaSet{}, len(c.Steps)
	c.Params.Replicas = 12
	out, _ := Decide(c, t0)
	if diff := cmp.Diff([]Scale{{"web-v1", 10, 12}}, out.Scale); diff != "" {
		t.Errorf("scale (-want +got):\n%s", diff)
	}
	c.Params.Replicas = 10
	c.History = []rollout.ReplicaSet{{Name: "web-v0", Replicas: 1, StatusReplicas: 1}}
	out, _ = Decide(c, t0)
	if diff := cmp.Diff([]Scale{{"web-v0", 1, 0}}, out.Scale); diff != "" {
		t.Errorf("old replica set (-want +got):\n%s", diff)
	}
}

func TestDecideLeavesItsInputAlone(t *testing.T) {
	c := demo()
	c.History = []rollout.ReplicaSet{{Name: "web-v0"}}
	before := cloneRollout(c)
	for _, now := range []time.Time{t0, t0.Add(time.Hour + 3*time.Minute)} {
		if _, err := Decide(c, now); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, c); diff != "" {
			t.Fatalf("Decide changed its input (-before +after):\n%s", diff)
		}
	}
}

func cloneRollout(c Rollout) Rollout {
	c.Steps = append([]int32(nil), c.Steps...)
	c.History = append([]rollout.ReplicaSet(nil), c.History...)
	c.Status = *c.Status.DeepCopy()
	return c
}
