package rollout

import (
	"errors"
	"fmt"
	"strings"

	"github.com/deploymath/deploymath/fencepost"
	appsv1 "k8s.io/api/apps/v1"
)

// Rolling is one RollingUpdate sync's sizing decision, as [RollingStep]
// composes it. Its parts are values, each with a flag saying whether the
// sync got that far, so that a decision costs no allocation.
type Rolling struct {
	// ScaleNew says the new ReplicaSet changes size, as NewRS says (Index
	// -1): then that is the whole decision of this sync (upstream returns
	// after the write).
	ScaleNew bool
	NewRS    Step
	// Sized says Sizing holds the new ReplicaSet's sizing (it was below
	// Replicas).
	Sized  bool
	Sizing Sizing
	// Budgeted says Budget holds the old ReplicaSets' scale-down budget
	// (the new ReplicaSet kept its size and an old one has a size above 0).
	Budgeted bool
	Budget   Budget
	// Cleanup and ScaleDown are the old ReplicaSets' steps, in the order to
	// write them (Step.Index is the position in the old list given). A
	// ReplicaSet may appear in both: write the second step after the first.
	Cleanup, ScaleDown Steps
}

// String explains the decision.
func (r Rolling) String() string {
	var parts []string
	if r.Sized {
		parts = append(parts, "new replica set: "+r.Sizing.String())
	}
	if r.ScaleNew {
		parts = append(parts, fmt.Sprintf("scale %s %d->%d", r.NewRS.Name, r.NewRS.From, r.NewRS.To))
	}
	if r.Budgeted {
		parts = append(parts, r.Budget.String())
	}
	if len(r.Cleanup.Steps) > 0 {
		parts = append(parts, "unhealthy first: "+r.Cleanup.String())
	}
	if len(r.ScaleDown.Steps) > 0 {
		parts = append(parts, "then: "+r.ScaleDown.String())
	}
	if len(parts) == 0 {
		return "nothing to scale"
	}
	return strings.Join(parts, "; ")
}

// RollingStep composes the blocks the way one RollingUpdate sync does
// (upstream's reconcileNewReplicaSet, then reconcileOldReplicaSets): a new
// ReplicaSet above Replicas goes down to it; one below grows by
// [NewRSNewReplicas]; if its size changes, that is all for this sync.
// Otherwise, when an old ReplicaSet has a size above 0, [MaxScaledDown]
// gives the budget, [CleanupUnhealthy] spends it on unavailable pods first
// and [ScaleDownOld] removes available ones down to minAvailable. For
// example 10 replicas, maxSurge 3, maxUnavailable 2, an old ReplicaSet of
// 10 (all available) and a new one of 3 (none available): the new one is
// at the surge limit, the budget is 2, and the old one goes 10→8.
//
// The decision goes into r, which is overwritten; the memory of its step
// lists is reused, so a controller that keeps one Rolling for its syncs
// allocates nothing once the lists have grown (copy the steps you keep).
// all holds every ReplicaSet of the rollout, in any order, and newRS is the
// new one's position in it, as for [NewRSNewReplicas]; every Step.Index
// is a position in all. p and all are only read. Errors are those of the
// blocks (a nil r or p, negative sizes, a position outside all,
// [ErrOverflow]). A [CleanupUnhealthy] error leaves the steps before it,
// as upstream writes them before it stops.
//
// At int32 overflow the result is still upstream's, with an error wrapping
// [ErrOverflow] alongside: when Replicas + maxSurge or the sizes' sum
// wrap, NewRS holds the wrapped size upstream writes (a negative one the
// API server refuses, and the sync stops there), or, when the wrapped
// arithmetic leaves the new ReplicaSet's size alone, the old ReplicaSets'
// steps upstream then writes. When the old ReplicaSets' sizes add up to 0
// in int32, nothing is scaled down (see [MaxScaledDown]).
func RollingStep(r *Rolling, p *Params, all []ReplicaSet, newRS int) error {
	if r == nil {
		return errors.New("rolling: must not be nil")
	}
	*r = Rolling{Cleanup: Steps{Steps: r.Cleanup.Steps[:0]}, ScaleDown: Steps{Steps: r.ScaleDown.Steps[:0]}}
	if p == nil || p.Replicas < 0 {
		return checkParams(p)
	}
	if uint(newRS) >= uint(len(all)) {
		return fmt.Errorf("newRS: index %d out of range [0, %d)", newRS, len(all))
	}
	// One pass: the sizes' exact total, and their sign bits together (a
	// negative size: the loop that names it).
	var total int64
	var sign int32
	for i := range all {
		n := all[i].Replicas
		total += int64(n)
		sign |= n
	}
	if sign < 0 {
		return checkReplicaSets("all", all)
	}
	nrs := &all[newRS]
	var sizeErr error // an overflow in the new ReplicaSet's size, reported at the end
	switch {
	case nrs.Replicas > p.Replicas:
		r.ScaleNew, r.NewRS = true, Step{Index: newRS, Name: nrs.Name, From: nrs.Replicas, To: p.Replicas}
		return nil
	case nrs.Replicas < p.Replicas:
		r.Sized = true
		var overflow bool
		if p.Strategy == appsv1.RecreateDeploymentStrategyType {
			overflow = newRSSize(&r.Sizing, p, 0, fitSum(total), nrs.Replicas)
		} else {
			// RollingUpdate, or another strategy (refused by the
			// caller's validation), sized as a RollingUpdate. Upstream
			// resolves maxSurge alone here, as NewRSNewReplicas does;
			// one that does not resolve gets what the rest of this
			// package resolves ([Params.Limits]).
			surge, err := fencepost.Scaled(p.MaxSurge, p.Replicas, true)
			if err != nil || p.Strategy != appsv1.RollingUpdateDeploymentStrategyType {
				surge, _ = p.Limits()
			}
			if !plainSizing(&r.Sizing, p, surge, total, nrs.Replicas) {
				overflow = newRSSize(&r.Sizing, p, surge, fitSum(total), nrs.Replicas)
			}
		}
		if overflow {
			sizeErr = fmt.Errorf("new replica set size: replicas %d + maxSurge %d against a total of %d: %w", r.Sizing.Replicas, r.Sizing.MaxSurge, r.Sizing.Total, ErrOverflow)
		}
		if r.Sizing.Size != nrs.Replicas {
			r.ScaleNew, r.NewRS = true, Step{Index: newRS, Name: nrs.Name, From: nrs.Replicas, To: r.Sizing.Size}
			return sizeErr
		}
	}
	if total == int64(nrs.Replicas) {
		return sizeErr // no old ReplicaSet has a size above 0
	}
	err := rollingOld(r, p, all, newRS, total)
	if sizeErr == nil {
		return err
	}
	return errors.Join(sizeErr, err)
}

