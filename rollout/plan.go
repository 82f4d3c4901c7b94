package rollout

import (
	"errors"
	"fmt"
	"math"

	"github.com/deploymath/deploymath/fencepost"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Plan computes what one sync of upstream's Deployment controller does for
// the snapshot, with the default [Options] (exact upstream behaviour).
//
// It returns an error only for invalid input (a nil Deployment, a
// Deployment that is not defaulted or fails validation); the error names the
// offending field. A Deployment that cannot make progress is not an error:
// the Result says so with conditions and events.
func Plan(s Snapshot) (*Result, error) { return PlanWith(s, Options{}) }

// PlanWith is [Plan] with options.
func PlanWith(s Snapshot, o Options) (*Result, error) { return plan(s, o, nil) }

// plan is one sync; reuse, when not nil, lends the memory a [Planner]
// keeps between calls.
func plan(s Snapshot, o Options, reuse *Planner) (*Result, error) {
	if s.Deployment == nil {
		return nil, errors.New("deployment: must not be nil")
	}
	var m *memo
	if reuse != nil {
		if m = reuse.memos[s.Deployment]; m != nil {
			if res := reuse.quietResult(m, s, o); res != nil {
				// The sync after this Planner's own status write (see
				// memo.go).
				return res, nil
			}
		}
	}
	for i, rs := range s.ReplicaSets {
		if rs == nil {
			return nil, fmt.Errorf("replicaSets[%d]: must not be nil", i)
		}
	}
	if s.Now.IsZero() {
		return nil, errors.New("now: must be set: the instant of the sync (Plan reads no clock)")
	}
	// The planner (with its world) lives on this stack; only the Result
	// and the objects written are allocated.
	p := &planner{d: s.Deployment}
	w := &p.w
	w.initReusing(s, o, reuse)
	if reuse != nil {
		p.conds.buf = &reuse.conds
	}

	// A selector that selects everything is refused before anything else,
	// even before validation: upstream only records observedGeneration.
	// (A memo whose spec is this generation's passed this test: the
	// selector is not read again, a cache miss saved.)
	d := s.Deployment
	if !(m != nil && m.specOK && m.specGen == d.Generation) && selectsEverything(d.Spec.Selector) {
		w.warning("SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")
		if d.Status.ObservedGeneration < d.Generation {
			d = w.cloneDeployment(d)
			d.Status.ObservedGeneration = d.Generation
			// Upstream ignores the error of this write.
			_ = w.writeDeployment(d, true, fmt.Sprintf("selector selects everything: only observedGeneration is recorded (%d)", d.Generation))
		}
		return w.finish(nil), nil
	}
	// The last plan of this Deployment may let this one resume a
	// RollingUpdate sync half-way (see memo.go); memoOf forgets it.
	var at resumePoint
	if m != nil {
		at = m.quiet.resumeAt(s, o)
	}
	p.memoOf(d, m)
	if m := p.specMemo(d); m != nil {
		// The same Deployment object and generation passed validation at
		// the Planner's last plan of it (see memo.go).
		p.sel, p.params = m.sel, m.params
	} else {
		p.sel.init(d.Spec.Selector)
		if err := validate(d, &p.sel); err != nil {
			return nil, err
		}
		p.params, _ = ParamsOf(d) // validated: spec.replicas is set
		if m := p.memo; m != nil {
			m.sel, m.params = p.sel, p.params
			m.specGen, m.specOK, m.fenceOK = d.Generation, true, false
		}
	}
	for i, rs := range s.ReplicaSets {
		if err := validateReplicaSet(rs); err != nil {
			return nil, fmt.Errorf("replicaSets[%d] (%s): %w", i, rs.Name, err)
		}
	}

	var err error
	if at != resumeNone {
		err = p.resume(at)
	} else {
		err = p.sync()
	}
	if p.memo != nil {
		// Before finish clears the planner's lists.
		p.rememberQuiet(err)
	}
	return w.finish(err), nil
}

// finish turns the error a sync ended with into the Result's Stop and
// Requeue, as upstream's handleErr does.
func (w *world) finish(err error) *Result {
	w.res.Status = w.status
	if err != nil {
		w.res.Stop = err.Error()
		w.res.Requeue = Requeue{RateLimited: true}
	}
	if r := w.reuse; r != nil {
		// Keep the lists' arrays for the next plan (they may have grown).
		if cap(w.res.Actions) > cap(r.actions) {
			r.actions = w.res.Actions[:0]
		}
		if cap(w.res.Events) > cap(r.events) {
			r.events = w.res.Events[:0]
		}
		// The ReplicaSet lists are the planner's scratch: drop what they
		// point to so that the Planner keeps no snapshot alive.
		clear(w.claimed[:cap(w.claimed)])
		clear(w.rsBuf[:cap(w.rsBuf)])
		r.claimed, r.rss = w.claimed[:0], w.rsBuf[:0]
	}
	return w.res
}

// planner follows upstream's syncDeployment step by step.
type planner struct {
	w world
	// d is the Deployment as the sync sees it. Like upstream, the sync
	// changes it in memory (revision annotation, conditions) and writes it;
	// it starts as the snapshot's object, read-only, and mut makes it a
	// private copy before the first change.
	d     *appsv1.Deployment
	owned bool
	// params are the Deployment's rollout parameters, for the building
	// blocks.
	params Params
	// sel is the Deployment's selector, prepared for matching (the spec
	// does not change within a sync).
	sel selectorPairs
	// progressingSet records that this sync set the Deployment's
	// Progressing condition (at Now).
	progressingSet bool
	// conds says whether the conditions of the status calculateStatus
	// made are still the Deployment's, and lends the Planner's array for
	// the copy (see setOwnedCondition).
	conds condOwner
	// rsList is the claimed ReplicaSets.
	rsList []*appsv1.ReplicaSet
	// existing is the new ReplicaSet found in rsList, once looked is set.
	existing *appsv1.ReplicaSet
	looked   bool
	// memo is the Planner's memory of this Deployment (nil without a
	// Planner); memoValid says it describes this plan's ReplicaSets.
	memo      *memo
	memoValid bool
	// existingInSync records that existing needs no revision sync.
	existingInSync bool
	// rolloutStatus records that the sync reached syncRolloutStatus (the
	// end of a rollout: RollingUpdate or Recreate).
	rolloutStatus bool
	// reached is the furthest point of a RollingUpdate sync it reached
	// with nothing written or recorded before, the new ReplicaSet the
	// memo's (see reach).
	reached resumePoint
	// fenceposts caches the resolved maxSurge and maxUnavailable: the
	// spec does not change within a sync.
	fenceposts struct {
		surge, unavailable int32
		ok                 bool
	}
}

// mut returns the Deployment for changing, copying it first if it is still
// the snapshot's object. Take a fresh p.d after calling it.
func (p *planner) mut() *appsv1.Deployment {
	if !p.owned {
		p.d = p.w.cloneDeployment(p.d)
		p.owned = true
	}
	return p.d
}

func (p *planner) sync() error {
	rsList, err := p.claimRemembered()
	if err != nil {
		return err
	}
	p.rsList = rsList

	if p.d.DeletionTimestamp != nil {
		return p.syncStatusOnly()
	}
	if err := p.checkPausedConditions(); err != nil {
		return err
	}
	if p.d.Spec.Paused {
		return p.syncScale()
	}
	if rollbackTo, ok := rollbackRevision(p.d); ok {
		return p.rollback(rollbackTo)
	}
	scaling, err := p.isScalingEvent()
	if err != nil {
		return err
	}
	if scaling {
		return p.syncScale()
	}
	switch p.d.Spec.Strategy.Type {
	case appsv1.RecreateDeploymentStrategyType:
		return p.rolloutRecreate()
	case appsv1.RollingUpdateDeploymentStrategyType:
		return p.rolloutRolling()
	}
	// Validate rejects other types; keep the upstream error for completeness.
	return fmt.Errorf("unexpected deployment strategy type: %s", p.d.Spec.Strategy.Type)
}

// checkPausedConditions records pausing and resuming in the Progressing
// condition so that a paused Deployment never times out.
func (p *planner) checkPausedConditions() error {
	d := p.d
	if !hasProgressDeadline(d) {
		return nil
	}
	cond := getCondition(d.Status, appsv1.DeploymentProgressing)
	if cond != nil && cond.Reason == TimedOutReason {
		return nil
	}
	pausedCondExists := cond != nil && cond.Reason == PausedDeployReason
	var why string
	switch {
	case d.Spec.Paused && !pausedCondExists:
		p.setProgressing(newCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, PausedDeployReason, "Deployment is paused", p.w.snap.Now))
		why = "the deployment is paused: Progressing=Unknown DeploymentPaused"
	case !d.Spec.Paused && pausedCondExists:
		p.setProgressing(newCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, ResumedDeployReason, "Deployment is resumed", p.w.snap.Now))
		why = "the deployment is resumed: Progressing=Unknown DeploymentResumed"
	default:
		return nil
	}
	return p.writeDeployment(true, why)
}

