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
	allRSs := appendRS(oldRSs, newRS)

	scaledUp, err := p.reconcileNewReplicaSet(allRSs, newRS)
	if err != nil {
		return err
	}
	if scaledUp {
		return p.syncRolloutStatus(allRSs, newRS)
	}
	scaledDown, err := p.reconcileOldReplicaSets(allRSs, filterActive(oldRSs), newRS)
	if err != nil {
		return err
	}
	if scaledDown {
		return p.syncRolloutStatus(allRSs, newRS)
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
// availability allows: unhealthy replicas first ([CleanupUnhealthy]), then
// healthy ones ([ScaleDownOld]), within [MaxScaledDown]. oldRSs must be the
// caller's own slice: written ReplicaSets replace their entries.
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
	minAvailable := *p.d.Spec.Replicas - p.maxUnavailable()
	b, overflow := budget(minAvailable, all, newVal)
	if overflow && !p.w.opts.Quiet {
		p.note("the ReplicaSets' sizes add up beyond an int32; upstream computes with the wrapped sums, and so do the numbers below")
	}
	if b.MaxScaledDown <= 0 {
		if !p.w.opts.Quiet {
			p.note("old replica sets stay: %s", b)
		}
		return false, nil
	}
	why := ""
	if !p.w.opts.Quiet {
		why = b.String()
	}

	var buf [8]ReplicaSet
	old := countsOf(buf[:0], oldRSs)
	cleaned, cerr := CleanupUnhealthy(old, b.MaxScaledDown)
	for _, st := range cleaned.Steps {
		reason := ""
		if !p.w.opts.Quiet {
			reason = fmt.Sprintf("remove %d unhealthy replicas (spec %d, available %d); %s", st.From-st.To, st.From, old[st.Index].AvailableReplicas, why)
		}
		_, updated, err := p.scaleAndRecord(oldRSs[st.Index], st.To, reason)
		if err != nil {
			// Upstream drops this error and reports "nothing scaled".
			return false, nil
		}
		oldRSs[st.Index] = updated
		old[st.Index].Replicas = st.To
	}
	if cerr != nil {
		return false, nil
	}

	// Upstream then counts the available pods of the active old
	// ReplicaSets and the new one only (not of old ones already at 0).
	var available sum32
	for i := range old {
		available.add(old[i].AvailableReplicas)
	}
	available.add(newRS.Status.AvailableReplicas)
	if available.overflow && !p.w.opts.Quiet {
		p.note("the available pods add up beyond an int32; upstream compares the wrapped sum with minAvailable")
	}
	down, derr := scaleDownOld(minAvailable, available, old)
	if len(down.Steps) == 0 && !p.w.opts.Quiet && down.Available <= down.MinAvailable {
		p.note("no healthy old replica can go: available %d <= minAvailable %d", down.Available, down.MinAvailable)
	}
	var scaled int32
	for _, st := range down.Steps {
		reason := ""
		if !p.w.opts.Quiet {
			reason = fmt.Sprintf("available %d > minAvailable %d, may remove %d", down.Available, down.MinAvailable, down.Limit-scaled)
		}
		if _, _, err := p.scaleAndRecord(oldRSs[st.Index], st.To, reason); err != nil {
			return false, nil
		}
		scaled += st.From - st.To
	}
	if derr != nil {
		return false, nil
	}
	return cleaned.Total+scaled > 0, nil
}