// rollingOld is RollingStep's old side, into r: the budget and the old
// ReplicaSets' steps. total is the sizes' exact total. (A function of its
// own: its buffers are a kilobyte of stack that the new ReplicaSet's side
// does without.)
func rollingOld(r *Rolling, p *Params, all []ReplicaSet, newRS int, total int64) error {
	// The active old ReplicaSets, copied (decideOld updates their sizes),
	// and their positions in all: on the stack for a few.
	var abuf [8]ReplicaSet
	var ibuf [8]int
	active, at := abuf[:0], ibuf[:0]
	for i := range all {
		if i != newRS && all[i].Replicas > 0 {
			active = append(active, all[i])
			at = append(at, i)
		}
	}
	var d oldDecision
	err := decideOld(&d, &r.Cleanup, &r.ScaleDown, p.minAvailableRolling(), fitSum(total), &all[newRS], active)
	r.Budgeted, r.Budget = true, d.budget
	for k := range r.Cleanup.Steps {
		r.Cleanup.Steps[k].Index = at[r.Cleanup.Steps[k].Index]
	}
	for k := range r.ScaleDown.Steps {
		r.ScaleDown.Steps[k].Index = at[r.ScaleDown.Steps[k].Index]
	}
	return err
}

// oldDecision is reconcileOldReplicaSets' arithmetic but its steps, which
// [decideOld] writes in place.
type oldDecision struct {
	budget                            Budget
	budgetOverflow, availableOverflow bool
	// cleanupStopped, downStopped: that block stopped with an error after
	// the steps it returned (upstream writes those, then gives up).
	cleanupStopped, downStopped bool
}

// decideOld computes the old ReplicaSets' budget into d and their steps
// into cleanup and down (reusing their Steps memory). active are the old
// ReplicaSets with a size above 0; their sizes are updated to what the
// cleanup leaves (the caller's own list).
func decideOld(d *oldDecision, cleanup, down *Steps, minAvailable int32, all sum32, newRS *ReplicaSet, active []ReplicaSet) error {
	d.budget, d.budgetOverflow = budget(minAvailable, all, newRS)
	maxDown := d.budget.MaxScaledDown()
	if maxDown <= 0 {
		return overflowErr(d.budgetOverflow, "scale-down budget")
	}
	err := cleanupInto(cleanup, active, maxDown)
	for _, st := range cleanup.Steps {
		active[st.Index].Replicas = st.To
	}
	if err != nil {
		d.cleanupStopped = true
		return err
	}
	var available sum32
	for i := range active {
		available.add(active[i].AvailableReplicas)
	}
	available.add(newRS.AvailableReplicas)
	d.availableOverflow = available.overflow
	if err := scaleDownInto(down, minAvailable, available, active); err != nil {
		d.downStopped = true
		return err
	}
	return overflowErr(d.budgetOverflow || d.availableOverflow, "old replica sets' scale-down")
}

func overflowErr(overflow bool, what string) error {
	if overflow {
		return fmt.Errorf("%s: %w", what, ErrOverflow)
	}
	return nil
}
