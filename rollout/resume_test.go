package rollout

import (
	"fmt"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

// moveStatuses moves the ReplicaSets' statuses in place, as the
// ReplicaSet controller and the simulator do between two syncs of a
// rollout: pods created, ready, terminating, labelled, the generation
// observed, and (less often, since the scaling decisions read it) pods
// becoming available, the status catching up with the size, or a
// ReplicaFailure condition. It reports whether it changed something.
func moveStatuses(t *rapid.T, s *Snapshot) bool {
	changed := false
	for _, rs := range s.ReplicaSets {
		if rapid.IntRange(0, 2).Draw(t, "move") == 0 {
			continue
		}
		changed = true
		st := &rs.Status
		spec := *rs.Spec.Replicas
		switch rapid.IntRange(0, 11).Draw(t, "moveField") {
		case 0, 1: // pods created or gone (the others follow)
			moveReplicas(t, st, spec+int32(rapid.IntRange(0, 1).Draw(t, "surplus")))
		case 2, 3: // pods ready or not (available unchanged when it can be)
			st.ReadyReplicas = int32(rapid.IntRange(int(min(st.AvailableReplicas, st.Replicas)), int(st.Replicas)).Draw(t, "ready"))
			st.AvailableReplicas = min(st.AvailableReplicas, st.ReadyReplicas)
		case 4, 5:
			if rapid.IntRange(0, 4).Draw(t, "terminatingUnset") == 0 {
				st.TerminatingReplicas = nil
			} else {
				st.TerminatingReplicas = new(int32(rapid.IntRange(0, 4).Draw(t, "terminating")))
			}
		case 6:
			st.FullyLabeledReplicas = int32(rapid.IntRange(0, int(st.Replicas)).Draw(t, "fullyLabeled"))
		case 7:
			st.ObservedGeneration = rs.Generation - int64(rapid.IntRange(0, 1).Draw(t, "observedLag"))
		case 8, 9: // pods available
			st.AvailableReplicas = int32(rapid.IntRange(0, int(st.ReadyReplicas)).Draw(t, "available"))
		case 10: // caught up
			st.Replicas, st.FullyLabeledReplicas, st.ReadyReplicas, st.AvailableReplicas = spec, spec, spec, spec
			st.ObservedGeneration = rs.Generation
		case 11:
			if len(st.Conditions) > 0 {
				st.Conditions = nil
			} else if rapid.IntRange(0, 3).Draw(t, "failure") == 0 {
				st.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate",
					LastTransitionTime: metav1.NewTime(s.Now.Truncate(time.Second))}}
			}
		}
	}
	return changed
}

// editDeploymentStatus writes the Deployment's status in place as another
// writer could (an old controller, a user): the Progressing condition
// removed, paused or timed out, or counts that say the rollout is
// complete.
func editDeploymentStatus(t *rapid.T, s Snapshot) {
	d := s.Deployment
	st := &d.Status
	var kept []appsv1.DeploymentCondition
	for _, c := range st.Conditions {
		if c.Type != appsv1.DeploymentProgressing {
			kept = append(kept, c)
		}
	}
	at := metav1.NewTime(s.Now.Truncate(time.Second))
	switch rapid.IntRange(0, 3).Draw(t, "statusEdit") {
	case 0:
		st.Conditions = kept
	case 1:
		st.Conditions = append(kept, appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionUnknown,
			Reason: PausedDeployReason, Message: "Deployment is paused", LastUpdateTime: at, LastTransitionTime: at})
	case 2:
		st.Conditions = append(kept, appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse,
			Reason: TimedOutReason, Message: "timed out", LastUpdateTime: at, LastTransitionTime: at})
	case 3:
		r := *d.Spec.Replicas
		st.Replicas, st.UpdatedReplicas, st.AvailableReplicas, st.ObservedGeneration = r, r, r, d.Generation
	}
}

