package rollout_test

// Hostile and extreme input: each a regression test of the hardening issue.

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A zero Now is refused; an ancient one never gives a negative requeue.
func TestNowValidated(t *testing.T) {
	d := inSync(upDeployment(2, 1, 0), 1)
	s := snapshot(d, upRS(d, "foo-new", 1, 2, upNew, ""))
	s.Now = time.Time{}
	if _, err := rollout.Plan(s); err == nil || !strings.HasPrefix(err.Error(), "now: ") {
		t.Errorf("zero Now: err = %v, want one naming now", err)
	}
	s.Now = time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC)
	s.Deployment.Status.ReadyReplicas = 0 // not complete: a progress requeue is due
	res, err := rollout.Plan(s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Requeue.After < 0 {
		t.Errorf("ancient Now: Requeue.After = %v, negative", res.Requeue.After)
	}
	p := rolling(1, "1", "0")
	p.ProgressDeadlineSeconds = i32p(600)
	c := &appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Reason: rollout.ReplicaSetUpdatedReason, LastUpdateTime: metav1.NewTime(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))}
	if r := rollout.RequeueAfter(&p, false, c, time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)); r.After <= 0 {
		t.Errorf("RequeueAfter across millennia = %+v, want a positive delay", r)
	}
}

// At collisionCount 2147483647 another collision cannot be recorded: the
// API server refuses the wrapped count. The plan says so and writes nothing.
func TestCollisionCountAtMaximum(t *testing.T) {
	d := inSync(upDeployment(1, 1, 0), 1)
	d.Spec.Template = withImage(d.Spec.Template, "foo/bar:v2")
	d.Status.CollisionCount = i32(math.MaxInt32)
	old := upRS(d, "foo-old", 1, 1, upOld, "foo/bar")
	res := mustPlan(t, snapshot(d, old))
	// Find the name Plan wants, then make it taken by someone else's template.
	var want string
	for _, a := range res.Actions {
		if c, ok := a.(rollout.CreateReplicaSet); ok {
			want = c.ReplicaSet.Name
		}
	}
	if want == "" {
		t.Fatalf("no create planned: %s", res.Explain())
	}
	clash := upRS(d, want, 0, 0, upOlder, "other/image")
	clash.OwnerReferences = nil
	clash.Labels = map[string]string{"other": "app"}
	res = mustPlan(t, snapshot(d, old, clash))
	if len(res.Actions) != 0 || !strings.Contains(res.Stop, "at its maximum 2147483647") {
		t.Errorf("actions %q, Stop %q; want no write and the maximum named", actionStrings(res), res.Stop)
	}
}

// With FixProportionOverflow a scaling event of a large Deployment gets the
// exact proportional sizes (upstream's int32 product wraps), and every
// event's direction matches its numbers.
func TestFixProportionOverflowExact(t *testing.T) {
	d := upDeployment(2000000, 0, 1)
	inSync(d, 2)
	a := setReplicaAnnotations(upRS(d, "foo-a", 1, 600000, upOld, "foo/bar:old"), 1000000, 1000000)
	b := setReplicaAnnotations(upRS(d, "foo-b", 2, 400000, upNew, ""), 1000000, 1000000)
	s := snapshot(d, a, b)
	res, err := rollout.PlanWith(s, rollout.Options{FixProportionOverflow: true})
	if err != nil {
		t.Fatal(err)
	}
	diffStrings(t, "replica set writes", []string{"scale foo-a 600000->1200000", "scale foo-b 400000->800000"}, rsActions(res))
	diffStrings(t, "events", []string{
		"Normal ScalingReplicaSet Scaled up replica set foo-a from 600000 to 1200000",
		"Normal ScalingReplicaSet Scaled up replica set foo-b from 400000 to 800000",
	}, eventStrings(res))

	// Upstream's arithmetic: the product wraps; the block says so.
	p, _ := rollout.ParamsOf(d)
	va, _ := rollout.ReplicaSetOf(a)
	vb, _ := rollout.ReplicaSetOf(b)
	if _, err := rollout.Proportions(&p, 0, []rollout.ReplicaSet{va, vb}, rollout.ProportionOptions{}); err == nil || !strings.Contains(err.Error(), "int32") {
		t.Errorf("Proportions with upstream's arithmetic: err = %v, want ErrOverflow", err)
	}
	for _, e := range eventStrings(mustPlan(t, s)) {
		// Whatever sizes upstream's wrapped numbers give, each event's
		// word matches its numbers.
		var from, to int
		var dir, name string
		if _, err := fmtSscanf(e, &dir, &name, &from, &to); err != nil {
			t.Fatalf("event %q: %v", e, err)
		}
		if dir == "up" && to < from || dir == "down" && to > from {
			t.Errorf("event %q: direction does not match its numbers", e)
		}
	}
}

// When the sizes add up beyond an int32 the explanation says so in words.
func TestOverflowNamedInNotes(t *testing.T) {
	d := upDeployment(4, 1, 1)
	inSync(d, 2)
	big := int32(1<<30 + 1)
	a := upRS(d, "foo-a", 1, big, upOld, "foo/bar:old")
	b := upRS(d, "foo-b", 0, big, upOlder, "foo/bar:older")
	newRS := setStatus(upRS(d, "foo-new", 2, 4, upNew, ""), 4, 0)
	res := mustPlan(t, snapshot(d, a, b, newRS))
	if !strings.Contains(res.Explain(), "beyond an int32") {
		t.Errorf("explanation does not name the overflow:\n%s", res.Explain())
	}
}

func fmtSscanf(e string, dir, name *string, from, to *int) (int, error) {
	return fmt.Sscanf(e, "Normal ScalingReplicaSet Scaled %s replica set %s from %d to %d", dir, name, from, to)
}
