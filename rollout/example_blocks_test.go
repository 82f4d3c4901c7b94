package rollout_test

import (
	"fmt"
	"time"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func rolling(replicas int32, surge, unavailable string) rollout.Params {
	s, u := intstr.Parse(surge), intstr.Parse(unavailable)
	return rollout.Params{Replicas: replicas, Strategy: appsv1.RollingUpdateDeploymentStrategyType, MaxSurge: &s, MaxUnavailable: &u}
}

func i32p(v int32) *int32 { return &v }

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func ExampleParams_Limits() {
	p := rolling(10, "25%", "25%")
	surge, unavailable := p.Limits()
	fmt.Println(surge, unavailable, p.MinAvailable())
	// Output: 3 2 8
}

func ExampleNewRSNewReplicas() {
	p := rolling(10, "3", "2")
	old := rollout.ReplicaSet{Name: "web-1", Replicas: 10}
	newRS := rollout.ReplicaSet{Name: "web-2", Replicas: 2}
	s, err := rollout.NewRSNewReplicas(&p, []rollout.ReplicaSet{old, newRS}, 1)
	fmt.Println(s.Size, err)
	fmt.Println(s)
	// Output:
	// 3 <nil>
	// total 12 < replicas 10 + maxSurge 3, room for 1, capped by 8 still missing
}

func ExampleMaxScaledDown() {
	p := rolling(10, "3", "2")
	old := rollout.ReplicaSet{Name: "web-1", Replicas: 10, AvailableReplicas: 10}
	newRS := rollout.ReplicaSet{Name: "web-2", Replicas: 3}
	b, _ := rollout.MaxScaledDown(&p, []rollout.ReplicaSet{old, newRS}, 1)
	fmt.Println(b)
	// Output: maxScaledDown 2 = all pods 13 - minAvailable 8 - unavailable new pods 3
}

func ExampleBudget_MaxScaledDown() {
	p := rolling(10, "3", "2") // minAvailable 8
	all := []rollout.ReplicaSet{
		{Name: "web-1", Replicas: 10, AvailableReplicas: 10},
		{Name: "web-2", Replicas: 3},
	}
	b, _ := rollout.MaxScaledDown(&p, all, 1)
	fmt.Println(b.MaxScaledDown(), "=", b.AllPods, "-", b.MinAvailable, "-", b.NewUnavailable)
	// Only the new ReplicaSet: no old pods, no budget.
	b, _ = rollout.MaxScaledDown(&p, all[1:], 0)
	fmt.Println(b.MaxScaledDown(), b.OldPods)
	// Output:
	// 2 = 13 - 8 - 3
	// 0 0
}

func ExampleCleanupUnhealthy() {
	old := []rollout.ReplicaSet{
		{Name: "web-2", Created: t0.Add(time.Hour), Replicas: 4, AvailableReplicas: 0},
		{Name: "web-1", Created: t0, Replicas: 3, AvailableReplicas: 2},
	}
	s, _ := rollout.CleanupUnhealthy(nil, old, 2)
	fmt.Println(s)
	// Output: web-1 3->2, web-2 4->3 (2 of 2)
}

func ExampleScaleDownOld() {
	p := rolling(10, "3", "2") // minAvailable 8
	old := []rollout.ReplicaSet{
		{Name: "web-1", Created: t0, Replicas: 1, AvailableReplicas: 1},
		{Name: "web-2", Created: t0.Add(time.Hour), Replicas: 5, AvailableReplicas: 5},
	}
	newRS := rollout.ReplicaSet{Name: "web-3", Created: t0.Add(2 * time.Hour), Replicas: 4, AvailableReplicas: 4}
	s, _ := rollout.ScaleDownOld(nil, &p, old, &newRS)
	fmt.Println(s)
	// Output: web-1 1->0, web-2 5->4 (2 of 2)
}

func ExampleProportions() {
	p := rolling(15, "0", "1") // a scaling event from 10 to 15 replicas
	active := []rollout.ReplicaSet{
		{Name: "web-1", Created: t0, Replicas: 6, MaxReplicas: i32p(10)},
		{Name: "web-2", Created: t0.Add(time.Hour), Replicas: 4, MaxReplicas: i32p(10)},
	}
	props, _ := rollout.Proportions(&p, 10, active, rollout.ProportionOptions{})
	for _, s := range props.Shares {
		fmt.Println(s.Name, s.From, "->", s.To)
	}
	fmt.Println("annotations:", props.DesiredReplicas, props.MaxReplicas)
	// Output:
	// web-1 6 -> 9
	// web-2 4 -> 6
	// annotations: 15 15
}

func ExampleActiveOrLatest() {
	all := []rollout.ReplicaSet{{Name: "a"}, {Name: "b", Replicas: 3}, {Name: "c"}}
	fmt.Println(rollout.ActiveOrLatest(all, 2))
	// Output: 1
}

func ExampleIsSaturated() {
	p := rolling(3, "1", "0")
	newRS := rollout.ReplicaSet{Name: "web-2", Replicas: 3, AvailableReplicas: 3, DesiredReplicas: i32p(3)}
	fmt.Println(rollout.IsSaturated(&p, &newRS))
	// Output: true
}

func ExampleHistoryToDelete() {
	p := rolling(3, "1", "0")
	p.RevisionHistoryLimit = i32p(2)
	var old []rollout.ReplicaSet
	for rev := int64(4); rev >= 1; rev-- {
		old = append(old, rollout.ReplicaSet{Name: fmt.Sprintf("web-%d", rev), Revision: rev, Created: t0.Add(time.Duration(rev) * time.Hour)})
	}
	h, _ := rollout.HistoryToDelete(&p, old)
	for _, i := range h.Delete {
		fmt.Println(old[i].Name)
	}
	// Output:
	// web-1
	// web-2
}

func ExampleHistory_Excess() {
	p := rolling(3, "1", "0")
	p.RevisionHistoryLimit = i32p(1)
	old := []rollout.ReplicaSet{
		{Name: "web-1", Revision: 1, Created: t0},
		{Name: "web-2", Revision: 2, Created: t0.Add(time.Hour), Replicas: 1, StatusReplicas: 1},
		{Name: "web-3", Revision: 3, Created: t0.Add(2 * time.Hour)},
	}
	h, _ := rollout.HistoryToDelete(&p, old)
	// The oldest two are looked at; web-2 still has a pod, so only web-1
	// goes.
	fmt.Println(h.Excess(), len(h.Delete), old[h.Delete[0]].Name)
	// Output: 2 1 web-1
}

func ExampleCounts() {
	all := []rollout.ReplicaSet{
		{Name: "web-1", Replicas: 3, StatusReplicas: 3, ReadyReplicas: 2, AvailableReplicas: 2},
		{Name: "web-2", Replicas: 1, StatusReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1},
	}
	c, _ := rollout.Counts(all, 1)
	fmt.Printf("replicas %d updated %d available %d unavailable %d\n", c.Replicas, c.UpdatedReplicas, c.AvailableReplicas, c.UnavailableReplicas)
	// Output: replicas 4 updated 1 available 3 unavailable 1
}

func ExampleTimedOut() {
	p := rolling(3, "1", "0")
	p.ProgressDeadlineSeconds = i32p(600)
	s := &appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{{
		Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: rollout.ReplicaSetUpdatedReason,
		LastUpdateTime: metav1.NewTime(t0),
	}}}
	fmt.Println(rollout.TimedOut(&p, s, t0.Add(10*time.Minute)), rollout.TimedOut(&p, s, t0.Add(10*time.Minute+1)))
	// Output: false true
}