// syncStatusOnly is the sync of a Deployment being deleted.
func (p *planner) syncStatusOnly() error {
	newRS, oldRSs, err := p.getAllReplicaSetsAndSyncRevision(false)
	if err != nil {
		return err
	}
	return p.syncDeploymentStatus(p.w.appendRS(oldRSs, newRS), newRS)
}

// syncScale is upstream's sync: scaling events and paused Deployments.
func (p *planner) syncScale() error {
	newRS, oldRSs, err := p.getAllReplicaSetsAndSyncRevision(false)
	if err != nil {
		return err
	}
	if err := p.scale(newRS, oldRSs); err != nil {
		return err
	}
	if _, rollingBack := rollbackRevision(p.d); p.d.Spec.Paused && !rollingBack {
		if err := p.cleanupDeployment(oldRSs); err != nil {
			return err
		}
	}
	return p.syncDeploymentStatus(p.w.appendRS(oldRSs, newRS), newRS)
}

// syncDeploymentStatus writes the calculated status if it changed.
func (p *planner) syncDeploymentStatus(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) error {
	newStatus := p.calculateStatus(allRSs, newRS)
	if statusEqual(&p.d.Status, &newStatus) {
		return nil
	}
	why := p.statusWhy(p.d.Status, newStatus)
	p.mut().Status = newStatus
	return p.writeDeployment(true, why)
}

