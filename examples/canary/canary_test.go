package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"

	"github.com/deploymath/deploymath/rollout"
)

// invariants checks one tick: the pods available never drop below
// minAvailable, the pods never exceed replicas + maxSurge.
func invariants(c Canary, t Tick) error {
	surge, _ := c.Params.Limits()
	var pods, available int32
	for _, rs := range t.Observed {
		pods += rs.StatusReplicas
		available += rs.AvailableReplicas
	}
	if available < c.Params.MinAvailable() {
		return fmt.Errorf("at %v: %d pods available < minAvailable %d", t.At, available, c.Params.MinAvailable())
	}
	if pods > c.Params.Replicas+surge {
		return fmt.Errorf("at %v: %d pods > replicas %d + maxSurge %d", t.At, pods, c.Params.Replicas, surge)
	}
	return nil
}

// runSteps runs c on cl for at most maxTicks, reporting every tick that
// breaks the invariants, and returns the end state and the steps seen, in
// order, each once.
func runSteps(cl *Cluster, c Canary, maxTicks int, report func(error)) (Canary, []int, error) {
	var steps []int
	end, err := Run(cl, c, maxTicks, func(tk Tick) {
		if err := invariants(c, tk); err != nil {
			report(err)
		}
		if len(steps) == 0 || steps[len(steps)-1] != tk.Step {
			steps = append(steps, tk.Step)
		}
	})
	return end, steps, err
}

func TestDemoCompletesEveryStep(t *testing.T) {
	cl, c := Demo()
	end, steps, err := runSteps(cl, c, 100, func(err error) { t.Error(err) })
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{0, 1, 2}, steps); diff != "" {
		t.Errorf("steps seen (-want +got):\n%s", diff)
	}
	if end.Step != len(end.Steps) || end.Stable.Name != "web-v2" || end.Canary.Name != "" {
		t.Errorf("end: step %d, stable %q, canary %q; want promoted web-v2", end.Step, end.Stable.Name, end.Canary.Name)
	}
	if got := cl.Get("web-v2"); got.Replicas != 10 || got.AvailableReplicas != 10 {
		t.Errorf("canary web-v2 = %d/%d, want 10/10", got.Replicas, got.AvailableReplicas)
	}
	if got := cl.Get("web-v1"); got.Replicas != 0 || got.StatusReplicas != 0 {
		t.Errorf("old stable web-v1 = %d (%d pods), want 0", got.Replicas, got.StatusReplicas)
	}
	if diff := cmp.Diff([]string{"web-v1", "web-v2"}, cl.Names()); diff != "" {
		t.Errorf("replica sets left (-want +got): %s", diff)
	}
	if cond := progressing(&end.Status); cond == nil || cond.Reason != rollout.NewRSAvailableReason {
		t.Errorf("Progressing = %+v, want %s", cond, rollout.NewRSAvailableReason)
	}
	if end.Status.UpdatedReplicas != 10 || end.Status.AvailableReplicas != 10 || end.Status.Replicas != 10 {
		t.Errorf("status = %+v, want 10 updated, available, in all", end.Status)
	}
}

func TestDemoOutput(t *testing.T) {
	var b bytes.Buffer
	if err := demo(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"step 1 reached (20%: canary 2, stable 8), on to 50%",
		"step 2 reached (50%: canary 5, stable 5), on to 100%",
		"promoted web-v2",
		"deleted old replica set web-v0",
		"done: web-v2 is stable with 10/10 available; replica sets left: [web-v1 web-v2]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("timeline lacks %q:\n%s", want, out)
		}
	}
}

// A canary whose pods never become available stops at its progress
// deadline, with the stable side still above minAvailable, and stays put.
func TestHaltsAtProgressDeadline(t *testing.T) {
	cl, c := Demo()
	cl.ReadyAfter = map[string]int{"web-v2": -1}
	var last Tick
	var halts, waits int
	end, err := Run(cl, c, 100, func(tk Tick) {
		if err := invariants(c, tk); err != nil {
			t.Error(err)
		}
		cond := progressing(&tk.Outcome.Status)
		switch {
		case tk.Outcome.Halted:
			halts++
			if len(tk.Outcome.Scale) != 0 {
				t.Errorf("at %v: halted but scaled %v", tk.At, tk.Outcome.Scale)
			}
		case len(tk.Outcome.Scale) == 0 && cond != nil:
			// Waiting: look again at the deadline (plus a second).
			waits++
			want := rollout.Requeue{After: cond.LastUpdateTime.Add(121 * time.Second).Sub(cl.Now)}
			if want.After < 2*time.Second {
				want = rollout.Requeue{RateLimited: true}
			}
			if got := tk.Outcome.Requeue; got != want {
				t.Errorf("at %v: requeue %+v, want %+v", tk.At, got, want)
			}
		}
		last = tk
	})
	if err != nil {
		t.Fatal(err)
	}
	if halts != 1 || waits == 0 {
		t.Errorf("halted %d times after %d waits, want once (Run stops then) after some", halts, waits)
	}
	cond := progressing(&end.Status)
	if cond == nil || cond.Reason != rollout.TimedOutReason {
		t.Fatalf("Progressing = %+v, want %s", cond, rollout.TimedOutReason)
	}
	if at := last.At; at <= 120*time.Second {
		t.Errorf("halted at %v, before the deadline", at)
	}
	if got := cl.Get("web-v2"); got.Replicas != 2 || got.AvailableReplicas != 0 {
		t.Errorf("canary = %d/%d, want 2/0", got.Replicas, got.AvailableReplicas)
	}
	if got := cl.Get("web-v1"); got.Replicas != 8 {
		t.Errorf("stable = %d, want 8 (minAvailable)", got.Replicas)
	}
	// Halted stays halted: another reconcile scales nothing.
	cl.Step()
	out, err := Reconcile(cl.Observe(end), cl.Now)
	if err != nil || len(out.Scale) != 0 || !out.Halted || len(out.Events) != 0 {
		t.Errorf("after the halt: %+v, %v; want halted, quiet", out, err)
	}
}

