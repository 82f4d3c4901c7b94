package rollout_test

// Regression tests for the differences the differential test against the
// real v1.37.1 controller found (rollout/differential). Each is the minimal
// case with the outcome upstream produces.

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/fencepost"
	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// withProgressing gives d a Progressing condition with reason, last updated at
// updated.
func withProgressing(d *appsv1.Deployment, status corev1.ConditionStatus, reason string, updated time.Time) *appsv1.Deployment {
	d.Status.Conditions = []appsv1.DeploymentCondition{{
		Type: appsv1.DeploymentProgressing, Status: status, Reason: reason, Message: "m",
		LastUpdateTime: metav1.NewTime(updated), LastTransitionTime: metav1.NewTime(upOlder),
	}}
	return d
}

// The API server bumps a Deployment's generation when its annotations
// change, not only its spec: clearing the rollback annotation is a new
// generation.
func TestFidelityGenerationOnAnnotationChange(t *testing.T) {
	d := inSync(upDeployment(1, 1, 0), 1)
	d.Generation, d.Status.ObservedGeneration = 2, 2
	d.Annotations[annRollbackTo] = "1"
	s := snapshot(d, upRS(d, "foo-new", 1, 1, upNew, ""))
	res := mustPlan(t, s)
	diffStrings(t, "actions", []string{"update-deployment"}, actionStrings(res))
	diffStrings(t, "events", []string{`Warning DeploymentRollbackTemplateUnchanged The rollback revision contains the same template as current deployment "foo"`}, eventStrings(res))
	after, err := rollout.Apply(s, res)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.Deployment.Generation; got != 3 {
		t.Errorf("generation after the annotation-only update = %d, want 3", got)
	}
	if _, ok := after.Deployment.Annotations[annRollbackTo]; ok {
		t.Errorf("rollback annotation still set")
	}
}

// More ready replicas than before is progress (v1.37's
// DeploymentProgressing), even while Recreate waits for old pods.
func TestFidelityReadyReplicasAreProgress(t *testing.T) {
	d := recreate(upDeployment(2, 0, 0))
	d.Annotations[annRevision] = "1"
	d.Spec.Template = withImage(d.Spec.Template, "foo/bar:v2")
	withProgressing(d, corev1.ConditionTrue, rollout.NewRSAvailableReason, upNow.Add(-time.Minute))
	d.Status.Replicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas = 2, 1, 1
	// Terminating old pods: two replicas, both ready now, one available.
	old := setStatus(upRS(d, "foo-old", 1, 0, upOld, "foo/bar"), 2, 1)
	old.Status.ReadyReplicas = 2
	res := mustPlan(t, snapshot(d, old))
	diffStrings(t, "actions", []string{"update-status"}, actionStrings(res))
	checkCond(t, res.Status, appsv1.DeploymentProgressing, &wantCond{
		Status: corev1.ConditionTrue, Reason: rollout.ReplicaSetUpdatedReason, Message: `Deployment "foo" is progressing.`,
	})
}

// A Progressing condition that still records a completed rollout
// (NewReplicaSetAvailable) never times out, however old it is.
func TestFidelityCompletedRolloutDoesNotTimeOut(t *testing.T) {
	d := upDeployment(8, 0, 1)
	d.Spec.ProgressDeadlineSeconds = i32(600)
	d.Annotations[annRevision] = "2"
	withProgressing(d, corev1.ConditionTrue, rollout.NewRSAvailableReason, upNow.Add(-601*time.Second))
	d.Status.Replicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas = 8, 8, 8
	old := upRS(d, "foo-old", 1, 8, upOld, "foo/bar:old")
	newRS := setStatus(upRS(d, "foo-new", 2, 0, upNew, ""), 0, 0)
	res := mustPlan(t, snapshot(d, old, newRS))
	diffStrings(t, "replica set writes", []string{"scale foo-old 8->7"}, rsActions(res))
	if c := condition(res.Status, appsv1.DeploymentProgressing); c == nil || c.Reason != rollout.NewRSAvailableReason {
		t.Errorf("Progressing = %+v, want NewReplicaSetAvailable kept", c)
	}
}

