package rollout

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/deploymath/deploymath/revision"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// scaleReplicaSet sets rs to size newScale and refreshes its
// desired-/max-replicas annotations; it writes only if one of them changes
// and records the ScalingReplicaSet event only if the size changed.
// The event says "up" or "down" by comparing the two sizes, as v1.37 does.
func (p *planner) scaleReplicaSet(rs *appsv1.ReplicaSet, newScale int32, why string) (bool, *appsv1.ReplicaSet, error) {
	d := p.d
	desired := *d.Spec.Replicas
	maxReplicas := desired + p.maxSurge()
	annotationsChange := revision.ReplicasAnnotationsNeedUpdate(rs.Annotations, desired, maxReplicas)
	sizeChange := *rs.Spec.Replicas != newScale
	if !sizeChange && !annotationsChange {
		return false, rs, nil
	}
	from := *rs.Spec.Replicas
	if !sizeChange {
		why = fmt.Sprintf("record desired-replicas %d and max-replicas %d", desired, maxReplicas)
	}
	updated, err := p.w.updateRS(rs, func(c *appsv1.ReplicaSet) {
		c.Spec.Replicas = &newScale
		if annotationsChange { // else the map stays shared: its content is what it would be
			c.Annotations, _ = revision.ReplicasAnnotations(c.Annotations, desired, maxReplicas)
		}
	}, func(c *appsv1.ReplicaSet) Action {
		return ScaleReplicaSet{ReplicaSet: c, From: from, To: newScale, Why: why}
	})
	if err != nil {
		return false, rs, err
	}
	if sizeChange {
		operation := "down"
		if from < newScale {
			operation = "up"
		}
		p.w.addEvent(Event{Type: corev1.EventTypeNormal, Reason: "ScalingReplicaSet",
			Message: "Scaled " + operation + " replica set " + updated.Name + " from " + strconv.Itoa(int(from)) + " to " + strconv.Itoa(int(newScale)),
			After:   len(p.w.res.Actions)})
	}
	return sizeChange, updated, nil
}

// scaleAndRecord scales rs to newScale if its size differs.
func (p *planner) scaleAndRecord(rs *appsv1.ReplicaSet, newScale int32, why string) (bool, *appsv1.ReplicaSet, error) {
	if *rs.Spec.Replicas == newScale {
		return false, rs, nil
	}
	return p.scaleReplicaSet(rs, newScale, why)
}

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
	n, why := newRSNewReplicas(p.d, allRSs, newRS, p.maxSurge(), p.w.opts.Quiet)
	scaled, _, err := p.scaleAndRecord(newRS, n, why)
	return scaled, err
}

