package rollout

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/hashing"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPlanCreatesFirstReplicaSet(t *testing.T) {
	d := testDeployment(3, "25%", "25%")
	r, err := Plan(Snapshot{Deployment: d, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	hash := hashing.PodTemplateHash(&d.Spec.Template, nil)
	name := "web-" + hash
	if len(r.Actions) != 2 {
		t.Fatalf("want create + status update, got:\n%s", r.Explain())
	}
	c, ok := r.Actions[0].(CreateReplicaSet)
	if !ok {
		t.Fatalf("action 1 = %T, want CreateReplicaSet", r.Actions[0])
	}
	rs := c.ReplicaSet
	if rs.Name != name || *rs.Spec.Replicas != 3 || rs.Spec.MinReadySeconds != 0 {
		t.Errorf("created %s with %d replicas, want %s with 3", rs.Name, *rs.Spec.Replicas, name)
	}
	wantAnn := map[string]string{
		"deployment.kubernetes.io/revision":         "1",
		"deployment.kubernetes.io/desired-replicas": "3",
		"deployment.kubernetes.io/max-replicas":     "4",
	}
	if diff := cmp.Diff(wantAnn, rs.Annotations); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
	if rs.Labels["pod-template-hash"] != hash || rs.Spec.Selector.MatchLabels["pod-template-hash"] != hash || rs.Spec.Template.Labels["pod-template-hash"] != hash {
		t.Errorf("hash label missing from labels, selector or template: %v %v %v", rs.Labels, rs.Spec.Selector, rs.Spec.Template.Labels)
	}
	if ref := metav1.GetControllerOf(rs); ref == nil || ref.UID != d.UID || ref.Kind != "Deployment" || ref.APIVersion != "apps/v1" {
		t.Errorf("owner reference = %+v", ref)
	}
	wantEvents := []Event{{Type: "Normal", Reason: "ScalingReplicaSet", Message: "Scaled up replica set " + name + " from 0 to 3", After: 1}}
	if diff := cmp.Diff(wantEvents, r.Events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	st, ok := r.Actions[1].(UpdateDeploymentStatus)
	if !ok {
		t.Fatalf("action 2 = %T, want UpdateDeploymentStatus", r.Actions[1])
	}
	if st.Deployment.Annotations["deployment.kubernetes.io/revision"] != "1" {
		t.Errorf("deployment revision annotation = %q, want 1", st.Deployment.Annotations["deployment.kubernetes.io/revision"])
	}
	if st.Deployment.ResourceVersion != d.ResourceVersion {
		t.Errorf("status write sends resourceVersion %q, want the snapshot's %q", st.Deployment.ResourceVersion, d.ResourceVersion)
	}
	cond := getCondition(st.Deployment.Status, appsv1.DeploymentProgressing)
	want := &appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetCreated",
		Message: `Created new replica set "` + name + `"`, LastUpdateTime: metav1.NewTime(t0), LastTransitionTime: metav1.NewTime(t0)}
	if diff := cmp.Diff(want, cond); diff != "" {
		t.Errorf("Progressing (-want +got):\n%s", diff)
	}
	// Upstream then writes the rollout status with the Deployment it read at
	// the start of the sync: the API server refuses the stale object.
	if !strings.Contains(r.Stop, "conflict") || !r.Requeue.RateLimited {
		t.Errorf("want a conflict stop with rate-limited requeue, got Stop=%q Requeue=%+v", r.Stop, r.Requeue)
	}
}

// rollToEnd iterates plan → apply → settle until a sync plans nothing, and
// returns the ScalingReplicaSet messages in order.
func rollToEnd(t *testing.T, s Snapshot) (Snapshot, []string) {
	t.Helper()
	var msgs []string
	for i := 0; i < 100; i++ {
		next, r := step(t, s)
		for _, e := range r.Events {
			msgs = append(msgs, e.Message)
		}
		if len(r.Actions) == 0 {
			return next, msgs
		}
		s = settle(next)
	}
	t.Fatalf("no convergence after 100 syncs: %s", sizes(s))
	return s, msgs
}

func TestRollingUpdateNginx(t *testing.T) {
	d := testDeployment(3, "25%", "25%")
	s, _ := rollToEnd(t, Snapshot{Deployment: d, Now: t0})
	if len(s.ReplicaSets) != 1 {
		t.Fatalf("want one replica set, got %s", sizes(s))
	}
	v1 := s.ReplicaSets[0].Name
	s.Deployment = withImage(s.Deployment, "nginx:1.16.1")
	s, msgs := rollToEnd(t, s)
	v2 := "web-" + hashing.PodTemplateHash(&s.Deployment.Spec.Template, nil)
	want := []string{
		"Scaled up replica set " + v2 + " from 0 to 1",
		"Scaled down replica set " + v1 + " from 3 to 2",
		"Scaled up replica set " + v2 + " from 1 to 2",
		"Scaled down replica set " + v1 + " from 2 to 1",
		"Scaled up replica set " + v2 + " from 2 to 3",
		"Scaled down replica set " + v1 + " from 1 to 0",
	}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("scaling sequence (-want +got):\n%s", diff)
	}
	st := s.Deployment.Status
	if st.Replicas != 3 || st.UpdatedReplicas != 3 || st.AvailableReplicas != 3 || st.UnavailableReplicas != 0 || st.ObservedGeneration != 2 {
		t.Errorf("final status = %+v", st)
	}
	if c := getCondition(st, appsv1.DeploymentProgressing); c == nil || c.Reason != NewRSAvailableReason ||
		c.Message != `ReplicaSet "`+v2+`" has successfully progressed.` {
		t.Errorf("Progressing = %+v", c)
	}
	if c := getCondition(st, appsv1.DeploymentAvailable); c == nil || c.Reason != MinimumReplicasAvailable || c.Status != corev1.ConditionTrue {
		t.Errorf("Available = %+v", c)
	}
	if s.Deployment.Annotations["deployment.kubernetes.io/revision"] != "2" {
		t.Errorf("revision = %q, want 2", s.Deployment.Annotations["deployment.kubernetes.io/revision"])
	}
}