// appendRS returns a new list: old, then rs.
func (w *world) appendRS(old []*appsv1.ReplicaSet, rs *appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	out := w.rsList(len(old) + 1)
	out = append(out, old...)
	return append(out, rs)
}

// maxSurge is fencepost.MaxSurge of the Deployment, resolved once per sync.
func (p *planner) maxSurge() int32 {
	p.resolveFenceposts()
	return p.fenceposts.surge
}

// annotationSurge is the maxSurge the max-replicas annotation is written
// with: upstream's (replicas + maxSurge then wraps around in int32 when it
// does not fit), or, with FixProportionOverflow, one that holds replicas +
// maxSurge to 2147483647, so that no wrapped number is written.
func (p *planner) annotationSurge() int32 {
	s := p.maxSurge()
	if p.w.opts.FixProportionOverflow {
		s = min(s, math.MaxInt32-*p.d.Spec.Replicas)
	}
	return s
}

// maxUnavailable is fencepost.MaxUnavailable of the Deployment, resolved
// once per sync.
func (p *planner) maxUnavailable() int32 {
	p.resolveFenceposts()
	return p.fenceposts.unavailable
}

func (p *planner) resolveFenceposts() {
	if !p.fenceposts.ok {
		if m := p.specMemo(p.d); m != nil && m.fenceOK {
			p.fenceposts.surge, p.fenceposts.unavailable = m.surge, m.unavailable
		} else {
			p.fenceposts.surge, p.fenceposts.unavailable = fencepost.Limits(p.d)
			if m != nil {
				m.surge, m.unavailable, m.fenceOK = p.fenceposts.surge, p.fenceposts.unavailable, true
			}
		}
		p.fenceposts.ok = true
	}
}

// selectsEverything is upstream's reflect.DeepEqual(selector,
// &metav1.LabelSelector{}) without reflection: a non-nil selector whose
// fields are all nil. An empty but non-nil map or slice is not "everything"
// to reflect.DeepEqual, and not here either.
func selectsEverything(sel *metav1.LabelSelector) bool {
	return sel != nil && sel.MatchLabels == nil && sel.MatchExpressions == nil
}
