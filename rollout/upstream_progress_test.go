package rollout_test

// Conformance with upstream's progress_test.go: TestRequeueStuckDeployment
// and TestSyncRolloutStatus. Both use a Recreate Deployment named
// "progress-test" (upstream's currentDeployment); the new ReplicaSet is
// "foo" and an old one "bar".

import (
	"math"
	"testing"
	"time"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var progressTime = time.Date(2017, 2, 15, 18, 49, 0, 0, time.UTC)

// progressDeployment is upstream's currentDeployment: a Recreate
// Deployment with the given progress deadline (0: none, i.e. MaxInt32),
// size and status, observed, with the given conditions.
func progressDeployment(pds, replicas, statusReplicas, updated, available int32, conds ...appsv1.DeploymentCondition) *appsv1.Deployment {
	d := recreate(upDeployment(replicas, 0, 0))
	d.Name, d.UID = "progress-test", "uid-progress-test"
	if pds == 0 {
		pds = math.MaxInt32
	}
	d.Spec.ProgressDeadlineSeconds = &pds
	d.Annotations[annRevision] = "1"
	d.Status = appsv1.DeploymentStatus{
		ObservedGeneration: 1,
		Replicas:           statusReplicas, UpdatedReplicas: updated, ReadyReplicas: available, AvailableReplicas: available,
		Conditions: conds,
	}
	return d
}

func progressing(status corev1.ConditionStatus, reason string, at time.Time) appsv1.DeploymentCondition {
	return appsv1.DeploymentCondition{
		Type: appsv1.DeploymentProgressing, Status: status, Reason: reason,
		LastUpdateTime: metav1.NewTime(at), LastTransitionTime: metav1.NewTime(at),
	}
}

func availableCond(ok bool) appsv1.DeploymentCondition {
	c := appsv1.DeploymentCondition{
		Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable",
		Message:        "Deployment has minimum availability.",
		LastUpdateTime: metav1.NewTime(progressTime), LastTransitionTime: metav1.NewTime(progressTime),
	}
	if !ok {
		c.Status, c.Reason, c.Message = corev1.ConditionFalse, "MinimumReplicasUnavailable", "Deployment does not have minimum availability."
	}
	return c
}

// TestUpstreamRequeueStuckDeployment covers upstream
// TestRequeueStuckDeployment. A sync that changes nothing asks to be
// requeued when the progress deadline passes: upstream enqueues after the
// remaining time plus one second, or at once (rate-limited) when less than
// a second is left. Upstream tests the helper alone; the cases past the
// deadline are, within a sync, the timeout itself (a status write, no
// requeue).
func TestUpstreamRequeueStuckDeployment(t *testing.T) {
	stuck := appsv1.DeploymentCondition{
		Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue,
		LastUpdateTime: metav1.NewTime(progressTime), LastTransitionTime: metav1.NewTime(progressTime),
	}
	failed := appsv1.DeploymentCondition{
		Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded",
		LastUpdateTime: metav1.NewTime(progressTime), LastTransitionTime: metav1.NewTime(progressTime),
	}
	complete := progressing(corev1.ConditionTrue, "NewReplicaSetAvailable", progressTime)
	at := func(min, sec, nsec int) time.Time { return time.Date(2017, 2, 15, 18, min, sec, nsec, time.UTC) }

	cases := []struct {
		name                 string
		pds                  int32
		replicas, avail      int32
		progressing          *appsv1.DeploymentCondition
		now                  time.Time
		want                 rollout.Requeue
		wantWrites           []string
		wantProgressingAfter *wantCond
	}{
		{name: "nil progressDeadlineSeconds specified", pds: 0, replicas: 4, avail: 2, now: at(49, 30, 0)},
		{
			// Within a sync the first Progressing condition is recorded
			// (FoundNewReplicaSet, now); the deadline counts from there.
			name: "no progressing condition found", pds: 60, replicas: 4, avail: 2, now: at(49, 30, 0),
			want:       rollout.Requeue{After: 61 * time.Second},
			wantWrites: []string{"update-status"},
			wantProgressingAfter: &wantCond{Status: corev1.ConditionTrue, Reason: "FoundNewReplicaSet",
				Message: `Found new replica set "foo"`, LastUpdate: at(49, 30, 0), LastTransition: at(49, 30, 0)},
		},
		{name: "complete deployment does not need to be requeued", pds: 60, replicas: 3, avail: 3, progressing: &complete, now: at(49, 30, 0)},
		{name: "already failed deployment does not need to be requeued", pds: 60, replicas: 3, avail: 0, progressing: &failed, now: at(55, 0, 0)},
		{name: "stuck deployment - 30s", pds: 60, replicas: 3, avail: 1, progressing: &stuck, now: at(49, 30, 0), want: rollout.Requeue{After: 31 * time.Second}},
		{name: "stuck deployment - 1s", pds: 60, replicas: 3, avail: 1, progressing: &stuck, now: at(49, 59, 0), want: rollout.Requeue{After: 2 * time.Second}},
		{name: "failed deployment - less than a second => now", pds: 60, replicas: 3, avail: 1, progressing: &stuck, now: at(49, 59, 1), want: rollout.Requeue{RateLimited: true}},
		{name: "failed deployment - now", pds: 60, replicas: 3, avail: 1, progressing: &stuck, now: at(50, 0, 0), want: rollout.Requeue{RateLimited: true}},
		{
			name: "failed deployment - 1s after deadline", pds: 60, replicas: 3, avail: 1, progressing: &stuck, now: at(50, 1, 0),
			wantWrites: []string{"update-status"},
			wantProgressingAfter: &wantCond{Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded",
				Message: `ReplicaSet "foo" has timed out progressing.`, LastUpdate: at(50, 1, 0), LastTransition: at(50, 1, 0)},
		},
		{
			name: "failed deployment - 60s after deadline", pds: 60, replicas: 3, avail: 1, progressing: &stuck, now: at(51, 0, 0),
			wantWrites: []string{"update-status"},
			wantProgressingAfter: &wantCond{Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded",
				Message: `ReplicaSet "foo" has timed out progressing.`, LastUpdate: at(51, 0, 0), LastTransition: at(51, 0, 0)},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conds := []appsv1.DeploymentCondition{availableCond(c.avail >= c.replicas)}
			if c.progressing != nil {
				conds = append(conds, *c.progressing)
			}
			d := progressDeployment(c.pds, c.replicas, c.replicas, c.replicas, c.avail, conds...)
			// The status the ReplicaSets imply, so that only the
			// Progressing condition can change.
			d.Status.UnavailableReplicas = c.replicas - c.avail
			d.Status.TerminatingReplicas = i32(0)
			rs := setStatus(upRS(d, "foo", 1, c.replicas, upNew, ""), c.replicas, c.avail)
			s := snapshot(d, rs)
			s.Now = c.now
			res := mustPlan(t, s)
			got := actionStrings(res)
			if got == nil {
				got = []string{}
			}
			want := c.wantWrites
			if want == nil {
				want = []string{}
			}
			diffStrings(t, "writes", want, got)
			if res.Requeue != c.want {
				t.Errorf("Requeue = %+v, want %+v", res.Requeue, c.want)
			}
			if c.wantProgressingAfter != nil {
				checkCond(t, res.Status, appsv1.DeploymentProgressing, c.wantProgressingAfter)
			}
		})
	}
}