// A sync that records the revision and then rolls back hands the first
// write an object the rollback must not change afterwards.
func TestFidelityRollbackDoesNotRewriteEarlierStatus(t *testing.T) {
	d := upDeployment(1, 1, 0)
	d.Annotations["kubernetes.io/change-cause"] = "kubectl set image"
	d.Annotations[annRollbackTo] = "1"
	withProgressing(d, corev1.ConditionTrue, rollout.ReplicaSetUpdatedReason, upNow)
	old := upRS(d, "foo-old", 1, 0, upOld, "foo/bar:old")
	old.Annotations["kubernetes.io/change-cause"] = "old cause"
	newRS := upRS(d, "foo-new", 2, 1, upNew, "")
	newRS.Annotations["kubernetes.io/change-cause"] = "kubectl set image"
	res := mustPlan(t, snapshot(d, old, newRS))
	// Recording revision 2 writes the status; the rollback's update then
	// sends the stale object and conflicts, as upstream's does.
	diffStrings(t, "actions", []string{"update-status"}, actionStrings(res))
	if res.Stop == "" {
		t.Errorf("Stop is empty; want the rollback's conflicting update")
	}
	written := res.Actions[0].(rollout.UpdateDeploymentStatus).Deployment
	if got := written.Annotations["kubernetes.io/change-cause"]; got != "kubectl set image" {
		t.Errorf("status write carries change-cause %q, want the Deployment's own", got)
	}
	if got := written.Spec.Template.Spec.Containers[0].Image; got != "foo/bar" {
		t.Errorf("status write carries image %q, want foo/bar", got)
	}
}

// v1.37 finds a Recreate Deployment's old pods by their controller
// reference, whatever their labels: a running pod of an old ReplicaSet
// holds the rollout back even when the selector no longer matches it.
func TestFidelityRecreateOldPodsByOwner(t *testing.T) {
	d := recreate(upDeployment(1, 0, 0))
	oldRS := setStatus(upRS(d, "foo-old", 1, 0, upOld, "foo/bar:old"), 0, 0)
	inSync(d, 0)
	s := snapshot(d, oldRS)
	stray := ownedPod(oldRS, "stray", corev1.PodRunning)
	stray.Labels = map[string]string{"foo": "other"}
	s.Pods = []*corev1.Pod{stray}
	res := mustPlan(t, s)
	diffStrings(t, "replica set writes", nil, rsActions(res))

	// A pod whose controller reference names another object is not one.
	stray.OwnerReferences[0].Name = "renamed"
	res = mustPlan(t, s)
	if got := rsActions(res); len(got) != 1 || !strings.HasPrefix(got[0], "create ") {
		t.Errorf("replica set writes = %q, want the new replica set created", got)
	}
}

// With an unparsable revision, history cleanup picks the ReplicaSets
// upstream's sort.Sort picks from the oldest-first list.
func TestFidelityCleanupWithUnparsableRevision(t *testing.T) {
	d := upDeployment(1, 1, 0)
	d.Spec.Paused = true
	d.Spec.RevisionHistoryLimit = i32(1)
	inSync(d, 0)
	a := upRS(d, "foo-a", 0, 1, upOlder, "foo/bar:a") // has pods: kept
	b := setStatus(upRS(d, "foo-b", 0, 0, upOld, "foo/bar:b"), 0, 0)
	c := setStatus(upRS(d, "foo-c", 0, 0, upOld, "foo/bar:c"), 0, 0)
	c.Annotations[annRevision] = "x2"
	res := mustPlan(t, snapshot(d, a, b, c))
	diffStrings(t, "replica set writes", []string{"delete foo-b"}, rsActions(res))
}

