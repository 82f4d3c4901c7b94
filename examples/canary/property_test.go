package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim"
	"github.com/deploymath/deploymath/sim/simtest"
)

// The canary's property test: random canaries rolled from web:1 to web:2
// under every fault of simtest, checked by the invariants below.

// config is the property test's configuration; seen, when set, plants a
// bug in the controllers (see Controller.seen).
func config(seen func(rollout.ReplicaSet) rollout.ReplicaSet) simtest.Config {
	// An hour to settle: two rollouts of 20 pods, one pod at a time, each
	// up to 30s to start, 30s to become ready and 5s minReadySeconds,
	// take 45 minutes.
	faults := simtest.DefaultFaults()
	faults.Settle = time.Hour
	return simtest.Config{
		Faults:      &faults,
		Scheme:      NewScheme(),
		Controllers: func() []sim.Controller { return []sim.Controller{&Controller{seen: seen}} },
		Base:        drawCanary,
		Invariants:  invariants,
		Converged:   promoted,
		End:         haltsInTime,
	}
}

// drawCanary draws a Canary of web:1 (replicas, fenceposts, steps,
// minReadySeconds, a progress deadline above the faults' outages, a
// history limit), the apply of web:2 that starts its rollout and, in a
// third of the cases, the apply of web:3 later.
func drawCanary(t *rapid.T) *sim.Scenario {
	replicas := rapid.Int32Range(1, 20).Draw(t, "replicas")
	var surge, unavailable intstr.IntOrString
	if rapid.Bool().Draw(t, "percent") {
		surge = intstr.FromString(fmt.Sprintf("%d%%", rapid.IntRange(0, 60).Draw(t, "surge%")))
		unavailable = intstr.FromString(fmt.Sprintf("%d%%", rapid.IntRange(0, 60).Draw(t, "unavailable%")))
	} else {
		surge = intstr.FromInt32(rapid.Int32Range(0, 5).Draw(t, "surge"))
		unavailable = intstr.FromInt32(rapid.Int32Range(0, 5).Draw(t, "unavailable"))
	}
	steps := rapid.SliceOfNDistinct(rapid.Int32Range(1, 99), 0, 3, rapid.ID[int32]).Draw(t, "steps")
	slices.Sort(steps)
	steps = append(steps, 100)
	deadline := 10 * rapid.Int32Range(24, 60).Draw(t, "deadline/10s") // 4m to 10m: above an outage and its recovery
	limit := rapid.Int32Range(0, 2).Draw(t, "revisionHistoryLimit")
	k := &Canary{
		TypeMeta:   metav1.TypeMeta{APIVersion: GroupVersion.String(), Kind: "Canary"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: CanarySpec{
			Replicas: replicas, Steps: steps, MaxSurge: &surge, MaxUnavailable: &unavailable,
			MinReadySeconds:         rapid.Int32Range(0, 5).Draw(t, "minReadySeconds"),
			ProgressDeadlineSeconds: &deadline, RevisionHistoryLimit: &limit,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web:1"}}},
			},
		},
	}
	v2 := k.DeepCopy()
	v2.Spec.Template.Spec.Containers[0].Image = "web:2"
	at := time.Duration(rapid.IntRange(10, 180).Draw(t, "rolloutAt")) * time.Second
	off := false
	sc := sim.NewScenario("canary").
		WithCluster(sim.Cluster{DeploymentController: &off}).
		WithObject(k).
		WithApply(at, v2)
	if rapid.IntRange(0, 2).Draw(t, "web:3?") == 0 {
		// A newer version, during the rollout or after it.
		v3 := k.DeepCopy()
		v3.Spec.Template.Spec.Containers[0].Image = "web:3"
		sc.WithApply(at+time.Duration(rapid.IntRange(0, 300).Draw(t, "web:3At"))*time.Second, v3)
	}
	return sc
}

// canaryView is a Canary with its ReplicaSets, read from the API server.
type canaryView struct {
	k   Canary
	rss []*appsv1.ReplicaSet
}

func view(r sim.Reader) ([]canaryView, error) {
	var ks CanaryList
	if err := r.List(&ks); err != nil {
		return nil, err
	}
	var out []canaryView
	for _, k := range ks.Items {
		rss, err := ownedReplicaSets(r, &k)
		if err != nil {
			return nil, err
		}
		out = append(out, canaryView{k: k, rss: rss})
	}
	return out, nil
}

// invariants are the canary's invariants for one run. Each remembers what
// it saw of every Canary at its previous check.
func invariants() []sim.Invariant {
	return []sim.Invariant{
		{Name: "canary: availability", Check: availability()},
		{Name: "canary: surge", Check: surgeBound},
		{Name: "canary: steps in order", Check: stepsInOrder()},
		{Name: "canary: halt at the deadline", Check: haltAtDeadline()},
	}
}