func TestReconcileLeavesItsInputAlone(t *testing.T) {
	cl, c := Demo()
	for range 25 {
		cl.Step()
		c = cl.Observe(c)
		before := cloneCanary(c)
		out, err := Reconcile(c, cl.Now)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, c); diff != "" {
			t.Fatalf("Reconcile changed its input (-before +after):\n%s", diff)
		}
		for _, s := range out.Scale {
			if err := cl.Scale(s.Name, s.To); err != nil {
				t.Fatal(err)
			}
		}
		c = c.Apply(out)
	}
}

func cloneCanary(c Canary) Canary {
	c.Steps = append([]int32(nil), c.Steps...)
	c.History = append([]rollout.ReplicaSet(nil), c.History...)
	c.Status = *c.Status.DeepCopy()
	return c
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Canary)
		want string
	}{
		{"no steps", func(c *Canary) { c.Steps = nil }, "steps: []: must end with 100"},
		{"last step not 100", func(c *Canary) { c.Steps = []int32{50} }, "steps: [50]: must end with 100"},
		{"steps not increasing", func(c *Canary) { c.Steps = []int32{50, 50, 100} }, "steps[1]: 50"},
		{"step of 0", func(c *Canary) { c.Steps = []int32{0, 100} }, "steps[0]: 0"},
		{"step negative", func(c *Canary) { c.Step = -1 }, "step: -1: out of range"},
		{"step beyond promotion", func(c *Canary) { c.Step = len(c.Steps) + 1 }, "step: 4: out of range [0, 3]"},
		{"under way without a canary", func(c *Canary) { c.Canary = rollout.ReplicaSet{} }, "canary.name: required"},
	} {
		_, c := Demo()
		c = cloneCanary(c)
		tc.edit(&c)
		if _, err := Reconcile(c, time.Time{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	_, c := Demo()
	if err := c.Validate(); err != nil {
		t.Errorf("Demo's canary: %v", err)
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

// On random canaries (sizes, fenceposts, steps, how long pods take to
// become available) the loop completes every step, never drops below
// minAvailable and never runs more than replicas + maxSurge pods.
func TestLoopCompletesProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		replicas := rapid.Int32Range(1, 40).Draw(t, "replicas")
		var surge, unavailable intstr.IntOrString
		if rapid.Bool().Draw(t, "percent") {
			surge = intstr.FromString(fmt.Sprintf("%d%%", rapid.IntRange(0, 60).Draw(t, "surge%")))
			unavailable = intstr.FromString(fmt.Sprintf("%d%%", rapid.IntRange(0, 60).Draw(t, "unavailable%")))
		} else {
			surge = intstr.FromInt32(rapid.Int32Range(0, 5).Draw(t, "surge"))
			unavailable = intstr.FromInt32(rapid.Int32Range(0, 5).Draw(t, "unavailable"))
		}
		steps := rapid.SliceOfNDistinct(rapid.Int32Range(1, 99), 0, 4, rapid.ID[int32]).Draw(t, "steps")
		slices.Sort(steps)
		steps = append(steps, 100)
		deadline := int32(600)

		cl := &Cluster{Now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), Tick: 10 * time.Second,
			Default:    rapid.IntRange(0, 4).Draw(t, "readyAfter"),
			ReadyAfter: map[string]int{"new": rapid.IntRange(0, 4).Draw(t, "canaryReadyAfter")}}
		cl.Create("old", 1, replicas)
		cl.Now = cl.Now.Add(time.Minute)
		cl.Create("new", 2, 0)
		c := cl.Observe(Canary{
			Name: "w",
			Params: rollout.Params{Replicas: replicas, Strategy: appsv1.RollingUpdateDeploymentStrategyType,
				MaxSurge: &surge, MaxUnavailable: &unavailable, ProgressDeadlineSeconds: &deadline},
			Steps: steps, Stable: rollout.ReplicaSet{Name: "old"}, Canary: rollout.ReplicaSet{Name: "new"},
		})
		end, seen, err := runSteps(cl, c, 2000, func(err error) { t.Fatal(err) })
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range seen {
			if s != i {
				t.Fatalf("steps seen %v, want each of 0..%d in order", seen, len(steps))
			}
		}
		if end.Step != len(steps) || end.Stable.Name != "new" {
			t.Fatalf("ended at step %d with stable %q", end.Step, end.Stable.Name)
		}
		if n, o := cl.Get("new"), cl.Get("old"); n.AvailableReplicas != replicas || n.Replicas != replicas || o.Replicas != 0 || o.StatusReplicas != 0 {
			t.Fatalf("end: canary %d/%d, stable %d (%d pods)", n.Replicas, n.AvailableReplicas, o.Replicas, o.StatusReplicas)
		}
	})
}