// When the new ReplicaSet's revision does not parse, upstream copies the
// Deployment's annotations into its working copy without writing them; a
// later scale in the same sync writes them.
func TestFidelityUnparsableNewRevisionCarriesAnnotations(t *testing.T) {
	d := upDeployment(3, 1, 0)
	d.Annotations["kubernetes.io/change-cause"] = "kubectl scale"
	inSync(d, 0)
	d.Annotations[annRevision] = "x2"
	newRS := setReplicaAnnotations(upRS(d, "foo-new", 0, 2, upNew, ""), 2, 3)
	newRS.Annotations[annRevision] = "x2"
	res := mustPlan(t, snapshot(d, newRS))
	diffStrings(t, "replica set writes", []string{"scale foo-new 2->3"}, rsActions(res))
	scaled := res.Actions[0].(rollout.ScaleReplicaSet).ReplicaSet
	if got := scaled.Annotations["kubernetes.io/change-cause"]; got != "kubectl scale" {
		t.Errorf("scaled replica set's change-cause = %q, want the Deployment's", got)
	}
	if got := scaled.Annotations[annRevision]; got != "x2" {
		t.Errorf("revision = %q, want x2 untouched", got)
	}
}

// The API server accepts replicas + maxSurge beyond an int32, so Plan
// does too, with upstream's wrapped int32 arithmetic: the new ReplicaSet
// cannot grow (its total is "above" the wrapped limit).
func TestFidelitySurgeOverflowIsAccepted(t *testing.T) {
	d := upDeployment(math.MaxInt32-1, 10, 0)
	if err := fencepost.Validate(d); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	inSync(d, 2)
	old := upRS(d, "foo-old", 1, 5, upOld, "foo/bar:old")
	newRS := setStatus(upRS(d, "foo-new", 2, 0, upNew, ""), 0, 0)
	res := mustPlan(t, snapshot(d, old, newRS))
	for _, a := range rsActions(res) {
		if strings.HasPrefix(a, "scale foo-new") {
			t.Errorf("new replica set scaled (%s); upstream's wrapped limit forbids it", a)
		}
	}
}

// Sums of ReplicaSet counts beyond an int32 wrap in upstream; the API
// server refuses the negative status, so the sync ends with an error that
// says why, and no status write is planned.
func TestFidelityOverflowingStatusIsRefused(t *testing.T) {
	d := upDeployment(2, 1, 0)
	d.Spec.Paused = true
	inSync(d, 1)
	big := int32(1<<30 + 1)
	a := upRS(d, "foo-a", 1, big, upOld, "")
	b := upRS(d, "foo-b", 0, big, upOlder, "foo/bar:old")
	setReplicaAnnotations(a, 2, 3)
	setReplicaAnnotations(b, 2, 3)
	d.Status.Replicas = 2
	res := mustPlan(t, snapshot(d, a, b))
	for _, a := range res.Actions {
		if _, ok := a.(rollout.UpdateDeploymentStatus); ok {
			t.Errorf("planned a status write the API server refuses: %s", a.Explain())
		}
	}
	if !strings.Contains(res.Stop, "status.replicas: Invalid value: -2147483646") || !strings.Contains(res.Stop, "more than an int32") {
		t.Errorf("Stop = %q, want the API server's refusal and the overflow named", res.Stop)
	}
	if !res.Requeue.RateLimited {
		t.Errorf("Requeue = %+v, want rate-limited", res.Requeue)
	}
}

