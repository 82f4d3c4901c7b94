package rollout

import (
	"slices"

	"github.com/deploymath/deploymath/hashing"
	appsv1 "k8s.io/api/apps/v1"
)

// compareByCreation orders ReplicaSets oldest first; ties by name, then UID.
func compareByCreation(a, b *appsv1.ReplicaSet) int {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		if a.CreationTimestamp.Before(&b.CreationTimestamp) {
			return -1
		}
		return 1
	}
	if a.Name != b.Name {
		if a.Name < b.Name {
			return -1
		}
		return 1
	}
	switch {
	case a.UID < b.UID:
		return -1
	case a.UID > b.UID:
		return 1
	}
	return 0
}

// sortedByCreation returns a copy of rss sorted oldest first.
func sortedByCreation(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	out := slices.Clone(rss)
	slices.SortFunc(out, compareByCreation)
	return out
}

// filterActive returns the non-nil ReplicaSets with spec.replicas > 0, in
// a new list.
func (w *world) filterActive(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	n := 0
	for _, rs := range rss {
		if rs != nil && *rs.Spec.Replicas > 0 {
			n++
		}
	}
	out := w.rsList(n)
	for _, rs := range rss {
		if rs != nil && *rs.Spec.Replicas > 0 {
			out = append(out, rs)
		}
	}
	return out
}

func sumSpec(rss []*appsv1.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += *rs.Spec.Replicas
		}
	}
	return n
}

func sumStatus(rss []*appsv1.ReplicaSet, f func(*appsv1.ReplicaSetStatus) int32) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += f(&rs.Status)
		}
	}
	return n
}

func statusReplicas(s *appsv1.ReplicaSetStatus) int32 { return s.Replicas }

// findNewReplicaSet returns the oldest ReplicaSet whose template equals the
// Deployment's, ignoring the pod-template-hash label.
func findNewReplicaSet(d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if !slices.IsSortedFunc(rsList, compareByCreation) {
		rsList = sortedByCreation(rsList)
	}
	for _, rs := range rsList {
		if hashing.EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			return rs
		}
	}
	return nil
}

// findOldReplicaSets returns every ReplicaSet but the new one, in rsList's
// order, in a new list.
func (w *world) findOldReplicaSets(rsList []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	n := 0
	for _, rs := range rsList {
		if isOld(rs, newRS) {
			n++
		}
	}
	old := w.rsList(n)
	for _, rs := range rsList {
		if isOld(rs, newRS) {
			old = append(old, rs)
		}
	}
	return old
}

// countsInto fills v with the counts of rs that the arithmetic reads (no
// annotations: they cost a parse and most decisions do not need them).
func countsInto(v *ReplicaSet, rs *appsv1.ReplicaSet) {
	*v = ReplicaSet{
		Name:                rs.Name,
		Created:             rs.CreationTimestamp.Time,
		Replicas:            *rs.Spec.Replicas,
		StatusReplicas:      rs.Status.Replicas,
		ReadyReplicas:       rs.Status.ReadyReplicas,
		AvailableReplicas:   rs.Status.AvailableReplicas,
		TerminatingReplicas: rs.Status.TerminatingReplicas,
		Generation:          rs.Generation,
		ObservedGeneration:  rs.Status.ObservedGeneration,
		Deleting:            rs.DeletionTimestamp != nil,
	}
}

// countsOf appends the counts of rss (nil entries skipped) to buf.
func countsOf(buf []ReplicaSet, rss []*appsv1.ReplicaSet) []ReplicaSet {
	for _, rs := range rss {
		if rs != nil {
			var v ReplicaSet
			countsInto(&v, rs)
			buf = append(buf, v)
		}
	}
	return buf
}

// valuesOf appends the full values of rss (annotations read) to buf.
func valuesOf(buf []ReplicaSet, rss []*appsv1.ReplicaSet) []ReplicaSet {
	for _, rs := range rss {
		if rs != nil {
			v, _ := ReplicaSetOf(rs) // validated: spec.replicas is set
			buf = append(buf, v)
		}
	}
	return buf
}

// FindNewReplicaSet returns the Deployment's new ReplicaSet among rss: the
// oldest (by creation time, then name) whose pod template equals the
// Deployment's, ignoring the pod-template-hash label; nil when none does.
// rss is not modified.
func FindNewReplicaSet(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if d == nil {
		return nil
	}
	// The oldest match, without sorting: only a ReplicaSet older than the
	// best so far is compared (the order is total, so this is the first
	// match in creation order).
	var best *appsv1.ReplicaSet
	for _, rs := range rss {
		if rs == nil || best != nil && compareByCreation(rs, best) >= 0 {
			continue
		}
		if hashing.EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			best = rs
		}
	}
	return best
}

// FindOldReplicaSets returns the old ReplicaSets of rss as upstream's
// FindOldReplicaSets does, results in its order: first those with a size
// above 0 (active), then all of them. Both lists are oldest first (by
// creation time, then name, then UID): upstream's look-up of the new
// ReplicaSet sorts the list it is given that way, so its results come out
// in that order, which is the order [HistoryToDelete] needs. A ReplicaSet
// is old unless it is the new one (see [FindNewReplicaSet]) or has its UID,
// as upstream matches by UID (a second copy of the new ReplicaSet read
// elsewhere is not old); objects without a UID, which an API server never
// holds, match by identity only. nil entries are skipped, and one without
// spec.replicas counts as active (the API server defaults it to 1); rss is
// not modified.
func FindOldReplicaSets(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (active, all []*appsv1.ReplicaSet) {
	newRS := FindNewReplicaSet(d, rss)
	nOld, nActive := 0, 0
	for _, rs := range rss {
		if isOldOf(rs, newRS) {
			nOld++
			if rs.Spec.Replicas == nil || *rs.Spec.Replicas != 0 {
				nActive++
			}
		}
	}
	if nOld == 0 {
		return nil, nil
	}
	all = make([]*appsv1.ReplicaSet, 0, nOld)
	for _, rs := range rss {
		if isOldOf(rs, newRS) {
			all = append(all, rs)
		}
	}
	if !slices.IsSortedFunc(all, compareByCreation) {
		slices.SortFunc(all, compareByCreation)
	}
	if nActive == 0 {
		return nil, all
	}
	active = make([]*appsv1.ReplicaSet, 0, nActive)
	for _, rs := range all {
		if rs.Spec.Replicas == nil || *rs.Spec.Replicas != 0 {
			active = append(active, rs)
		}
	}
	return active, all
}

// isOldOf reports whether rs (nil: no) is not newRS: another object and
// another UID (an empty UID matches by identity only).
func isOldOf(rs, newRS *appsv1.ReplicaSet) bool {
	return rs != nil && rs != newRS && (newRS == nil || newRS.UID == "" || rs.UID != newRS.UID)
}
