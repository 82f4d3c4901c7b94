package rollout

import (
	"fmt"
	"math"
	"time"

	appsv1 "k8s.io/api/apps/v1"
)

// StatusCounts are the pod counts of a rollout's status.
type StatusCounts struct {
	Replicas, UpdatedReplicas, ReadyReplicas, AvailableReplicas, UnavailableReplicas int32
	// TerminatingReplicas counts terminating pods; it is known (Terminating
	// true) unless a ReplicaSet whose controller has synced it does not
	// report the count (status.terminatingReplicas is then left unset).
	TerminatingReplicas int32
	Terminating         bool
}

// Counts sums the ReplicaSets' statuses as upstream's calculateStatus does:
// replicas, ready and available of all; updated = the new ReplicaSet's
// replicas (newRS is its position in all, or −1 when there is none);
// unavailable = sizes − available, at least 0; terminating summed as
// [StatusCounts] says, ReplicaSets never synced (observedGeneration 0, no
// count) left out. For example sizes 3 and 1 with 2 and 1 available, the
// second new: replicas 4, updated 1, available 3, unavailable 1.
//
// Sums are in int32 as upstream's; when an exact sum leaves the range the
// error wraps [ErrOverflow] (the API server refuses such a status) and the
// counts are upstream's wrapped ones.
func Counts(all []ReplicaSet, newRS int) (c StatusCounts, err error) {
	if newRS < -1 || newRS >= len(all) {
		return StatusCounts{}, fmt.Errorf("newRS: index %d out of range [-1, %d)", newRS, len(all))
	}
	var t tally
	for i := range all {
		rs := &all[i]
		t.add(rs.Replicas, rs.StatusReplicas, rs.ReadyReplicas, rs.AvailableReplicas, rs.TerminatingReplicas, rs.ObservedGeneration)
	}
	var updated int32
	if newRS >= 0 {
		updated = all[newRS].StatusReplicas
	}
	if t.result(&c, updated) {
		return c, fmt.Errorf("status counts: %w", ErrOverflow)
	}
	return c, nil
}

// tally sums the status counts of ReplicaSets, exactly (in int64); result
// gives them as upstream's int32 sums do.
type tally struct {
	spec, replicas, ready, available, terminating int64
	// unreported: a ReplicaSet whose controller has synced it reports no
	// terminating count.
	unreported bool
}

func (t *tally) add(spec, replicas, ready, available int32, terminating *int32, observed int64) {
	t.spec += int64(spec)
	t.replicas += int64(replicas)
	t.ready += int64(ready)
	t.available += int64(available)
	switch {
	case terminating != nil:
		t.terminating += int64(*terminating)
	case observed != 0:
		t.unreported = true
	}
	// (Never synced and no count: left out.)
}

// result writes the counts into c, updated being the new ReplicaSet's
// status.replicas, and reports whether a sum left the int32 range (its
// value is then upstream's wrapped one). Field by field, in place: a
// StatusCounts has more fields than the Go compiler keeps in registers,
// and copying one just built reads back stores the processor cannot yet
// forward.
func (t *tally) result(c *StatusCounts, updated int32) bool {
	replicas, ready, available, spec, terminating := fitSum(t.replicas), fitSum(t.ready), fitSum(t.available), fitSum(t.spec), fitSum(t.terminating)
	unavailable, o := sub32(spec.v, available.v)
	c.Replicas, c.UpdatedReplicas, c.ReadyReplicas, c.AvailableReplicas = replicas.v, updated, ready.v, available.v
	c.UnavailableReplicas = max(unavailable, 0)
	c.TerminatingReplicas, c.Terminating = 0, false
	if !t.unreported {
		c.TerminatingReplicas, c.Terminating = terminating.v, true
	}
	return replicas.overflow || ready.overflow || available.overflow || spec.overflow || o || terminating.overflow
}

// Complete reports whether a rollout is complete (upstream's
// DeploymentComplete): every one of Replicas pods updated and available,
// no other pod, and the generation observed. A nil s is not complete.
func Complete(p *Params, generation int64, s *appsv1.DeploymentStatus) bool {
	if p == nil || s == nil {
		return false
	}
	r := p.Replicas
	return s.UpdatedReplicas == r && s.Replicas == r && s.AvailableReplicas == r && s.ObservedGeneration >= generation
}

// Progressing reports whether a rollout made progress from the status it
// had (old) to the one it has now (upstream's DeploymentProgressing): more
// updated, ready or available pods, or fewer old ones. A nil status
// counts as the zero status (no pods).
func Progressing(old, now *appsv1.DeploymentStatus) bool {
	var zero appsv1.DeploymentStatus
	if old == nil {
		old = &zero
	}
	if now == nil {
		now = &zero
	}
	return now.UpdatedReplicas > old.UpdatedReplicas ||
		now.Replicas-now.UpdatedReplicas < old.Replicas-old.UpdatedReplicas ||
		now.ReadyReplicas > old.ReadyReplicas ||
		now.AvailableReplicas > old.AvailableReplicas
}

// TimedOut reports whether a rollout has exceeded its progress deadline at
// now (upstream's DeploymentTimedOut): s's Progressing condition was last
// updated more than ProgressDeadlineSeconds before now, or already says
// ProgressDeadlineExceeded; never while it records a completed rollout
// (NewReplicaSetAvailable), without a deadline, or without the condition.
// For example a deadline of 600 s and a condition last updated at 12:00:00
// times out from 12:10:00 and one nanosecond. A nil s has no condition.
func TimedOut(p *Params, s *appsv1.DeploymentStatus, now time.Time) bool {
	if p == nil || !p.HasProgressDeadline() || s == nil {
		return false
	}
	c := getCondition(*s, appsv1.DeploymentProgressing)
	if c == nil || c.Reason == NewRSAvailableReason {
		return false
	}
	if c.Reason == TimedOutReason {
		return true
	}
	return c.LastUpdateTime.Add(time.Duration(*p.ProgressDeadlineSeconds) * time.Second).Before(now)
}

// RequeueAfter is when to look at a rollout again that made no progress
// (upstream's requeueStuckDeployment): at the progress deadline counted
// from the Progressing condition's lastUpdateTime, plus a second against
// clock skew; rate-limited at once when less than a second is left. No
// requeue without a deadline or a Progressing condition, when complete,
// or when it has timed out already. For example a deadline of 600 s and a
// condition last updated 3 minutes ago: After 7m1s.
//
// progressing is the condition as the Deployment in hand holds it. When a
// sync has just set it, upstream still holds its time with the clock's
// full precision (the API server stores whole seconds): pass the condition
// with that time to get upstream's delay to the nanosecond.
func RequeueAfter(p *Params, complete bool, progressing *appsv1.DeploymentCondition, now time.Time) Requeue {
	if p == nil || !p.HasProgressDeadline() || progressing == nil || complete || progressing.Reason == TimedOutReason {
		return Requeue{}
	}
	after := progressing.LastUpdateTime.Add(time.Duration(*p.ProgressDeadlineSeconds) * time.Second).Sub(now)
	if after < time.Second {
		return Requeue{RateLimited: true}
	}
	// Sub saturates for instants centuries apart; so does the second added.
	return Requeue{After: min(after, math.MaxInt64-time.Second) + time.Second}
}
