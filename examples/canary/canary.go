// Command canary is a canary controller built on deploymath's rollout
// building blocks alone, without [rollout.Plan]: a workload of its own kind
// (a [Canary]: a stable and a canary ReplicaSet, rollout [rollout.Params]
// and weighted steps) and a pure [Reconcile] that decides, from the
// ReplicaSets' sizes and pod counts, what to write next. An in-memory
// cluster drives it through a whole rollout and prints the timeline; run it
// with `go run ./examples/canary`.
//
// # The reconcile rule
//
// A step of weight w (a percent) gives the canary the target size
// ceil(w × replicas / 100) and the stable ReplicaSet the rest. One reconcile
// does at most one kind of scaling and then returns, as the Deployment
// controller's RollingUpdate sync does:
//
//  1. Timed out ([rollout.TimedOut] on the status): halt. Nothing is scaled
//     any more; a person has to look at the canary.
//  2. Grow the canary: [rollout.NewRSNewReplicas] gives the room left under
//     replicas + maxSurge; the canary takes it, but never beyond the step's
//     target.
//  3. Shrink the stable ReplicaSet: [rollout.MaxScaledDown] is the budget
//     that does not count on the canary's unavailable pods; within it (and
//     never below the stable target) [rollout.CleanupUnhealthy] removes
//     unavailable stable pods, then [rollout.ScaleDownOld] removes
//     available ones as far as minAvailable allows.
//  4. Nothing to scale and the step is reached (the canary runs its target,
//     all available, no other stable pod left): go to the next step. After
//     the last one (100%, [rollout.Complete]) promote: the canary becomes
//     the stable ReplicaSet, the old stable one joins the history, and
//     [rollout.HistoryToDelete] picks the empty ones beyond
//     revisionHistoryLimit to delete.
//
// Every reconcile ends with the status: [rollout.Counts] over both
// ReplicaSets, and the Progressing condition refreshed when the counts made
// progress ([rollout.Progressing]), set to NewReplicaSetAvailable once
// promoted, to ProgressDeadlineExceeded when [rollout.TimedOut]; the
// outcome says when to look again ([rollout.RequeueAfter]).
package main

import (
	"errors"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploymath/deploymath/rollout"
)

// Canary is a workload rolled out in weighted steps. The controller owns
// Step, Status and History; the ReplicaSets' pod counts come from the
// cluster.
type Canary struct {
	Name string
	// Params are the rollout's parameters: replicas, maxSurge and
	// maxUnavailable, the progress deadline, revisionHistoryLimit.
	Params rollout.Params
	// Steps are the canary's weights in percent, increasing, the last 100.
	Steps []int32
	// Stable and Canary are the two ReplicaSets. Canary.Name is empty when
	// no rollout is under way.
	Stable, Canary rollout.ReplicaSet
	// History holds the old stable ReplicaSets, oldest first.
	History []rollout.ReplicaSet

	// Step is the position in Steps being rolled out; len(Steps) once
	// promoted.
	Step int
	// Status holds the counts and the Progressing condition, in the shape
	// the progress blocks read.
	Status appsv1.DeploymentStatus
}

// Outcome is one reconcile's decision. The caller writes Scale and Delete
// to the cluster, in order, then takes the Canary of [Canary.Apply].
type Outcome struct {
	// Scale are the ReplicaSet sizes to write.
	Scale []Scale
	// Delete are the history ReplicaSets to delete (names).
	Delete []string
	// Step is the step after this reconcile; Promote says the canary became
	// the stable ReplicaSet.
	Step    int
	Promote bool
	// Status is the new status; Halted says the rollout stopped at its
	// progress deadline.
	Status appsv1.DeploymentStatus
	Halted bool
	// Requeue says when to look again if nothing changes before.
	Requeue rollout.Requeue
	// Events explain the decision, in order.
	Events []string
}

// Scale is one ReplicaSet's new size.
type Scale struct {
	Name     string
	From, To int32
}

// Target is the canary's size at a step of weight percent: ceil(weight ×
// replicas / 100).
func Target(weight, replicas int32) int32 {
	return int32((int64(weight)*int64(replicas) + 99) / 100)
}

