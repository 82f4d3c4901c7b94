package rollout_test

// The building blocks on upstream's unit cases (deployment_util_test.go,
// written here as our own tables) and on rapid properties.

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"
)

func TestNewRSNewReplicasUpstreamCases(t *testing.T) {
	for _, tc := range []struct {
		name                         string
		strategy                     appsv1.DeploymentStrategyType
		replicas, newRS, surge, want int32
	}{
		{"can not scale up - to newRSReplicas", appsv1.RollingUpdateDeploymentStrategyType, 1, 5, 1, 5},
		{"scale up - to depReplicas", appsv1.RollingUpdateDeploymentStrategyType, 6, 2, 10, 6},
		{"recreate - to depReplicas", appsv1.RecreateDeploymentStrategyType, 3, 1, 1, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			surge, unavailable := intstr.FromInt32(tc.surge), intstr.FromInt32(1)
			p := rollout.Params{Replicas: tc.replicas, Strategy: tc.strategy, MaxSurge: &surge, MaxUnavailable: &unavailable}
			// Upstream's case passes a ReplicaSet of 5 as "all" and the new
			// one beside it; here the new one is in all, with the same
			// answers.
			s, err := rollout.NewRSNewReplicas(&p, []rollout.ReplicaSet{{Name: "rs5", Replicas: 5}, {Name: "new", Replicas: tc.newRS}}, 1)
			if err != nil || s.Size != tc.want {
				t.Errorf("NewRSNewReplicas = %d, %v; want %d", s.Size, err, tc.want)
			}
		})
	}
}

func TestNewRSNewReplicasBadInput(t *testing.T) {
	p := rolling(10, "1", "0")
	_, err := rollout.NewRSNewReplicas(&p, []rollout.ReplicaSet{{Name: "a", Replicas: -1}}, 0)
	if err == nil || !strings.Contains(err.Error(), "all[0] (a): replicas: invalid value -1") {
		t.Errorf("negative size: err = %v", err)
	}
	p.Replicas = -2
	if _, err := rollout.NewRSNewReplicas(&p, nil, 0); err == nil || !strings.Contains(err.Error(), "params: replicas") {
		t.Errorf("negative replicas: err = %v", err)
	}
	big := rolling(math.MaxInt32, "1", "0")
	all := []rollout.ReplicaSet{{Name: "a", Replicas: math.MaxInt32}, {Name: "b", Replicas: 5}}
	s, err := rollout.NewRSNewReplicas(&big, all, 1)
	if !errors.Is(err, rollout.ErrOverflow) {
		t.Errorf("overflowing sums: err = %v, want ErrOverflow", err)
	}
	// Upstream's int32: the total wraps negative, so "room" is computed
	// from it; the result is what upstream computes.
	if s.Total >= 0 {
		t.Errorf("total = %d, want upstream's wrapped (negative) sum", s.Total)
	}
}

// upstream TestGetReplicaSetFraction, through Proportions with one active
// ReplicaSet (its share is the fraction, bounded by what there is to add).
func TestFractionUpstreamCases(t *testing.T) {
	for _, tc := range []struct {
		name                            string
		replicas, statusReplicas, surge int32
		rsReplicas                      int32
		maxAnnotation                   *int32
		wantFraction                    int32
	}{
		{"empty deployment always scales to 0", 0, 0, 0, 10, nil, -10},
		{"no max-replicas annotation, status 0: no share", 10, 0, 0, 5, nil, 0},
		{"max-replicas annotation 0, status 0: no share", 10, 0, 0, 5, i32p(0), 0},
		{"scale up by 1/5 from status.replicas", 120, 100, 0, 50, nil, 10},
		{"scale up by 1/5 from status.replicas (annotation 0)", 120, 100, 0, 50, i32p(0), 10},
		{"scale up by 1/5", 120, 0, 0, 50, i32p(100), 10},
		{"scale up with maxSurge by about 1/5", 120, 0, 10, 50, i32p(110), 9},
		{"scale down by 1/6", 10, 0, 0, 6, i32p(12), -1},
		{"scale down with maxSurge by about 1/6", 100, 0, 10, 50, i32p(130), -8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			surge, unavailable := intstr.FromInt32(tc.surge), intstr.FromInt32(1)
			p := rollout.Params{Replicas: tc.replicas, Strategy: appsv1.RollingUpdateDeploymentStrategyType, MaxSurge: &surge, MaxUnavailable: &unavailable}
			props, err := rollout.Proportions(&p, tc.statusReplicas, []rollout.ReplicaSet{{Name: "rs", Replicas: tc.rsReplicas, MaxReplicas: tc.maxAnnotation}}, rollout.ProportionOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if props.ToAdd == 0 {
				t.Fatalf("nothing to add: the case does not reach the fraction")
			}
			if got := props.Shares[0].Fraction; got != int64(tc.wantFraction) {
				t.Errorf("fraction = %d, want %d (%s)", got, tc.wantFraction, props.Shares[0])
			}
		})
	}
}

