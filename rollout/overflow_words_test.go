package rollout_test

// Wherever a number wrapped around by upstream's int32 arithmetic appears
// in an explanation, words say so; with FixProportionOverflow no wrapped
// number is written.

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
)

// The case: spec.replicas 2147483647 and a scaling event. Upstream
// gets allowed = replicas + maxSurge wrapped to a negative number.
func TestProportionalOverflowSaidInWords(t *testing.T) {
	d := upDeployment(math.MaxInt32, 1<<30, 0)
	inSync(d, 2)
	a := setReplicaAnnotations(upRS(d, "foo-a", 1, 6, upOld, "foo/bar:old"), 10, 11)
	b := setReplicaAnnotations(upRS(d, "foo-b", 2, 4, upNew, ""), 10, 11)
	res, err := rollout.Plan(snapshot(d, a, b))
	if err != nil {
		t.Fatal(err)
	}
	ex := res.Explain()
	for _, want := range []string{
		"allowed -1073741825 = replicas 2147483647 + maxSurge 1073741824 = 3221225471 wrapped around in int32",
		"these are upstream's wrapped numbers, not counts",
		"the product wrapped around",
	} {
		if !strings.Contains(ex, want) {
			t.Errorf("Explain lacks %q:\n%s", want, ex)
		}
	}
	// Upstream writes its wrapped sum into max-replicas; the plan does too.
	if got := maxReplicasWritten(res); !slicesAll(got, "-1073741825") {
		t.Errorf("upstream's max-replicas annotation: %v, want -1073741825 (upstream's wrapped sum)", got)
	}

	// The block says the same.
	p, _ := rollout.ParamsOf(d)
	va, _ := rollout.ReplicaSetOf(a)
	vb, _ := rollout.ReplicaSetOf(b)
	props, err := rollout.Proportions(&p, 10, []rollout.ReplicaSet{va, vb}, rollout.ProportionOptions{})
	if !errors.Is(err, rollout.ErrOverflow) || !props.Overflow || !strings.Contains(props.String(), "wrapped around in int32") {
		t.Errorf("Proportions: err %v, Overflow %v, %s", err, props.Overflow, props)
	}
}

// With FixProportionOverflow no wrapped number is written: max-replicas is
// held to 2147483647, on the scaling event's writes and on a created new
// ReplicaSet.
func TestFixProportionOverflowWritesNoWrappedNumber(t *testing.T) {
	d := upDeployment(math.MaxInt32, 1<<30, 0)
	inSync(d, 2)
	a := setReplicaAnnotations(upRS(d, "foo-a", 1, 6, upOld, "foo/bar:old"), 10, 11)
	b := setReplicaAnnotations(upRS(d, "foo-b", 2, 4, upNew, ""), 10, 11)
	fix := rollout.Options{FixProportionOverflow: true}
	res, err := rollout.PlanWith(snapshot(d, a, b), fix)
	if err != nil {
		t.Fatal(err)
	}
	if got := maxReplicasWritten(res); len(got) == 0 || !slicesAll(got, "2147483647") {
		t.Errorf("max-replicas written: %v, want 2147483647 on each write", got)
	}
	if strings.Contains(res.Explain(), "wrapped") {
		t.Errorf("a wide computation says it wrapped:\n%s", res.Explain())
	}
	// Applied, the next sync finds the annotations fresh and writes nothing
	// more about them.
	after, err := rollout.Apply(snapshot(d, a, b), res)
	if err != nil {
		t.Fatal(err)
	}
	after.Deployment.Status = res.Status
	res2, err := rollout.PlanWith(after, fix)
	if err != nil {
		t.Fatal(err)
	}
	for _, act := range res2.Actions {
		if _, ok := act.(rollout.ScaleReplicaSet); ok {
			t.Errorf("the next sync rewrites a ReplicaSet: %s", act.Explain())
		}
	}

	// A new ReplicaSet's annotations.
	d2 := upDeployment(math.MaxInt32, 1<<30, 0)
	d2.Spec.Template = withImage(d2.Spec.Template, "foo/bar:v2")
	old := upRS(d2, "foo-old", 1, 1<<30, upOld, "foo/bar:old")
	res, err = rollout.PlanWith(snapshot(inSync(d2, 1), old), fix)
	if err != nil {
		t.Fatal(err)
	}
	created := 0
	for _, act := range res.Actions {
		if c, ok := act.(rollout.CreateReplicaSet); ok {
			created++
			if v := c.ReplicaSet.Annotations["deployment.kubernetes.io/max-replicas"]; v != "2147483647" {
				t.Errorf("created with max-replicas %q, want 2147483647", v)
			}
		}
	}
	if created != 1 {
		t.Fatalf("%d creates:\n%s", created, res.Explain())
	}
}

