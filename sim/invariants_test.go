package sim

import (
	"strings"
	"testing"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestInvariantsCatch feeds the checker hand-made transitions that break
// the laws, so a checker that never fires cannot pass.
func TestInvariantsCatch(t *testing.T) {
	s := newTestSim(t)
	c := newChecker(s)
	one, zero := intstr.FromInt32(1), intstr.FromInt32(0)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{Replicas: ptrTo(int32(4)), Strategy: appsv1.DeploymentStrategy{
			Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &one, MaxUnavailable: &zero}}},
	}
	rs := func(name string, spec, avail int32) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{"deployment.kubernetes.io/desired-replicas": "4"}},
			Spec:       appsv1.ReplicaSetSpec{Replicas: ptrTo(spec)},
			Status:     appsv1.ReplicaSetStatus{AvailableReplicas: avail},
		}
	}
	// surge: 4 old + 2 new > 4 + 1
	before := &checkState{d: d, rss: []*appsv1.ReplicaSet{rs("old", 4, 4), rs("new", 1, 0)}, act: map[string]int32{"old": 4}}
	after := &checkState{d: d, rss: []*appsv1.ReplicaSet{rs("old", 4, 4), rs("new", 2, 0)}}
	c.afterAction(before, rollout.ScaleReplicaSet{ReplicaSet: rs("new", 2, 0), From: 1, To: 2}, after)
	// availability: scaling old down to 3 while new has nothing available, maxUnavailable 0
	after2 := &checkState{d: d, rss: []*appsv1.ReplicaSet{rs("old", 3, 4), rs("new", 1, 0)}}
	c.afterAction(before, rollout.ScaleReplicaSet{ReplicaSet: rs("old", 3, 4), From: 4, To: 3}, after2)
	// deleting a replica set with active pods
	c.afterAction(before, rollout.DeleteReplicaSet{Name: "old"}, before)
	var got []string
	for _, v := range c.violations {
		got = append(got, v.Invariant)
	}
	want := []string{InvSurge, InvAvailability, InvDeleteEmpty}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("violations %v, want %v", got, want)
	}
}