// keepDeployment applies r's status write (if any) to s's Deployment in
// place when r does not update the Deployment otherwise, else takes
// next's Deployment into it (a new generation or annotations, as an
// update brings).
func keepDeployment(s, next Snapshot, r *Result) {
	for _, a := range r.Actions {
		if _, ok := a.(UpdateDeployment); ok {
			*s.Deployment = *next.Deployment
			return
		}
	}
	for _, a := range r.Actions {
		if a, ok := a.(UpdateDeploymentStatus); ok {
			applyStatusInPlace(s, a)
		}
	}
}

// resumeStats counts, over TestPropertyResume's runs, the plans made,
// those the quiet memo answered and those resumed (see resumeAt), at
// reconcileOldReplicaSets and at the cleanup.
var resumeStats struct {
	sync.Mutex
	plans, quiet, resumedOld, resumedCleanup, statusOnly int
	// remembered: the last plan of the object may be resumed; missed: why
	// those not resumed were not.
	remembered int
	missed     map[string]int
}

// whyNotResumed is the first check of resumeAt that s fails.
func whyNotResumed(q *quietMemo, s Snapshot, o Options) string {
	d := s.Deployment
	switch {
	case o != q.opts:
		return "options"
	case d.Generation != q.gen || mapID(d.Annotations) != q.ann || d.DeletionTimestamp != q.deleted:
		return "deployment"
	case len(s.ReplicaSets) != len(q.rss):
		return "replica sets added or removed"
	}
	if hasProgressDeadline(d) {
		if c := getCondition(d.Status, appsv1.DeploymentProgressing); c == nil || c.Reason == PausedDeployReason {
			return "progressing condition"
		}
	}
	for i, rs := range s.ReplicaSets {
		if !q.rss[i].sameObject(rs) {
			return "replica set object, metadata or size"
		}
	}
	return "resumed"
}

