package main

import (
	"context"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestFakeAPIServer(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2030, 1, 2, 3, 4, 5, 600, time.UTC)
	cs, _ := newFakeClientset(clocktesting.NewFakeClock(start))
	deployments := cs.AppsV1().Deployments("default")

	d, err := deployments.Create(ctx, nginxDeployment(), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.UID == "" || d.ResourceVersion == "" || d.Generation != 1 || !d.CreationTimestamp.Time.Equal(start.Truncate(time.Second)) {
		t.Fatalf("create: uid %q rv %q generation %d created %v", d.UID, d.ResourceVersion, d.Generation, d.CreationTimestamp)
	}
	if d.Spec.RevisionHistoryLimit == nil || *d.Spec.RevisionHistoryLimit != 10 || d.Spec.Strategy.RollingUpdate == nil {
		t.Fatalf("create: not defaulted: %+v", d.Spec)
	}
	if _, err := deployments.Create(ctx, nginxDeployment(), metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Fatalf("second create: %v, want AlreadyExists", err)
	}

	// A status update keeps the spec; a main update keeps the status.
	st := d.DeepCopy()
	st.Status.ObservedGeneration = 1
	st.Spec.Paused = true
	st2, err := deployments.UpdateStatus(ctx, st, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st2.Spec.Paused || st2.Status.ObservedGeneration != 1 || st2.Generation != 1 || st2.ResourceVersion == d.ResourceVersion {
		t.Fatalf("status update: paused %v observed %d generation %d rv %s", st2.Spec.Paused, st2.Status.ObservedGeneration, st2.Generation, st2.ResourceVersion)
	}

	// The stale object is refused with a conflict.
	stale := d.DeepCopy()
	stale.Spec.Template.Spec.Containers[0].Image = "nginx:1.16.1"
	if _, err := deployments.Update(ctx, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("stale update: %v, want Conflict", err)
	}
	fresh := st2.DeepCopy()
	fresh.Spec.Template.Spec.Containers[0].Image = "nginx:1.16.1"
	fresh.Status = appsv1.DeploymentStatus{}
	up, err := deployments.Update(ctx, fresh, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if up.Generation != 2 || up.Status.ObservedGeneration != 1 || up.UID != d.UID {
		t.Fatalf("update: generation %d observed %d uid %s", up.Generation, up.Status.ObservedGeneration, up.UID)
	}
	// An update without a spec change does not bump generation; an empty
	// resourceVersion is unconditional.
	same := up.DeepCopy()
	same.ResourceVersion = ""
	same.Labels["tier"] = "web"
	if got, err := deployments.Update(ctx, same, metav1.UpdateOptions{}); err != nil || got.Generation != 2 {
		t.Fatalf("unconditional update: %v, generation %d", err, got.Generation)
	}

	// Patches: a UID in the patch is a precondition.
	rss := cs.AppsV1().ReplicaSets("default")
	rs, err := rss.Create(ctx, &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "rs", Labels: map[string]string{"app": "nginx"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rss.Patch(ctx, "rs", types.StrategicMergePatchType, []byte(`{"metadata":{"uid":"other","labels":{"x":"y"}}}`), metav1.PatchOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("patch with a wrong uid: %v, want Conflict", err)
	}
	patched, err := rss.Patch(ctx, "rs", types.StrategicMergePatchType, []byte(`{"metadata":{"uid":"`+string(rs.UID)+`","labels":{"x":"y"}}}`), metav1.PatchOptions{})
	if err != nil || patched.Labels["x"] != "y" || patched.Labels["app"] != "nginx" {
		t.Fatalf("patch: %v, labels %v", err, patched.Labels)
	}

	// Deletes check the UID precondition.
	wrong := types.UID("other")
	if err := rss.Delete(ctx, "rs", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &wrong}}); !apierrors.IsConflict(err) {
		t.Fatalf("delete with a wrong uid: %v, want Conflict", err)
	}
	if err := rss.Delete(ctx, "rs", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &rs.UID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := rss.Get(ctx, "rs", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get after delete: %v", err)
	}

	// Pods are deleted gracefully unless gracePeriodSeconds is 0.
	pods := cs.CoreV1().Pods("default")
	if _, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := pods.Delete(ctx, "p", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if p, err := pods.Get(ctx, "p", metav1.GetOptions{}); err != nil || p.DeletionTimestamp == nil {
		t.Fatalf("graceful delete: %v, deletionTimestamp %v", err, p.DeletionTimestamp)
	}
	zero := int64(0)
	if err := pods.Delete(ctx, "p", metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Get(ctx, "p", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get after immediate delete: %v", err)
	}
}

// TestSyncConflictRequeues checks the controller's error path: a write that
// the server refuses stops the sync; the events of the writes before it are
// recorded (rollout.Event.After), the others not; the key is retried.
func TestSyncConflictRequeues(t *testing.T) {
	h := newHarness(t, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), podTiming{Startup: time.Second})
	if _, err := h.cs.AppsV1().Deployments("default").Create(h.ctx, nginxDeployment(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Make the informer cache lag one write behind: the Deployment in the
	// cache gets an old resourceVersion, so the status write conflicts.
	obj, _, _ := h.dIdx.GetByKey("default/nginx-deployment")
	d := obj.(*appsv1.Deployment).DeepCopy()
	d.ResourceVersion = "0"
	if err := h.dIdx.Update(d); err != nil {
		t.Fatal(err)
	}
	res, err := h.c.sync(h.ctx, "default/nginx-deployment")
	if err == nil || !apierrors.IsConflict(err) {
		t.Fatalf("sync with a stale cache: %v, want a conflict", err)
	}
	if res == nil || len(res.Actions) == 0 {
		t.Fatalf("plan: %v", res)
	}
	h.drainEvents()
	want := []string{"Normal ScalingReplicaSet Scaled up replica set nginx-deployment-54fd4d6d4c from 0 to 3"}
	if !slices.Equal(h.events, want) {
		t.Fatalf("events of the failed sync: %q, want %q (the create succeeded)", h.events, want)
	}
	// The informer catches up; the retry goes through the rate limiter
	// (5ms) and succeeds.
	cur, err := h.cs.AppsV1().Deployments("default").Get(h.ctx, "nginx-deployment", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.dIdx.Update(cur); err != nil {
		t.Fatal(err)
	}
	h.add("d:default/nginx-deployment", h.backoff("d:default/nginx-deployment"))
	h.run(h.clk.Now().Add(10 * time.Second))
	if !slices.Equal(h.events, want) {
		t.Fatalf("events after the retry: %q, want %q", h.events, want)
	}
	obj, _, _ = h.dIdx.GetByKey("default/nginx-deployment")
	if got := obj.(*appsv1.Deployment).Status.ReadyReplicas; got != 3 {
		t.Fatalf("ready replicas after the retry: %d, want 3", got)
	}
}

// TestAdoptOrphan checks the owner-reference patches end to end: an orphan
// ReplicaSet that the Deployment selects queues the Deployment (event
// handler), is adopted with upstream's strategic merge patch (UID
// precondition included), and released again when its labels stop matching.
func TestAdoptOrphan(t *testing.T) {
	h := newHarness(t, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), podTiming{Startup: time.Second})
	d := nginxDeployment()
	orphan := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "orphan", Labels: map[string]string{"app": "nginx"}},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptrTo[int32](0),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
			Template: *d.Spec.Template.DeepCopy(),
		},
	}
	orphan.Spec.Template.Spec.Containers[0].Image = "nginx:1.0"
	rss := h.cs.AppsV1().ReplicaSets("default")
	if _, err := rss.Create(h.ctx, orphan, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	created, err := h.cs.AppsV1().Deployments("default").Create(h.ctx, d, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h.run(h.clk.Now().Add(30 * time.Second))
	got, err := rss.Get(h.ctx, "orphan", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ref := metav1.GetControllerOf(got); ref == nil || ref.UID != created.UID {
		t.Fatalf("orphan not adopted: owner references %+v", got.OwnerReferences)
	}

	// The user relabels it: the next sync (queued by the label change)
	// releases it.
	got.Labels = map[string]string{"app": "other"}
	if _, err := rss.Update(h.ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.run(h.clk.Now().Add(30 * time.Second))
	got, err = rss.Get(h.ctx, "orphan", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ref := metav1.GetControllerOf(got); ref != nil {
		t.Fatalf("relabelled replica set not released: owner references %+v", got.OwnerReferences)
	}
}

func ptrTo[T any](v T) *T { return &v }