// availability: the controller never takes the pods available within
// the ReplicaSets' sizes (Σ min(spec.replicas, available)) below
// minAvailable, or further below when a fault already did. A check that
// finds a ReplicaSet smaller than at the previous check compares the
// sum with the previous sizes and with the new ones, both over the
// current statuses, so that pods lost to a fault in between are not
// blamed on the controller.
func availability() func(sim.Reader) error {
	prev := map[string]map[string]int32{} // canary → replica set → size
	return func(r sim.Reader) error {
		vs, err := view(r)
		if err != nil {
			return err
		}
		for _, v := range vs {
			sizes := map[string]int32{}
			for _, rs := range v.rss {
				sizes[rs.Name] = *rs.Spec.Replicas
			}
			before := prev[v.k.Name]
			prev[v.k.Name] = sizes
			if before == nil {
				continue
			}
			var was, now int32
			shrunk := ""
			for _, rs := range v.rss {
				old, ok := before[rs.Name]
				if !ok {
					old = sizes[rs.Name]
				}
				if sizes[rs.Name] < old {
					shrunk = fmt.Sprintf("%s %d->%d", rs.Name, old, sizes[rs.Name])
				}
				was += min(old, rs.Status.AvailableReplicas)
				now += min(sizes[rs.Name], rs.Status.AvailableReplicas)
			}
			minAvailable := paramsOf(&v.k.Spec).MinAvailable()
			if shrunk != "" && now < min(minAvailable, was) {
				return fmt.Errorf("%s: scaling %s took the pods available within the sizes from %d to %d (minAvailable %d)", v.k.Name, shrunk, was, now, minAvailable)
			}
		}
		return nil
	}
}

// surgeBound: the ReplicaSets never ask for, and never run, more than
// replicas + maxSurge pods (the pods they run as their status counts
// them: the active ones, not terminating; listing the pods themselves
// after every write would be most of a run's time).
func surgeBound(r sim.Reader) error {
	vs, err := view(r)
	if err != nil {
		return err
	}
	for _, v := range vs {
		p := paramsOf(&v.k.Spec)
		surge, _ := p.Limits()
		var sizes, pods int32
		for _, rs := range v.rss {
			sizes += *rs.Spec.Replicas
			pods += rs.Status.Replicas
		}
		if limit := p.Replicas + surge; sizes > limit || pods > limit {
			return fmt.Errorf("%s: the replica sets ask for %d pods and run %d, above replicas %d + maxSurge %d", v.k.Name, sizes, pods, p.Replicas, surge)
		}
	}
	return nil
}

// stepsInOrder: a rollout goes through its steps one at a time, from the
// first; it moves on from a step only with the canary and the stable side
// at that step's sizes, and promotes only from the last one.
func stepsInOrder() func(sim.Reader) error {
	type at struct {
		canary string
		step   int32
	}
	prev := map[string]at{}
	return func(r sim.Reader) error {
		vs, err := view(r)
		if err != nil {
			return err
		}
		for _, v := range vs {
			st := v.k.Status
			cur := at{st.CanaryReplicaSet, st.Step}
			was, seen := prev[v.k.Name]
			prev[v.k.Name] = cur
			if !seen || cur == was {
				continue
			}
			steps := v.k.Spec.Steps
			n := int32(len(steps))
			switch {
			case was.canary == "" && cur.canary == "":
				// no rollout: the step means nothing
			case was.canary == "" && cur.canary != "":
				if cur.step != 0 {
					return fmt.Errorf("%s: rollout of %s started at step %d", v.k.Name, cur.canary, cur.step+1)
				}
			case was.canary != "" && cur.canary == "":
				if was.step != n-1 || st.StableReplicaSet != was.canary {
					return fmt.Errorf("%s: rollout of %s ended at step %d of %d with stable %s", v.k.Name, was.canary, was.step+1, n, st.StableReplicaSet)
				}
			case was.canary != cur.canary:
				return fmt.Errorf("%s: canary %s replaced by %s during its rollout", v.k.Name, was.canary, cur.canary)
			case cur.step != was.step+1:
				return fmt.Errorf("%s: from step %d to step %d", v.k.Name, was.step+1, cur.step+1)
			default:
				target := Target(steps[was.step], v.k.Spec.Replicas)
				c := find(v.rss, byName(cur.canary))
				s := find(v.rss, byName(st.StableReplicaSet))
				if c == nil || s == nil || *c.Spec.Replicas != target || *s.Spec.Replicas != v.k.Spec.Replicas-target {
					return fmt.Errorf("%s: on to step %d before reaching step %d's sizes (canary %d, stable %d)", v.k.Name, cur.step+1, was.step+1, target, v.k.Spec.Replicas-target)
				}
			}
		}
		return nil
	}
}