// A new ReplicaSet whose size wraps around (old sizes adding up beyond
// int32) is refused by the API server; the plan quotes the refusal as
// upstream records it, and says where the number comes from.
func TestWrappedNewReplicaSetSizeSaidInWords(t *testing.T) {
	d := upDeployment(10, 3, 0)
	d.Spec.Template = withImage(d.Spec.Template, "foo/bar:v2")
	old := upRS(d, "foo-old", 1, math.MaxInt32, upOld, "foo/bar:old")
	older := upRS(d, "foo-older", 1, 1, upOlder, "foo/bar:older")
	res, err := rollout.Plan(snapshot(inSync(d, 1), old, older))
	if err != nil {
		t.Fatal(err)
	}
	ex := res.Explain()
	for _, want := range []string{
		"spec.replicas: Invalid value: -2147483635: must be greater than or equal to 0", // the refusal, verbatim in the event
		"the new replica set's size -2147483635 is upstream's int32 arithmetic wrapped around",
		"int32 overflow",
	} {
		if !strings.Contains(ex, want) {
			t.Errorf("Explain lacks %q:\n%s", want, ex)
		}
	}
	if !strings.Contains(res.Stop, "int32 overflow") {
		t.Errorf("Stop %q does not say the size wrapped around", res.Stop)
	}

	// An existing new ReplicaSet scaled to a wrapped size.
	d = upDeployment(10, 3, 0)
	inSync(d, 3)
	n := upRS(d, "foo-new", 3, 1, upNew, "")
	res, err = rollout.Plan(snapshot(d, upRS(d, "foo-old", 1, math.MaxInt32, upOld, "foo/bar:old"), upRS(d, "foo-older", 2, 1, upOlder, "foo/bar:older"), n))
	if err != nil {
		t.Fatal(err)
	}
	if ex := res.Explain(); !strings.Contains(ex, "is upstream's int32 arithmetic wrapped around") || !strings.Contains(res.Stop, "int32 overflow") {
		t.Errorf("a wrapped scale of the new replica set, unexplained:\n%s", ex)
	}

	// The block says the same.
	p, _ := rollout.ParamsOf(d)
	s, err := rollout.NewRSNewReplicas(&p, []rollout.ReplicaSet{{Replicas: math.MaxInt32}, {Replicas: 1}, {Replicas: 1}}, 2)
	if !errors.Is(err, rollout.ErrOverflow) || !s.Overflow || !strings.Contains(s.String(), "int32 overflow") {
		t.Errorf("NewRSNewReplicas: err %v, %+v: %s", err, s, s)
	}
	surge := rolling(math.MaxInt32, strconv.Itoa(1<<30), "0")
	s, _ = rollout.NewRSNewReplicas(&surge, []rollout.ReplicaSet{{Replicas: 1}}, 0)
	if !strings.Contains(s.String(), "= 3221225471, wrapped around to -1073741825 in int32") {
		t.Errorf("a wrapped replicas + maxSurge, unexplained: %s", s)
	}
}

func maxReplicasWritten(res *rollout.Result) []string {
	var out []string
	for _, a := range res.Actions {
		var rs *appsv1.ReplicaSet
		switch a := a.(type) {
		case rollout.ScaleReplicaSet:
			rs = a.ReplicaSet
		case rollout.CreateReplicaSet:
			rs = a.ReplicaSet
		case rollout.UpdateReplicaSet:
			rs = a.ReplicaSet
		default:
			continue
		}
		out = append(out, rs.Annotations["deployment.kubernetes.io/max-replicas"])
	}
	return out
}

func slicesAll(s []string, v string) bool {
	for _, x := range s {
		if x != v {
			return false
		}
	}
	return len(s) > 0
}