// Validate checks the parts of c the rollout arithmetic does not.
func (c Canary) Validate() error {
	var errs []error
	if len(c.Steps) == 0 || c.Steps[len(c.Steps)-1] != 100 {
		errs = append(errs, fmt.Errorf("steps: %v: must end with 100", c.Steps))
	}
	for i, w := range c.Steps {
		if w <= 0 || (i > 0 && w <= c.Steps[i-1]) {
			errs = append(errs, fmt.Errorf("steps[%d]: %d: must be above 0 and above the step before", i, w))
		}
	}
	if c.Step < 0 || c.Step > len(c.Steps) {
		errs = append(errs, fmt.Errorf("step: %d: out of range [0, %d]", c.Step, len(c.Steps)))
	}
	if c.Canary.Name == "" && c.Step < len(c.Steps) {
		errs = append(errs, fmt.Errorf("canary.name: required while a rollout is under way (step %d of %d)", c.Step, len(c.Steps)))
	}
	return errors.Join(errs...)
}

// Reconcile decides the next writes for c at now. It never changes c.
func Reconcile(c Canary, now time.Time) (Outcome, error) {
	if err := c.Validate(); err != nil {
		return Outcome{}, err
	}
	out := Outcome{Step: c.Step}
	if c.Step < len(c.Steps) {
		if err := c.rollOut(now, &out); err != nil {
			return Outcome{}, err
		}
	}
	return out, c.status(now, &out)
}

// rollOut is steps 1–4 of the rule.
func (c Canary) rollOut(now time.Time, out *Outcome) error {
	p := c.Params
	target := Target(c.Steps[c.Step], p.Replicas)
	stableTarget := p.Replicas - target
	all := []rollout.ReplicaSet{c.Stable, c.Canary}
	stable, canary := c.Stable, c.Canary

	if rollout.TimedOut(p, &c.Status, now) {
		out.Halted = true
		return nil
	}

	// 2. Grow the canary within replicas + maxSurge, up to the target.
	if canary.Replicas < target {
		s, err := rollout.NewRSNewReplicas(p, all, 1)
		if err != nil {
			return err
		}
		if to := min(s.Size, target); to != canary.Replicas {
			out.scale(canary.Name, canary.Replicas, to, fmt.Sprintf("%s; step target %d", s, target))
			return nil
		}
	}

	// 3. Shrink the stable ReplicaSet without breaking minAvailable.
	if stable.Replicas > stableTarget {
		b, err := rollout.MaxScaledDown(p, all, 1)
		if err != nil {
			return err
		}
		if b.MaxScaledDown > 0 {
			from := stable.Replicas
			old := []rollout.ReplicaSet{stable}
			cleaned, err := rollout.CleanupUnhealthy(old, min(b.MaxScaledDown, stable.Replicas-stableTarget))
			if err != nil {
				return err
			}
			for _, st := range cleaned.Steps {
				old[st.Index].Replicas = st.To
			}
			down, err := rollout.ScaleDownOld(p, old, canary)
			if err != nil {
				return err
			}
			to := old[0].Replicas
			for _, st := range down.Steps {
				to = max(st.To, stableTarget)
			}
			if to != from {
				out.scale(stable.Name, from, to, fmt.Sprintf("%s; unhealthy %d, healthy %d (available %d, minAvailable %d); step target %d",
					b, from-old[0].Replicas, old[0].Replicas-to, down.Available, down.MinAvailable, stableTarget))
				return nil
			}
		}
	}

	// 4. The step is reached: the canary runs its target, all available,
	// and no other stable pod is left.
	reached := canary.Replicas == target && canary.AvailableReplicas == target &&
		stable.Replicas == stableTarget && stable.StatusReplicas == stableTarget
	if !reached {
		return nil
	}
	out.Step = c.Step + 1
	if out.Step < len(c.Steps) {
		out.Events = append(out.Events, fmt.Sprintf("step %d reached (%d%%: canary %d, stable %d), on to %d%%",
			c.Step+1, c.Steps[c.Step], target, stableTarget, c.Steps[out.Step]))
		return nil
	}
	out.Promote = true
	out.Events = append(out.Events, fmt.Sprintf("promoted %s: it is the stable replica set now", canary.Name))
	h, err := rollout.HistoryToDelete(p, append(slices.Clone(c.History), stable))
	if err != nil {
		return err
	}
	history := append(slices.Clone(c.History), stable)
	for _, i := range h.Delete {
		out.Delete = append(out.Delete, history[i].Name)
		out.Events = append(out.Events, fmt.Sprintf("deleted old replica set %s: %s", history[i].Name, h))
	}
	return nil
}