func TestRecreateWaitsForOldPods(t *testing.T) {
	d := testDeployment(2, "25%", "25%")
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	s, _ := rollToEnd(t, Snapshot{Deployment: d, Now: t0})
	old := s.ReplicaSets[0]
	s.Deployment = withImage(s.Deployment, "nginx:1.16.1")

	// Sync 1: only the old ReplicaSet goes to zero.
	next, r := step(t, s)
	if len(r.Events) != 1 || r.Events[0].Message != "Scaled down replica set "+old.Name+" from 2 to 0" {
		t.Fatalf("events = %v", r.Events)
	}
	// The old ReplicaSet reports no replicas, but one pod is still running.
	next = settle(next)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", Labels: map[string]string{"app": "web"},
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(old, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	next.Pods = []*corev1.Pod{pod}
	_, r = step(t, next)
	for _, a := range r.Actions {
		if _, ok := a.(CreateReplicaSet); ok {
			t.Fatalf("created the new replica set while an old pod runs:\n%s", r.Explain())
		}
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "pod p is Running") {
		t.Errorf("notes do not explain the wait: %q", r.Notes)
	}
	// Once the pod has terminated, the new ReplicaSet is created at full size.
	pod = pod.DeepCopy()
	pod.Status.Phase = corev1.PodSucceeded
	next.Pods = []*corev1.Pod{pod}
	_, r = step(t, next)
	c, ok := r.Actions[0].(CreateReplicaSet)
	if !ok || *c.ReplicaSet.Spec.Replicas != 2 {
		t.Fatalf("want the new replica set created with 2 replicas:\n%s", r.Explain())
	}
}

func TestPlanDoesNotMutateInput(t *testing.T) {
	d := testDeployment(5, "1", "1")
	old := testRS(d, "old", 1, 5, 5, t0.Add(-time.Hour))
	s := Snapshot{Deployment: withImage(d, "nginx:2"), ReplicaSets: []*appsv1.ReplicaSet{old}, Now: t0}
	before := Snapshot{Deployment: s.Deployment.DeepCopy(), ReplicaSets: []*appsv1.ReplicaSet{old.DeepCopy()}, Now: t0}
	if _, err := Plan(s); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, s); diff != "" {
		t.Errorf("Plan mutated its input (-before +after):\n%s", diff)
	}
}

