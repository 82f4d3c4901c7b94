package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestInvariantsCatch feeds the checker hand-made transitions that break
// the laws, so a checker that never fires cannot pass.
func TestInvariantsCatch(t *testing.T) {
	s := newTestSim(t)
	c := newChecker(s)
	one, zero := intstr.FromInt32(1), intstr.FromInt32(0)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{Replicas: ptrTo(int32(4)), Strategy: appsv1.DeploymentStrategy{
			Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &one, MaxUnavailable: &zero}}},
	}
	rs := func(name string, spec, avail int32) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{"deployment.kubernetes.io/desired-replicas": "4"}},
			Spec:       appsv1.ReplicaSetSpec{Replicas: ptrTo(spec)},
			Status:     appsv1.ReplicaSetStatus{AvailableReplicas: avail},
		}
	}
	// surge: 4 old + 2 new > 4 + 1
	before := &checkState{d: d, rss: []*appsv1.ReplicaSet{rs("old", 4, 4), rs("new", 1, 0)}, act: map[string]int32{"old": 4}}
	after := &checkState{d: d, rss: []*appsv1.ReplicaSet{rs("old", 4, 4), rs("new", 2, 0)}}
	c.afterAction(before, rollout.ScaleReplicaSet{ReplicaSet: rs("new", 2, 0), From: 1, To: 2}, after)
	// availability: scaling old down to 3 while new has nothing available, maxUnavailable 0
	after2 := &checkState{d: d, rss: []*appsv1.ReplicaSet{rs("old", 3, 4), rs("new", 1, 0)}}
	c.afterAction(before, rollout.ScaleReplicaSet{ReplicaSet: rs("old", 3, 4), From: 4, To: 3}, after2)
	// deleting a replica set with active pods
	c.afterAction(before, rollout.DeleteReplicaSet{Name: "old"}, before)
	var got []string
	for _, v := range c.violations {
		got = append(got, v.Invariant)
	}
	want := []string{InvSurge, InvAvailability, InvDeleteEmpty}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("violations %v, want %v", got, want)
	}
}

// TestInvariantHistoryIsUpstreamCleanup checks the history law against
// what upstream's cleanup does: it only deletes, among the oldest
// len(old) − revisionHistoryLimit old ReplicaSets, those with spec and
// status replicas 0 and an observed generation, and only when the
// Deployment is complete or paused.
func TestInvariantHistoryIsUpstreamCleanup(t *testing.T) {
	tmpl := func(image string) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: image}}},
		}
	}
	dep := func(limit int32, paused, complete bool) *appsv1.Deployment {
		d := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: 1},
			Spec: appsv1.DeploymentSpec{Replicas: ptrTo(int32(2)), RevisionHistoryLimit: ptrTo(limit), Paused: paused,
				Template: tmpl("v3"), Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType}},
		}
		if complete {
			d.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 2, UpdatedReplicas: 2, AvailableReplicas: 2}
		}
		return d
	}
	// rs is a ReplicaSet of revision rev: spec and status replicas,
	// generation and observedGeneration.
	rs := func(rev int, image string, spec, status int32, gen, observed int64) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", rev), Generation: gen,
				Annotations: map[string]string{"deployment.kubernetes.io/revision": fmt.Sprint(rev)}},
			Spec:   appsv1.ReplicaSetSpec{Replicas: ptrTo(spec), Template: tmpl(image)},
			Status: appsv1.ReplicaSetStatus{Replicas: status, ObservedGeneration: observed},
		}
	}
	for _, tc := range []struct {
		name string
		d    *appsv1.Deployment
		rss  []*appsv1.ReplicaSet
		fail bool
	}{
		{"complete, a deletable old one beyond the limit", dep(0, false, true),
			[]*appsv1.ReplicaSet{rs(1, "v1", 0, 0, 2, 2), rs(3, "v3", 2, 2, 1, 1)}, true},
		{"complete, within the limit", dep(1, false, true),
			[]*appsv1.ReplicaSet{rs(1, "v1", 0, 0, 2, 2), rs(3, "v3", 2, 2, 1, 1)}, false},
		{"complete, status still counts a pod", dep(0, false, true),
			[]*appsv1.ReplicaSet{rs(1, "v1", 0, 1, 2, 2), rs(3, "v3", 2, 2, 1, 1)}, false},
		{"complete, spec not yet observed", dep(0, false, true),
			[]*appsv1.ReplicaSet{rs(1, "v1", 0, 0, 2, 1), rs(3, "v3", 2, 2, 1, 1)}, false},
		{"complete, oldest not deletable, newer one is not replaced", dep(1, false, true),
			[]*appsv1.ReplicaSet{rs(1, "v1", 1, 1, 2, 2), rs(2, "v2", 0, 0, 2, 2), rs(3, "v3", 2, 2, 1, 1)}, false},
		{"complete, the second oldest deletable", dep(0, false, true),
			[]*appsv1.ReplicaSet{rs(1, "v1", 1, 1, 2, 2), rs(2, "v2", 0, 0, 2, 2), rs(3, "v3", 2, 2, 1, 1)}, true},
		{"not complete: no cleanup", dep(0, false, false),
			[]*appsv1.ReplicaSet{rs(1, "v1", 0, 0, 2, 2), rs(3, "v3", 2, 2, 1, 1)}, false},
		{"paused, no new replica set, all old", dep(1, true, false),
			[]*appsv1.ReplicaSet{rs(1, "v1", 0, 0, 2, 2), rs(2, "v2", 2, 2, 1, 1)}, true},
	} {
		c := newChecker(newTestSim(t))
		c.history(tc.d, tc.rss)
		if got := len(c.violations) > 0; got != tc.fail {
			t.Errorf("%s: violation %v, want %v (%v)", tc.name, got, tc.fail, c.violations)
		}
	}
}