func ExampleRequeueAfter() {
	p := rolling(3, "1", "0")
	p.ProgressDeadlineSeconds = i32p(600)
	cond := &appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Reason: rollout.ReplicaSetUpdatedReason, LastUpdateTime: metav1.NewTime(t0)}
	fmt.Println(rollout.RequeueAfter(&p, false, cond, t0.Add(3*time.Minute)).After)
	// Output: 7m1s
}

// One RollingUpdate step composed from the blocks, as README.md shows it.
func Example_buildingBlocks() {
	surge, unavailable := intstr.FromInt32(3), intstr.FromInt32(2)
	p := rollout.Params{Replicas: 10, Strategy: appsv1.RollingUpdateDeploymentStrategyType,
		MaxSurge: &surge, MaxUnavailable: &unavailable}
	old := rollout.ReplicaSet{Name: "web-1", Replicas: 10, AvailableReplicas: 10}
	newRS := rollout.ReplicaSet{Name: "web-2", Replicas: 2}
	all := []rollout.ReplicaSet{old, newRS}

	grow, _ := rollout.NewRSNewReplicas(&p, all, 1) // all[1] is the new one
	budget, _ := rollout.MaxScaledDown(&p, all, 1)
	down, _ := rollout.ScaleDownOld(nil, &p, []rollout.ReplicaSet{old}, &newRS)
	fmt.Println(grow.Size, grow)
	fmt.Println(budget)
	fmt.Println(down)
	// Output:
	// 3 total 12 < replicas 10 + maxSurge 3, room for 1, capped by 8 still missing
	// maxScaledDown 2 = all pods 12 - minAvailable 8 - unavailable new pods 2
	// web-1 10->8 (2 of 2)
}

