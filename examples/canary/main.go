package main

import (
	"fmt"
	"io"
	"os"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/deploymath/deploymath/rollout"
)

func main() {
	if err := demo(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "canary:", err)
		os.Exit(1)
	}
}

// Tick is what one tick of [Run] saw and decided.
type Tick struct {
	// At is the time since the start; Step the step being rolled out
	// (len(Steps) once promoted).
	At   time.Duration
	Step int
	// Stable and Canary are the ReplicaSets as observed, before the writes.
	Stable, Canary rollout.ReplicaSet
	// Observed is every ReplicaSet of the cluster as observed.
	Observed []rollout.ReplicaSet
	Outcome  Outcome
}

// Run reconciles c against cl once a tick until the rollout is complete,
// it halts, or maxTicks pass; it calls observe after every tick and
// returns the canary as it ends.
func Run(cl *Cluster, c Canary, maxTicks int, observe func(Tick)) (Canary, error) {
	start := cl.Now
	for range maxTicks {
		cl.Step()
		c = cl.Observe(c)
		var observed []rollout.ReplicaSet
		for _, name := range cl.Names() {
			observed = append(observed, cl.Get(name))
		}
		out, err := Reconcile(c, cl.Now)
		if err != nil {
			return c, err
		}
		for _, s := range out.Scale {
			if err := cl.Scale(s.Name, s.To); err != nil {
				return c, err
			}
		}
		for _, name := range out.Delete {
			if err := cl.Delete(name); err != nil {
				return c, err
			}
		}
		observe(Tick{At: cl.Now.Sub(start), Step: c.Step, Stable: c.Stable, Canary: c.Canary, Observed: observed, Outcome: out})
		c = c.Apply(out)
		if cond := progressing(&c.Status); cond != nil && cond.Reason == rollout.NewRSAvailableReason || out.Halted && len(out.Scale) == 0 {
			return c, nil
		}
	}
	return c, fmt.Errorf("not done after %d ticks", maxTicks)
}

// Describe renders a tick as one line of the timeline, with one line per
// event below it.
func (t Tick) Describe(c Canary) string {
	step := "promoted"
	if t.Step < len(c.Steps) {
		step = fmt.Sprintf("step %d/%d %3d%%", t.Step+1, len(c.Steps), c.Steps[t.Step])
	}
	line := fmt.Sprintf("%6v  %-15s  stable %s  canary %s", t.At, step, describeRS(t.Stable), describeRS(t.Canary))
	for _, e := range t.Outcome.Events {
		line += "\n          " + e
	}
	return line
}

// describeRS is "name size/available".
func describeRS(rs rollout.ReplicaSet) string {
	if rs.Name == "" {
		return "-"
	}
	return fmt.Sprintf("%s %2d/%-2d", rs.Name, rs.Replicas, rs.AvailableReplicas)
}

// Demo is the demo's canary: 10 replicas, maxSurge and maxUnavailable
// 25% (3 and 2), steps 20%, 50%, 100%, a two-minute progress deadline and
// one old ReplicaSet kept; web-v1 is stable, web-v2 the canary, web-v0 an
// empty one from before. It returns the cluster too, all pods of web-v1
// available; new pods become available two ticks (20 s) after they start.
func Demo() (*Cluster, Canary) {
	surge, unavailable := intstr.FromString("25%"), intstr.FromString("25%")
	deadline, limit := int32(120), int32(1)
	cl := &Cluster{Now: time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC), Tick: 10 * time.Second, Default: 2}
	cl.Create("web-v0", 1, 0)
	cl.Now = cl.Now.Add(time.Hour)
	cl.Create("web-v1", 2, 10)
	cl.Now = cl.Now.Add(time.Hour)
	cl.Create("web-v2", 3, 0)
	c := Canary{
		Name: "web",
		Params: rollout.Params{Replicas: 10, Strategy: appsv1.RollingUpdateDeploymentStrategyType,
			MaxSurge: &surge, MaxUnavailable: &unavailable, ProgressDeadlineSeconds: &deadline, RevisionHistoryLimit: &limit},
		Steps:   []int32{20, 50, 100},
		Stable:  rollout.ReplicaSet{Name: "web-v1"},
		Canary:  rollout.ReplicaSet{Name: "web-v2"},
		History: []rollout.ReplicaSet{{Name: "web-v0"}},
	}
	return cl, cl.Observe(c)
}

func demo(w io.Writer) error {
	cl, c := Demo()
	surge, unavailable := c.Params.Limits()
	fmt.Fprintf(w, "canary %s: %d replicas, maxSurge %d, maxUnavailable %d (minAvailable %d), steps %v%%\n",
		c.Name, c.Params.Replicas, surge, unavailable, c.Params.MinAvailable(), c.Steps)
	fmt.Fprintln(w, "  time  step             stable (size/available)  canary")
	end, err := Run(cl, c, 100, func(t Tick) {
		if len(t.Outcome.Events) > 0 {
			fmt.Fprintln(w, t.Describe(c))
		}
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "done: %s is stable with %d/%d available; replica sets left: %v\n",
		end.Stable.Name, end.Stable.AvailableReplicas, end.Params.Replicas, cl.Names())
	return nil
}
