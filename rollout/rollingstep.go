package rollout

import (
	"errors"
	"fmt"
	"strings"
)

// Rolling is one RollingUpdate sync's sizing decision, as [RollingStep]
// composes it.
type Rolling struct {
	// NewRS is set when the new ReplicaSet changes size: then that is the
	// whole decision of this sync (upstream returns after the write).
	NewRS *Step
	// Sizing is the new ReplicaSet's sizing, when it was below Replicas.
	Sizing *Sizing
	// Budget is the old ReplicaSets' scale-down budget, when they were
	// looked at (the new ReplicaSet kept its size and an old one has a
	// size above 0).
	Budget *Budget
	// Cleanup and ScaleDown are the old ReplicaSets' steps, in the order to
	// write them (Step.Index is the position in the old list given). A
	// ReplicaSet may appear in both: write the second step after the first.
	Cleanup, ScaleDown Steps
}

// String explains the decision.
func (r Rolling) String() string {
	var parts []string
	if r.Sizing != nil {
		parts = append(parts, "new replica set: "+r.Sizing.String())
	}
	if r.NewRS != nil {
		parts = append(parts, fmt.Sprintf("scale %s %d->%d", r.NewRS.Name, r.NewRS.From, r.NewRS.To))
	}
	if r.Budget != nil {
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
// old holds every old ReplicaSet, in any order. Errors are those of the
// blocks (negative sizes, [ErrOverflow]). A [CleanupUnhealthy] error
// leaves the steps before it, as upstream writes them before it stops.
//
// At int32 overflow the result is still upstream's, with an error wrapping
// [ErrOverflow] alongside: when Replicas + maxSurge or the sizes' sum
// wrap, NewRS holds the wrapped size upstream writes (a negative one the
// API server refuses, and the sync stops there), or, when the wrapped
// arithmetic leaves the new ReplicaSet's size alone, the old ReplicaSets'
// steps upstream then writes. When the old ReplicaSets' sizes add up to 0
// in int32, nothing is scaled down (see [MaxScaledDown]).
func RollingStep(p Params, newRS ReplicaSet, old []ReplicaSet) (Rolling, error) {
	var r Rolling
	if err := checkParams(p); err != nil {
		return r, err
	}
	if err := checkReplicaSets("old", old); err != nil {
		return r, err
	}
	if newRS.Replicas < 0 {
		return r, fmt.Errorf("newRS (%s): replicas: invalid value %d: must be greater than or equal to 0", newRS.Name, newRS.Replicas)
	}
	var all sum32
	for i := range old {
		all.add(old[i].Replicas)
	}
	all.add(newRS.Replicas)
	surge, unavailable := p.Limits()
	var sizeErr error // an overflow in the new ReplicaSet's size, reported at the end
	switch {
	case newRS.Replicas > p.Replicas:
		r.NewRS = &Step{Index: -1, Name: newRS.Name, From: newRS.Replicas, To: p.Replicas}
		return r, nil
	case newRS.Replicas < p.Replicas:
		s, overflow := newRSSize(p, surge, all, newRS.Replicas)
		r.Sizing = &s
		if overflow {
			sizeErr = fmt.Errorf("new replica set size: replicas %d + maxSurge %d against a total of %d: %w", s.Replicas, s.MaxSurge, s.Total, ErrOverflow)
		}
		if s.Size != newRS.Replicas {
			r.NewRS = &Step{Index: -1, Name: newRS.Name, From: newRS.Replicas, To: s.Size}
			return r, sizeErr
		}
	}
	var active []ReplicaSet
	var at []int
	for i := range old {
		if old[i].Replicas > 0 {
			active = append(active, old[i])
			at = append(at, i)
		}
	}
	if len(active) == 0 {
		return r, sizeErr
	}
	d, err := decideOld(p.Replicas-unavailable, all, newRS, active)
	r.Budget, r.Cleanup, r.ScaleDown = &d.budget, d.cleanup, d.down
	for _, steps := range []*Steps{&r.Cleanup, &r.ScaleDown} {
		for k := range steps.Steps {
			steps.Steps[k].Index = at[steps.Steps[k].Index]
		}
	}
	return r, errors.Join(sizeErr, err)
}

// oldDecision is reconcileOldReplicaSets' arithmetic.
type oldDecision struct {
	budget                            Budget
	cleanup, down                     Steps
	budgetOverflow, availableOverflow bool
	// cleanupStopped, downStopped: that block stopped with an error after
	// the steps it returned (upstream writes those, then gives up).
	cleanupStopped, downStopped bool
}

// decideOld computes the old ReplicaSets' steps. active are the old
// ReplicaSets with a size above 0; their sizes are updated to what the
// cleanup leaves (the caller's own list).
func decideOld(minAvailable int32, all sum32, newRS ReplicaSet, active []ReplicaSet) (oldDecision, error) {
	var d oldDecision
	d.budget, d.budgetOverflow = budget(minAvailable, all, newRS)
	if d.budget.MaxScaledDown <= 0 {
		return d, overflowErr(d.budgetOverflow, "scale-down budget")
	}
	var err error
	d.cleanup, err = CleanupUnhealthy(active, d.budget.MaxScaledDown)
	for _, st := range d.cleanup.Steps {
		active[st.Index].Replicas = st.To
	}
	if err != nil {
		d.cleanupStopped = true
		return d, err
	}
	var available sum32
	for i := range active {
		available.add(active[i].AvailableReplicas)
	}
	available.add(newRS.AvailableReplicas)
	d.availableOverflow = available.overflow
	d.down, err = scaleDownOld(minAvailable, available, active)
	if err != nil {
		d.downStopped = true
		return d, err
	}
	return d, overflowErr(d.budgetOverflow || d.availableOverflow, "old replica sets' scale-down")
}

func overflowErr(overflow bool, what string) error {
	if overflow {
		return fmt.Errorf("%s: %w", what, ErrOverflow)
	}
	return nil
}