func status(replicas, updated, ready, available int32) *appsv1.DeploymentStatus {
	return &appsv1.DeploymentStatus{Replicas: replicas, UpdatedReplicas: updated, ReadyReplicas: ready, AvailableReplicas: available}
}

// upstream TestDeploymentProgressing.
func TestProgressingUpstreamCases(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, now *appsv1.DeploymentStatus
		want     bool
	}{
		{"progressing: updated pods", status(10, 4, 4, 4), status(10, 6, 4, 4), true},
		{"not progressing", status(10, 4, 4, 4), status(10, 4, 4, 4), false},
		{"progressing: old pods removed", status(10, 4, 6, 6), status(8, 4, 6, 6), true},
		{"not progressing: less new pods", status(10, 7, 3, 3), status(10, 6, 3, 3), false},
		{"progressing: less overall but more new pods", status(10, 4, 7, 7), status(8, 8, 5, 5), true},
		{"progressing: more ready pods", status(10, 10, 9, 8), status(10, 10, 10, 8), true},
		{"progressing: more available pods", status(10, 10, 10, 9), status(10, 10, 10, 10), true},
	} {
		if got := rollout.Progressing(tc.old, tc.now); got != tc.want {
			t.Errorf("%s: Progressing = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// upstream TestDeploymentComplete, in its own words.
func TestCompleteUpstreamCases(t *testing.T) {
	p := rollout.Params{Replicas: 5}
	for _, tc := range []struct {
		name string
		s    *appsv1.DeploymentStatus
		gen  int64
		want bool
	}{
		{"not complete: min but not all pods become available", status(5, 5, 5, 4), 1, false},
		{"not complete: min availability is not honored", status(5, 5, 5, 3), 1, false},
		{"complete", status(5, 5, 5, 5), 1, true},
		{"not complete: all pods are available but not updated", status(5, 4, 5, 5), 1, false},
		{"not complete: still running old pods", status(6, 5, 5, 5), 1, false},
		{"not complete: one replica deployment never comes up", status(5, 5, 5, 5), 2, false},
	} {
		tc.s.ObservedGeneration = 1
		if got := rollout.Complete(&p, tc.gen, tc.s); got != tc.want {
			t.Errorf("%s: Complete = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// upstream TestDeploymentTimedOut: a 10-second deadline around a condition
// last updated at 18:49:30.
func TestTimedOutUpstreamCases(t *testing.T) {
	updated := time.Date(2017, 2, 15, 18, 49, 30, 0, time.UTC)
	cond := func(reason string) *appsv1.DeploymentStatus {
		return &appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{{
			Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: reason, LastUpdateTime: metav1.NewTime(updated),
		}}}
	}
	p := rolling(1, "1", "0")
	for _, tc := range []struct {
		name     string
		deadline *int32
		s        *appsv1.DeploymentStatus
		now      time.Time
		want     bool
	}{
		{"nil progressDeadlineSeconds specified", nil, cond(rollout.ReplicaSetUpdatedReason), updated.Add(time.Minute), false},
		{"infinite progressDeadlineSeconds specified", i32p(math.MaxInt32), cond(rollout.ReplicaSetUpdatedReason), updated.Add(time.Minute), false},
		{"no timeout", i32p(10), cond(rollout.ReplicaSetUpdatedReason), updated, false},
		{"timeout", i32p(10), cond(rollout.ReplicaSetUpdatedReason), updated.Add(29 * time.Second), true},
		{"exactly at the deadline", i32p(10), cond(rollout.ReplicaSetUpdatedReason), updated.Add(10 * time.Second), false},
		{"already timed out", i32p(10), cond(rollout.TimedOutReason), updated, true},
		{"a completed rollout never times out", i32p(10), cond(rollout.NewRSAvailableReason), updated.Add(time.Hour), false},
		{"no Progressing condition", i32p(10), &appsv1.DeploymentStatus{}, updated.Add(time.Hour), false},
	} {
		p.ProgressDeadlineSeconds = tc.deadline
		if got := rollout.TimedOut(&p, tc.s, tc.now); got != tc.want {
			t.Errorf("%s: TimedOut = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRequeueAfterCases(t *testing.T) {
	p := rolling(1, "1", "0")
	p.ProgressDeadlineSeconds = i32p(600)
	c := &appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Reason: rollout.ReplicaSetUpdatedReason, LastUpdateTime: metav1.NewTime(t0)}
	for _, tc := range []struct {
		name     string
		complete bool
		cond     *appsv1.DeploymentCondition
		ago      time.Duration
		want     rollout.Requeue
	}{
		{"at the deadline plus a second", false, c, 3 * time.Minute, rollout.Requeue{After: 7*time.Minute + time.Second}},
		{"less than a second left: now, rate-limited", false, c, 599*time.Second + 500*time.Millisecond, rollout.Requeue{RateLimited: true}},
		{"complete: none", true, c, 0, rollout.Requeue{}},
		{"timed out: none", false, &appsv1.DeploymentCondition{Reason: rollout.TimedOutReason}, 0, rollout.Requeue{}},
		{"no condition: none", false, nil, 0, rollout.Requeue{}},
		{"the condition's own time, to the nanosecond", false, &appsv1.DeploymentCondition{Reason: rollout.ReplicaSetUpdatedReason, LastUpdateTime: metav1.NewTime(t0.Add(time.Millisecond))},
			3 * time.Minute, rollout.Requeue{After: 7*time.Minute + time.Second + time.Millisecond}},
	} {
		if got := rollout.RequeueAfter(&p, tc.complete, tc.cond, t0.Add(tc.ago)); got != tc.want {
			t.Errorf("%s: RequeueAfter = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// upstream TestGetReplicaCountForReplicaSets and the status calculation.
func TestCountsCases(t *testing.T) {
	rs := func(spec, replicas, ready, available int32) rollout.ReplicaSet {
		return rollout.ReplicaSet{Replicas: spec, StatusReplicas: replicas, ReadyReplicas: ready, AvailableReplicas: available, ObservedGeneration: 1, TerminatingReplicas: i32p(1)}
	}
	c, err := rollout.Counts([]rollout.ReplicaSet{rs(1, 2, 1, 1), rs(2, 3, 2, 1)}, -1)
	if err != nil {
		t.Fatal(err)
	}
	want := rollout.StatusCounts{Replicas: 5, ReadyReplicas: 3, AvailableReplicas: 2, UnavailableReplicas: 1, TerminatingReplicas: 2, Terminating: true}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("Counts (-want +got):\n%s", diff)
	}
	// A synced ReplicaSet that does not report terminating pods: unknown.
	unreported := rs(1, 1, 1, 1)
	unreported.TerminatingReplicas = nil
	if c, _ := rollout.Counts([]rollout.ReplicaSet{rs(1, 1, 1, 1), unreported}, 0); c.Terminating || c.UpdatedReplicas != 1 {
		t.Errorf("Counts = %+v, want terminating unknown and updated 1", c)
	}
	if _, err := rollout.Counts(nil, 0); err == nil {
		t.Error("Counts(nil, 0) = nil error, want the index out of range")
	}
	big := rs(math.MaxInt32, math.MaxInt32, 0, 0)
	if _, err := rollout.Counts([]rollout.ReplicaSet{big, big}, -1); !errors.Is(err, rollout.ErrOverflow) {
		t.Errorf("overflowing counts: err = %v", err)
	}
}

func TestHistoryToDeleteCases(t *testing.T) {
	p := rolling(1, "1", "0")
	p.RevisionHistoryLimit = i32p(1)
	rs := func(name string, rev int64, replicas int32) rollout.ReplicaSet {
		return rollout.ReplicaSet{Name: name, Revision: rev, Replicas: replicas, StatusReplicas: replicas, Created: t0.Add(time.Duration(rev) * time.Hour), Generation: 1, ObservedGeneration: 1}
	}
	withPods := rs("b", 2, 1)
	unobserved := rs("c", 3, 0)
	unobserved.Generation = 2
	deleting := rs("d", 0, 0)
	deleting.Deleting = true
	old := []rollout.ReplicaSet{rs("a", 1, 0), withPods, unobserved, deleting, rs("e", 5, 0)}
	h, err := rollout.HistoryToDelete(&p, old)
	if err != nil {
		t.Fatal(err)
	}
	// 4 candidates (d is being deleted), limit 1: a, b and c are looked
	// at; only a is empty and observed.
	if diff := cmp.Diff([]int{0}, h.Delete); diff != "" {
		t.Errorf("Delete (-want +got):\n%s", diff)
	}
	p.RevisionHistoryLimit = nil
	if h, _ := rollout.HistoryToDelete(&p, old); len(h.Delete) != 0 {
		t.Errorf("no limit: Delete = %v", h.Delete)
	}
	p.RevisionHistoryLimit = i32p(-1)
	if _, err := rollout.HistoryToDelete(&p, old); err == nil {
		t.Error("negative limit: nil error")
	}
}

func TestActiveOrLatestCases(t *testing.T) {
	older := rollout.ReplicaSet{Name: "a", Created: t0}
	newer := rollout.ReplicaSet{Name: "b", Created: t0.Add(time.Hour)}
	for _, tc := range []struct {
		name  string
		all   []rollout.ReplicaSet
		newRS int
		want  int
	}{
		{"none", nil, -1, -1},
		{"no active, a new one: the new one", []rollout.ReplicaSet{newer, older}, 1, 1},
		{"no active, no new one: the newest", []rollout.ReplicaSet{older, newer}, -1, 1},
		{"one active", []rollout.ReplicaSet{older, {Name: "c", Replicas: 2}}, -1, 1},
		{"two active: none", []rollout.ReplicaSet{{Name: "c", Replicas: 1}, {Name: "d", Replicas: 2}}, 1, -1},
	} {
		if got := rollout.ActiveOrLatest(tc.all, tc.newRS); got != tc.want {
			t.Errorf("%s: ActiveOrLatest = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// genReplicaSets draws ReplicaSets with consistent statuses.
func genReplicaSets(t *rapid.T, label string, min, max int) []rollout.ReplicaSet {
	n := rapid.IntRange(min, max).Draw(t, label)
	out := make([]rollout.ReplicaSet, n)
	for i := range out {
		spec := rapid.Int32Range(0, 50).Draw(t, "spec")
		st := rapid.Int32Range(0, spec+3).Draw(t, "statusReplicas")
		ready := rapid.Int32Range(0, st).Draw(t, "ready")
		out[i] = rollout.ReplicaSet{
			Name: "rs-" + string(rune('a'+i)), Created: t0.Add(time.Duration(rapid.IntRange(0, 5).Draw(t, "created")) * time.Minute),
			Replicas: spec, StatusReplicas: st, ReadyReplicas: ready, AvailableReplicas: rapid.Int32Range(0, ready).Draw(t, "available"),
			Revision: rapid.Int64Range(0, 6).Draw(t, "revision"), BadRevision: rapid.IntRange(0, 9).Draw(t, "bad") == 0,
			Generation: 2, ObservedGeneration: rapid.Int64Range(1, 2).Draw(t, "observed"),
		}
		if rapid.Bool().Draw(t, "hasMax") {
			out[i].MaxReplicas = i32p(rapid.Int32Range(0, 60).Draw(t, "max"))
		}
	}
	return out
}

func genParams(t *rapid.T) rollout.Params {
	surge := intstr.FromInt32(rapid.Int32Range(0, 10).Draw(t, "surge"))
	unavailable := intstr.FromInt32(rapid.Int32Range(0, 10).Draw(t, "unavailable"))
	if surge.IntVal == 0 && unavailable.IntVal == 0 {
		unavailable = intstr.FromInt32(1)
	}
	return rollout.Params{Replicas: rapid.Int32Range(0, 50).Draw(t, "replicas"), Strategy: appsv1.RollingUpdateDeploymentStrategyType,
		MaxSurge: &surge, MaxUnavailable: &unavailable, RevisionHistoryLimit: i32p(rapid.Int32Range(0, 4).Draw(t, "limit"))}
}

func cloneRSs(rss []rollout.ReplicaSet) []rollout.ReplicaSet {
	return append([]rollout.ReplicaSet(nil), rss...)
}

// The laws of the blocks on random inputs: each is deterministic, leaves
// its input alone, and keeps its promise.
func TestBlocksProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genParams(t)
		all := genReplicaSets(t, "replicaSets", 1, 6)
		before := cloneRSs(all)
		newIdx := rapid.IntRange(0, len(all)-1).Draw(t, "new")
		newRS := all[newIdx]
		var old []rollout.ReplicaSet
		for i := range all {
			if i != newIdx {
				old = append(old, all[i])
			}
		}
		surge, _ := p.Limits()

		// The new ReplicaSet never takes the total beyond replicas +
		// maxSurge, nor itself beyond replicas (unless it already was).
		s, err := rollout.NewRSNewReplicas(&p, all, newIdx)
		if err != nil {
			t.Fatal(err)
		}
		if s2, _ := rollout.NewRSNewReplicas(&p, all, newIdx); s2 != s {
			t.Fatalf("not deterministic: %v then %v", s, s2)
		}
		if s.Size > newRS.Replicas && (s.Total-newRS.Replicas+s.Size > p.Replicas+surge || s.Size > p.Replicas) {
			t.Fatalf("grew beyond the limits: %s -> %d", s, s.Size)
		}

		// A scale-down never takes the available pods below minAvailable.
		var activeOld []rollout.ReplicaSet
		for i := range old {
			if old[i].Replicas > 0 {
				activeOld = append(activeOld, old[i])
			}
		}
		down, err := rollout.ScaleDownOld(nil, &p, activeOld, &newRS)
		if err != nil {
			t.Fatal(err)
		}
		available := newRS.AvailableReplicas
		for i := range activeOld {
			available += activeOld[i].AvailableReplicas
		}
		if down.Total > 0 && available-down.Total < down.MinAvailable {
			t.Fatalf("scale-down %s takes %d available below minAvailable %d", down, available, down.MinAvailable)
		}

		// Proportional scaling spreads exactly the difference, unless the
		// largest would have to go below zero.
		var active []rollout.ReplicaSet
		for i := range all {
			if all[i].Replicas > 0 {
				active = append(active, all[i])
			}
		}
		if len(active) > 0 {
			statusReplicas := rapid.Int32Range(0, 60).Draw(t, "statusReplicas")
			props, err := rollout.Proportions(&p, statusReplicas, active, rollout.ProportionOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var from, to int32
			for _, sh := range props.Shares {
				from += sh.From
				to += sh.To
				if sh.To < 0 {
					t.Fatalf("negative size: %s", props)
				}
			}
			if first := props.Shares[0]; first.To > 0 && int64(to-from) != props.ToAdd {
				t.Fatalf("spread %d, want %d: %s", to-from, props.ToAdd, props)
			}
		}

		// History cleanup never picks a ReplicaSet with pods or an
		// unobserved generation, nor more than the excess.
		h, err := rollout.HistoryToDelete(&p, old)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range h.Delete {
			if rs := old[i]; rs.Replicas != 0 || rs.StatusReplicas != 0 || rs.Generation > rs.ObservedGeneration {
				t.Fatalf("picked %+v", rs)
			}
		}
		if int32(len(h.Delete)) > max(h.Excess(), 0) {
			t.Fatalf("deleted %d, excess %d", len(h.Delete), h.Excess())
		}

		if diff := cmp.Diff(before, all); diff != "" {
			t.Fatalf("input modified:\n%s", diff)
		}
	})
}

// upstream TestFindNewReplicaSet and TestFindOldReplicaSets, with
// upstream's order of results (active, then all; oldest first) and its
// matching by UID.
func TestFindNewAndOldUpstreamCases(t *testing.T) {
	d := upDeployment(1, 1, 0)
	newRS := upRS(d, "new", 1, 1, upNew, "")
	newDup := upRS(d, "new-dup", 1, 0, upOld, "")
	old := upRS(d, "old", 1, 1, upOlder, "foo/bar:old")
	oldEmpty := upRS(d, "old-empty", 0, 0, upOld, "foo/bar:older")
	newCopy := newRS.DeepCopy() // the new one read a second time: the same UID
	newCopy.Name = "new-copy"
	noUID := func(rs *appsv1.ReplicaSet) *appsv1.ReplicaSet { c := rs.DeepCopy(); c.UID = ""; return c }
	newNoUID, oldNoUID := noUID(newRS), noUID(old)
	for _, tc := range []struct {
		name            string
		rss             []*appsv1.ReplicaSet
		wantNew         *appsv1.ReplicaSet
		active, wantAll []string
	}{
		{"the same template, another hash", []*appsv1.ReplicaSet{newRS, old}, newRS, []string{"old"}, []string{"old"}},
		{"the oldest of two with the template", []*appsv1.ReplicaSet{newRS, old, newDup}, newDup, []string{"old", "new"}, []string{"old", "new"}},
		{"none", []*appsv1.ReplicaSet{old}, nil, []string{"old"}, []string{"old"}},
		{"no old ones", []*appsv1.ReplicaSet{newRS}, newRS, nil, nil},
		{"oldest first, empty ones only in all", []*appsv1.ReplicaSet{newRS, oldEmpty, nil, old}, newRS, []string{"old"}, []string{"old", "old-empty"}},
		{"a copy of the new one (same UID) is not old", []*appsv1.ReplicaSet{newCopy, old, newRS}, newRS, []string{"old"}, []string{"old"}},
		{"without UIDs, by identity", []*appsv1.ReplicaSet{newNoUID, oldNoUID}, newNoUID, []string{"old"}, []string{"old"}},
	} {
		if got := rollout.FindNewReplicaSet(d, tc.rss); got != tc.wantNew {
			t.Errorf("%s: FindNewReplicaSet = %v, want %v", tc.name, got, tc.wantNew)
		}
		before := slices.Clone(tc.rss)
		gotActive, gotAll := rollout.FindOldReplicaSets(d, tc.rss)
		if !slices.Equal(before, tc.rss) {
			t.Errorf("%s: FindOldReplicaSets reordered its input", tc.name)
		}
		names := func(rss []*appsv1.ReplicaSet) []string {
			var out []string
			for _, rs := range rss {
				out = append(out, rs.Name)
			}
			return out
		}
		if a, o := names(gotActive), names(gotAll); !slices.Equal(a, tc.active) || !slices.Equal(o, tc.wantAll) {
			t.Errorf("%s: FindOldReplicaSets = %v, %v; want %v, %v", tc.name, a, o, tc.active, tc.wantAll)
		}
	}
}

// upstream's IsSaturated cases, on the value.
func TestIsSaturatedCases(t *testing.T) {
	p := rolling(3, "1", "0")
	for _, tc := range []struct {
		name string
		rs   rollout.ReplicaSet
		want bool
	}{
		{"saturated", rollout.ReplicaSet{Replicas: 3, AvailableReplicas: 3, DesiredReplicas: i32p(3)}, true},
		{"not all available", rollout.ReplicaSet{Replicas: 3, AvailableReplicas: 2, DesiredReplicas: i32p(3)}, false},
		{"annotation missing", rollout.ReplicaSet{Replicas: 3, AvailableReplicas: 3}, false},
		{"annotation differs", rollout.ReplicaSet{Replicas: 3, AvailableReplicas: 3, DesiredReplicas: i32p(2)}, false},
		{"size differs", rollout.ReplicaSet{Replicas: 2, AvailableReplicas: 3, DesiredReplicas: i32p(3)}, false},
	} {
		if got := rollout.IsSaturated(&p, &tc.rs); got != tc.want {
			t.Errorf("%s: IsSaturated = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// IsSaturated through ReplicaSetOf, the documented reader, reads the
// desired-replicas annotation as upstream's IsSaturated does
// (int32(strconv.Atoi)): signs, leading zeros and numbers beyond int32
// (wrapped) included.
func TestIsSaturatedReadsAnnotationAsUpstream(t *testing.T) {
	p := rolling(9, "1", "0")
	for _, tc := range []struct {
		value string
		want  bool
	}{
		{"9", true}, {"+9", true}, {"009", true}, {"4294967305", true}, {"-4294967287", true},
		{"8", false}, {"-9", false}, {" 9", false}, {"9.0", false}, {"", false}, {"0x9", false},
		{"9_", false}, {"99999999999999999999", false},
	} {
		rs := &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Annotations: map[string]string{"deployment.kubernetes.io/desired-replicas": tc.value}},
			Spec:       appsv1.ReplicaSetSpec{Replicas: i32p(9)},
			Status:     appsv1.ReplicaSetStatus{AvailableReplicas: 9},
		}
		v, err := rollout.ReplicaSetOf(rs)
		if err != nil {
			t.Fatal(err)
		}
		if got := rollout.IsSaturated(&p, &v); got != tc.want {
			t.Errorf("desired-replicas %q: IsSaturated = %v, want %v", tc.value, got, tc.want)
		}
	}
	zero := rolling(0, "1", "0")
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"deployment.kubernetes.io/desired-replicas": "-0"}}, Spec: appsv1.ReplicaSetSpec{Replicas: i32p(0)}}
	if v, _ := rollout.ReplicaSetOf(rs); !rollout.IsSaturated(&zero, &v) {
		t.Error(`desired-replicas "-0" with 0 replicas: not saturated, upstream says saturated`)
	}
}
