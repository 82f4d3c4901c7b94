package rollout

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
)

// ActiveOrLatest picks the ReplicaSet a scaling event simply resizes
// (upstream's FindActiveOrLatest): the only one with a size above 0; when
// none has one, the new ReplicaSet, else the newest; when several have one,
// none (−1: proportional scaling decides). newRS is the new ReplicaSet's
// position in all, −1 without one. For example sizes 0, 3, 0: the second.
func ActiveOrLatest(all []ReplicaSet, newRS int) int {
	if len(all) == 0 {
		return -1
	}
	active, only := 0, -1
	for i := range all {
		if all[i].Replicas > 0 {
			active++
			only = i
		}
	}
	switch active {
	case 0:
		if newRS >= 0 {
			return newRS
		}
		newest := -1
		for i := range all {
			if newest < 0 || compareCreated(&all[i], &all[newest]) > 0 {
				newest = i
			}
		}
		return newest
	case 1:
		return only
	}
	return -1
}

// IsSaturated reports whether the new ReplicaSet has, wants and runs all
// Replicas (upstream's IsSaturated): size, desired-replicas annotation (as
// [ReplicaSetOf] reads it, the way upstream's IsSaturated does) and
// available pods all equal to Replicas. Then a scaling event simply scales
// the old ReplicaSets to 0.
func IsSaturated(p *Params, newRS *ReplicaSet) bool {
	if p == nil || newRS == nil {
		return false
	}
	r := p.Replicas
	return newRS.DesiredReplicas != nil && newRS.Replicas == r && *newRS.DesiredReplicas == r && newRS.AvailableReplicas == r
}

// isScalingEvent reports whether an active ReplicaSet records a desired
// size different from spec.replicas. Like upstream it syncs the new
// ReplicaSet's revision on the way, which may write.
func (p *planner) isScalingEvent() (bool, error) {
	newRS, err := p.syncNewReplicaSet()
	if err != nil {
		return false, err
	}
	differs := func(rs *appsv1.ReplicaSet) bool {
		if rs == nil || *rs.Spec.Replicas == 0 {
			return false
		}
		desired, ok := p.desiredReplicas(rs)
		return ok && desired != *p.d.Spec.Replicas
	}
	for _, rs := range p.rsList {
		if isOld(rs, newRS) && differs(rs) {
			return true, nil
		}
	}
	return differs(newRS), nil
}

// scale handles scaling events (and paused Deployments): one active
// ReplicaSet takes spec.replicas ([ActiveOrLatest]); a saturated new
// ReplicaSet drops the old ones ([IsSaturated]); otherwise a RollingUpdate
// spreads the difference ([Proportions]). Like upstream it leaves oldRSs
// sorted newest first (upstream's look-up sorts the caller's list, and the
// cleanup after it sees that order).
func (p *planner) scale(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) error {
	d := p.d
	replicas := *d.Spec.Replicas
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	slices.SortFunc(oldRSs, func(a, b *appsv1.ReplicaSet) int { return compareByCreation(b, a) })
	all := p.w.appendRS(oldRSs, newRS)
	if newRS == nil {
		all = all[:len(all)-1]
	}
	var buf [8]ReplicaSet
	vals := countsOf(buf[:0], all)
	newIdx := -1
	if newRS != nil {
		newIdx = len(vals) - 1
	}
	if i := ActiveOrLatest(vals, newIdx); i >= 0 {
		rs := all[i]
		if *rs.Spec.Replicas == replicas {
			return nil
		}
		_, _, err := p.scaleAndRecord(rs, replicas, fmt.Sprintf("scaling event: %s is the only active replica set and takes spec.replicas %d", rs.Name, replicas))
		return err
	}
	if newRS != nil && p.saturated(newRS) {
		for _, rs := range p.w.filterActive(oldRSs) {
			if _, _, err := p.scaleAndRecord(rs, 0, fmt.Sprintf("the new replica set %s is saturated (%d wanted, %d available)", newRS.Name, replicas, newRS.Status.AvailableReplicas)); err != nil {
				return err
			}
		}
		return nil
	}
	if d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType {
		return nil
	}
	active := p.w.filterActive(all)
	var vbuf [8]ReplicaSet
	props, _ := proportions(&p.params, p.maxSurge(), d.Status.Replicas, valuesOf(vbuf[:0], active), p.w.opts.FixProportionOverflow, nil)
	for _, s := range props.Shares {
		why := ""
		if !p.w.opts.Quiet {
			why = "proportional scaling: " + props.Head() + "; " + s.String()
		}
		if _, _, err := p.scaleReplicaSet(active[s.Index], s.To, why); err != nil {
			return err
		}
	}
	return nil
}

// saturationView is rs for [IsSaturated]: its counts and its
// desired-replicas annotation as ReplicaSetOf reads it.
// saturated is [IsSaturated] for the planner's new ReplicaSet.
func (p *planner) saturated(newRS *appsv1.ReplicaSet) bool {
	v := saturationView(newRS)
	return IsSaturated(&p.params, &v)
}

func saturationView(rs *appsv1.ReplicaSet) ReplicaSet {
	var v ReplicaSet
	countsInto(&v, rs)
	if n, ok := saturationDesired(rs); ok {
		v.DesiredReplicas = &n
	}
	return v
}