// A condition set in this sync is still in upstream's memory with the
// clock's full precision when it computes the progress requeue: the
// deadline counts from Now, not from Now cut to the second.
func TestFidelityRequeueFromConditionSetNow(t *testing.T) {
	d := upDeployment(2, 0, 1)
	d.Spec.ProgressDeadlineSeconds = i32(30)
	d.Annotations[annRevision] = "1"
	newRS := setStatus(upRS(d, "foo-new", 1, 2, upNew, ""), 2, 1)
	d.Status = appsv1.DeploymentStatus{
		ObservedGeneration: 1, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 1, UnavailableReplicas: 1,
		TerminatingReplicas: i32(0),
		Conditions: []appsv1.DeploymentCondition{{
			Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: rollout.MinimumReplicasAvailable,
			Message: "Deployment has minimum availability.", LastUpdateTime: metav1.NewTime(upOld), LastTransitionTime: metav1.NewTime(upOld),
		}},
	}
	s := snapshot(d, newRS)
	s.Now = upNow.Add(700 * time.Millisecond)
	res := mustPlan(t, s)
	diffStrings(t, "actions", []string{"update-status"}, actionStrings(res))
	checkCond(t, res.Status, appsv1.DeploymentProgressing, &wantCond{
		Status: corev1.ConditionTrue, Reason: rollout.FoundNewRSReason, Message: `Found new replica set "foo-new"`,
	})
	if want := (rollout.Requeue{After: 31 * time.Second}); res.Requeue != want {
		t.Errorf("Requeue = %+v, want %+v (deadline 30 s from Now, plus 1 s)", res.Requeue, want)
	}
}

// v1.37 words each scaling event by comparing the two sizes: a stale
// max-replicas annotation can shrink a ReplicaSet while the Deployment as a
// whole grows, and that event says "down".
func TestFidelityScalingEventDirection(t *testing.T) {
	d := upDeployment(10, 0, 1)
	inSync(d, 2)
	old := setReplicaAnnotations(upRS(d, "foo-old", 1, 2, upOld, "foo/bar:old"), 20, 20)
	newRS := setReplicaAnnotations(upRS(d, "foo-new", 2, 5, upNew, ""), 10, 10)
	res := mustPlan(t, snapshot(d, old, newRS))
	diffStrings(t, "replica set writes", []string{"scale foo-new 5->9", "scale foo-old 2->1"}, rsActions(res))
	diffStrings(t, "events", []string{
		"Normal ScalingReplicaSet Scaled up replica set foo-new from 5 to 9",
		"Normal ScalingReplicaSet Scaled down replica set foo-old from 2 to 1",
	}, eventStrings(res))
}

// A manifest that is not defaulted is refused with a pointer to Default.
func TestPlanPointsToDefault(t *testing.T) {
	d := upDeployment(1, 1, 0)
	d.Spec.Strategy = appsv1.DeploymentStrategy{}
	_, err := rollout.Plan(snapshot(d))
	if err == nil || !strings.Contains(err.Error(), "spec.strategy.type: Required value") || !strings.Contains(err.Error(), "rollout.Default") {
		t.Errorf("Plan = %v, want the field and a pointer to rollout.Default", err)
	}
}

// A paused Deployment's cleanup sees the old ReplicaSets newest first (the
// scaling look-up before it sorts upstream's list in place); with an
// unparsable revision upstream's sort then picks differently than from the
// oldest-first list. Found by the differential test's runs to the fixpoint.
func TestFidelityPausedCleanupOrder(t *testing.T) {
	d := upDeployment(1, 1, 0)
	d.Spec.Paused = true
	d.Spec.RevisionHistoryLimit = i32(1)
	inSync(d, 3)
	b := setStatus(upRS(d, "foo-b", 2, 0, upOlder, "foo/bar:b"), 0, 0)
	a := setStatus(upRS(d, "foo-a", 0, 0, upOld, "foo/bar:a"), 0, 0)
	a.Annotations[annRevision] = "x2"
	c := setStatus(upRS(d, "foo-c", 1, 0, upOld.Add(30*time.Minute), "foo/bar:c"), 0, 0)
	newRS := upRS(d, "foo-new", 3, 1, upNew, "")
	res := mustPlan(t, snapshot(d, a, b, c, newRS))
	diffStrings(t, "replica set writes", []string{"delete foo-a", "delete foo-c"}, rsActions(res))
}
