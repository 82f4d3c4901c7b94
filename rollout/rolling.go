package rollout

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// rolloutRolling is one sync of the RollingUpdate strategy: grow the new
// ReplicaSet, else shrink old ones, else clean up; then the status.
func (p *planner) rolloutRolling() error {
	newRS, oldRSs, err := p.getAllReplicaSetsAndSyncRevision(true)
	if err != nil {
		return err
	}
	allRSs := p.w.appendRS(oldRSs, newRS)

	scaledUp, err := p.reconcileNewReplicaSet(allRSs, newRS)
	if err != nil {
		return err
	}
	if scaledUp {
		return p.syncRolloutStatus(allRSs, newRS)
	}
	p.reach(resumeOld, newRS)
	return p.rollingOld(allRSs, oldRSs, newRS, true)
}

// rollingOld is rolloutRolling from reconcileOldReplicaSets on (from the
// cleanup when not reconcile: see resume).
func (p *planner) rollingOld(allRSs, oldRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, reconcile bool) error {
	if reconcile {
		scaledDown, err := p.reconcileOldReplicaSets(allRSs, p.w.filterActive(oldRSs), newRS)
		if err != nil {
			return err
		}
		if scaledDown {
			return p.syncRolloutStatus(allRSs, newRS)
		}
		p.reach(resumeCleanup, newRS)
	}
	if deploymentComplete(p.d, &p.d.Status) {
		if err := p.cleanupDeployment(oldRSs); err != nil {
			return err
		}
	}
	return p.syncRolloutStatus(allRSs, newRS)
}

func (p *planner) reconcileNewReplicaSet(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (bool, error) {
	replicas := *p.d.Spec.Replicas
	switch cur := *newRS.Spec.Replicas; {
	case cur == replicas:
		return false, nil
	case cur > replicas:
		scaled, _, err := p.scaleAndRecord(newRS, replicas, fmt.Sprintf("the new replica set is above spec.replicas %d", replicas))
		return scaled, err
	}
	n, why := p.newRSSize(allRSs, newRS)
	scaled, _, err := p.scaleAndRecord(newRS, n, why)
	return scaled, err
}

// reconcileOldReplicaSets scales old ReplicaSets down as far as
// availability allows: unhealthy replicas first, then healthy ones, within
// the budget (the decision is [RollingStep]'s). oldRSs must be the caller's
// own slice of the active old ReplicaSets: written ones replace their
// entries.
func (p *planner) reconcileOldReplicaSets(allRSs, oldRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (bool, error) {
	if sumSpec(oldRSs) == 0 {
		return false, nil
	}
	var all sum32
	for _, rs := range allRSs {
		if rs != nil {
			all.add(*rs.Spec.Replicas)
		}
	}
	var newVal ReplicaSet
	countsInto(&newVal, newRS)
	var buf [8]ReplicaSet
	old := countsOf(buf[:0], oldRSs)
	// The available pods are read before the cleanup changes the sizes
	// (the cleaned ReplicaSets report the same status).
	var d oldDecision
	var cleanup, down Steps
	_ = decideOld(&d, &cleanup, &down, *p.d.Spec.Replicas-p.maxUnavailable(), all, &newVal, old)
	quiet := p.w.opts.Quiet
	if d.budgetOverflow && !quiet {
		p.note("the ReplicaSets' sizes add up beyond an int32; upstream computes with the wrapped sums, and so do the numbers below")
	}
	b := d.budget
	if b.MaxScaledDown() <= 0 {
		if !quiet {
			p.note("old replica sets stay: %s", b)
		}
		return false, nil
	}
	for _, st := range cleanup.Steps {
		reason := ""
		if !quiet {
			reason = fmt.Sprintf("remove %d unhealthy replicas (spec %d, available %d); %s", st.From-st.To, st.From, old[st.Index].AvailableReplicas, b)
		}
		_, updated, err := p.scaleAndRecord(oldRSs[st.Index], st.To, reason)
		if err != nil {
			// Upstream drops this error and reports "nothing scaled".
			return false, nil
		}
		oldRSs[st.Index] = updated
	}
	if d.cleanupStopped {
		return false, nil
	}
	if d.availableOverflow && !quiet {
		p.note("the available pods add up beyond an int32; upstream compares the wrapped sum with minAvailable")
	}
	if len(down.Steps) == 0 && !quiet && down.Available <= down.MinAvailable {
		p.note("no healthy old replica can go: available %d <= minAvailable %d", down.Available, down.MinAvailable)
	}
	var scaled int32
	for _, st := range down.Steps {
		reason := ""
		if !quiet {
			reason = fmt.Sprintf("available %d > minAvailable %d, may remove %d", down.Available, down.MinAvailable, down.Limit-scaled)
		}
		if _, _, err := p.scaleAndRecord(oldRSs[st.Index], st.To, reason); err != nil {
			return false, nil
		}
		scaled += st.From - st.To
	}
	if d.downStopped {
		return false, nil
	}
	return cleanup.Total+scaled > 0, nil
}
