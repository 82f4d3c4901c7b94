package rollout

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/hashing"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Explain lists every action with its reason, the events, the notes and
// the stop, in that order.
func TestExplainNginxRollout(t *testing.T) {
	d := testDeployment(3, "25%", "25%")
	s, _ := rollToEnd(t, Snapshot{Deployment: d, Now: t0})
	v1 := s.ReplicaSets[0].Name
	s.Deployment = withImage(s.Deployment, "nginx:1.16.1")
	next, r := step(t, s)
	got := r.Explain()
	for _, want := range []string{
		"1. create replica set web-",
		"with 1 replicas: no replica set has the pod template; revision 2",
		"total 3 < replicas 3 + maxSurge 1, room for 1, capped by 3 still missing",
		"2. update status of deployment web: record revision 2 and Progressing=True NewReplicaSetCreated",
		"event: Normal ScalingReplicaSet Scaled up replica set web-",
		"note: old replica sets stay: maxScaledDown 0 = all pods 4 - minAvailable 3 - unavailable new pods 1",
		"stopped: ",
		"upstream sends the deployment read at the start of the sync again after an earlier write: conflict (requeue rate-limited)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Explain lacks %q:\n%s", want, got)
		}
	}
	// Once the new pod is available, the old ReplicaSet gives one up and
	// the reason is in numbers.
	_, r = step(t, settle(next))
	if got := r.Explain(); !strings.Contains(got, "1. scale down "+v1+" from 3 to 2: available 4 > minAvailable 3, may remove 1") {
		t.Errorf("Explain:\n%s", got)
	}
	if got := (&Result{}).Explain(); got != "no writes\n" {
		t.Errorf("empty result: %q", got)
	}
	if got := (&Result{Requeue: Requeue{After: 90 * time.Second}}).Explain(); !strings.Contains(got, "requeue: after 1m30s") {
		t.Errorf("requeue: %q", got)
	}
}

