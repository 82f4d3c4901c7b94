package rollout

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

// writesOnlyStatus reports whether r's only write is the Deployment's
// status (events and Stop aside).
func writesOnlyStatus(r *Result) (UpdateDeploymentStatus, bool) {
	if len(r.Actions) != 1 {
		return UpdateDeploymentStatus{}, false
	}
	a, ok := r.Actions[0].(UpdateDeploymentStatus)
	return a, ok
}

// applyStatusInPlace applies a status write to s's Deployment object
// itself, as the simulator does: the status (conditions copied, times cut
// to the second as the API server stores them) and the annotations map of
// the written object, a new resourceVersion. It returns whether a
// condition time was cut.
func applyStatusInPlace(s Snapshot, a UpdateDeploymentStatus) bool {
	d := s.Deployment
	st := *a.Deployment.Status.DeepCopy()
	cut := false
	for i := range st.Conditions {
		c := &st.Conditions[i]
		for _, tm := range []*metav1.Time{&c.LastUpdateTime, &c.LastTransitionTime} {
			if tm.Nanosecond() != 0 {
				*tm = metav1.NewTime(tm.Truncate(time.Second))
				cut = true
			}
		}
	}
	d.Status = st
	d.Annotations = a.Deployment.Annotations
	d.ResourceVersion = nextVersion(d.ResourceVersion)
	return cut
}