// A Planner's resumed RollingUpdate syncs (see resumeAt in memo.go) give
// PlanWith's Result: over sequences of syncs of one Deployment whose
// ReplicaSets' statuses move in place between them (mostly fields the
// scaling decisions do not read), while time passes, the Results are
// applied (status writes in place, as the simulator does) or lost, and now
// and then the Deployment, a ReplicaSet's size or metadata, or the set of
// objects changes (evolve) or another writer edits the Deployment's
// status, one long-lived Planner gives exactly PlanWith's Result, error
// and Stop at every sync. The plans resumed are counted: a large share
// must be.
func TestPropertyResume(t *testing.T) {
	resumeStats.Lock()
	resumeStats.plans, resumeStats.quiet, resumeStats.resumedOld, resumeStats.resumedCleanup, resumeStats.statusOnly = 0, 0, 0, 0, 0
	resumeStats.remembered, resumeStats.missed = 0, map[string]int{}
	resumeStats.Unlock()
	rapid.Check(t, func(t *rapid.T) {
		s := genSnapshot(t)
		if rapid.IntRange(0, 3).Draw(t, "deadline") == 0 {
			s.Deployment.Spec.ProgressDeadlineSeconds = new(int32(rapid.SampledFrom([]int{1, 2, 5, 30}).Draw(t, "shortDeadline")))
		}
		s.Now = s.Now.Add(time.Duration(rapid.IntRange(0, 999).Draw(t, "nowMs")) * time.Millisecond)
		// The shortcut is for RollingUpdate Deployments that are not
		// paused: mostly those.
		if d := s.Deployment; rapid.IntRange(0, 3).Draw(t, "mostlyRolling") > 0 {
			d.Spec.Paused = false
			if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
				surge, unavailable := intstrString("25%"), intstrString("25%")
				d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
					RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}}
			}
		}
		drawOptions := func() Options {
			return Options{
				Quiet:                      rapid.IntRange(0, 15).Draw(t, "quiet") > 0,
				FixProportionOverflow:      rapid.Bool().Draw(t, "fixOverflow"),
				DisableTerminatingReplicas: rapid.IntRange(0, 3).Draw(t, "noTerminating") == 0,
			}
		}
		pl := Planner{Options: drawOptions()}
		for i := range rapid.IntRange(1, 30).Draw(t, "syncs") {
			step := fmt.Sprintf("sync %d", i)
			if rapid.IntRange(0, 19).Draw(t, "newOptions") == 0 {
				pl.Options = drawOptions()
			}
			o := pl.Options
			var answered, remembered bool
			at := resumeNone
			why := ""
			if m := pl.memos[s.Deployment]; m != nil {
				answered = m.quiet.matches(s, o)
				if !answered {
					at = m.quiet.resumeAt(s, o)
					remembered = m.quiet.at != resumeNone
				}
				if remembered && at == resumeNone {
					why = whyNotResumed(&m.quiet, s, o)
				}
			}
			r, err := planLikePlanWith(t, &pl, s, o, fmt.Sprintf("%s, resumed at %d, answered by the quiet memo %v", step, at, answered))
			if err != nil {
				return // invalid input (an edit can make one)
			}
			_, statusOnly := writesOnlyStatus(r)
			resumeStats.Lock()
			resumeStats.plans++
			if answered {
				resumeStats.quiet++
			}
			switch at {
			case resumeOld:
				resumeStats.resumedOld++
			case resumeCleanup:
				resumeStats.resumedCleanup++
			}
			if remembered {
				resumeStats.remembered++
			}
			if why != "" {
				resumeStats.missed[why]++
			}
			if statusOnly {
				resumeStats.statusOnly++
			}
			resumeStats.Unlock()
			if rapid.IntRange(0, 9).Draw(t, "writesLost") == 0 {
				// The writes failed (the API server was not reached): the
				// next sync sees the same objects.
			} else if a, ok := writesOnlyStatus(r); ok && rapid.IntRange(0, 9).Draw(t, "applyAsNewObjects") > 0 {
				applyStatusInPlace(s, a)
			} else if len(r.Actions) > 0 {
				next, err := Apply(s, r)
				if err != nil && r.Stop == "" {
					t.Fatalf("%s: Apply: %v", step, err)
				}
				if err == nil && rapid.IntRange(0, 3).Draw(t, "keepDeployment") > 0 {
					// As the simulator: the Deployment object stays,
					// its status written in place.
					keepDeployment(s, next, r)
					next.Deployment = s.Deployment
				}
				s = next
			}
			if rapid.IntRange(0, 3).Draw(t, "passes") > 0 {
				s.Now = s.Now.Add(time.Duration(rapid.IntRange(1, 3000).Draw(t, "passMs")) * time.Millisecond)
			}
			moveStatuses(t, &s)
			if rapid.IntRange(0, 11).Draw(t, "editStatus") == 0 {
				editDeploymentStatus(t, s)
			}
			if rapid.IntRange(0, 5).Draw(t, "evolve") == 0 {
				evolve(t, &s)
			}
		}
	})
	resumeStats.Lock()
	defer resumeStats.Unlock()
	st := &resumeStats
	resumed := st.resumedOld + st.resumedCleanup
	t.Logf("%d plans: %d answered by the quiet memo; of the others, %d followed a plan that may be resumed, %d resumed (%.1f%% of those not answered): %d at reconcileOldReplicaSets, %d at the cleanup; %d wrote only the status; not resumed after such a plan: %v",
		st.plans, st.quiet, st.remembered, resumed, 100*float64(resumed)/float64(max(st.plans-st.quiet, 1)), st.resumedOld, st.resumedCleanup, st.statusOnly, st.missed)
	// The floors sit about four standard deviations below what 100 cases
	// of random seeds give (60 runs: 25.0–38.0 % of the plans not
	// answered resumed, mean 31 %; 80 runs: 11–23 % of those at
	// reconcileOldReplicaSets, mean 16 %), so that a seed does not fail
	// the test by chance (floors of 25 % and 10 % failed about one run
	// in fifty), while a resume path that stopped working still does.
	if resumed*5 < st.plans-st.quiet || st.resumedOld*20 < resumed || st.resumedCleanup*20 < resumed {
		t.Errorf("only %d of %d plans resumed (%d at reconcileOldReplicaSets, %d at the cleanup): the property tests too little", resumed, st.plans-st.quiet, st.resumedOld, st.resumedCleanup)
	}
}