func TestCreateFailed(t *testing.T) {
	d := testDeployment(3, "25%", "25%")
	r, err := CreateFailed(Snapshot{Deployment: d, Now: t0}, "web-abc", errors.New("quota exceeded"))
	if err != nil {
		t.Fatal(err)
	}
	msg := `Failed to create new replica set "web-abc": quota exceeded`
	if diff := cmp.Diff([]Event{{Type: "Warning", Reason: "ReplicaSetCreateError", Message: msg, After: 1}}, r.Events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	st, ok := r.Actions[0].(UpdateDeploymentStatus)
	if !ok || len(r.Actions) != 1 {
		t.Fatalf("want one status write:\n%s", r.Explain())
	}
	c := getCondition(st.Deployment.Status, appsv1.DeploymentProgressing)
	if c == nil || c.Status != corev1.ConditionFalse || c.Reason != FailedRSCreateReason || c.Message != msg {
		t.Errorf("Progressing = %+v", c)
	}
	if r.Stop != "quota exceeded" || !r.Requeue.RateLimited {
		t.Errorf("Stop %q, Requeue %+v", r.Stop, r.Requeue)
	}
	// Without a progress deadline only the event is recorded.
	d.Spec.ProgressDeadlineSeconds = nil
	r, _ = CreateFailed(Snapshot{Deployment: d, Now: t0}, "web-abc", errors.New("quota exceeded"))
	if len(r.Actions) != 0 || len(r.Events) != 1 {
		t.Errorf("no deadline:\n%s", r.Explain())
	}
	if _, err := CreateFailed(Snapshot{}, "x", errors.New("e")); err == nil {
		t.Error("nil deployment accepted")
	}
	if _, err := CreateFailed(Snapshot{Deployment: d}, "x", nil); err == nil {
		t.Error("nil cause accepted")
	}
}

// Apply refuses what an API server refuses, naming the action.
func TestApplyRefusals(t *testing.T) {
	d := testDeployment(3, "25%", "25%")
	rs := testRS(d, "a", 1, 3, 3, t0)
	s := Snapshot{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{rs}, Now: t0}
	stale := rs.DeepCopy()
	stale.ResourceVersion = "4"
	missing := rs.DeepCopy()
	missing.Name = "web-gone"
	cases := map[string]struct {
		a    Action
		want string
	}{
		"stale update":  {ScaleReplicaSet{ReplicaSet: stale, From: 3, To: 2}, "the object has been modified"},
		"missing":       {UpdateReplicaSet{ReplicaSet: missing}, `"web-gone" not found`},
		"exists":        {CreateReplicaSet{ReplicaSet: rs}, "already exists"},
		"uid mismatch":  {DeleteReplicaSet{Namespace: "default", Name: rs.Name, UID: "other"}, "precondition failed"},
		"stale status":  {UpdateDeploymentStatus{Deployment: func() *appsv1.Deployment { x := d.DeepCopy(); x.ResourceVersion = "1"; return x }()}, "deployments.apps"},
		"delete absent": {DeleteReplicaSet{Namespace: "default", Name: "nope"}, "not found"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := Apply(s, &Result{Actions: []Action{tc.a}})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "action 1") {
				t.Fatalf("err = %v, want one naming action 1 and %q", err, tc.want)
			}
			if len(out.ReplicaSets) != 1 || out.ReplicaSets[0] != rs {
				t.Errorf("refused action changed the snapshot")
			}
		})
	}
	// A generation bump on spec change, none on an annotation-only change.
	up := rs.DeepCopy()
	up.Annotations = map[string]string{"x": "y"}
	out, err := Apply(s, &Result{Actions: []Action{UpdateReplicaSet{ReplicaSet: up}}})
	if err != nil || out.ReplicaSets[0].Generation != rs.Generation || out.ReplicaSets[0].ResourceVersion != "6" {
		t.Errorf("annotation update: err %v, generation %d, rv %s", err, out.ReplicaSets[0].Generation, out.ReplicaSets[0].ResourceVersion)
	}
	sc := rs.DeepCopy()
	sc.Spec.Replicas = ptr(int32(1))
	out, _ = Apply(s, &Result{Actions: []Action{ScaleReplicaSet{ReplicaSet: sc, From: 3, To: 1}}})
	if out.ReplicaSets[0].Generation != rs.Generation+1 || !cmp.Equal(out.ReplicaSets[0].Status, rs.Status) {
		t.Errorf("scale: generation %d, status %+v", out.ReplicaSets[0].Generation, out.ReplicaSets[0].Status)
	}
}

// A ReplicaSet written again after being created in the same plan is sent
// without the planner's placeholder UID.
func TestWriteAfterCreateCarriesNoPlaceholderUID(t *testing.T) {
	d := testDeployment(3, "25%", "25%")
	w := &world{}
	w.init(Snapshot{Deployment: d, Now: t0}, Options{})
	rs := testRS(d, "new", 1, 1, 0, t0)
	rs.UID = ""
	created := w.createRS(rs, "test")
	if _, err := w.updateRS(created, func(c *appsv1.ReplicaSet) { c.Spec.Replicas = ptr(int32(2)) },
		func(c *appsv1.ReplicaSet) Action { return ScaleReplicaSet{ReplicaSet: c, From: 1, To: 2} }); err != nil {
		t.Fatal(err)
	}
	for i, a := range w.res.Actions {
		var uid string
		switch a := a.(type) {
		case CreateReplicaSet:
			uid = string(a.ReplicaSet.UID)
		case ScaleReplicaSet:
			uid = string(a.ReplicaSet.UID)
		}
		if uid != "" {
			t.Errorf("action %d carries UID %q", i+1, uid)
		}
	}
}