// evolve changes s the ways a cluster does between two syncs, or not at
// all (the simulator's sync after a status write comes at the same instant
// with the same objects), and reports whether it changed something: time
// passes, the ReplicaSet controller updates statuses in place, a user edits
// the Deployment (in place with a new generation, or as a new object), a
// write replaces a ReplicaSet's metadata (a new map, new owner references, a
// deletion timestamp) or the ReplicaSet, its spec changes with a new
// generation (in place, as the simulator's scale), a ReplicaSet or a pod
// appears.
func evolve(t *rapid.T, s *Snapshot) bool {
	if rapid.IntRange(0, 2).Draw(t, "unchanged") == 0 {
		return false
	}
	changed := false
	switch rapid.IntRange(0, 5).Draw(t, "time") {
	case 0, 1, 2:
	case 3:
		s.Now = s.Now.Add(time.Duration(rapid.IntRange(1, 999).Draw(t, "ms")) * time.Millisecond)
		changed = true
	case 4:
		s.Now = s.Now.Add(time.Duration(rapid.IntRange(1, 30).Draw(t, "s")) * time.Second)
		changed = true
	case 5:
		s.Now = s.Now.Add(time.Duration(rapid.IntRange(1, 20).Draw(t, "min")) * time.Minute)
		changed = true
	}
	for _, rs := range s.ReplicaSets {
		if rapid.IntRange(0, 2).Draw(t, "rsProgress") != 0 {
			continue
		}
		changed = true
		st := &rs.Status // in place, as the simulator writes statuses
		spec := *rs.Spec.Replicas
		switch rapid.IntRange(-1, 6).Draw(t, "rsStatusField") {
		case -1: // the ReplicaSet controller has caught up
			st.Replicas, st.FullyLabeledReplicas, st.ReadyReplicas, st.AvailableReplicas = spec, spec, spec, spec
			st.ObservedGeneration = rs.Generation
		case 0:
			moveReplicas(t, st, spec)
		case 1:
			st.ReadyReplicas = int32(rapid.IntRange(0, int(st.Replicas)).Draw(t, "ready"))
			st.AvailableReplicas = min(st.AvailableReplicas, st.ReadyReplicas)
		case 2:
			st.AvailableReplicas = int32(rapid.IntRange(0, int(st.ReadyReplicas)).Draw(t, "available"))
		case 3:
			st.FullyLabeledReplicas = int32(rapid.IntRange(0, int(st.Replicas)).Draw(t, "fullyLabeled"))
		case 4:
			st.ObservedGeneration = rs.Generation - int64(rapid.IntRange(0, 1).Draw(t, "observedLag"))
		case 5:
			if rapid.IntRange(0, 3).Draw(t, "terminatingUnset") == 0 {
				st.TerminatingReplicas = nil
			} else {
				st.TerminatingReplicas = new(int32(rapid.IntRange(0, 3).Draw(t, "terminatingPods")))
			}
		case 6:
			if len(st.Conditions) > 0 && rapid.Bool().Draw(t, "failureGone") {
				st.Conditions = nil
			} else {
				st.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate",
					LastTransitionTime: metav1.NewTime(s.Now.Add(-time.Duration(rapid.IntRange(0, 1500).Draw(t, "failureAgeMs")) * time.Millisecond))}}
			}
		}
	}
	if rapid.IntRange(0, 3).Draw(t, "editDeployment") == 0 {
		changed = true
		d := s.Deployment
		if rapid.Bool().Draw(t, "newObject") {
			d = d.DeepCopy()
		}
		switch rapid.IntRange(0, 8).Draw(t, "edit") {
		case 0:
			d.Generation++
			d.Spec.Template.Spec.Containers = slices.Clone(d.Spec.Template.Spec.Containers)
			d.Spec.Template.Spec.Containers[0].Image = rapid.SampledFrom(images).Draw(t, "newImage")
		case 1:
			d.Generation++
			d.Spec.Replicas = new(int32(rapid.IntRange(0, 20).Draw(t, "newReplicas")))
		case 2:
			d.Generation++
			d.Spec.Paused = !d.Spec.Paused
		case 3:
			d.Generation++
			d.Spec.ProgressDeadlineSeconds = new(int32(rapid.SampledFrom([]int{1, 2, 5, 600}).Draw(t, "deadline")))
		case 4:
			d.Generation++
			d.Spec.RevisionHistoryLimit = new(int32(rapid.IntRange(0, 3).Draw(t, "newHistoryLimit")))
		case 5: // a new annotations map (metadata: no new generation)
			ann := editableCopy(d.Annotations)
			switch rapid.IntRange(0, 2).Draw(t, "annotation") {
			case 0:
				ann["deprecated.deployment.rollback.to"] = fmt.Sprint(rapid.IntRange(0, 3).Draw(t, "rollbackTo"))
			case 1:
				ann["deployment.kubernetes.io/revision"] = fmt.Sprint(rapid.IntRange(0, 6).Draw(t, "dRevision"))
			}
			d.Annotations = ann
		case 6: // deletion starts
			d.DeletionTimestamp = new(metav1.NewTime(s.Now.Truncate(time.Second)))
		case 7: // the status written by someone else, in place
			d.Status.ObservedGeneration = max(d.Status.ObservedGeneration-1, 0)
		case 8: // a status condition's time cut differently
			if len(d.Status.Conditions) > 0 {
				d.Status.Conditions = slices.Clone(d.Status.Conditions)
				c := &d.Status.Conditions[rapid.IntRange(0, len(d.Status.Conditions)-1).Draw(t, "condition")]
				c.LastUpdateTime = metav1.NewTime(c.LastUpdateTime.Add(-time.Second))
			}
		}
		s.Deployment = d
	}
	if len(s.ReplicaSets) > 0 && rapid.IntRange(0, 3).Draw(t, "editReplicaSet") == 0 {
		changed = true
		k := rapid.IntRange(0, len(s.ReplicaSets)-1).Draw(t, "edited")
		rs := s.ReplicaSets[k]
		if rapid.Bool().Draw(t, "newRSObject") {
			rs = rs.DeepCopy()
			s.ReplicaSets = slices.Clone(s.ReplicaSets)
			s.ReplicaSets[k] = rs
		}
		switch rapid.IntRange(0, 8).Draw(t, "rsEdit") {
		case 0: // orphaned
			rs.OwnerReferences = nil
		case 1: // the same owner references, a new slice
			rs.OwnerReferences = slices.Clone(rs.OwnerReferences)
		case 2:
			rs.DeletionTimestamp = new(metav1.NewTime(s.Now.Truncate(time.Second)))
		case 3: // the simulator's in-place scale
			rs.Spec.Replicas = new(int32(rapid.IntRange(0, 12).Draw(t, "rsReplicas")))
			rs.Generation++
		case 4:
			ann := editableCopy(rs.Annotations)
			ann["deployment.kubernetes.io/desired-replicas"] = fmt.Sprint(rapid.IntRange(0, 20).Draw(t, "rsDesired"))
			rs.Annotations = ann
		case 5:
			rs.Labels = relabeled(t, rs.Labels)
		case 6: // the same values
		case 7: // a new object sharing the metadata maps, its spec changed
			// without a new generation
			c := *rs
			c.Spec.Replicas = new(*rs.Spec.Replicas + 1)
			rs = &c
			s.ReplicaSets = slices.Clone(s.ReplicaSets)
			s.ReplicaSets[k] = rs
		case 8: // another controller's, as many owner references
			refs := slices.Clone(rs.OwnerReferences)
			for i := range refs {
				refs[i].UID += "-other"
			}
			rs.OwnerReferences = refs
		}
	}
	if rapid.IntRange(0, 7).Draw(t, "more") == 0 {
		changed = true
		if len(s.ReplicaSets) > 0 && rapid.Bool().Draw(t, "newRS") {
			// A ReplicaSet appears: an orphan, or another namespace's.
			rs := s.ReplicaSets[0].DeepCopy()
			rs.Name, rs.UID, rs.OwnerReferences = rs.Name+"x", rs.UID+"x", nil
			if rapid.Bool().Draw(t, "otherNamespace") {
				rs.Namespace = "other"
			}
			s.ReplicaSets = append(slices.Clone(s.ReplicaSets), rs)
		} else if len(s.ReplicaSets) > 0 {
			// A pod of an old ReplicaSet (Recreate waits for it).
			rs := s.ReplicaSets[0]
			s.Pods = append(slices.Clone(s.Pods), &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Namespace: rs.Namespace, Name: fmt.Sprintf("p%d", len(s.Pods)),
					OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning},
			})
		}
	}
	return changed
}

