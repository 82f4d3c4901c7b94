package rollout

import (
	"reflect"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"
)

// refSetCondition and refWithout are upstream's SetDeploymentCondition and
// filterOutCondition, written plainly: a new slice every time.
func refSetCondition(s *appsv1.DeploymentStatus, c appsv1.DeploymentCondition) {
	if cur := getCondition(*s, c.Type); cur != nil && cur.Status == c.Status {
		if cur.Reason == c.Reason {
			return
		}
		c.LastTransitionTime = cur.LastTransitionTime
	}
	s.Conditions = append(refWithout(s.Conditions, c.Type), c)
}

func refWithout(cs []appsv1.DeploymentCondition, t appsv1.DeploymentConditionType) []appsv1.DeploymentCondition {
	var out []appsv1.DeploymentCondition
	for _, c := range cs {
		if c.Type != t {
			out = append(out, c)
		}
	}
	return out
}

// The copy-on-write condition edits used on a computed status (and, with a
// shared slice, by setCondition) must give exactly what upstream's copying
// ones give (order and nil-ness included) for any sequence of edits,
// duplicates of a type included, and never change the slice they start
// from.
func TestOwnedConditionEditsMatchCopyingEdits(t *testing.T) {
	types := []appsv1.DeploymentConditionType{appsv1.DeploymentAvailable, appsv1.DeploymentProgressing, appsv1.DeploymentReplicaFailure}
	statuses := []corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown}
	reasons := []string{"A", "B"}
	genCond := func(t *rapid.T, label string) appsv1.DeploymentCondition {
		at := time.Unix(rapid.Int64Range(0, 5).Draw(t, label+"at"), 0)
		return newCondition(rapid.SampledFrom(types).Draw(t, label+"type"), rapid.SampledFrom(statuses).Draw(t, label+"status"),
			rapid.SampledFrom(reasons).Draw(t, label+"reason"), "m", at)
	}
	rapid.Check(t, func(t *rapid.T) {
		var start []appsv1.DeploymentCondition
		for i := range rapid.IntRange(0, 4).Draw(t, "n") {
			start = append(start, genCond(t, string(rune('a'+i))))
		}
		input := slices.Clone(start)
		copying := appsv1.DeploymentStatus{Conditions: start}
		// The in-place edits start on a shared slice (the Deployment's own),
		// which they must copy before the first change and never modify.
		deployments := slices.Clone(start)
		owned := appsv1.DeploymentStatus{Conditions: deployments}
		shared := condOwner{shared: len(deployments) > 0}
		if rapid.Bool().Draw(t, "lent") {
			// a Planner's array, sometimes with room already
			buf := make([]appsv1.DeploymentCondition, 0, rapid.IntRange(0, 6).Draw(t, "room"))
			shared.buf = &buf
		}
		for i := range rapid.IntRange(0, 6).Draw(t, "ops") {
			if rapid.Bool().Draw(t, "set") {
				c := genCond(t, "op")
				refSetCondition(&copying, c)
				setOwnedCondition(&owned, &shared, c)
			} else {
				ty := rapid.SampledFrom(types).Draw(t, "remove")
				copying.Conditions = refWithout(copying.Conditions, ty)
				removeOwnedCondition(&owned, &shared, ty)
			}
			if !reflect.DeepEqual(copying.Conditions, owned.Conditions) {
				t.Fatalf("after op %d: copying %v, in place %v", i, copying.Conditions, owned.Conditions)
			}
		}
		if !reflect.DeepEqual(start, input) {
			t.Fatalf("the copying edits changed their input")
		}
		if !reflect.DeepEqual(deployments, input) {
			t.Fatalf("the in-place edits changed the shared slice")
		}
	})
}
