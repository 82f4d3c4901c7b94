package rollout

import (
	"fmt"
	"math"
	"slices"

	"github.com/deploymath/deploymath/revision"
	appsv1 "k8s.io/api/apps/v1"
)

// History is the outcome of [HistoryToDelete].
type History struct {
	// Delete are the positions (in the list given) of the ReplicaSets to
	// delete, in the order upstream deletes them.
	Delete []int
	// Candidates is how many old ReplicaSets could be deleted (not being
	// deleted already), Limit the revision history limit.
	Candidates, Limit int32
}

// Excess is Candidates − Limit: the oldest Excess candidates are looked
// at, and only the empty, observed ones among them are deleted. (A method,
// not a field: a History of a list and two int32 is what the Go compiler
// keeps in registers.)
func (h History) Excess() int32 { return h.Candidates - h.Limit }

// String explains the decision.
func (h History) String() string {
	return fmt.Sprintf("%d old replica sets, revisionHistoryLimit %d: the %d oldest are looked at, %d of them empty and observed",
		h.Candidates, h.Limit, max(h.Excess(), 0), len(h.Delete))
}

// HistoryToDelete picks the old ReplicaSets beyond the revision history
// limit (upstream's cleanupDeployment): the ones not being deleted, sorted
// by revision (by creation time when revisions are equal or one does not
// parse); of the first Candidates − Limit, those with no pods (spec and
// status) and their latest generation observed. For example a limit of 2
// and old ReplicaSets at revisions 1, 2, 3 and 4, all empty: revisions 1
// and 2 go.
//
// old must be in the order upstream holds them (oldest first, or newest
// first after a scaling event's look-up), because with an unparsable
// revision upstream's comparison is not a consistent order and its
// sort.Sort result depends on the input order. Nothing is deleted without a
// limit (see [Params.HasHistoryLimit]).
func HistoryToDelete(p *Params, old []ReplicaSet) (History, error) {
	if p == nil {
		return History{}, errNilParams
	}
	lp := p.RevisionHistoryLimit
	if lp == nil || *lp == math.MaxInt32 {
		return History{}, nil // no limit (see [Params.HasHistoryLimit])
	}
	limit := *lp
	if limit < 0 {
		return History{}, fmt.Errorf("params: revisionHistoryLimit: invalid value %d: must be greater than or equal to 0", limit)
	}
	n := 0
	for i := range old {
		if !old[i].Deleting {
			n++
		}
	}
	h := History{Limit: limit, Candidates: int32(n)}
	if h.Excess() <= 0 {
		return h, nil
	}
	return excessHistory(h, old), nil
}

// excessHistory is HistoryToDelete's choice among the oldest h.Excess() of
// the h.Candidates ReplicaSets of old that are not being deleted.
func excessHistory(h History, old []ReplicaSet) History {
	n := int(h.Candidates)
	var buf [16]int
	idx := buf[:0]
	if n > len(buf) {
		idx = make([]int, 0, n)
	}
	for i := range old {
		if !old[i].Deleting {
			idx = append(idx, i)
		}
	}
	// slices.SortFunc runs the very pdqsort of sort.Sort (both are
	// generated from one template), so with cmp answering Less as -1 and
	// anything else as +1 it makes upstream's sort.Sort moves, even where
	// the comparison is not a consistent order (unparsable revisions).
	slices.SortFunc(idx, func(a, b int) int {
		if lessByRevision(&old[a], &old[b]) {
			return -1
		}
		return 1
	})
	for _, i := range idx[:h.Excess()] {
		rs := &old[i]
		if rs.StatusReplicas != 0 || rs.Replicas != 0 || rs.Generation > rs.ObservedGeneration || rs.Deleting {
			continue
		}
		if h.Delete == nil {
			h.Delete = make([]int, 0, h.Excess())
		}
		h.Delete = append(h.Delete, i)
	}
	return h
}

// lessByRevision is upstream's ReplicaSetsByRevision comparison, which
// falls back to creation time (then name) when the revisions are equal or
// either does not parse.
func lessByRevision(a, b *ReplicaSet) bool {
	if a.BadRevision || b.BadRevision || a.Revision == b.Revision {
		if a.Created.Equal(b.Created) {
			return a.Name < b.Name
		}
		return a.Created.Before(b.Created)
	}
	return a.Revision < b.Revision
}

// cleanupDeployment deletes the old ReplicaSets [HistoryToDelete] picks.
// oldRSs is in the order upstream holds them at this point of the sync.
func (p *planner) cleanupDeployment(oldRSs []*appsv1.ReplicaSet) error {
	if !p.params.HasHistoryLimit() {
		return nil
	}
	// The common case, without building values: within the limit.
	n := int32(0)
	for _, rs := range oldRSs {
		if rs != nil && rs.DeletionTimestamp == nil {
			n++
		}
	}
	if n <= *p.params.RevisionHistoryLimit {
		return nil
	}
	vals := valuesOf(make([]ReplicaSet, 0, len(oldRSs)), oldRSs)
	h, err := HistoryToDelete(&p.params, vals)
	if err != nil {
		return err
	}
	nonNil := oldRSs
	if len(vals) != len(oldRSs) {
		nonNil = make([]*appsv1.ReplicaSet, 0, len(vals))
		for _, rs := range oldRSs {
			if rs != nil {
				nonNil = append(nonNil, rs)
			}
		}
	}
	for _, i := range h.Delete {
		rs := nonNil[i]
		p.w.deleteRS(rs, fmt.Sprintf("%s; revision %s is among them and empty", h, rs.Annotations[revision.RevisionAnnotation]))
	}
	return nil
}