// reconcileOldReplicaSets scales old ReplicaSets down as far as
// availability allows: unhealthy replicas first, then healthy ones. oldRSs
// must be the caller's own slice: it is reordered.
func (p *planner) reconcileOldReplicaSets(allRSs, oldRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (bool, error) {
	d := p.d
	if sumSpec(oldRSs) == 0 {
		return false, nil
	}
	allPods := sumSpec(allRSs)
	maxUnavailable := p.maxUnavailable()
	minAvailable := *d.Spec.Replicas - maxUnavailable
	newUnavailable := *newRS.Spec.Replicas - newRS.Status.AvailableReplicas
	maxScaledDown := allPods - minAvailable - newUnavailable
	if maxScaledDown <= 0 {
		if !p.w.opts.Quiet { // the arguments would be boxed even if note drops them
			p.note("old replica sets stay: maxScaledDown %d = all pods %d - minAvailable %d - unavailable new pods %d", maxScaledDown, allPods, minAvailable, newUnavailable)
		}
		return false, nil
	}
	budget := ""
	if !p.w.opts.Quiet {
		budget = fmt.Sprintf("maxScaledDown %d = all pods %d - minAvailable %d - unavailable new pods %d", maxScaledDown, allPods, minAvailable, newUnavailable)
	}

	oldRSs, cleaned, err := p.cleanupUnhealthyReplicas(oldRSs, maxScaledDown, budget)
	if err != nil {
		// Upstream drops this error and reports "nothing scaled".
		return false, nil
	}
	allRSs = appendRS(oldRSs, newRS)
	scaled, err := p.scaleDownOldReplicaSetsForRollingUpdate(allRSs, oldRSs, budget)
	if err != nil {
		return false, nil
	}
	return cleaned+scaled > 0, nil
}

// cleanupUnhealthyReplicas sorts oldRSs in place and replaces the ones it
// scales: the caller hands over a slice of its own (filterActive's).
func (p *planner) cleanupUnhealthyReplicas(oldRSs []*appsv1.ReplicaSet, maxCleanup int32, budget string) ([]*appsv1.ReplicaSet, int32, error) {
	slices.SortFunc(oldRSs, compareByCreation)
	var total int32
	for i, rs := range oldRSs {
		if total >= maxCleanup {
			break
		}
		spec := *rs.Spec.Replicas
		if spec == 0 || spec == rs.Status.AvailableReplicas {
			continue
		}
		n := min(maxCleanup-total, spec-rs.Status.AvailableReplicas)
		target := spec - n
		if target > spec {
			return nil, 0, fmt.Errorf("when cleaning up unhealthy replicas, got invalid request to scale down %s/%s %d -> %d", rs.Namespace, rs.Name, spec, target)
		}
		why := ""
		if !p.w.opts.Quiet {
			why = fmt.Sprintf("remove %d unhealthy replicas (spec %d, available %d); %s", n, spec, rs.Status.AvailableReplicas, budget)
		}
		_, updated, err := p.scaleAndRecord(rs, target, why)
		if err != nil {
			return nil, total, err
		}
		total += n
		oldRSs[i] = updated
	}
	return oldRSs, total, nil
}

func (p *planner) scaleDownOldReplicaSetsForRollingUpdate(allRSs, oldRSs []*appsv1.ReplicaSet, budget string) (int32, error) {
	d := p.d
	minAvailable := *d.Spec.Replicas - p.maxUnavailable()
	available := sumStatus(allRSs, statusAvailable)
	if available <= minAvailable {
		if !p.w.opts.Quiet {
			p.note("no healthy old replica can go: available %d <= minAvailable %d", available, minAvailable)
		}
		return 0, nil
	}
	if !slices.IsSortedFunc(oldRSs, compareByCreation) {
		oldRSs = sortedByCreation(oldRSs)
	}
	var total int32
	want := available - minAvailable
	for _, rs := range oldRSs {
		if total >= want {
			break
		}
		spec := *rs.Spec.Replicas
		if spec == 0 {
			continue
		}
		n := min(spec, want-total)
		target := spec - n
		if target > spec {
			return 0, fmt.Errorf("when scaling down old replica sets, got invalid request to scale down %s/%s %d -> %d", rs.Namespace, rs.Name, spec, target)
		}
		why := ""
		if !p.w.opts.Quiet {
			why = fmt.Sprintf("available %d > minAvailable %d, may remove %d", available, minAvailable, want-total)
		}
		if _, _, err := p.scaleAndRecord(rs, target, why); err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// rolloutRecreate is one sync of the Recreate strategy: old ReplicaSets to
// zero, wait for their pods to stop, then the new one at full size.
func (p *planner) rolloutRecreate() error {
	newRS, oldRSs, err := p.getAllReplicaSetsAndSyncRevision(false)
	if err != nil {
		return err
	}
	allRSs := appendRS(oldRSs, newRS)
	activeOld := filterActive(oldRSs)

	scaledDown := false
	for i, rs := range activeOld {
		scaled, updated, err := p.scaleAndRecord(rs, 0, "Recreate: old replica sets go to 0 before the new one starts")
		if err != nil {
			return err
		}
		if scaled {
			activeOld[i] = updated
			scaledDown = true
		}
	}
	if scaledDown {
		return p.syncRolloutStatus(allRSs, newRS)
	}
	if running, who := p.oldPodsRunning(newRS, oldRSs); running {
		p.note("Recreate: waiting for old pods to stop (%s)", who)
		return p.syncRolloutStatus(allRSs, newRS)
	}
	if newRS == nil {
		newRS, oldRSs, err = p.getAllReplicaSetsAndSyncRevision(true)
		if err != nil {
			return err
		}
		allRSs = appendRS(oldRSs, newRS)
	}
	if _, _, err := p.scaleAndRecord(newRS, *p.d.Spec.Replicas, "Recreate: no old pod is running any more"); err != nil {
		return err
	}
	if deploymentComplete(p.d, &p.d.Status) {
		if err := p.cleanupDeployment(oldRSs); err != nil {
			return err
		}
	}
	return p.syncRolloutStatus(allRSs, newRS)
}

// oldPodsRunning reports whether an old ReplicaSet still has replicas in its
// status or a pod that is not terminal. Like v1.37 it finds an old
// ReplicaSet's pods by their controller reference (kind ReplicaSet, the
// ReplicaSet's name and UID), whatever their labels.
func (p *planner) oldPodsRunning(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) (bool, string) {
	if n := sumStatus(oldRSs, statusReplicas); n > 0 {
		return true, fmt.Sprintf("old replica sets report %d replicas", n)
	}
	for _, pod := range p.w.snap.Pods {
		if pod == nil || pod.Namespace != p.d.Namespace {
			continue
		}
		ref := metav1.GetControllerOfNoCopy(pod)
		if ref == nil || ref.Kind != "ReplicaSet" || !p.isOldOwner(ref, newRS) {
			continue
		}
		switch pod.Status.Phase {
		case corev1.PodSucceeded, corev1.PodFailed:
			continue
		}
		return true, fmt.Sprintf("pod %s is %s", pod.Name, phaseOrPending(string(pod.Status.Phase)))
	}
	return false, ""
}

// isOldOwner reports whether ref names one of the claimed ReplicaSets other
// than newRS.
func (p *planner) isOldOwner(ref *metav1.OwnerReference, newRS *appsv1.ReplicaSet) bool {
	for _, rs := range p.rsList {
		if rs.UID == ref.UID && rs.Name == ref.Name && (newRS == nil || rs.UID != newRS.UID) {
			return true
		}
	}
	return false
}

func phaseOrPending(phase string) string {
	if phase == "" {
		return "not terminal"
	}
	return phase
}

// cleanupDeployment deletes the oldest old ReplicaSets beyond
// revisionHistoryLimit, skipping any that still has replicas or whose
// latest generation its controller has not observed.
func (p *planner) cleanupDeployment(oldRSs []*appsv1.ReplicaSet) error {
	d := p.d
	if !hasRevisionHistoryLimit(d) {
		return nil
	}
	var cleanable []*appsv1.ReplicaSet
	for _, rs := range oldRSs {
		if rs != nil && rs.DeletionTimestamp == nil {
			cleanable = append(cleanable, rs)
		}
	}
	limit := *d.Spec.RevisionHistoryLimit
	diff := int32(len(cleanable)) - limit
	if diff <= 0 {
		return nil
	}
	sortForCleanup(cleanable)
	for _, rs := range cleanable[:diff] {
		if rs.Status.Replicas != 0 || *rs.Spec.Replicas != 0 || rs.Generation > rs.Status.ObservedGeneration || rs.DeletionTimestamp != nil {
			continue
		}
		p.w.deleteRS(rs, fmt.Sprintf("%d old replica sets > revisionHistoryLimit %d; revision %s is among the %d oldest and empty", len(cleanable), limit, rs.Annotations[revision.RevisionAnnotation], diff))
	}
	return nil
}

// sortForCleanup orders the cleanup candidates (given oldest first) as
// upstream does: sort.Sort by revision, falling back to creation time
// (then name) when the revisions are equal or either does not parse. With
// an unparsable revision that comparison is not a consistent order, so only
// the same algorithm on the same input order picks the same ReplicaSets;
// hence sort.Sort here too, not a stable or total sort.
func sortForCleanup(rss []*appsv1.ReplicaSet) {
	c := byRevision{rss: rss, rev: make([]int64, len(rss)), bad: make([]bool, len(rss))}
	for i, rs := range rss {
		v, err := revision.Revision(rs)
		c.rev[i], c.bad[i] = v, err != nil
	}
	sort.Sort(c)
}

type byRevision struct {
	rss []*appsv1.ReplicaSet
	rev []int64
	bad []bool
}

func (c byRevision) Len() int { return len(c.rss) }

func (c byRevision) Swap(i, j int) {
	c.rss[i], c.rss[j] = c.rss[j], c.rss[i]
	c.rev[i], c.rev[j] = c.rev[j], c.rev[i]
	c.bad[i], c.bad[j] = c.bad[j], c.bad[i]
}

func (c byRevision) Less(i, j int) bool {
	if c.bad[i] || c.bad[j] || c.rev[i] == c.rev[j] {
		a, b := c.rss[i], c.rss[j]
		if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.Name < b.Name
		}
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return c.rev[i] < c.rev[j]
}
