package rollout_test

// Conformance with upstream's rolling_test.go
// (TestDeploymentController_reconcileNewReplicaSet, _reconcileOldReplicaSets,
// _cleanupUnhealthyReplicas, _scaleDownOldReplicaSetsForRollingUpdate) and
// recreate_test.go (TestScaleDownOldReplicaSets, TestOldPodsRunning).
//
// Upstream calls each step directly. One Plan runs them in upstream's order
// (new ReplicaSet first, then unhealthy old replicas, then healthy old
// replicas) and stops after the first step that scaled, so every case
// lists all ReplicaSet writes of the sync; where upstream's case only
// looks at one step, the comment says what the other steps add.

import (
	"fmt"
	"testing"
	"time"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// rollingCase: a RollingUpdate Deployment mid-rollout with one old
// ReplicaSet foo-old (revision 1) and the new one foo-new (revision 2).
type rollingCase struct {
	name                      string
	replicas, surge, unavail  int32
	oldReplicas, oldAvailable int32
	newReplicas, newAvailable int32
	wantWrites                []string
	wantEvents                []string
}

func (c rollingCase) snapshot() rollout.Snapshot {
	d := upDeployment(c.replicas, int(c.surge), int(c.unavail))
	oldRS := setStatus(upRS(d, "foo-old", 1, c.oldReplicas, upOld, "foo/bar:old"), c.oldReplicas, c.oldAvailable)
	newRS := setStatus(upRS(d, "foo-new", 2, c.newReplicas, upNew, ""), c.newReplicas, c.newAvailable)
	inSync(d, 2)
	return snapshot(d, oldRS, newRS)
}

func runRollingCases(t *testing.T, cases []rollingCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := c.snapshot()
			res := mustPlan(t, s)
			got := rsActions(res)
			if got == nil {
				got = []string{}
			}
			diffStrings(t, "replica set writes", c.wantWrites, got)
			if c.wantEvents != nil {
				diffStrings(t, "events", c.wantEvents, eventStrings(res))
			}
			if res.Stop != "" {
				t.Errorf("Stop = %q, want a complete sync", res.Stop)
			}
			// A sync that scaled writes the status and nothing else to the Deployment.
			for _, a := range actionStrings(res) {
				if a == "update-deployment" {
					t.Errorf("unexpected %s", a)
				}
			}
		})
	}
}

// TestUpstreamReconcileNewReplicaSet covers upstream
// TestDeploymentController_reconcileNewReplicaSet (maxUnavailable 0).
func TestUpstreamReconcileNewReplicaSet(t *testing.T) {
	runRollingCases(t, []rollingCase{
		{
			// Should not scale up: 10 old pods fill replicas + maxSurge 0.
			// (maxSurge 0 and maxUnavailable 0 resolve to maxUnavailable 1,
			// so the old ReplicaSet then loses one pod.)
			name: "no room to surge", replicas: 10, surge: 0, unavail: 0,
			oldReplicas: 10, oldAvailable: 10,
			wantWrites: []string{"scale foo-old 10->9"},
		},
		{
			name: "surge 2 over 10 old", replicas: 10, surge: 2,
			oldReplicas: 10, oldAvailable: 10,
			wantWrites: []string{"scale foo-new 0->2"},
			wantEvents: []string{"Normal ScalingReplicaSet Scaled up replica set foo-new from 0 to 2"},
		},
		{
			name: "surge 2 over 5 old", replicas: 10, surge: 2,
			oldReplicas: 5, oldAvailable: 5,
			wantWrites: []string{"scale foo-new 0->7"},
			wantEvents: []string{"Normal ScalingReplicaSet Scaled up replica set foo-new from 0 to 7"},
		},
		{
			// Already at replicas + maxSurge; the 2 new pods are not
			// available yet, so no old pod may go either.
			name: "already surged", replicas: 10, surge: 2,
			oldReplicas: 10, oldAvailable: 10, newReplicas: 2, newAvailable: 0,
			wantWrites: []string{},
		},
		{
			name: "new above replicas scales down", replicas: 10, surge: 2,
			oldReplicas: 2, oldAvailable: 2, newReplicas: 11, newAvailable: 11,
			wantWrites: []string{"scale foo-new 11->10"},
			wantEvents: []string{"Normal ScalingReplicaSet Scaled down replica set foo-new from 11 to 10"},
		},
	})
}

