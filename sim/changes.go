package sim

import (
	"iter"
	"slices"
	"strings"
)

// A trace records, by default, only what changed at each instant
// ([Options].FullView records every Deployment at every instant, as
// traces did before): each frame's Deployments are those whose row
// changed since the trace last showed them, each with its spec and
// status counts (the row's scalar fields, always), the conditions and
// ReplicaSets that changed, and those removed. A Deployment's first row
// is complete. Applying a trace's frames in order to an empty state
// gives the state after each frame ([Trace.States] does it); this is
// what the full view shows, byte for byte (TestChangesReplayToFullView).
//
// The conditions (and, alike, the ReplicaSets) of a row are the ones
// that are new or differ from the last shown, in the object's order,
// and RemovedConditions names those that are gone. A list is kept in
// order by replacing each entry of the same type in place and appending
// the new ones after; when that would not give the object's order (the
// API server's conditions move to the end when their status changes),
// the row holds the whole list and AllConditions is set.

// trackChanges puts into f the rows of the Deployments touched since the
// last frame that changed since the trace last showed them, in key
// order, and returns them for shown (to be called once f is kept).
func (s *Sim) trackChanges(f *Frame) []shownRow {
	m := &s.met
	slices.SortFunc(m.traced, func(a, b *depState) int { return strings.Compare(a.it.Key.Name, b.it.Key.Name) })
	var out []shownRow
	f.Deployments = f.Deployments[:0]
	for _, ds := range m.traced {
		ds.traced = false
		d := ds.it.X.Dep
		if d == nil {
			continue
		}
		row := s.deploymentRow(d)
		if delta, changed := rowChanges(ds.shown, &row); changed {
			for _, name := range delta.RemovedReplicaSets {
				if s.st.ReplicaSets[s.st.Key(d.Namespace, name)] != nil {
					delta.ReleasedReplicaSets = append(delta.ReleasedReplicaSets, name)
				}
			}
			f.Deployments = append(f.Deployments, delta)
			out = append(out, shownRow{ds, row})
		}
	}
	m.traced = m.traced[:0]
	return out
}

// shownRow is a Deployment's row as a kept frame shows it.
type shownRow struct {
	ds  *depState
	row DeploymentRow
}

// shown records rows as the ones the trace shows now.
func shown(rows []shownRow) {
	for i := range rows {
		r := rows[i].row
		rows[i].ds.shown = &r
	}
}

// rowChanges returns what the trace shows of cur after prev (nil: never
// shown): cur itself the first time, then its scalar fields with the
// conditions and ReplicaSets that changed; and whether anything did.
func rowChanges(prev, cur *DeploymentRow) (DeploymentRow, bool) {
	if prev == nil {
		return *cur, true
	}
	out := *cur
	changed := !sameScalars(prev, cur)
	var c1, c2 bool
	out.Conditions, out.RemovedConditions, out.AllConditions, c1 = listChanges(prev.Conditions, cur.Conditions,
		func(c *ConditionRow) string { return c.Type }, func(a, b *ConditionRow) bool { return *a == *b })
	out.ReplicaSets, out.RemovedReplicaSets, out.AllReplicaSets, c2 = listChanges(prev.ReplicaSets, cur.ReplicaSets,
		func(r *ReplicaSetRow) string { return r.Name }, func(a, b *ReplicaSetRow) bool { return *a == *b })
	return out, changed || c1 || c2
}

// sameScalars compares the rows' fields other than their lists.
func sameScalars(a, b *DeploymentRow) bool {
	if (a.Terminating == nil) != (b.Terminating == nil) || a.Terminating != nil && *a.Terminating != *b.Terminating {
		return false
	}
	x, y := *a, *b
	x.Terminating, y.Terminating = nil, nil
	x.Conditions, y.Conditions, x.ReplicaSets, y.ReplicaSets = nil, nil, nil, nil
	x.RemovedConditions, y.RemovedConditions, x.RemovedReplicaSets, y.RemovedReplicaSets = nil, nil, nil, nil
	x.ReleasedReplicaSets, y.ReleasedReplicaSets = nil, nil
	x.AllConditions, y.AllConditions, x.AllReplicaSets, y.AllReplicaSets = false, false, false, false
	return x.Name == y.Name && x.Namespace == y.Namespace && x.Generation == y.Generation &&
		x.ObservedGeneration == y.ObservedGeneration && x.Revision == y.Revision && x.Paused == y.Paused &&
		x.Spec == y.Spec && x.Replicas == y.Replicas && x.Updated == y.Updated && x.Ready == y.Ready &&
		x.Available == y.Available && x.Unavailable == y.Unavailable && x.MaxSurge == y.MaxSurge &&
		x.MaxUnavailable == y.MaxUnavailable
}

