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

// Rollout is a canary's rollout as the decision sees it: plain values,
// read from a [Canary] and its ReplicaSets by the [Controller].
type Rollout struct {
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

	// Step is the position in Steps being rolled out; len(Steps) when no
	// rollout is under way.
	Step int
	// Status holds the counts and the Progressing condition, in the shape
	// the progress blocks read.
	Status appsv1.DeploymentStatus
}

// Outcome is one reconcile's decision. The caller writes Scale and Delete
// to the cluster, in order, then the new step and status (and, on
// promotion, the canary as the stable ReplicaSet).
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
	Events []Event
}

// Event is a Kubernetes Event the decision records about the Canary.
type Event struct {
	// Type is Normal or Warning.
	Type, Reason, Message string
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
func (c Rollout) Validate() error {
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

// Decide decides the next writes for c at now. It never changes c.
func Decide(c Rollout, now time.Time) (Outcome, error) { return decide(c, now, nil) }

// decide is Decide; seen, when set, is how step 3 sees the canary (a
// test plants a bug with it).
func decide(c Rollout, now time.Time, seen func(rollout.ReplicaSet) rollout.ReplicaSet) (Outcome, error) {
	if err := c.Validate(); err != nil {
		return Outcome{}, err
	}
	out := Outcome{Step: c.Step}
	if c.Step < len(c.Steps) {
		if err := c.rollOut(now, &out, seen); err != nil {
			return Outcome{}, err
		}
	} else if err := c.steady(&out); err != nil {
		return Outcome{}, err
	}
	return out, c.status(now, &out)
}

// steady is a reconcile without a rollout under way: the stable
// ReplicaSet follows a change of replicas; once all its pods are
// available, an old ReplicaSet that still has pods is scaled to 0, and
// the empty ones beyond revisionHistoryLimit are deleted.
func (c Rollout) steady(out *Outcome) error {
	s, p := c.Stable, c.Params
	if s.Replicas != p.Replicas {
		out.scale(s.Name, s.Replicas, p.Replicas, fmt.Sprintf("replicas %d", p.Replicas))
		return nil
	}
	if s.AvailableReplicas < p.Replicas {
		return nil
	}
	for _, h := range c.History {
		if h.Replicas > 0 {
			out.scale(h.Name, h.Replicas, 0, "an old replica set outside a rollout")
			return nil
		}
	}
	return c.cleanup(c.History, out)
}

// rollOut is steps 1–4 of the rule.
func (c Rollout) rollOut(now time.Time, out *Outcome, seen func(rollout.ReplicaSet) rollout.ReplicaSet) error {
	p := c.Params
	target := Target(c.Steps[c.Step], p.Replicas)
	stableTarget := p.Replicas - target
	all := []rollout.ReplicaSet{c.Stable, c.Canary}
	stable, canary := c.Stable, c.Canary

	if rollout.TimedOut(&p, &c.Status, now) {
		out.Halted = true
		return nil
	}

	// 2. Grow the canary within replicas + maxSurge, up to the target.
	if canary.Replicas < target {
		s, err := rollout.NewRSNewReplicas(&p, all, 1)
		if err != nil {
			return err
		}
		if to := min(s.Size, target); to != canary.Replicas {
			out.scale(canary.Name, canary.Replicas, to, fmt.Sprintf("%s; step target %d", s, target))
			return nil
		}
	}

	// 3. Shrink the stable ReplicaSet without breaking minAvailable.
	if seen != nil {
		canary = seen(canary)
		all = []rollout.ReplicaSet{stable, canary}
	}
	if stable.Replicas > stableTarget {
		b, err := rollout.MaxScaledDown(&p, all, 1)
		if err != nil {
			return err
		}
		if b.MaxScaledDown() > 0 {
			from := stable.Replicas
			old := []rollout.ReplicaSet{stable}
			cleaned, err := rollout.CleanupUnhealthy(nil, old, min(b.MaxScaledDown(), stable.Replicas-stableTarget))
			if err != nil {
				return err
			}
			for _, st := range cleaned.Steps {
				old[st.Index].Replicas = st.To
			}
			down, err := rollout.ScaleDownOld(nil, &p, old, &canary)
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
	canary = c.Canary
	reached := canary.Replicas == target && canary.AvailableReplicas == target &&
		stable.Replicas == stableTarget && stable.StatusReplicas == stableTarget
	if !reached {
		return nil
	}
	out.Step = c.Step + 1
	if out.Step < len(c.Steps) {
		out.event(corev1.EventTypeNormal, "StepReached", fmt.Sprintf("step %d reached (%d%%: canary %d, stable %d), on to %d%%",
			c.Step+1, c.Steps[c.Step], target, stableTarget, c.Steps[out.Step]))
		return nil
	}
	out.Promote = true
	out.event(corev1.EventTypeNormal, "Promoted", fmt.Sprintf("promoted %s: it is the stable replica set now", canary.Name))
	return c.cleanup(append(slices.Clone(c.History), stable), out)
}

// cleanup deletes the empty old ReplicaSets beyond revisionHistoryLimit
// ([rollout.HistoryToDelete]), history oldest first.
func (c Rollout) cleanup(history []rollout.ReplicaSet, out *Outcome) error {
	h, err := rollout.HistoryToDelete(&c.Params, history)
	if err != nil {
		return err
	}
	for _, i := range h.Delete {
		out.Delete = append(out.Delete, history[i].Name)
		out.event(corev1.EventTypeNormal, "DeletedReplicaSet", fmt.Sprintf("deleted old replica set %s: %s", history[i].Name, h))
	}
	return nil
}

func (o *Outcome) event(typ, reason, msg string) {
	o.Events = append(o.Events, Event{Type: typ, Reason: reason, Message: msg})
}

func (o *Outcome) scale(name string, from, to int32, why string) {
	o.Scale = append(o.Scale, Scale{Name: name, From: from, To: to})
	dir := "up"
	if to < from {
		dir = "down"
	}
	o.event(corev1.EventTypeNormal, "ScalingReplicaSet", fmt.Sprintf("scaled %s %s from %d to %d: %s", dir, name, from, to, why))
}

// status is the end of every reconcile: counts, the Progressing condition,
// the requeue.
func (c Rollout) status(now time.Time, out *Outcome) error {
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
	complete := promoted && rollout.Complete(&p, 0, &s)
	switch {
	case complete:
		setProgressingIn(&s, corev1.ConditionTrue, rollout.NewRSAvailableReason, fmt.Sprintf("%s has successfully progressed", c.Name), now)
	case !out.Halted && (rollout.Progressing(&c.Status, &s) || out.Step != c.Step):
		setProgressingIn(&s, corev1.ConditionTrue, rollout.ReplicaSetUpdatedReason, fmt.Sprintf("%s is progressing at step %d", c.Name, out.Step+1), now)
	case out.Halted || rollout.TimedOut(&p, &s, now):
		// A halt sticks: progress after the deadline does not resume it.
		if cond := progressing(s.Conditions); cond == nil || cond.Reason != rollout.TimedOutReason {
			out.event(corev1.EventTypeWarning, rollout.TimedOutReason, fmt.Sprintf("progress deadline exceeded at step %d: rollout halted", c.Step+1))
		}
		setProgressingIn(&s, corev1.ConditionFalse, rollout.TimedOutReason, fmt.Sprintf("%s has timed out progressing", c.Name), now)
		out.Halted = true
	}
	out.Status = s
	if cond := progressing(s.Conditions); cond != nil && len(out.Scale) == 0 {
		out.Requeue = rollout.RequeueAfter(&p, complete, cond, now)
	}
	return nil
}

// progressing is the Progressing condition of conds, nil if none.
func progressing(conds []appsv1.DeploymentCondition) *appsv1.DeploymentCondition {
	for i := range conds {
		if conds[i].Type == appsv1.DeploymentProgressing {
			return &conds[i]
		}
	}
	return nil
}

// setProgressingIn replaces the Progressing condition of s (whose
// conditions are s's own), keeping its transition time when the status
// stays.
func setProgressingIn(s *appsv1.DeploymentStatus, status corev1.ConditionStatus, reason, msg string, now time.Time) {
	c := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: status, Reason: reason, Message: msg,
		LastUpdateTime: metav1.NewTime(now), LastTransitionTime: metav1.NewTime(now)}
	if cur := progressing(s.Conditions); cur != nil {
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
