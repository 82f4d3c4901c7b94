package rollout

import (
	"math"
	"time"
	"unsafe"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A Planner remembers, per Deployment, what its spec gives and what the
// look-up of the new ReplicaSet and the claim found (lookupmemo.go), and
// the last plan's quiet inputs (below).

// maxMemos bounds the remembered Deployments; beyond it the memory is
// dropped and rebuilt.
const maxMemos = 4096

// memo is what a Planner remembers of one Deployment's last plan.
type memo struct {
	// quiet is the last plan, when its only write was the status; its
	// first fields, which every plan reads, share the struct's first
	// cache line.
	quiet quietMemo

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
	// one's desired-replicas annotation (value, present and valid), and
	// match whether its template is the Deployment's.
	sorted  []*appsv1.ReplicaSet
	desired []memoDesired
	match   []matchState
	// existing is the new ReplicaSet (nil: none).
	existing *appsv1.ReplicaSet
	// revOK: the revision sync of existing found nothing to write, with
	// the Deployment's annotations map dAnn.
	revOK bool
	dAnn  unsafe.Pointer

	// The last claim, when claimOK (it wrote nothing): the Deployment's
	// generation and deletion timestamp, what it read of the snapshot's
	// ReplicaSets, and what it claimed.
	claimOK      bool
	claimGen     int64
	claimDeleted *metav1.Time
	claimIn      []claimRS
	claimed      []*appsv1.ReplicaSet
}

// mapID is the identity of a map (nil for a nil map): the pointer a map
// value is, which reflect.Value.UnsafePointer returns, read without the
// call (this is inlined).
func mapID(m map[string]string) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&m))
}