func TestPlanRejectsInvalidInput(t *testing.T) {
	cases := map[string]struct {
		edit  func(*appsv1.Deployment)
		field string
	}{
		"nil replicas":      {func(d *appsv1.Deployment) { d.Spec.Replicas = nil }, "spec.replicas"},
		"negative":          {func(d *appsv1.Deployment) { d.Spec.Replicas = ptr(int32(-1)) }, "spec.replicas"},
		"nil selector":      {func(d *appsv1.Deployment) { d.Spec.Selector = nil }, "spec.selector"},
		"selector mismatch": {func(d *appsv1.Deployment) { d.Spec.Template.Labels = map[string]string{"app": "other"} }, "spec.template.metadata.labels"},
		"bad surge":         {func(d *appsv1.Deployment) { d.Spec.Strategy.RollingUpdate.MaxSurge = ptr(intstrString("12x")) }, "spec.strategy.rollingUpdate.maxSurge"},
		"no strategy":       {func(d *appsv1.Deployment) { d.Spec.Strategy = appsv1.DeploymentStrategy{} }, "spec.strategy"},
		"history limit":     {func(d *appsv1.Deployment) { d.Spec.RevisionHistoryLimit = ptr(int32(-3)) }, "spec.revisionHistoryLimit"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d := testDeployment(3, "25%", "25%")
			tc.edit(d)
			r, err := Plan(Snapshot{Deployment: d, Now: t0})
			if err == nil {
				t.Fatalf("no error; plan:\n%s", r.Explain())
			}
			if !strings.Contains(err.Error(), tc.field) {
				t.Errorf("error %q does not name %s", err, tc.field)
			}
		})
	}
	if _, err := Plan(Snapshot{}); err == nil {
		t.Error("nil deployment: no error")
	}
	d := testDeployment(3, "25%", "25%")
	rs := testRS(d, "x", 1, 1, 1, t0)
	rs.Spec.Replicas = nil
	if _, err := Plan(Snapshot{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{rs}, Now: t0}); err == nil || !strings.Contains(err.Error(), "replicaSets[0]") {
		t.Errorf("RS without replicas: err = %v", err)
	}
}