// quietStats counts, over TestPropertyQuietAfterStatusWrite's runs, the
// plans that wrote only the status, those the Planner remembered, and the
// syncs that followed them which wrote something anyway, by what they did.
var quietStats struct {
	sync.Mutex
	statusOnly, remembered, answered int
	exceptions                       map[string]int
}

// moveReplicas moves st.Replicas part of the way to target, as pods are
// created or go, and keeps the ready and available counts within it.
func moveReplicas(t *rapid.T, st *appsv1.ReplicaSetStatus, target int32) {
	switch {
	case st.Replicas < target:
		st.Replicas += int32(rapid.IntRange(1, int(target-st.Replicas)).Draw(t, "created"))
	case st.Replicas > target:
		st.Replicas -= int32(rapid.IntRange(1, int(st.Replicas-target)).Draw(t, "gone"))
	}
	st.ReadyReplicas = min(st.ReadyReplicas, st.Replicas)
	st.AvailableReplicas = min(st.AvailableReplicas, st.ReadyReplicas)
}

// planLikePlanWith plans s with pl, and with PlanWith on a copy of s,
// fails t when the errors or the Results differ (what names the plan),
// and returns pl's.
func planLikePlanWith(t *rapid.T, pl *Planner, s Snapshot, o Options, what string) (*Result, error) {
	want, wantErr := PlanWith(deepCopySnapshot(s), o)
	r, err := pl.Plan(s)
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("%s: error %v, PlanWith's %v", what, err, wantErr)
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Fatalf("%s: Planner differs from PlanWith (-PlanWith +Planner):\n%s", what, diff)
	}
	return r, err
}

