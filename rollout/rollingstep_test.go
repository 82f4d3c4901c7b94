package rollout_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	"pgregory.net/rapid"
)

// RollingStep decides what Plan writes in a RollingUpdate sync: the same
// ReplicaSets, sizes and order, on random states.
func TestRollingStepIsPlan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { rollingStepAgainstPlan(t, false) })
}

// The same at int32 overflow: replicas, maxSurge and sizes near MaxInt32
// (valid input: replicas + maxSurge may exceed it), and old sizes that add
// up to 2³² (0 in int32). RollingStep then reports ErrOverflow and still
// gives upstream's writes.
func TestRollingStepIsPlanAtOverflow(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { rollingStepAgainstPlan(t, true) })
}

func rollingStepAgainstPlan(t *rapid.T, huge bool) {
	num := func(label string, small int32) int32 {
		if !huge || rapid.Bool().Draw(t, label+" small") {
			return rapid.Int32Range(0, small).Draw(t, label)
		}
		return rapid.SampledFrom([]int32{1 << 30, 1<<31 - 2, math.MaxInt32 - 1, math.MaxInt32}).Draw(t, label)
	}
	replicas := num("replicas", 12)
	surge := int(num("surge", 3))
	unavailable := rapid.IntRange(0, 3).Draw(t, "unavailable")
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	d := upDeployment(replicas, surge, unavailable)
	nOld := rapid.IntRange(0, 3).Draw(t, "old")
	inSync(d, nOld+1)
	var rss []*appsv1.ReplicaSet
	var old []rollout.ReplicaSet
	for i := range nOld {
		rs := upRS(d, fmt.Sprintf("foo-old%d", i), i+1, num("oldSize", 8),
			upOlder.Add(time.Duration(rapid.IntRange(0, 3).Draw(t, "created"))*time.Minute), fmt.Sprintf("foo/bar:v%d", i))
		setStatus(rs, rs.Status.Replicas, rapid.Int32Range(0, *rs.Spec.Replicas).Draw(t, "oldAvailable"))
		rss = append(rss, rs)
		v, _ := rollout.ReplicaSetOf(rs)
		old = append(old, v)
	}
	if huge && nOld == 3 && rapid.Bool().Draw(t, "old sizes add up to 2^32") {
		// MaxInt32 + MaxInt32 + 2 = 2³²: 0 in int32.
		for i, size := range []int32{math.MaxInt32, math.MaxInt32, 2} {
			rss[i].Spec.Replicas = i32p(size)
			setStatus(rss[i], size, min(rss[i].Status.AvailableReplicas, size))
			old[i], _ = rollout.ReplicaSetOf(rss[i])
		}
	}
	newRS := upRS(d, "foo-new", nOld+1, num("newSize", 14), upNew, "")
	setStatus(newRS, newRS.Status.Replicas, rapid.Int32Range(0, *newRS.Spec.Replicas).Draw(t, "newAvailable"))
	rss = append(rss, newRS)
	nv, _ := rollout.ReplicaSetOf(newRS)

	res, err := rollout.Plan(snapshot(d, rss...))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range res.Actions {
		if s, ok := a.(rollout.ScaleReplicaSet); ok {
			got = append(got, fmt.Sprintf("%s->%d", s.ReplicaSet.Name, s.To))
		}
	}
	p, _ := rollout.ParamsOf(d)
	// The new ReplicaSet anywhere in all: every step's Index is its
	// position there.
	at := rapid.IntRange(0, len(old)).Draw(t, "newAt")
	all := slices.Insert(slices.Clone(old), at, nv)
	var r rollout.Rolling
	err = rollout.RollingStep(&r, &p, all, at)
	if err != nil && (!huge || !errors.Is(err, rollout.ErrOverflow)) {
		t.Fatal(err)
	}
	for _, st := range append(append([]rollout.Step{r.NewRS}, r.Cleanup.Steps...), r.ScaleDown.Steps...) {
		if st.Name != "" && all[st.Index].Name != st.Name {
			t.Fatalf("step %+v: all[%d] is %s", st, st.Index, all[st.Index].Name)
		}
	}
	if r.ScaleNew && r.NewRS.Index != at {
		t.Fatalf("new replica set's step %+v, want Index %d", r.NewRS, at)
	}
	var want []string
	if r.ScaleNew {
		want = append(want, fmt.Sprintf("%s->%d", r.NewRS.Name, r.NewRS.To))
	}
	for _, st := range append(r.Cleanup.Steps, r.ScaleDown.Steps...) {
		want = append(want, fmt.Sprintf("%s->%d", st.Name, st.To))
	}
	if r.ScaleNew && r.NewRS.To < 0 {
		// The API server refuses a negative size: the plan stops before
		// that write and says so.
		if len(got) != 0 || !strings.Contains(res.Stop, fmt.Sprint(r.NewRS.To)) {
			t.Fatalf("RollingStep writes a wrapped size %v; the plan should stop before it: writes %v, Stop %q", want, got, res.Stop)
		}
		return
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("Plan scales %v, RollingStep %v (%s, %v)\n%s", got, want, r, err, res.Explain())
	}
}