// TestUpstreamReconcileOldReplicaSets covers upstream
// TestDeploymentController_reconcileOldReplicaSets (maxSurge 0).
func TestUpstreamReconcileOldReplicaSets(t *testing.T) {
	runRollingCases(t, []rollingCase{
		{
			name: "maxUnavailable 0 (resolved to 1)", replicas: 10, unavail: 0,
			oldReplicas: 10, oldAvailable: 10,
			wantWrites: []string{"scale foo-old 10->9"},
			wantEvents: []string{"Normal ScalingReplicaSet Scaled down replica set foo-old from 10 to 9"},
		},
		{
			name: "maxUnavailable 2", replicas: 10, unavail: 2,
			oldReplicas: 10, oldAvailable: 10,
			wantWrites: []string{"scale foo-old 10->8"},
		},
		{
			name: "unhealthy old replicas are cleaned up", replicas: 10, unavail: 2,
			oldReplicas: 10, oldAvailable: 8,
			wantWrites: []string{"scale foo-old 10->8"},
		},
		{
			name: "one unhealthy cleaned up, one ready scaled down", replicas: 10, unavail: 2,
			oldReplicas: 10, oldAvailable: 9,
			wantWrites: []string{"scale foo-old 10->9", "scale foo-old 9->8"},
			wantEvents: []string{
				"Normal ScalingReplicaSet Scaled down replica set foo-old from 10 to 9",
				"Normal ScalingReplicaSet Scaled down replica set foo-old from 9 to 8",
			},
		},
		{
			name: "unavailable new pods do not let old ones go", replicas: 10, unavail: 2,
			oldReplicas: 8, oldAvailable: 8, newReplicas: 2, newAvailable: 0,
			wantWrites: []string{},
		},
	})
}

// TestUpstreamCleanupUnhealthyReplicas covers upstream
// TestDeploymentController_cleanupUnhealthyReplicas: an old ReplicaSet of
// 10 with 8 available, maxSurge 2, maxUnavailable 2. Upstream passes the
// cleanup budget; we reach the same budget (maxScaledDown = all pods −
// minAvailable − unavailable new pods) through the Deployment's size and
// an unavailable new ReplicaSet that already uses the whole surge.
func TestUpstreamCleanupUnhealthyReplicas(t *testing.T) {
	runRollingCases(t, []rollingCase{
		{
			// 13 − 9 − 3 = 1: one of the two unhealthy replicas goes.
			name: "budget 1 cleans 1", replicas: 11, surge: 2, unavail: 2,
			oldReplicas: 10, oldAvailable: 8, newReplicas: 3, newAvailable: 0,
			wantWrites: []string{"scale foo-old 10->9"},
		},
		{
			// 11 − 7 − 1 = 3: both unhealthy replicas go (2 ≤ 3), then the
			// healthy scale-down takes one more (8 available > minAvailable 7).
			name: "budget 3 cleans 2", replicas: 9, surge: 2, unavail: 2,
			oldReplicas: 10, oldAvailable: 8, newReplicas: 1, newAvailable: 0,
			wantWrites: []string{"scale foo-old 10->8", "scale foo-old 8->7"},
		},
		{
			// 14 − 10 − 4 = 0: nothing may go.
			name: "budget 0 cleans 0", replicas: 12, surge: 2, unavail: 2,
			oldReplicas: 10, oldAvailable: 8, newReplicas: 4, newAvailable: 0,
			wantWrites: []string{},
		},
		{
			// Budget 3 but no unhealthy replica: the cleanup removes none;
			// the healthy scale-down then takes 10 available − 7 = 3.
			name: "all healthy cleans 0", replicas: 9, surge: 2, unavail: 2,
			oldReplicas: 10, oldAvailable: 10, newReplicas: 1, newAvailable: 0,
			wantWrites: []string{"scale foo-old 10->7"},
		},
	})
}