// The fact the Planner's quiet memo rests on (see memo.go): when a plan
// writes only the Deployment's status, the plan of the same objects with
// that status written into the Deployment (in place, as the simulator and
// an informer's update deliver it), at the same instant, writes nothing,
// records no event, and returns what the Planner answers without planning,
// whenever the Planner remembered the first plan. Over evolving snapshots
// (time, in-place ReplicaSet statuses, spec edits in place and as new
// objects, orphans, deletions), a Planner also gives PlanWith's Result at
// every sync. The syncs that do write after a status-only plan are counted
// by kind: each is a case the memo excludes.
func TestPropertyQuietAfterStatusWrite(t *testing.T) {
	quietStats.Lock()
	quietStats.statusOnly, quietStats.remembered, quietStats.answered = 0, 0, 0
	quietStats.exceptions = map[string]int{}
	quietStats.Unlock()
	rapid.Check(t, func(t *rapid.T) {
		drawOptions := func() Options {
			return Options{
				Quiet:                      rapid.IntRange(0, 3).Draw(t, "quiet") > 0,
				FixProportionOverflow:      rapid.Bool().Draw(t, "fixOverflow"),
				DisableTerminatingReplicas: rapid.IntRange(0, 3).Draw(t, "noTerminating") == 0,
			}
		}
		s := genSnapshot(t)
		if rapid.IntRange(0, 3).Draw(t, "deadline") == 0 {
			s.Deployment.Spec.ProgressDeadlineSeconds = new(int32(rapid.SampledFrom([]int{1, 2, 5}).Draw(t, "shortDeadline")))
		}
		s.Now = s.Now.Add(time.Duration(rapid.IntRange(0, 999).Draw(t, "nowMs")) * time.Millisecond)
		pl := Planner{Options: drawOptions()}
		// after is set when the last plan wrote only the status (and
		// nothing changed since but that status, written in place): its
		// kind, and whether the Planner remembered it.
		var after struct {
			ok, remembered bool
			kind           string
		}
		for i := range rapid.IntRange(1, 16).Draw(t, "syncs") {
			step := fmt.Sprintf("sync %d", i)
			if rapid.IntRange(0, 9).Draw(t, "newOptions") == 0 {
				pl.Options = drawOptions()
				after.ok = false
			}
			o := pl.Options
			var answered bool
			if m := pl.memos[s.Deployment]; m != nil {
				answered = m.quiet.matches(s, o)
			}
			r, err := planLikePlanWith(t, &pl, s, o, fmt.Sprintf("%s, answered from the memo %v", step, answered))
			if err != nil {
				return // invalid input (an edit can make one)
			}
			if after.ok {
				// The sync after a status-only plan, at the same instant,
				// of the same objects with the written status.
				if after.remembered && !answered {
					t.Fatalf("%s: the Planner remembered the last plan but did not answer the sync after its status write", step)
				}
				quietStats.Lock()
				quietStats.statusOnly++
				if after.remembered {
					quietStats.remembered++
				}
				if answered {
					quietStats.answered++
				}
				if len(r.Actions) > 0 || len(r.Events) > 0 {
					quietStats.exceptions[after.kind+exceptionKind(r)]++
				}
				quietStats.Unlock()
			}
			after.ok = false
			if a, ok := writesOnlyStatus(r); ok && rapid.IntRange(0, 9).Draw(t, "applyAsNewObjects") > 0 {
				m := pl.memos[s.Deployment]
				after.remembered = m != nil && m.quiet.ok
				after.kind = firstKind(r) // r is overwritten by the next plan
				cut := applyStatusInPlace(s, a)
				after.ok = !cut
			} else if len(r.Actions) > 0 {
				next, err := Apply(s, r)
				if err != nil && r.Stop == "" {
					t.Fatalf("%s: Apply: %v", step, err)
				}
				s = next
			}
			if evolve(t, &s) {
				after.ok = false
			}
		}
	})
	quietStats.Lock()
	defer quietStats.Unlock()
	var kinds []string
	for k, n := range quietStats.exceptions {
		kinds = append(kinds, fmt.Sprintf("%6d  %s", n, k))
	}
	sort.Strings(kinds)
	t.Logf("%d syncs after a status-only plan, at the same instant, of the same objects: %d of those plans remembered, %d syncs answered without planning; those that wrote or recorded an event:\n%s",
		quietStats.statusOnly, quietStats.remembered, quietStats.answered, strings.Join(kinds, "\n"))
	if quietStats.answered == 0 {
		t.Error("no sync answered from the quiet memo: the property tests nothing")
	}
}

// firstKind describes a status-only plan r (its stop, its events).
func firstKind(r *Result) string {
	var b strings.Builder
	if r.Stop != "" {
		b.WriteString("first stopped; ")
	}
	for _, e := range r.Events {
		b.WriteString("first event " + e.Reason + "; ")
	}
	return b.String()
}

// exceptionKind describes the plan r2 after a status-only plan that wrote
// or recorded an event anyway.
func exceptionKind(r2 *Result) string {
	var b strings.Builder
	b.WriteString("then")
	for _, a := range r2.Actions {
		fmt.Fprintf(&b, " %T", a)
	}
	for _, e := range r2.Events {
		b.WriteString(" event " + e.Reason)
	}
	return b.String()
}

// TestMapID: mapID is reflect's identity of a map.
func TestMapID(t *testing.T) {
	a, b := map[string]string{"k": "v"}, map[string]string{"k": "v"}
	for _, m := range []map[string]string{nil, a, b, {}} {
		if got, want := mapID(m), reflect.ValueOf(m).UnsafePointer(); got != want {
			t.Errorf("mapID(%v) = %p, reflect says %p", m, got, want)
		}
	}
	alias := a
	if mapID(a) == mapID(b) || mapID(alias) != mapID(a) {
		t.Error("mapID does not tell maps apart, or tells one map from itself")
	}
}

// editableCopy is a copy of m that can be written to (a new map also when
// m is nil), for a test to change an object's labels or annotations as a
// new object would carry them.
func editableCopy(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// relabeled is a copy of labels, its app label changed to "other" or not
// as t draws.
func relabeled(t *rapid.T, labels map[string]string) map[string]string {
	lab := editableCopy(labels)
	if rapid.Bool().Draw(t, "relabel") {
		lab["app"] = "other"
	}
	return lab
}