// memoOf sets p.memo to the Planner's memo of the snapshot's Deployment
// d, m when not nil (the caller looked it up), a new one the first time
// (nil without a Planner), and returns it.
func (p *planner) memoOf(d *appsv1.Deployment, m *memo) *memo {
	r := p.w.reuse
	if r == nil {
		return nil
	}
	if m == nil {
		if r.memos == nil || len(r.memos) >= maxMemos {
			r.memos = make(map[*appsv1.Deployment]*memo)
		}
		m = &memo{gen: -1}
		r.memos[d] = m
	}
	m.quiet.ok, m.quiet.at = false, resumeNone // this plan replaces them (see rememberQuiet)
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

// A Planner also remembers, per Deployment object, a plan whose only write
// was the Deployment's status (quietMemo): what it read and the status it
// wrote. The next plan of that object usually follows that very write (the
// status update requeues the Deployment, as upstream's informer handler
// does) at the same instant, with the same ReplicaSets: its input is the
// last one with the written status stored in the Deployment. Such a plan
// takes the same path through the sync (which reads the Deployment's
// status for its conditions and counts, the cleanup's completeness test,
// proportional scaling and the collision count), finds the status it
// computes equal to the stored one and writes nothing; the Planner answers
// it without planning: no action, no event, no note (Quiet plans only), the
// Deployment's own status as Result.Status, and the requeue that plan asks
// (none, or requeueStuck's when it ends in syncRolloutStatus, computed from
// the written Progressing condition as stored, at the second). It does so
// only when everything the plan reads is what the last plan read, the
// Deployment's status being the one written: the options, the instant, the
// same Deployment object with the same generation, annotations map and
// deletion timestamp, its status equal by value (as statusEqual compares),
// and the same ReplicaSet objects in the same order with the same
// generations, annotations and labels maps, owner references and deletion
// timestamps, the same spec.replicas, their status equal by value (status
// is the one thing written in place), no pods when the plan reads them
// (Recreate).
//
// TestPropertyQuietAfterStatusWrite (quiet_test.go) establishes it and
// counts the exceptions, which rememberQuiet excludes: a plan that stopped
// (a conflict or an error after the write), one that recorded an event,
// one without Quiet, one that changed the Deployment's annotations (a new
// revision), one whose ReplicaSets report conditions (not remembered: the
// ReplicaFailure condition a plan copies from them has times the API
// server cuts to the second, so the stored status differs anyway), a
// Recreate plan with pods, and one whose written status completes the
// rollout when there are more old ReplicaSets than revisionHistoryLimit
// (the next plan runs the cleanup this one did not).

// quietMemo is what a Planner remembers of the last plan of one
// Deployment, for the plan that follows: when its only write was the
// status (ok, see above), and how far a RollingUpdate plan got with
// nothing written (at, see below). What it read (options, Deployment
// metadata, the ReplicaSets) is recorded once for both.
type quietMemo struct {
	ok bool
	// at is the point of rolloutRolling the plan reached with nothing
	// written or recorded before it (see resumeAt).
	at resumePoint
	// pods says that the plan reads pods (Recreate): the next one is
	// answered only without any.
	pods    bool
	opts    Options
	now     time.Time
	gen     int64
	ann     unsafe.Pointer
	deleted *metav1.Time
	rss     []quietRS
	// status is the written status, a private copy: conds holds its
	// conditions, term and coll what its pointers point to.
	status     appsv1.DeploymentStatus
	conds      []appsv1.DeploymentCondition
	term, coll int32
	// rollout says that the plan ended in syncRolloutStatus: the next
	// one does too, and asks requeueStuck's requeue.
	rollout bool
}

// quietRS is what a plan read of one of the snapshot's ReplicaSets: its
// identity, metadata, size and status (conds: it had conditions, which
// are not recorded).
type quietRS struct {
	rs                            *appsv1.ReplicaSet
	gen, observed                 int64
	ann, labels                   unsafe.Pointer
	owners                        *metav1.OwnerReference
	deleted                       *metav1.Time
	nOwners                       int32
	spec                          int32
	replicas, fully, ready, avail int32
	terminating                   int32
	terminatingReported, conds    bool
}

// quietResult returns the Result the plan of s with o gives when it
// follows a remembered status-only plan of the same inputs (see above),
// in the Planner's reused Result, or nil when it does not.
func (pl *Planner) quietResult(m *memo, s Snapshot, o Options) *Result {
	q := &m.quiet
	if !q.matches(s, o) {
		return nil
	}
	// What plan and finish do to the Planner's memory, without a plan.
	clear(pl.actions[:cap(pl.actions)])
	clear(pl.events[:cap(pl.events)])
	d := s.Deployment
	pl.res = Result{Status: d.Status}
	if q.rollout {
		// requeueStuck with the status unchanged, the Progressing
		// condition as stored (m.params is for this generation: the
		// remembering plan set it).
		if cur := getCondition(d.Status, appsv1.DeploymentProgressing); cur != nil {
			pl.res.Requeue = RequeueAfter(&m.params, Complete(&m.params, d.Generation, &d.Status), cur, s.Now)
		}
	}
	return &pl.res
}

// matches reports whether q remembers a status-only plan whose inputs were
// s's, with s's Deployment status as written.
func (q *quietMemo) matches(s Snapshot, o Options) bool {
	d := s.Deployment
	if !q.ok || o != q.opts || s.Now != q.now || d.Generation != q.gen || mapID(d.Annotations) != q.ann ||
		d.DeletionTimestamp != q.deleted || q.pods && len(s.Pods) > 0 || len(s.ReplicaSets) != len(q.rss) {
		return false
	}
	for i, rs := range s.ReplicaSets {
		e := &q.rss[i]
		if !e.sameObject(rs) || !e.sameStatus(&rs.Status) {
			return false
		}
	}
	return statusEqual(&d.Status, &q.status)
}

// sameObject reports whether rs is the object e records, with the same
// generation, metadata (annotations and labels maps, owner references,
// deletion timestamp, by identity) and size.
func (e *quietRS) sameObject(rs *appsv1.ReplicaSet) bool {
	return rs == e.rs && rs.Generation == e.gen && mapID(rs.Annotations) == e.ann && mapID(rs.Labels) == e.labels &&
		len(rs.OwnerReferences) == int(e.nOwners) && (e.nOwners == 0 || &rs.OwnerReferences[0] == e.owners) &&
		rs.DeletionTimestamp == e.deleted && rs.Spec.Replicas != nil && *rs.Spec.Replicas == e.spec
}

// sameStatus reports whether s is the status e holds.
func (e *quietRS) sameStatus(s *appsv1.ReplicaSetStatus) bool {
	return !e.conds && s.Replicas == e.replicas && s.FullyLabeledReplicas == e.fully && s.ReadyReplicas == e.ready &&
		s.AvailableReplicas == e.avail && s.ObservedGeneration == e.observed && len(s.Conditions) == 0 &&
		(s.TerminatingReplicas != nil) == e.terminatingReported && (!e.terminatingReported || *s.TerminatingReplicas == e.terminating)
}

// A Planner also resumes half-way the sync of a RollingUpdate Deployment
// whose ReplicaSets' statuses moved since its last plan, the most common
// sync of a rollout. The first part of rolloutRolling (the claim, the
// paused and rollback checks, the look-up of the new ReplicaSet and its
// revision sync, the scaling-event check, reconcileNewReplicaSet) reads
// no ReplicaSet status: when the last plan of the same Deployment object
// went through it without writing anything or recording an event
// (resumeOld), the next plan whose inputs to it are the same starts at
// reconcileOldReplicaSets with the ReplicaSets that plan found. When the
// last plan also went through reconcileOldReplicaSets without writing
// (resumeCleanup), which reads the ReplicaSets' availableReplicas too,
// and those are the same, the next plan starts after it, at the cleanup
// of old ReplicaSets (which, like the rest, is planned as usual: it reads
// the Deployment's stored status, its completeness). The first part reads:
//
//   - the options (compared);
//   - the Deployment: its identity (UID, namespace, name), spec
//     (selector, paused, strategy, replicas, maxSurge, maxUnavailable,
//     minReadySeconds, progress deadline: its generation is compared),
//     annotations (revision, rollback, those copied to the new
//     ReplicaSet: the map's identity is compared) and deletion timestamp
//     (compared; nil on this path);
//   - every ReplicaSet of the snapshot, for the claim (adopting and
//     releasing): namespace, labels, owner references, deletion
//     timestamp; and of the claimed ones: creation time, name, UID
//     (immutable), generation (template, minReadySeconds), annotations
//     (revision, desired replicas, max replicas) and spec.replicas. The
//     same objects in the same order, with the same generations, the same
//     maps, owner references and deletion timestamps by identity, and the
//     same spec.replicas by value (which the generation already covers):
//     then the claim claims the same ReplicaSets without a patch, the
//     look-up (remembered, see above) finds the same new one with its
//     revision in sync, no ReplicaSet records a scaling event, and the
//     new ReplicaSet keeps its size with nothing written;
//   - the Deployment's status, in two places, checked on the status the
//     Deployment has now: with a progress deadline, a Progressing
//     condition that says DeploymentPaused is turned into
//     DeploymentResumed (the Deployment is not paused on this path), and
//     a missing one is set to FoundNewReplicaSet, both written. Resuming
//     requires the condition present and not DeploymentPaused.
//
// It reads neither the instant (only the writes it does not make do) nor
// pods (RollingUpdate), nor any ReplicaSet status. reconcileOldReplicaSets
// reads the ReplicaSets' spec.replicas and availableReplicas (the
// scale-down budget, the unhealthy and the healthy scale-downs), the
// Deployment's spec and maxUnavailable: nothing else. Quiet plans only,
// like the rest of the memo.
//
// TestPropertyResume (resume_test.go) checks the Result against
// PlanWith's over syncs whose ReplicaSet statuses, sizes, metadata, the
// Deployment, its status and time move, and counts the plans resumed.

// resumePoint is where a RollingUpdate sync may resume (see above).
type resumePoint uint8

const (
	resumeNone    resumePoint = iota
	resumeOld                 // at reconcileOldReplicaSets
	resumeCleanup             // after it, at the cleanup
)

// reach records that the sync got to at with nothing written or recorded
// before, newRS the memo's new ReplicaSet (not the copy an unparsable
// revision makes).
func (p *planner) reach(at resumePoint, newRS *appsv1.ReplicaSet) {
	if p.memo != nil && len(p.w.res.Actions) == 0 && len(p.w.res.Events) == 0 && newRS == p.memo.existing {
		p.reached = at
	}
}

// resumeAt returns where the plan of s with o may resume the RollingUpdate
// sync q remembers (see above), resumeNone when it may not.
func (q *quietMemo) resumeAt(s Snapshot, o Options) resumePoint {
	d := s.Deployment
	if q.at == resumeNone || o != q.opts || d.Generation != q.gen || mapID(d.Annotations) != q.ann ||
		d.DeletionTimestamp != q.deleted || len(s.ReplicaSets) != len(q.rss) {
		return resumeNone
	}
	if hasProgressDeadline(d) {
		if c := getCondition(d.Status, appsv1.DeploymentProgressing); c == nil || c.Reason == PausedDeployReason {
			return resumeNone
		}
	}
	at := q.at
	for i, rs := range s.ReplicaSets {
		e := &q.rss[i]
		if !e.sameObject(rs) {
			return resumeNone
		}
		if rs.Status.AvailableReplicas != e.avail {
			at = resumeOld
		}
	}
	return at
}

// resume is the sync of a Deployment whose inputs resumeAt accepted, from
// at: the claimed ReplicaSets (sorted) and the new one are the memo's.
func (p *planner) resume(at resumePoint) error {
	m := p.memo
	w := &p.w
	w.claimed = append(w.claimedList(), m.sorted...)
	p.rsList, p.existing = w.claimed, m.existing
	p.looked, p.memoValid, p.existingInSync = true, true, true
	newRS := m.existing
	oldRSs := w.findOldReplicaSets(p.rsList, newRS)
	allRSs := w.appendRS(oldRSs, newRS)
	p.reached = at
	return p.rollingOld(allRSs, oldRSs, newRS, at == resumeOld)
}

// rememberQuiet records the plan just made (err is what its sync returned)
// when its only write was the Deployment's status and the plan that
// follows it at the same instant is known to write nothing (q.ok), or
// when it was a RollingUpdate sync that may be resumed (q.at, see
// resumeAt); otherwise it forgets the last one.
func (p *planner) rememberQuiet(err error) {
	m := p.memo
	q := &m.quiet
	q.ok, q.at = false, resumeNone
	w := &p.w
	s := w.snap
	res := w.res
	if !w.opts.Quiet || !p.looked {
		return
	}
	d := s.Deployment
	ok := err == nil && len(res.Events) == 0 && len(res.Actions) == 1
	var written *appsv1.DeploymentStatus
	if ok {
		a, isStatus := res.Actions[0].(UpdateDeploymentStatus)
		ok = isStatus && mapID(a.Deployment.Annotations) == mapID(d.Annotations)
		if ok {
			written = &a.Deployment.Status
		}
	}
	pods := d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType
	if pods && len(s.Pods) > 0 {
		ok = false
	}
	if ok && p.rolloutStatus && deploymentComplete(d, written) && !deploymentComplete(d, &d.Status) && !p.historyWithinLimit() {
		// The written status completes the rollout: the next plan cleans
		// up, which this one did not.
		ok = false
	}
	if !ok && p.reached == resumeNone {
		return
	}
	n := len(s.ReplicaSets)
	if cap(q.rss) < n {
		q.rss = make([]quietRS, n)
	}
	q.rss = q.rss[:n]
	for i, rs := range s.ReplicaSets {
		st := &rs.Status
		if len(rs.OwnerReferences) > math.MaxInt32 {
			return
		}
		e := &q.rss[i]
		e.rs, e.gen, e.ann, e.labels, e.deleted = rs, rs.Generation, mapID(rs.Annotations), mapID(rs.Labels), rs.DeletionTimestamp
		e.owners, e.nOwners, e.spec = nil, int32(len(rs.OwnerReferences)), *rs.Spec.Replicas
		if e.nOwners > 0 {
			e.owners = &rs.OwnerReferences[0]
		}
		e.replicas, e.fully, e.ready, e.avail, e.observed = st.Replicas, st.FullyLabeledReplicas, st.ReadyReplicas, st.AvailableReplicas, st.ObservedGeneration
		e.terminating, e.terminatingReported, e.conds = 0, st.TerminatingReplicas != nil, len(st.Conditions) > 0
		if e.terminatingReported {
			e.terminating = *st.TerminatingReplicas
		}
		if e.conds {
			// Not for q.ok: see above.
			ok = false
		}
	}
	q.opts, q.gen, q.ann, q.deleted, q.at = w.opts, d.Generation, mapID(d.Annotations), d.DeletionTimestamp, p.reached
	if !ok {
		return
	}
	q.status = *written
	q.conds = append(q.conds[:0], written.Conditions...)
	if written.Conditions != nil {
		q.status.Conditions = q.conds
	}
	if t := written.TerminatingReplicas; t != nil {
		q.term = *t
		q.status.TerminatingReplicas = &q.term
	}
	if c := written.CollisionCount; c != nil {
		q.coll = *c
		q.status.CollisionCount = &q.coll
	}
	q.now, q.pods, q.rollout = s.Now, pods, p.rolloutStatus
	q.ok = true
}

// historyWithinLimit reports whether the cleanup of old ReplicaSets has
// nothing to delete: no history limit, or no more old ReplicaSets that are
// not being deleted than it (cleanupDeployment's first test).
func (p *planner) historyWithinLimit() bool {
	if !p.params.HasHistoryLimit() {
		return true
	}
	n := int32(0)
	for _, rs := range p.rsList {
		if isOld(rs, p.existing) && rs.DeletionTimestamp == nil {
			n++
		}
	}
	return n <= *p.params.RevisionHistoryLimit
}