// TestUpstreamScaleDownOldReplicaSetsForRollingUpdate covers upstream
// TestDeploymentController_scaleDownOldReplicaSetsForRollingUpdate
// (maxSurge 0, the new ReplicaSet empty).
func TestUpstreamScaleDownOldReplicaSetsForRollingUpdate(t *testing.T) {
	runRollingCases(t, []rollingCase{
		{
			name: "maxUnavailable 0 (resolved to 1)", replicas: 10, unavail: 0,
			oldReplicas: 10, oldAvailable: 10,
			wantWrites: []string{"scale foo-old 10->9"},
		},
		{
			name: "maxUnavailable 2", replicas: 10, unavail: 2,
			oldReplicas: 10, oldAvailable: 10,
			wantWrites: []string{"scale foo-old 10->8"},
		},
		{
			// Upstream: 8 available = minAvailable, no healthy replica may
			// go. Within a sync the 2 unhealthy ones are cleaned up first.
			name: "available at minAvailable", replicas: 10, unavail: 2,
			oldReplicas: 10, oldAvailable: 8,
			wantWrites: []string{"scale foo-old 10->8"},
		},
		{
			name: "old replica set already empty", replicas: 10, unavail: 2,
			oldReplicas: 0, oldAvailable: 0,
			// The new ReplicaSet grows instead: 0 pods, room for 10.
			wantWrites: []string{"scale foo-new 0->10"},
		},
		{
			// Upstream: 1 available < minAvailable 8, no healthy replica may
			// go. Within a sync the cleanup removes 2 of the 9 unhealthy
			// ones (budget 10 − 8 − 0).
			name: "available below minAvailable", replicas: 10, unavail: 2,
			oldReplicas: 10, oldAvailable: 1,
			wantWrites: []string{"scale foo-old 10->8"},
		},
	})
}

// TestUpstreamRecreateScaleDownOldReplicaSets covers upstream
// TestScaleDownOldReplicaSets: Recreate scales every active old ReplicaSet
// to 0 and creates nothing in that sync.
func TestUpstreamRecreateScaleDownOldReplicaSets(t *testing.T) {
	for _, sizes := range [][]int32{{3}, {3, 2}, {0, 4}} {
		t.Run(fmt.Sprint(sizes), func(t *testing.T) {
			d := recreate(upDeployment(3, 0, 0))
			var rss []*appsv1.ReplicaSet
			var want, events []string
			for n, size := range sizes {
				name := fmt.Sprintf("foo-%d", n)
				rss = append(rss, upRS(d, name, n+1, size, upOlder.Add(timeMinutes(n)), "foo/bar:"+name))
				if size > 0 {
					want = append(want, fmt.Sprintf("scale %s %d->0", name, size))
					events = append(events, fmt.Sprintf("Normal ScalingReplicaSet Scaled down replica set %s from %d to 0", name, size))
				}
			}
			inSync(d, 0)
			res := mustPlan(t, snapshot(d, rss...))
			diffStrings(t, "replica set writes", want, rsActions(res))
			diffStrings(t, "events", events, eventStrings(res))
		})
	}
}