// TestInvariantHistoryRecreateWaitsForOldPods is the case rapid found
// once in 20,000 runs: a Recreate Deployment with revisionHistoryLimit 0
// scaled to 0 and rolled back at the same instant is complete (0 of 0)
// while the last pod of the old ReplicaSet is still terminating. Upstream
// keeps that ReplicaSet until the pod is gone (the Recreate rollout
// returns before cleanup while an old pod exists), and so does the
// simulator; the invariant must not fire.
func TestInvariantHistoryRecreateWaitsForOldPods(t *testing.T) {
	src := `name: recreate-history-0
seed: 0
until: 20m
cluster:
  startup: {min: 1s, max: 4s}
  readiness: {min: 0s, max: 2s}
  termination: {min: 0s, max: 3s}
objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: app}
  spec:
    replicas: 2
    revisionHistoryLimit: 0
    strategy: {type: Recreate}
    selector: {matchLabels: {app: app}}
    template:
      metadata: {labels: {app: app}}
      spec:
        containers: [{name: app, image: "app:v1"}]
steps:
- at: 2s
  setImage: {container: app, image: "app:v2"}
- at: 7s
  scale: 0
- at: 7s
  undo: {}
- at: 7s
  stopWhenConverged: true
`
	sc, err := ParseScenario([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(sc, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Violations {
		t.Errorf("violation: %s", v)
	}
	// The old ReplicaSet is kept while its pod terminates (t=7s) and is
	// gone at the end.
	if n := len(res.Trace.Final()[0].ReplicaSets); n != 1 {
		t.Errorf("%d replica sets at the end, want 1 (the old one cleaned up)", n)
	}
}

// TestWarnStuck: a run that ends with a Deployment below its replicas and
// nothing in flight is reported as a warning, which names upstream's
// paused-cleanup quirk when the Deployment is paused with no ReplicaSet
// left to scale; a converged run and a run still in flight are not.
func TestWarnStuck(t *testing.T) {
	run := func(file string, until time.Duration) *Result {
		t.Helper()
		sc, err := LoadScenario(scenarioDir + "/" + file)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(sc, Options{Check: true, NoTrace: true, Until: until})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run("paused-scale-up-deleted.yaml", 0)
	if len(res.Warnings) != 1 {
		t.Fatalf("warnings %v, want one", res.Warnings)
	}
	w := res.Warnings[0]
	if w.Invariant != WarnStuck || !strings.HasPrefix(w.Detail, "web: ends with 0 of 3 pods available and nothing in flight; paused without a ReplicaSet that has replicas: upstream v1.37's paused-cleanup quirk") {
		t.Errorf("warning %s", w)
	}
	if len(res.Violations) != 0 {
		t.Errorf("violations %v", res.Violations)
	}
	if res := run("nginx-rolling-update.yaml", 0); len(res.Warnings) != 0 {
		t.Errorf("converged run: warnings %v", res.Warnings)
	}
	// Cut in the middle of the rollout: pods are starting, nothing is stuck.
	if res := run("nginx-rolling-update.yaml", 31*time.Second); len(res.Warnings) != 0 {
		t.Errorf("run cut during the rollout: warnings %v", res.Warnings)
	}
}
