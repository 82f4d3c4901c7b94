package rollout

import (
	"reflect"
	"unsafe"

	"github.com/deploymath/deploymath/revision"
	appsv1 "k8s.io/api/apps/v1"
)

// A Planner remembers, per Deployment, what its spec gives (validation,
// selector, parameters, fenceposts: valid for the same object and
// generation), and what the look-up of the new ReplicaSet found at the last
// plan: the claimed ReplicaSets in creation order, which of them matches
// the pod template, whether the new one's revision annotations were in
// sync, and each one's desired-replicas annotation. The next plan of the
// same Deployment object reuses it when nothing it was derived from can
// have changed: the same Deployment object with the same generation and
// annotations map, and the same claimed ReplicaSet objects, in the same
// order, with the same generations and annotations maps. This is the API
// server's contract (a spec change bumps the generation; metadata changes
// come as new objects or new maps), which Planner callers keep (see
// [Planner]): nothing is compared by value, so a sync whose inputs are
// unchanged skips the template comparisons, the sort and the annotation
// parsing.

// maxMemos bounds the remembered Deployments; beyond it the memory is
// dropped and rebuilt.
const maxMemos = 4096

// memo is what a Planner remembers of one Deployment's last plan.
type memo struct {
	// What the Deployment's spec gives, for specGen (when specOK): its
	// selector's pairs, its parameters (it passed validation), and, when
	// fenceOK, its resolved maxSurge and maxUnavailable.
	specGen            int64
	specOK, fenceOK    bool
	sel                selectorPairs
	params             Params
	surge, unavailable int32

	gen int64
	in  []memoRS // the claimed ReplicaSets, in the snapshot's order
	// sorted is the claimed list sorted by creation; desired holds each
	// one's desired-replicas annotation (value, present and valid).
	sorted  []*appsv1.ReplicaSet
	desired []memoDesired
	// existing is the new ReplicaSet (nil: none).
	existing *appsv1.ReplicaSet
	// revOK: the revision sync of existing found nothing to write, with
	// the Deployment's annotations map dAnn.
	revOK bool
	dAnn  unsafe.Pointer
}

type memoRS struct {
	rs  *appsv1.ReplicaSet
	gen int64
	ann unsafe.Pointer
}

type memoDesired struct {
	v  int32
	ok bool
}

// mapID is the identity of a map (nil for a nil map).
func mapID(m map[string]string) unsafe.Pointer {
	return reflect.ValueOf(m).UnsafePointer()
}

// memoOf sets p.memo to the Planner's memo of the snapshot's Deployment
// d, a new one the first time (nil without a Planner), and returns it.
func (p *planner) memoOf(d *appsv1.Deployment) *memo {
	r := p.w.reuse
	if r == nil {
		return nil
	}
	m := r.memos[d]
	if m == nil {
		if r.memos == nil || len(r.memos) >= maxMemos {
			r.memos = make(map[*appsv1.Deployment]*memo)
		}
		m = &memo{gen: -1}
		r.memos[d] = m
	}
	p.memo = m
	return m
}

// specMemo returns the memo when what it holds of the Deployment's spec
// is valid for d, else nil.
func (p *planner) specMemo(d *appsv1.Deployment) *memo {
	if m := p.memo; m != nil && m.specOK && m.specGen == d.Generation {
		return m
	}
	return nil
}

// lookUpMemo sorts p.rsList and finds the new ReplicaSet from the Planner's
// memo when it is still valid, and reports whether it did; otherwise remember
// fills p.memo (when there is one) after the look-up.
func (p *planner) lookUpMemo() bool {
	m := p.memo
	if m == nil {
		return false
	}
	d := p.w.snap.Deployment
	if m.gen != d.Generation || len(m.in) != len(p.rsList) {
		return false
	}
	for i, rs := range p.rsList {
		e := &m.in[i]
		if e.rs != rs || e.gen != rs.Generation || e.ann != mapID(rs.Annotations) {
			return false
		}
	}
	copy(p.rsList, m.sorted)
	p.existing = m.existing
	p.memoValid = true
	return true
}

// remember records the look-up just made (p.rsList still in the
// snapshot's order in in).
func (p *planner) remember(in []*appsv1.ReplicaSet) {
	m := p.memo
	if m == nil {
		return
	}
	m.gen = p.w.snap.Deployment.Generation
	m.in = m.in[:0]
	for _, rs := range in {
		m.in = append(m.in, memoRS{rs: rs, gen: rs.Generation, ann: mapID(rs.Annotations)})
	}
	m.sorted = append(m.sorted[:0], p.rsList...)
	m.desired = m.desired[:0]
	for _, rs := range p.rsList {
		v, ok := revision.DesiredReplicas(rs)
		m.desired = append(m.desired, memoDesired{v, ok})
	}
	m.existing = p.existing
	m.revOK, m.dAnn = false, nil
	p.memoValid = true
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
