package clientgo_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

// These tests run rollout.Execute with the Writer on the fake clientset,
// end to end: real plans, the requests they make, the events recorded and
// the error returned.

var rsResource = schema.GroupResource{Group: "apps", Resource: "replicasets"}

// rolloutSnapshot is the first sync after `kubectl set image
// deployment/nginx nginx=nginx:1.16.1`: the old ReplicaSet runs 3 pods.
func rolloutSnapshot() rollout.Snapshot {
	d := nginx(3, "nginx:1.16.1")
	old := replicaSet(d, "old", "nginx:1.14.2", "1", 3)
	return rollout.Snapshot{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{old}, Now: now}
}

// The first sync of a rollout creates the new ReplicaSet and records
// revision 2; like upstream's, it then ends with a conflict (it writes the
// status of the Deployment it read again), so Execute returns ErrStopped.
func TestExecuteRollout(t *testing.T) {
	s := rolloutSnapshot()
	res := mustPlan(t, s)
	cs, rec, w := world(s)
	err := rollout.Execute(context.Background(), w, s, res)
	if !errors.Is(err, rollout.ErrStopped) || res.Stop == "" {
		t.Fatalf("Execute = %v, want ErrStopped (Stop %q)", err, res.Stop)
	}
	created := res.Actions[0].(rollout.CreateReplicaSet).ReplicaSet
	status := res.Actions[1].(rollout.UpdateDeploymentStatus).Deployment
	diff(t, "requests", []call{
		{Verb: "create", Resource: "apps/v1/replicasets", Namespace: "default", Object: created, Options: metav1.CreateOptions{}},
		{Verb: "update", Resource: "apps/v1/deployments", Subresource: "status", Namespace: "default", Object: status, Options: metav1.UpdateOptions{}},
	}, calls(cs))
	diff(t, "events", []string{"Normal ScalingReplicaSet Scaled up replica set nginx-5f76cbf49 from 0 to 1"}, events(rec))

	got, err := cs.AppsV1().ReplicaSets("default").Get(context.Background(), "nginx-5f76cbf49", metav1.GetOptions{})
	if err != nil || *got.Spec.Replicas != 1 {
		t.Errorf("new ReplicaSet in the cluster = %v, %v; want 1 replica", got, err)
	}
}

// Proportional scaling writes three times (two ReplicaSets, then the
// status). The second write conflicts: Execute stops there, having
// recorded the event of the first write only, and returns the conflict.
func TestExecuteStopsAtFirstFailure(t *testing.T) {
	d := nginx(6, "nginx:1.16.1") // scaled from 3 to 6 mid-rollout
	d.Annotations["deployment.kubernetes.io/revision"] = "2"
	s := rollout.Snapshot{Deployment: d, Now: now, ReplicaSets: []*appsv1.ReplicaSet{
		replicaSet(d, hashing.PodTemplateHash(&d.Spec.Template, nil), "nginx:1.16.1", "2", 1),
		replicaSet(d, "old", "nginx:1.14.2", "1", 3),
	}}
	res := mustPlan(t, s)
	if len(res.Actions) != 3 || res.Stop != "" {
		t.Fatalf("plan:\n%s", res.Explain())
	}
	cs, rec, w := world(s)
	conflict := apierrors.NewConflict(rsResource, "nginx-5f76cbf49", errors.New("the object has been modified"))
	refuse(cs, "update", "replicasets", "nginx-5f76cbf49", conflict)

	err := rollout.Execute(context.Background(), w, s, res)
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "action 2 of 3 (scale up nginx-5f76cbf49 from 1 to 2") {
		t.Fatalf("Execute = %v, want action 2's conflict", err)
	}
	diff(t, "requests", []string{
		"update apps/v1/replicasets nginx-old",
		"update apps/v1/replicasets nginx-5f76cbf49",
	}, verbs(cs))
	diff(t, "events", []string{"Normal ScalingReplicaSet Scaled up replica set nginx-old from 3 to 6"}, events(rec))
}

// A hash collision: upstream's create fails with AlreadyExists, it bumps
// status.collisionCount and returns the error. The plan knows this: one
// status write, then Stop, which Execute returns as ErrStopped.
func TestExecuteStoppedOnCollision(t *testing.T) {
	s := rolloutSnapshot()
	d := s.Deployment
	other := replicaSet(d, hashing.PodTemplateHash(&d.Spec.Template, nil), "nginx:9", "", 0)
	other.OwnerReferences = nil
	other.Labels = map[string]string{"app": "someone-else"}
	s.ReplicaSets = append(s.ReplicaSets, other)
	res := mustPlan(t, s)
	cs, _, w := world(s)

	err := rollout.Execute(context.Background(), w, s, res)
	if !errors.Is(err, rollout.ErrStopped) || !strings.Contains(err.Error(), "hash collision") {
		t.Fatalf("Execute = %v, want ErrStopped for the hash collision", err)
	}
	diff(t, "requests", []string{"update apps/v1/deployments/status nginx"}, verbs(cs))
	got, err := cs.AppsV1().Deployments("default").Get(context.Background(), "nginx", metav1.GetOptions{})
	if err != nil || got.Status.CollisionCount == nil || *got.Status.CollisionCount != 1 {
		t.Errorf("Deployment in the cluster = %v, %v; want collisionCount 1", got, err)
	}
}