func TestSelectingAll(t *testing.T) {
	d := testDeployment(3, "25%", "25%")
	d.Spec.Selector = &metav1.LabelSelector{}
	d.Generation = 4
	r, err := Plan(Snapshot{Deployment: d, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{{Type: "Warning", Reason: "SelectingAll", Message: "This deployment is selecting all pods. A non-empty selector is required."}}
	if diff := cmp.Diff(want, r.Events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if len(r.Actions) != 1 || r.Status.ObservedGeneration != 4 {
		t.Errorf("want only observedGeneration recorded:\n%s", r.Explain())
	}
}

// Upstream quirk, reproduced: a Recreate Deployment whose ReplicaSets are
// both active when a scaling event arrives never proceeds. scale() only
// resizes one active ReplicaSet or spreads proportionally for RollingUpdate,
// so nothing refreshes the desired-replicas annotations and every sync sees
// the same scaling event again.
func TestRecreateScalingEventWithTwoActiveStalls(t *testing.T) {
	d := testDeployment(4, "25%", "25%")
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	a := testRS(withImage(d, "nginx:a"), "a", 1, 2, 2, t0)
	b := testRS(withImage(d, "nginx:b"), "b", 2, 2, 2, t0.Add(time.Minute))
	for _, rs := range []*appsv1.ReplicaSet{a, b} {
		rs.Annotations["deployment.kubernetes.io/desired-replicas"] = "2"
	}
	s := Snapshot{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{a, b}, Now: t0}
	for i := 0; i < 3; i++ {
		next, r := step(t, s)
		for _, act := range r.Actions {
			if _, ok := act.(UpdateDeploymentStatus); !ok {
				t.Fatalf("sync %d: want only status writes, got:\n%s", i, r.Explain())
			}
		}
		s = settle(next)
	}
	if sizes(s) != "web-a=2 web-b=2 " {
		t.Errorf("sizes = %s", sizes(s))
	}
}

// Upstream computes rs.spec × (replicas+maxSurge) in int32. For large
// Deployments the product wraps around and proportional scaling asks for a
// negative size, which the API server refuses: the sync fails after the
// first write. Options.FixProportionOverflow computes in 64 bits.
func TestProportionalScalingOverflow(t *testing.T) {
	d := testDeployment(100000, "0", "1")
	d.Generation = 3
	a := testRS(withImage(d, "nginx:a"), "a", 1, 40000, 40000, t0)
	b := testRS(withImage(d, "nginx:b"), "b", 2, 40000, 40000, t0.Add(time.Minute))
	for _, rs := range []*appsv1.ReplicaSet{a, b} {
		rs.Annotations["deployment.kubernetes.io/desired-replicas"] = "80000"
		rs.Annotations["deployment.kubernetes.io/max-replicas"] = "80000"
	}
	s := Snapshot{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{a, b}, Now: t0}

	r, err := Plan(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Stop, "spec.replicas: Invalid value: -3687") {
		t.Errorf("upstream behaviour: want the negative size refused, got Stop=%q\n%s", r.Stop, r.Explain())
	}

	r, err = PlanWith(s, Options{FixProportionOverflow: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range r.Actions {
		if sc, ok := a.(ScaleReplicaSet); ok {
			got = append(got, fmt.Sprintf("%s %d->%d", sc.ReplicaSet.Name, sc.From, sc.To))
		}
	}
	want := []string{"web-b 40000->50000", "web-a 40000->50000"}
	if diff := cmp.Diff(want, got); diff != "" || r.Stop != "" {
		t.Errorf("fixed arithmetic (-want +got):\n%s\nstop: %s", diff, r.Stop)
	}
}

func TestLegacyRollback(t *testing.T) {
	d := testDeployment(3, "25%", "25%")
	s, _ := rollToEnd(t, Snapshot{Deployment: d, Now: t0})
	v1 := s.ReplicaSets[0]
	s.Deployment = withImage(s.Deployment, "nginx:2")
	s, _ = rollToEnd(t, s)

	s.Deployment = s.Deployment.DeepCopy()
	s.Deployment.Annotations["deprecated.deployment.rollback.to"] = "0"
	r, err := Plan(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Actions) != 1 {
		t.Fatalf("want one deployment update:\n%s", r.Explain())
	}
	u, ok := r.Actions[0].(UpdateDeployment)
	if !ok {
		t.Fatalf("action = %T", r.Actions[0])
	}
	if _, still := u.Deployment.Annotations["deprecated.deployment.rollback.to"]; still {
		t.Error("rollback annotation not removed")
	}
	if img := u.Deployment.Spec.Template.Spec.Containers[0].Image; img != "nginx:1.14.2" {
		t.Errorf("template image = %s, want revision 1's nginx:1.14.2", img)
	}
	if _, has := u.Deployment.Spec.Template.Labels["pod-template-hash"]; has {
		t.Error("hash label copied into the Deployment template")
	}
	want := []Event{{Type: "Normal", Reason: "DeploymentRollback", Message: `Rolled back deployment "web" to revision 1`, After: 1}}
	if diff := cmp.Diff(want, r.Events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}

	// Rolling on: the old ReplicaSet becomes the new one with revision 3.
	next, err := Apply(s, r)
	if err != nil {
		t.Fatal(err)
	}
	next, _ = rollToEnd(t, next)
	for _, rs := range next.ReplicaSets {
		if rs.Name == v1.Name {
			if rs.Annotations["deployment.kubernetes.io/revision"] != "3" || rs.Annotations["deployment.kubernetes.io/revision-history"] != "1" || *rs.Spec.Replicas != 3 {
				t.Errorf("rolled-back replica set: replicas %d, annotations %v", *rs.Spec.Replicas, rs.Annotations)
			}
		}
	}

	// A revision that does not exist is reported and the annotation dropped.
	bad := next.Deployment.DeepCopy()
	bad.Annotations["deprecated.deployment.rollback.to"] = "42"
	next.Deployment = bad
	r, _ = Plan(next)
	want = []Event{{Type: "Warning", Reason: "DeploymentRollbackRevisionNotFound", Message: "Unable to find the revision to rollback to."}}
	if diff := cmp.Diff(want, r.Events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestPausedDeploymentOnlyScales(t *testing.T) {
	d := testDeployment(3, "25%", "25%")
	s, _ := rollToEnd(t, Snapshot{Deployment: d, Now: t0})
	p := withImage(s.Deployment, "nginx:2")
	p.Spec.Paused = true
	p.Spec.Replicas = ptr(int32(5))
	s.Deployment = p
	r, err := Plan(s)
	if err != nil {
		t.Fatal(err)
	}
	// The pause condition is written first; upstream then writes the RS and
	// finally the status with the stale Deployment, which conflicts.
	st, ok := r.Actions[0].(UpdateDeploymentStatus)
	if !ok {
		t.Fatalf("first action %T, want the paused condition:\n%s", r.Actions[0], r.Explain())
	}
	c := getCondition(st.Deployment.Status, appsv1.DeploymentProgressing)
	if c == nil || c.Status != corev1.ConditionUnknown || c.Reason != "DeploymentPaused" || c.Message != "Deployment is paused" {
		t.Errorf("Progressing = %+v", c)
	}
	sc, ok := r.Actions[1].(ScaleReplicaSet)
	if !ok || sc.From != 3 || sc.To != 5 {
		t.Fatalf("want the only replica set scaled 3->5:\n%s", r.Explain())
	}
	for _, a := range r.Actions {
		if _, ok := a.(CreateReplicaSet); ok {
			t.Fatalf("paused deployment rolled out:\n%s", r.Explain())
		}
	}
	if !strings.Contains(r.Stop, "conflict") {
		t.Errorf("Stop = %q", r.Stop)
	}
}

// Upstream quirk, reproduced (found by TestPropertyPlanSafety): the
// scale-down budget counts the available pods of every ReplicaSet, including
// a new ReplicaSet already scaled to zero whose status still reports an
// available pod. Old replicas are then removed for a pod that is itself
// going away, and availability can fall below minAvailable until the new
// ReplicaSet is scaled up again.
func TestStaleStatusCanDropAvailability(t *testing.T) {
	d := testDeployment(1, "1", "0")
	d.Generation = 2
	old := testRS(withImage(d, "nginx:old"), "old", 1, 2, 1, t0)
	newRS := testRS(d, "new", 2, 0, 1, t0.Add(time.Minute))
	newRS.Status.Replicas = 1
	r, err := Plan(Snapshot{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{old, newRS}, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range r.Actions {
		if sc, ok := a.(ScaleReplicaSet); ok {
			got = append(got, fmt.Sprintf("%s %d->%d", sc.ReplicaSet.Name, sc.From, sc.To))
		}
	}
	want := []string{"web-old 2->1", "web-old 1->0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scale-downs (-want +got):\n%s\n%s", diff, r.Explain())
	}
}