// With no usable max-replicas annotation and status.replicas 0, upstream
// divides by zero; Plan gives the ReplicaSet no share and lets the leftover
// rule place the difference (documented in the package doc).
func TestProportionWithoutBase(t *testing.T) {
	d := testDeployment(10, "0", "1")
	d.Status.Replicas = 0
	a := testRS(withImage(d, "nginx:a"), "a", 1, 4, 4, t0)
	b := testRS(withImage(d, "nginx:b"), "b", 2, 4, 4, t0.Add(time.Minute))
	for _, rs := range []*appsv1.ReplicaSet{a, b} {
		rs.Annotations["deployment.kubernetes.io/desired-replicas"] = "8"
		delete(rs.Annotations, "deployment.kubernetes.io/max-replicas")
	}
	r, err := Plan(Snapshot{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{a, b}, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, act := range r.Actions {
		if sc, ok := act.(ScaleReplicaSet); ok && sc.From != sc.To {
			got = append(got, sc.ReplicaSet.Name+" "+strconv.Itoa(int(sc.From))+"->"+strconv.Itoa(int(sc.To)))
		}
	}
	// Both shares are 0; the +2 leftover goes to the first in the growing
	// order (equal sizes: the newer one).
	if diff := cmp.Diff([]string{"web-b 4->6"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s\n%s", diff, r.Explain())
	}
}

// A ReplicaSet of another template under the name the hash gives: the
// collision count goes up, the sync ends, and the next one uses the new hash.
func TestHashCollision(t *testing.T) {
	d := testDeployment(3, "25%", "25%")
	name := "web-" + hashing.PodTemplateHash(&d.Spec.Template, nil)
	squatter := testRS(withImage(d, "other:1"), "x", 1, 0, 0, t0)
	squatter.Name, squatter.OwnerReferences = name, nil
	squatter.Labels = map[string]string{"team": "other"} // not selected, so not adopted
	s := Snapshot{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{squatter}, Now: t0}
	r, err := Plan(s)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := r.Actions[0].(UpdateDeploymentStatus)
	if len(r.Actions) != 1 || !ok || st.Deployment.Status.CollisionCount == nil || *st.Deployment.Status.CollisionCount != 1 {
		t.Fatalf("want collisionCount 1 recorded:\n%s", r.Explain())
	}
	if !strings.Contains(r.Stop, "already exists") || !r.Requeue.RateLimited {
		t.Errorf("Stop %q, Requeue %+v", r.Stop, r.Requeue)
	}
	next, err := Apply(s, r)
	if err != nil {
		t.Fatal(err)
	}
	r, _ = Plan(next)
	c, ok := r.Actions[0].(CreateReplicaSet)
	want := "web-" + hashing.PodTemplateHash(&d.Spec.Template, ptr(int32(1)))
	if !ok || c.ReplicaSet.Name != want || want == name {
		t.Fatalf("want %s created:\n%s", want, r.Explain())
	}
}

// Condition times are Now cut to whole seconds, in UTC.
func TestConditionTimesWholeSecondsUTC(t *testing.T) {
	d := testDeployment(3, "25%", "25%")
	now := time.Date(2026, 1, 2, 4, 4, 5, 987654321, time.FixedZone("CET", 3600))
	r, _ := Plan(Snapshot{Deployment: d, Now: now})
	st := r.Actions[1].(UpdateDeploymentStatus)
	c := getCondition(st.Deployment.Status, appsv1.DeploymentProgressing)
	if want := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC); c == nil || c.LastUpdateTime.Time != want || c.LastTransitionTime.Time != want {
		t.Errorf("Progressing times = %+v, want %v", c, want)
	}
}

// smallList keeps its order past its inline entries.
func TestSmallList(t *testing.T) {
	var l smallList[int]
	for i := range 11 {
		l.add(i)
	}
	if l.len() != 11 {
		t.Fatalf("len = %d, want 11", l.len())
	}
	for i := range 11 {
		if got := *l.at(i); got != i {
			t.Fatalf("at(%d) = %d", i, got)
		}
	}
	*l.at(7) = 70
	if *l.at(7) != 70 {
		t.Fatal("at does not point into the list")
	}
}