// A create the API server refuses (here: quota) goes on as upstream's
// does: the status gets Progressing=False ReplicaSetCreateError, a warning
// is recorded, the scaling event is not, and the refusal is returned.
func TestExecuteCreateForbidden(t *testing.T) {
	s := rolloutSnapshot()
	res := mustPlan(t, s)
	cs, rec, w := world(s)
	quota := apierrors.NewForbidden(rsResource, "nginx-5f76cbf49", errors.New("exceeded quota: pods"))
	refuse(cs, "create", "replicasets", "nginx-5f76cbf49", quota)

	err := rollout.Execute(context.Background(), w, s, res)
	if !apierrors.IsForbidden(err) {
		t.Fatalf("Execute = %v, want the Forbidden error", err)
	}
	diff(t, "requests", []string{
		"create apps/v1/replicasets nginx-5f76cbf49",
		"update apps/v1/deployments/status nginx",
	}, verbs(cs))
	diff(t, "events", []string{
		fmt.Sprintf("Warning ReplicaSetCreateError Failed to create new replica set %q: %v", "nginx-5f76cbf49", quota),
	}, events(rec))
	got, err := cs.AppsV1().Deployments("default").Get(context.Background(), "nginx", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var progressing appsv1.DeploymentCondition
	for _, c := range got.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing {
			progressing = c
		}
	}
	if progressing.Status != corev1.ConditionFalse || progressing.Reason != "ReplicaSetCreateError" {
		t.Errorf("Progressing = %+v, want False ReplicaSetCreateError", progressing)
	}
}

// claimSnapshot is a finished rollout with revisionHistoryLimit 0, an
// orphan to adopt, an owned ReplicaSet whose labels changed to release,
// and empty old ReplicaSets to delete.
func claimSnapshot() rollout.Snapshot {
	d := nginx(3, "nginx:1.16.1")
	d.Generation = 1
	d.Spec.RevisionHistoryLimit = ptr.To(int32(0))
	d.Annotations["deployment.kubernetes.io/revision"] = "2"
	orphan := replicaSet(d, "orphan", "nginx:1.13", "", 0)
	orphan.OwnerReferences = nil
	stray := replicaSet(d, "stray", "nginx:1.12", "", 0)
	stray.Labels = map[string]string{"app": "other"}
	return rollout.Snapshot{Deployment: d, Now: now, ReplicaSets: []*appsv1.ReplicaSet{
		replicaSet(d, hashing.PodTemplateHash(&d.Spec.Template, nil), "nginx:1.16.1", "2", 3),
		replicaSet(d, "old", "nginx:1.14.2", "1", 0),
		orphan, stray,
	}}
}

// Adoption and release are strategic merge patches, cleanup deletes with
// the UID as precondition.
func TestExecuteClaimAndCleanup(t *testing.T) {
	s := claimSnapshot()
	res := mustPlan(t, s)
	cs, _, w := world(s)
	if err := rollout.Execute(context.Background(), w, s, res); err != nil {
		t.Fatalf("Execute = %v", err)
	}
	diff(t, "requests", []string{
		"patch apps/v1/replicasets nginx-orphan",
		"patch apps/v1/replicasets nginx-stray",
		"delete apps/v1/replicasets nginx-old",
		"delete apps/v1/replicasets nginx-orphan",
	}, verbs(cs))
	for i, c := range calls(cs) {
		a := res.Actions[i]
		switch a := a.(type) {
		case rollout.AdoptReplicaSet:
			diff(t, "adopt patch", string(a.Patch), c.Patch)
		case rollout.ReleaseReplicaSet:
			diff(t, "release patch", string(a.Patch), c.Patch)
		case rollout.DeleteReplicaSet:
			uid := a.UID
			diff(t, "delete options", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}, c.Options)
		}
	}
	list, err := cs.AppsV1().ReplicaSets("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, rs := range list.Items {
		left = append(left, rs.Name+" controller="+controllerOf(&rs))
	}
	diff(t, "ReplicaSets left", []string{"nginx-5f76cbf49 controller=nginx", "nginx-stray controller="}, left)
}

func controllerOf(rs *appsv1.ReplicaSet) string {
	if ref := metav1.GetControllerOf(rs); ref != nil {
		return ref.Name
	}
	return ""
}

// A ReplicaSet that is gone already is released or deleted as far as
// Execute is concerned (NotFound is what upstream ignores there); any other
// refusal of a delete stops the sync.
func TestExecuteGoneReplicaSets(t *testing.T) {
	s := claimSnapshot()
	res := mustPlan(t, s)
	cs, _, w := world(s)
	for _, name := range []string{"nginx-stray", "nginx-old"} {
		if err := cs.Tracker().Delete(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}, "default", name); err != nil {
			t.Fatal(err)
		}
	}
	if err := rollout.Execute(context.Background(), w, s, res); err != nil {
		t.Fatalf("Execute = %v, want NotFound ignored", err)
	}
	if n := len(cs.Actions()); n != 4 {
		t.Errorf("requests = %q, want all 4", verbs(cs))
	}

	cs, _, w = world(s)
	conflict := apierrors.NewConflict(rsResource, "nginx-old", errors.New("Precondition failed: UID in precondition: uid-nginx-old, UID in object meta: other"))
	refuse(cs, "delete", "replicasets", "nginx-old", conflict)
	if err := rollout.Execute(context.Background(), w, s, res); !apierrors.IsConflict(err) {
		t.Fatalf("Execute = %v, want the conflict", err)
	}
	diff(t, "requests", []string{
		"patch apps/v1/replicasets nginx-orphan",
		"patch apps/v1/replicasets nginx-stray",
		"delete apps/v1/replicasets nginx-old",
	}, verbs(cs))
}