// haltAtDeadline: a rollout halts (Progressing=False,
// ProgressDeadlineExceeded) only once the deadline has passed since its
// last progress, and a halted rollout scales nothing.
func haltAtDeadline() func(sim.Reader) error {
	type state struct {
		lastProgress time.Time
		halted       bool
		sizes        map[string]int32
	}
	prev := map[string]*state{}
	return func(r sim.Reader) error {
		vs, err := view(r)
		if err != nil {
			return err
		}
		for _, v := range vs {
			s := prev[v.k.Name]
			if s == nil {
				s = &state{}
				prev[v.k.Name] = s
			}
			cond := progressing(v.k.Status.Conditions)
			if cond == nil {
				continue
			}
			sizes := map[string]int32{}
			for _, rs := range v.rss {
				sizes[rs.Name] = *rs.Spec.Replicas
			}
			switch {
			case cond.Reason == rollout.TimedOutReason && !s.halted:
				deadline := time.Duration(*paramsOf(&v.k.Spec).ProgressDeadlineSeconds) * time.Second
				if !cond.LastUpdateTime.Time.After(s.lastProgress.Add(deadline)) {
					return fmt.Errorf("%s: halted at %s, last progress %s, deadline %s", v.k.Name, cond.LastUpdateTime.Time.Sub(sim.Epoch), s.lastProgress.Sub(sim.Epoch), deadline)
				}
				s.halted, s.sizes = true, sizes
			case cond.Reason == rollout.TimedOutReason:
				for name, n := range sizes {
					if n != s.sizes[name] {
						return fmt.Errorf("%s: halted, yet %s went from %d to %d", v.k.Name, name, s.sizes[name], n)
					}
				}
			default:
				s.halted, s.lastProgress = false, cond.LastUpdateTime.Time
			}
		}
		return nil
	}
}

// promoted is the convergence of a run whose faults heal: web:2's
// ReplicaSet is the stable one with every pod available, no rollout is
// under way, the other ReplicaSets are empty.
func promoted(r sim.Reader) error {
	vs, err := view(r)
	if err != nil {
		return err
	}
	for _, v := range vs {
		k, st := &v.k, &v.k.Status
		hash := hashing.PodTemplateHash(&k.Spec.Template, nil)
		cond := progressing(st.Conditions)
		if st.CanaryReplicaSet != "" || st.StableReplicaSet != k.Name+"-"+hash || cond == nil || cond.Reason != rollout.NewRSAvailableReason {
			return fmt.Errorf("%s: not promoted: %s", k.Name, k.DescribeStatus())
		}
		for _, rs := range v.rss {
			want := int32(0)
			if rs.Name == st.StableReplicaSet {
				want = k.Spec.Replicas
			}
			if *rs.Spec.Replicas != want || rs.Status.Replicas != want || rs.Status.AvailableReplicas != want {
				return fmt.Errorf("%s: replica set %s: size %d, %d pods, %d available; want %d", k.Name, rs.Name, *rs.Spec.Replicas, rs.Status.Replicas, rs.Status.AvailableReplicas, want)
			}
		}
	}
	return nil
}

// haltsInTime is checked at the end of every run: a rollout still under
// way whose progress deadline has passed since its last progress has
// halted (a few seconds allowed for the requeue and its retries); and
// when every pod of the last version applied fails (a failure rule of
// probability 1), that version is never promoted.
func haltsInTime(r sim.Reader, c *simtest.Case) error {
	last := "web:2"
	for _, st := range c.Scenario.Steps {
		if strings.Contains(string(st.Apply), `"web:3"`) {
			last = "web:3"
		}
	}
	broken := false
	for _, f := range c.Scenario.Cluster.Failures {
		broken = broken || f.Image == last && (f.Probability == nil || *f.Probability == 1)
	}
	vs, err := view(r)
	if err != nil {
		return err
	}
	end := sim.Epoch.Add(c.Result.Summary.End)
	for _, v := range vs {
		k := &v.k
		if broken && k.Status.StableReplicaSet == k.Name+"-"+hashing.PodTemplateHash(&k.Spec.Template, nil) {
			return fmt.Errorf("%s: every pod of %s fails, yet it was promoted: %s", k.Name, last, k.DescribeStatus())
		}
		cond := progressing(k.Status.Conditions)
		if k.Status.CanaryReplicaSet == "" || cond == nil || cond.Reason == rollout.TimedOutReason {
			continue
		}
		deadline := time.Duration(*paramsOf(&k.Spec).ProgressDeadlineSeconds) * time.Second
		if due := cond.LastUpdateTime.Add(deadline + 10*time.Second); !end.Before(due) {
			return fmt.Errorf("%s: the deadline (%s) has passed since the last progress at %s, yet the rollout is not halted: %s",
				k.Name, deadline, cond.LastUpdateTime.Sub(sim.Epoch), k.DescribeStatus())
		}
	}
	return nil
}

// TestProperty checks the canary controller over random canaries and
// faults (go test -run TestProperty -rapid.checks=2000 for the full run).
func TestProperty(t *testing.T) {
	simtest.Check(t, config(nil))
}
