package rollout

import (
	"reflect"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

func genStatus(t *rapid.T, label string) appsv1.DeploymentStatus {
	small := func(name string) int32 { return int32(rapid.IntRange(0, 2).Draw(t, label+name)) }
	ptrOrNil := func(name string) *int32 {
		if rapid.Bool().Draw(t, label+name+"Nil") {
			return nil
		}
		v := small(name)
		return &v
	}
	s := appsv1.DeploymentStatus{
		ObservedGeneration: int64(small("gen")), Replicas: small("replicas"), UpdatedReplicas: small("updated"),
		ReadyReplicas: small("ready"), AvailableReplicas: small("available"), UnavailableReplicas: small("unavailable"),
		TerminatingReplicas: ptrOrNil("terminating"), CollisionCount: ptrOrNil("collisions"),
	}
	switch rapid.IntRange(0, 2).Draw(t, label+"conditions") {
	case 1:
		s.Conditions = []appsv1.DeploymentCondition{}
	case 2:
		for i := rapid.IntRange(1, 2).Draw(t, label+"n"); i > 0; i-- {
			ts := metav1.NewTime(t0.Add(time.Duration(rapid.IntRange(0, 1).Draw(t, label+"t")) * time.Second))
			if rapid.Bool().Draw(t, label+"local") {
				ts = metav1.NewTime(ts.Local())
			}
			s.Conditions = append(s.Conditions, appsv1.DeploymentCondition{
				Type:   rapid.SampledFrom([]appsv1.DeploymentConditionType{"Available", "Progressing"}).Draw(t, label+"type"),
				Status: rapid.SampledFrom([]corev1.ConditionStatus{"True", "False"}).Draw(t, label+"status"),
				Reason: rapid.SampledFrom([]string{"A", "B"}).Draw(t, label+"reason"), Message: rapid.SampledFrom([]string{"", "m"}).Draw(t, label+"message"),
				LastUpdateTime: ts, LastTransitionTime: ts,
			})
		}
	}
	return s
}

// statusEqual is reflect.DeepEqual, which upstream uses to decide whether
// to write the status.
func TestPropertyStatusEqualIsDeepEqual(t *testing.T) {
	if n := reflect.TypeOf(appsv1.DeploymentStatus{}).NumField(); n != 9 {
		t.Fatalf("DeploymentStatus has %d fields; statusEqual compares 9", n)
	}
	if n := reflect.TypeOf(appsv1.DeploymentCondition{}).NumField(); n != 6 {
		t.Fatalf("DeploymentCondition has %d fields; statusEqual compares 6", n)
	}
	rapid.Check(t, func(t *rapid.T) {
		a := genStatus(t, "a")
		b := a
		if rapid.Bool().Draw(t, "independent") {
			b = genStatus(t, "b")
		} else {
			b = *a.DeepCopy()
		}
		if got, want := statusEqual(&a, &b), reflect.DeepEqual(a, b); got != want {
			t.Fatalf("statusEqual = %v, reflect.DeepEqual = %v\n%+v\n%+v", got, want, a, b)
		}
	})
}