func (o *Outcome) scale(name string, from, to int32, why string) {
	o.Scale = append(o.Scale, Scale{Name: name, From: from, To: to})
	dir := "up"
	if to < from {
		dir = "down"
	}
	o.Events = append(o.Events, fmt.Sprintf("scaled %s %s from %d to %d: %s", dir, name, from, to, why))
}

// status is the end of every reconcile: counts, the Progressing condition,
// the requeue.
func (c Canary) status(now time.Time, out *Outcome) error {
	p := c.Params
	// Updated pods are the canary's, or the stable ones once promoted.
	all, newRS := []rollout.ReplicaSet{c.Stable}, 0
	if c.Canary.Name != "" {
		all, newRS = append(all, c.Canary), 1
	}
	n, err := rollout.Counts(all, newRS)
	if err != nil {
		return err
	}
	s := appsv1.DeploymentStatus{
		Replicas: n.Replicas, UpdatedReplicas: n.UpdatedReplicas, ReadyReplicas: n.ReadyReplicas,
		AvailableReplicas: n.AvailableReplicas, UnavailableReplicas: n.UnavailableReplicas,
		Conditions: slices.Clone(c.Status.Conditions),
	}
	if n.Terminating {
		s.TerminatingReplicas = &n.TerminatingReplicas
	}
	promoted := out.Promote || c.Step == len(c.Steps)
	complete := promoted && rollout.Complete(p, 0, &s)
	switch {
	case complete:
		setProgressing(&s, corev1.ConditionTrue, rollout.NewRSAvailableReason, fmt.Sprintf("%s has successfully progressed", c.Name), now)
	case !out.Halted && (rollout.Progressing(&c.Status, &s) || out.Step != c.Step):
		setProgressing(&s, corev1.ConditionTrue, rollout.ReplicaSetUpdatedReason, fmt.Sprintf("%s is progressing at step %d", c.Name, out.Step+1), now)
	case out.Halted || rollout.TimedOut(p, &s, now):
		// A halt sticks: progress after the deadline does not resume it.
		if cond := progressing(&s); cond.Reason != rollout.TimedOutReason {
			out.Events = append(out.Events, fmt.Sprintf("progress deadline exceeded at step %d: rollout halted", c.Step+1))
		}
		setProgressing(&s, corev1.ConditionFalse, rollout.TimedOutReason, fmt.Sprintf("%s has timed out progressing", c.Name), now)
		out.Halted = true
	}
	out.Status = s
	if cond := progressing(&s); cond != nil && len(out.Scale) == 0 {
		out.Requeue = rollout.RequeueAfter(p, complete, cond, now)
	}
	return nil
}

// Apply returns c after o: the new step, status and, on promotion, the
// canary as the stable ReplicaSet. Sizes are the cluster's to report.
func (c Canary) Apply(o Outcome) Canary {
	c.Step, c.Status = o.Step, o.Status
	if o.Promote {
		history := append(slices.Clone(c.History), c.Stable)
		c.History = slices.DeleteFunc(history, func(rs rollout.ReplicaSet) bool { return slices.Contains(o.Delete, rs.Name) })
		c.Stable, c.Canary = c.Canary, rollout.ReplicaSet{}
	}
	return c
}

func progressing(s *appsv1.DeploymentStatus) *appsv1.DeploymentCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == appsv1.DeploymentProgressing {
			return &s.Conditions[i]
		}
	}
	return nil
}

// setProgressing replaces the Progressing condition of s (whose conditions
// are s's own), keeping its transition time when the status stays.
func setProgressing(s *appsv1.DeploymentStatus, status corev1.ConditionStatus, reason, msg string, now time.Time) {
	c := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: status, Reason: reason, Message: msg,
		LastUpdateTime: metav1.NewTime(now), LastTransitionTime: metav1.NewTime(now)}
	if cur := progressing(s); cur != nil {
		if cur.Status == status && cur.Reason == reason && reason != rollout.ReplicaSetUpdatedReason {
			return // nothing new: keep the times
		}
		if cur.Status == status {
			c.LastTransitionTime = cur.LastTransitionTime
		}
		*cur = c
		return
	}
	s.Conditions = append(s.Conditions, c)
}