// Old sizes that add up to 0 in int32 (MaxInt32 + MaxInt32 + 2): upstream's
// reconcileOldReplicaSets returns before the budget, so MaxScaledDown is 0
// and says why, and the composition of the three blocks writes nothing.
func TestMaxScaledDownOldPodsWrapToZero(t *testing.T) {
	p := rolling(3, "1", "1")
	old := []rollout.ReplicaSet{
		{Name: "a", Created: t0, Replicas: math.MaxInt32},
		{Name: "b", Created: t0.Add(time.Second), Replicas: math.MaxInt32},
		{Name: "c", Created: t0.Add(2 * time.Second), Replicas: 2},
	}
	newRS := rollout.ReplicaSet{Name: "new", Created: t0.Add(time.Hour), Replicas: 3, AvailableReplicas: 3}
	b, err := rollout.MaxScaledDown(&p, append(old, newRS), len(old))
	if !errors.Is(err, rollout.ErrOverflow) {
		t.Errorf("err = %v, want ErrOverflow", err)
	}
	if b.OldPods != 0 || b.MaxScaledDown() != 0 || !strings.Contains(b.String(), "add up to 0 in int32") {
		t.Errorf("budget %+v (%s), want OldPods 0 and MaxScaledDown 0, said", b, b)
	}
	var r rollout.Rolling
	_ = rollout.RollingStep(&r, &p, append(old, newRS), len(old))
	if len(r.Cleanup.Steps)+len(r.ScaleDown.Steps) != 0 || r.ScaleNew {
		t.Errorf("RollingStep writes %s, upstream nothing", r)
	}
}

// The budget is upstream's int32 expression, wrapped where upstream's
// wraps: sum(all) − (replicas − maxUnavailable) − (new − new available),
// or 0 when the old sizes add up to 0 in int32. Sizes near MaxInt32 make
// every sum wrap now and then.
func TestMaxScaledDownIsUpstreamsInt32(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		size := rapid.OneOf(rapid.Int32Range(0, 20), rapid.Int32Range(math.MaxInt32-20, math.MaxInt32))
		replicas := size.Draw(t, "replicas")
		p := rolling(replicas, "0", fmt.Sprint(rapid.Int32Range(0, 30).Draw(t, "maxUnavailable")))
		n := rapid.IntRange(1, 4).Draw(t, "n")
		all := make([]rollout.ReplicaSet, n)
		var sum int32
		for i := range all {
			all[i] = rollout.ReplicaSet{Name: fmt.Sprint("rs-", i), Replicas: size.Draw(t, "size")}
			sum += all[i].Replicas // wraps, as upstream's sum
		}
		newRS := rapid.IntRange(0, n-1).Draw(t, "newRS")
		nrs := &all[newRS]
		nrs.AvailableReplicas = rapid.Int32Range(0, nrs.Replicas).Draw(t, "available")
		want := int32(0)
		if sum-nrs.Replicas != 0 {
			want = sum - p.MinAvailable() - (nrs.Replicas - nrs.AvailableReplicas)
		}
		b, err := rollout.MaxScaledDown(&p, all, newRS)
		if err != nil && !errors.Is(err, rollout.ErrOverflow) {
			t.Fatal(err)
		}
		if got := b.MaxScaledDown(); got != want {
			t.Fatalf("budget %d (%+v, %v), upstream's int32 expression %d", got, b, err, want)
		}
	})
}