// TestUpstreamOldPodsRunning covers upstream TestOldPodsRunning: a Recreate
// Deployment whose old ReplicaSets are already at 0 creates the new
// ReplicaSet only when no old pod is still running (terminal pods do not
// count, pods in any other phase do, and so do status replicas).
func TestUpstreamOldPodsRunning(t *testing.T) {
	type podsOf map[string][]corev1.PodPhase // old ReplicaSet name -> pod phases
	cases := []struct {
		name          string
		olds          []string // old ReplicaSets, spec 0
		statusReplica map[string]int32
		pods          podsOf
		running       bool
	}{
		{name: "no old RSs", running: false},
		{
			name: "old RSs with running pods", olds: []string{"foo-some-uid", "foo-other-uid"},
			pods:    podsOf{"foo-some-uid": {"", ""}, "foo-other-uid": {"", ""}},
			running: true,
		},
		{
			name: "old RSs without pods but with non-zero status replicas", olds: []string{"rs-1"},
			statusReplica: map[string]int32{"rs-1": 1},
			running:       true,
		},
		{name: "old RSs without pods or non-zero status replicas", olds: []string{"rs-1"}, running: false},
		{
			name: "old RSs with zero status replicas but pods in terminal state are present", olds: []string{"rs-1"},
			pods:    podsOf{"rs-1": {corev1.PodFailed, corev1.PodSucceeded}},
			running: false,
		},
		{
			name: "old RSs with zero status replicas but pod in unknown phase present", olds: []string{"rs-1"},
			pods:    podsOf{"rs-1": {corev1.PodUnknown}},
			running: true,
		},
		{
			name: "old RSs with zero status replicas with pending pod present", olds: []string{"rs-1"},
			pods:    podsOf{"rs-1": {corev1.PodPending}},
			running: true,
		},
		{
			name: "old RSs with zero status replicas with running pod present", olds: []string{"rs-1"},
			pods:    podsOf{"rs-1": {corev1.PodRunning}},
			running: true,
		},
		{
			name: "old RSs with zero status replicas but pods in terminal state and pending are present",
			olds: []string{"rs-1", "rs-2", "rs-3"},
			pods: podsOf{
				"rs-1": {corev1.PodFailed, corev1.PodSucceeded},
				"rs-3": {corev1.PodPending},
			},
			running: true,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := recreate(upDeployment(1, 0, 0))
			var rss []*appsv1.ReplicaSet
			var pods []*corev1.Pod
			for n, name := range c.olds {
				rs := upRS(d, name, n+1, 0, upOlder.Add(timeMinutes(n)), "foo/bar:"+name)
				setStatus(rs, c.statusReplica[name], 0)
				rss = append(rss, rs)
				for i, phase := range c.pods[name] {
					pods = append(pods, ownedPod(rs, fmt.Sprintf("%s-pod-%d", name, i), phase))
				}
			}
			inSync(d, 0)
			s := snapshot(d, rss...)
			s.Pods = pods
			res := mustPlan(t, s)
			newName := "foo-" + hashing.PodTemplateHash(&d.Spec.Template, nil)
			var want, events []string
			if !c.running {
				want = []string{fmt.Sprintf("create %s (1)", newName)}
				events = []string{fmt.Sprintf("Normal ScalingReplicaSet Scaled up replica set %s from 0 to 1", newName)}
			}
			diffStrings(t, "replica set writes", want, rsActions(res))
			diffStrings(t, "events", events, eventStrings(res))
		})
	}
}

// TestUpstreamRecreateIgnoresNewReplicaSetPods: upstream's oldPodsRunning
// skips the pods of the new ReplicaSet.
func TestUpstreamRecreateIgnoresNewReplicaSetPods(t *testing.T) {
	d := recreate(upDeployment(2, 0, 0))
	oldRS := setStatus(upRS(d, "foo-old", 1, 0, upOld, "foo/bar:old"), 0, 0)
	newRS := setStatus(upRS(d, "foo-new", 2, 0, upNew, ""), 0, 0)
	inSync(d, 2)
	s := snapshot(d, oldRS, newRS)
	s.Pods = []*corev1.Pod{
		ownedPod(newRS, "new-pod", corev1.PodRunning),
		ownedPod(oldRS, "old-pod", corev1.PodSucceeded),
	}
	res := mustPlan(t, s)
	diffStrings(t, "replica set writes", []string{"scale foo-new 0->2"}, rsActions(res))
	diffStrings(t, "events", []string{"Normal ScalingReplicaSet Scaled up replica set foo-new from 0 to 2"}, eventStrings(res))
}

func timeMinutes(n int) time.Duration { return time.Duration(n) * time.Minute }