func ExampleComplete() {
	p := rollout.Params{Replicas: 3}
	s := &appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 3, AvailableReplicas: 3}
	fmt.Println(rollout.Complete(&p, 2, s), rollout.Complete(&p, 3, s))
	// Output: true false
}

func ExampleProgressing() {
	before := &appsv1.DeploymentStatus{Replicas: 10, UpdatedReplicas: 4, ReadyReplicas: 4, AvailableReplicas: 4}
	now := &appsv1.DeploymentStatus{Replicas: 10, UpdatedReplicas: 4, ReadyReplicas: 5, AvailableReplicas: 4}
	fmt.Println(rollout.Progressing(before, now))
	// Output: true
}

func ExampleReplicaSetOf() {
	replicas := int32(3)
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Annotations: map[string]string{
			"deployment.kubernetes.io/revision": "2", "deployment.kubernetes.io/max-replicas": "4"}},
		Spec:   appsv1.ReplicaSetSpec{Replicas: &replicas},
		Status: appsv1.ReplicaSetStatus{Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 2},
	}
	v, _ := rollout.ReplicaSetOf(rs)
	fmt.Println(v.Name, v.Replicas, v.AvailableReplicas, v.Revision, *v.MaxReplicas, v.DesiredReplicas == nil)
	// Output: web-1 3 2 2 4 true
}

func ExampleParamsOf() {
	replicas := int32(10)
	d := rollout.Default(&appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: &replicas}})
	p, _ := rollout.ParamsOf(d)
	surge, unavailable := p.Limits()
	fmt.Println(p.Strategy, surge, unavailable, *p.ProgressDeadlineSeconds, *p.RevisionHistoryLimit)
	// Output: RollingUpdate 3 2 600 10
}

func ExampleRollingStep() {
	p := rolling(10, "3", "2")
	old := []rollout.ReplicaSet{{Name: "web-1", Created: t0, Replicas: 10, AvailableReplicas: 10}}
	newRS := rollout.ReplicaSet{Name: "web-2", Created: t0.Add(time.Hour), Replicas: 3}
	var r rollout.Rolling
	_ = rollout.RollingStep(&r, &p, append(old, newRS), len(old))
	fmt.Println(r)
	// Output: new replica set: total 13 already at replicas 10 + maxSurge 3; maxScaledDown 2 = all pods 13 - minAvailable 8 - unavailable new pods 3; then: web-1 10->8 (2 of 2)
}