// listChanges compares two lists of entries named by key: the entries of
// cur that are new or differ from prev's (all of cur, with all set, when
// keeping prev's order and appending the new ones would not give cur's
// order), the keys of prev that cur lacks, and whether anything changed.
func listChanges[T any](prev, cur []T, key func(*T) string, equal func(a, b *T) bool) (changes []T, removed []string, all, changed bool) {
	find := func(list []T, k string) int {
		for i := range list {
			if key(&list[i]) == k {
				return i
			}
		}
		return -1
	}
	kept := 0 // the entries of prev still in cur, in prev's order
	for i := range prev {
		k := key(&prev[i])
		if find(cur, k) < 0 {
			removed = append(removed, k)
			continue
		}
		if kept >= len(cur) || key(&cur[kept]) != k {
			all = true
		}
		kept++
	}
	if all {
		return slices.Clone(cur), removed, true, true
	}
	for i := range cur {
		if j := find(prev, key(&cur[i])); j < 0 || !equal(&prev[j], &cur[i]) {
			changes = append(changes, cur[i])
		}
	}
	return changes, removed, false, len(changes) > 0 || len(removed) > 0
}

// apply applies a frame's row of the Deployment to its state.
func (r *DeploymentRow) apply(delta *DeploymentRow) {
	conds, rss := r.Conditions, r.ReplicaSets
	*r = *delta
	r.Conditions = applyList(conds, delta.Conditions, delta.RemovedConditions, delta.AllConditions, func(c *ConditionRow) string { return c.Type })
	r.ReplicaSets = applyList(rss, delta.ReplicaSets, delta.RemovedReplicaSets, delta.AllReplicaSets, func(x *ReplicaSetRow) string { return x.Name })
	r.RemovedConditions, r.RemovedReplicaSets, r.ReleasedReplicaSets, r.AllConditions, r.AllReplicaSets = nil, nil, nil, false, false
}

// applyList is listChanges undone: state, which apply owns, after the
// changes.
func applyList[T any](state, changes []T, removed []string, all bool, key func(*T) string) []T {
	if all {
		return slices.Clone(changes)
	}
	state = slices.DeleteFunc(state, func(x T) bool { return slices.Contains(removed, key(&x)) })
next:
	for _, c := range changes {
		for i := range state {
			if key(&state[i]) == key(&c) {
				state[i] = c
				continue next
			}
		}
		state = append(state, c)
	}
	if len(state) == 0 {
		return nil // as a row without any
	}
	return state
}

// States iterates over the frames of t with the state of every
// Deployment after each: the frame's rows as they are in a full view
// ([Options].FullView), the changes applied in order otherwise. The rows
// are in namespace and name order; the slice and its rows are valid
// until the next iteration.
func (t *Trace) States() iter.Seq2[*Frame, []DeploymentRow] {
	return func(yield func(*Frame, []DeploymentRow) bool) {
		var state []DeploymentRow
		for i := range t.Frames {
			f := &t.Frames[i]
			if t.Full || f.Full {
				if !yield(f, f.Deployments) {
					return
				}
				if f.Full {
					state = cloneRows(f.Deployments)
				}
				continue
			}
			for j := range f.Deployments {
				delta := &f.Deployments[j]
				k := rowKey(delta)
				at, found := slices.BinarySearchFunc(state, k, func(r DeploymentRow, k string) int { return strings.Compare(rowKey(&r), k) })
				if !found {
					state = slices.Insert(state, at, DeploymentRow{})
				}
				state[at].apply(delta)
			}
			if !yield(f, state) {
				return
			}
		}
	}
}

// Final returns the state of every Deployment at the end of the trace
// (see [Trace.States]).
func (t *Trace) Final() []DeploymentRow {
	var out []DeploymentRow
	for _, rows := range t.States() {
		out = rows
	}
	return cloneRows(out)
}

// rowKey is a row's Deployment as the store names it: namespace/name.
func rowKey(r *DeploymentRow) string { return r.Namespace + "/" + r.Name }

// cloneRows copies rows and their lists.
func cloneRows(rows []DeploymentRow) []DeploymentRow {
	out := slices.Clone(rows)
	for i := range out {
		out[i].Conditions = slices.Clone(out[i].Conditions)
		out[i].ReplicaSets = slices.Clone(out[i].ReplicaSets)
	}
	return out
}
