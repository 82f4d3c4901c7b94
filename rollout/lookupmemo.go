package rollout

import (
	"unsafe"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/revision"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A Planner remembers, per Deployment, what its spec gives (validation,
// selector, parameters, fenceposts: valid for the same object and
// generation), and what the look-up of the new ReplicaSet found at the last
// plan: the claimed ReplicaSets in creation order, which of them match
// the pod template (as far as the look-up compared them), whether the new
// one's revision annotations were in sync, and each one's desired-replicas
// annotation. The next plan of the same Deployment object with the same
// generation, whose claimed ReplicaSets are the same objects in the same
// order, reuses it: their creation order holds (creation time and name
// never change), a ReplicaSet whose generation changed has its template
// compared again when the look-up reaches it, one whose annotations map
// changed has its desired-replicas annotation read again, and the revision
// sync is trusted only when no annotations map changed and the new
// ReplicaSet is the same. This is the API server's contract (a spec
// change bumps the generation; metadata changes come as new objects or
// new maps), which Planner callers keep (see [Planner]): nothing is
// compared by value, so a sync whose inputs are unchanged skips the
// template comparisons, the sort and the annotation parsing, and a sync
// after a scale (a new generation of one ReplicaSet, the most common
// write of a rollout) compares that one template at most.
//
// It also remembers the last claim of the Deployment's ReplicaSets when
// it wrote nothing (no adoption, no release): what it read of the
// Deployment (its generation, for the selector, and deletion timestamp)
// and of each ReplicaSet of the snapshot (its identity, labels map, owner
// references and deletion timestamp), and which it claimed. A claim of
// the same Deployment object with those inputs claims the same
// ReplicaSets without a write, which the next plan takes without
// matching the selectors again.

// memoRS is a claimed ReplicaSet as the look-up last saw it: its
// generation (for match) and annotations map (for desired), and at, its
// position in sorted.
type memoRS struct {
	rs  *appsv1.ReplicaSet
	gen int64
	ann unsafe.Pointer
	at  int
}

// matchState is what the look-up knows of a ReplicaSet's template.
type matchState uint8

const (
	matchUnknown matchState = iota // not compared (the look-up stopped before it), or changed since
	matchNo
	matchYes
)

// claimRS is what a claim read of one ReplicaSet of the snapshot.
type claimRS struct {
	rs      *appsv1.ReplicaSet
	labels  unsafe.Pointer
	owners  *metav1.OwnerReference
	nOwners int
	deleted *metav1.Time
}

type memoDesired struct {
	v  int32
	ok bool
}

// lookUpMemo sorts p.rsList and finds the new ReplicaSet from the Planner's
// memo when it describes the same claimed objects (see above), and reports
// whether it did; otherwise remember fills p.memo (when there is one)
// after the look-up.
func (p *planner) lookUpMemo() bool {
	m := p.memo
	if m == nil {
		return false
	}
	if m.gen != p.w.snap.Deployment.Generation || len(m.in) != len(p.rsList) {
		return false
	}
	for i, rs := range p.rsList {
		if m.in[i].rs != rs {
			return false
		}
	}
	annChanged := false
	for i, rs := range p.rsList {
		e := &m.in[i]
		if e.gen != rs.Generation {
			e.gen = rs.Generation
			m.match[e.at] = matchUnknown
		}
		if a := mapID(rs.Annotations); e.ann != a {
			e.ann = a
			v, ok := revision.DesiredReplicas(rs)
			m.desired[e.at] = memoDesired{v, ok}
			annChanged = true
		}
	}
	// findNewReplicaSet over the sorted list, with the comparisons known.
	var existing *appsv1.ReplicaSet
	for j, rs := range m.sorted {
		if m.match[j] == matchUnknown {
			m.match[j] = matchNo
			if hashing.EqualIgnoreHash(&rs.Spec.Template, &p.d.Spec.Template) {
				m.match[j] = matchYes
			}
		}
		if m.match[j] == matchYes {
			existing = rs
			break
		}
	}
	if annChanged || existing != m.existing {
		m.revOK, m.dAnn = false, nil
	}
	m.existing = existing
	copy(p.rsList, m.sorted)
	p.existing = existing
	p.memoValid = true
	return true
}

// remember records the look-up just made (p.rsList sorted, in the
// snapshot's order in in).
func (p *planner) remember(in []*appsv1.ReplicaSet) {
	m := p.memo
	if m == nil {
		return
	}
	m.gen = p.w.snap.Deployment.Generation
	m.sorted = append(m.sorted[:0], p.rsList...)
	m.desired, m.match = m.desired[:0], m.match[:0]
	state := matchNo // before the new ReplicaSet: compared, not equal
	for _, rs := range p.rsList {
		v, ok := revision.DesiredReplicas(rs)
		m.desired = append(m.desired, memoDesired{v, ok})
		switch {
		case rs == p.existing:
			m.match = append(m.match, matchYes)
			state = matchUnknown // after it: not compared
		default:
			m.match = append(m.match, state)
		}
	}
	m.in = m.in[:0]
	for _, rs := range in {
		m.in = append(m.in, memoRS{rs: rs, gen: rs.Generation, ann: mapID(rs.Annotations), at: sortedAt(m.sorted, rs)})
	}
	m.existing = p.existing
	m.revOK, m.dAnn = false, nil
	p.memoValid = true
}

// sortedAt is the position of rs in sorted, which holds it.
func sortedAt(sorted []*appsv1.ReplicaSet, rs *appsv1.ReplicaSet) int {
	for j, s := range sorted {
		if s == rs {
			return j
		}
	}
	return -1 // not reached: sorted is a permutation of the claimed list
}

// claimRemembered is claimReplicaSets, answered from the memo when the
// last claim of this Deployment object read the same inputs and wrote
// nothing (see above); a claim that writes nothing is remembered.
func (p *planner) claimRemembered() ([]*appsv1.ReplicaSet, error) {
	m := p.memo
	if m == nil {
		return p.claimReplicaSets()
	}
	d := p.d
	if m.claimOK && m.claimSame(d, p.w.snap.ReplicaSets) {
		claimed := append(p.w.claimedList(), m.claimed...)
		p.w.claimed = claimed
		return claimed, nil
	}
	m.claimOK = false
	actions := len(p.w.res.Actions)
	claimed, err := p.claimReplicaSets()
	if err != nil || len(p.w.res.Actions) != actions {
		return claimed, err
	}
	m.claimGen, m.claimDeleted = d.Generation, d.DeletionTimestamp
	m.claimIn = m.claimIn[:0]
	for _, rs := range p.w.snap.ReplicaSets {
		m.claimIn = append(m.claimIn, claimOf(rs))
	}
	m.claimed = append(m.claimed[:0], claimed...)
	m.claimOK = true
	return claimed, nil
}

// claimOf is what a claim reads of rs.
func claimOf(rs *appsv1.ReplicaSet) claimRS {
	c := claimRS{rs: rs, labels: mapID(rs.Labels), nOwners: len(rs.OwnerReferences), deleted: rs.DeletionTimestamp}
	if c.nOwners > 0 {
		c.owners = &rs.OwnerReferences[0]
	}
	return c
}

// claimSame reports whether a claim for d of rss reads what the
// remembered one read.
func (m *memo) claimSame(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) bool {
	if d.Generation != m.claimGen || d.DeletionTimestamp != m.claimDeleted || len(rss) != len(m.claimIn) {
		return false
	}
	for i, rs := range rss {
		if claimOf(rs) != m.claimIn[i] {
			return false
		}
	}
	return true
}

// desiredReplicas is revision.DesiredReplicas(rs), from the memo when rs
// is one of the remembered ReplicaSets.
func (p *planner) desiredReplicas(rs *appsv1.ReplicaSet) (int32, bool) {
	if p.memoValid {
		for i, s := range p.memo.sorted {
			if s == rs {
				d := p.memo.desired[i]
				return d.v, d.ok
			}
		}
	}
	return revision.DesiredReplicas(rs)
}

// revisionInSync reports whether the memo says that the revision sync of
// existing finds nothing to write for the Deployment d.
func (p *planner) revisionInSync(existing *appsv1.ReplicaSet, d *appsv1.Deployment) bool {
	return p.memoValid && p.memo.revOK && p.memo.existing == existing && p.memo.dAnn == mapID(d.Annotations)
}