// TestUpstreamSyncRolloutStatus covers upstream TestSyncRolloutStatus. The
// Recreate Deployment waits for the old ReplicaSet bar (spec 0, one pod
// left) so the sync goes straight to the rollout status.
func TestUpstreamSyncRolloutStatus(t *testing.T) {
	testTime := progressTime
	now := testTime.Add(30 * time.Second)
	failedTimedOut := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded"}
	replicaSetUpdated := progressing(corev1.ConditionTrue, "ReplicaSetUpdated", testTime)

	type rsState struct{ spec, status, avail int32 }
	cases := []struct {
		name  string
		d     *appsv1.Deployment
		bar   *rsState // old ReplicaSet
		foo   *rsState // new ReplicaSet
		now   time.Time
		want  *wantCond
		steps int // syncs until the condition is reached (2 when the first records FoundNewReplicaSet)
	}{
		{
			name: "General: remove Progressing condition and do not estimate progress if deployment has no Progress Deadline",
			d:    progressDeployment(0, 3, 2, 2, 2, replicaSetUpdated),
			bar:  &rsState{0, 1, 1}, foo: &rsState{3, 2, 2},
			want: nil,
		},
		{
			name: "DeploymentProgressing: dont update lastTransitionTime if deployment already has Progressing=True",
			d:    progressDeployment(60, 3, 2, 2, 2, replicaSetUpdated),
			bar:  &rsState{0, 1, 1}, foo: &rsState{3, 2, 2},
			want: &wantCond{Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated", Message: `ReplicaSet "foo" is progressing.`,
				LastUpdate: now, LastTransition: testTime},
		},
		{
			name: "DeploymentProgressing: update everything if deployment has Progressing=False",
			d:    progressDeployment(60, 3, 2, 2, 2, failedTimedOut),
			bar:  &rsState{0, 1, 1}, foo: &rsState{3, 2, 2},
			want: &wantCond{Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated", Message: `ReplicaSet "foo" is progressing.`,
				LastUpdate: now, LastTransition: now},
		},
		{
			name: "DeploymentProgressing: create Progressing condition if it does not exist",
			d:    progressDeployment(60, 3, 2, 2, 2),
			bar:  &rsState{0, 1, 1}, foo: &rsState{3, 2, 2},
			want:  &wantCond{Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated", Message: `ReplicaSet "foo" is progressing.`},
			steps: 2,
		},
		{
			name: "DeploymentComplete: dont update lastTransitionTime if deployment already has Progressing=True",
			d:    progressDeployment(60, 3, 3, 3, 3, replicaSetUpdated),
			foo:  &rsState{3, 3, 3},
			want: &wantCond{Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable", Message: `ReplicaSet "foo" has successfully progressed.`,
				LastUpdate: now, LastTransition: testTime},
		},
		{
			name: "DeploymentComplete: update everything if deployment has Progressing=False",
			d:    progressDeployment(60, 3, 3, 3, 3, failedTimedOut),
			foo:  &rsState{3, 3, 3},
			want: &wantCond{Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable", Message: `ReplicaSet "foo" has successfully progressed.`,
				LastUpdate: now, LastTransition: now},
		},
		{
			name:  "DeploymentComplete: create Progressing condition if it does not exist",
			d:     progressDeployment(60, 3, 3, 3, 3),
			foo:   &rsState{3, 3, 3},
			want:  &wantCond{Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable", Message: `ReplicaSet "foo" has successfully progressed.`},
			steps: 2,
		},
		{
			// No new ReplicaSet yet: the old one (here "foo", whose
			// template is not the Deployment's) still has a running pod.
			name: "DeploymentComplete: defend against NPE when newRS=nil",
			d:    progressDeployment(60, 0, 3, 3, 3, replicaSetUpdated),
			bar:  &rsState{0, 0, 0},
			want: &wantCond{Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable", Message: `Deployment "progress-test" has successfully progressed.`,
				LastUpdate: now, LastTransition: testTime},
		},
		{
			name: "DeploymentTimedOut: update status if rollout exceeds Progress Deadline",
			d:    progressDeployment(60, 3, 2, 2, 2, replicaSetUpdated),
			foo:  &rsState{3, 2, 2},
			now:  testTime.Add(61 * time.Second),
			want: &wantCond{Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: `ReplicaSet "foo" has timed out progressing.`,
				LastUpdate: testTime.Add(61 * time.Second), LastTransition: testTime.Add(61 * time.Second)},
		},
		{
			name: "DeploymentTimedOut: do not update status if deployment has existing timedOut condition",
			d:    progressDeployment(60, 3, 2, 2, 2, progressing(corev1.ConditionFalse, "ProgressDeadlineExceeded", testTime)),
			foo:  &rsState{3, 2, 2},
			now:  testTime.Add(time.Hour),
			want: &wantCond{Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", LastUpdate: testTime, LastTransition: testTime},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := c.d
			c2 := &cluster{d: d, now: now}
			if !c.now.IsZero() {
				c2.now = c.now
			}
			if c.bar != nil {
				bar := setStatus(upRS(d, "bar", 1, c.bar.spec, upOld, "foo/bar:old"), c.bar.status, c.bar.avail)
				c2.rss = append(c2.rss, bar)
			}
			if c.foo != nil {
				foo := setStatus(upRS(d, "foo", 2, c.foo.spec, upNew, ""), c.foo.status, c.foo.avail)
				d.Annotations[annRevision] = "2"
				c2.rss = append(c2.rss, foo)
			}
			var pods []*corev1.Pod
			if c.foo == nil && c.bar != nil {
				pods = append(pods, ownedPod(c2.rss[0], "bar-pod", corev1.PodRunning))
			}
			steps := max(c.steps, 1)
			var res *rollout.Result
			for i := range steps {
				s := c2.snapshot()
				s.Pods = pods
				res = mustPlan(t, s)
				if i < steps-1 {
					// The first sync records FoundNewReplicaSet; its second
					// Deployment write would send a stale object.
					checkCond(t, res.Status, appsv1.DeploymentProgressing, &wantCond{Status: corev1.ConditionTrue,
						Reason: "FoundNewReplicaSet", Message: `Found new replica set "foo"`, LastUpdate: c2.now})
					if res.Stop == "" {
						t.Errorf("step %d: Stop empty, want the conflict of a second Deployment write", i)
					}
					c2.apply(t, res)
					c2.now = c2.now.Add(time.Second)
				}
			}
			if rsw := rsActions(res); len(rsw) != 0 {
				t.Errorf("unexpected replica set writes %v", rsw)
			}
			checkCond(t, res.Status, appsv1.DeploymentProgressing, c.want)
		})
	}
}

// TestUpstreamSyncRolloutStatusOneActive covers upstream's "General: do
// not estimate progress of deployment with only one active ReplicaSet":
// an only active ReplicaSet that is not the new one is scaled, not rolled
// out (a scaling event), and the status sync of a scaling event keeps the
// Progressing condition as it is.
func TestUpstreamSyncRolloutStatusOneActive(t *testing.T) {
	d := progressDeployment(60, 3, 3, 3, 3, progressing(corev1.ConditionTrue, "NewReplicaSetAvailable", progressTime))
	d.Spec.Template = withImage(d.Spec.Template, "foo/bar:next")
	bar := upRS(d, "bar", 1, 3, upOld, "foo/bar:old")
	setReplicaAnnotations(bar, 2, 2) // last scaled for a Deployment of 2
	s := snapshot(d, bar)
	s.Now = progressTime.Add(time.Hour)
	res := mustPlan(t, s)
	if w := rsActions(res); len(w) != 0 {
		t.Errorf("unexpected replica set writes %v", w)
	}
	checkCond(t, res.Status, appsv1.DeploymentProgressing, &wantCond{Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable",
		LastUpdate: progressTime, LastTransition: progressTime})
}
