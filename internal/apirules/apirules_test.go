package apirules

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReplicaSetGenerationBumps answers like the reflective comparison, through
// its fast path (shared selector and template) and outside it.
func TestReplicaSetGenerationBumps(t *testing.T) {
	three, four := int32(3), int32(4)
	base := appsv1.ReplicaSetSpec{Replicas: &three, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}}
	same := base
	sameValue := base
	sameValue.Replicas = &three
	resized := base
	resized.Replicas = &four
	minReady := base
	minReady.MinReadySeconds = 5
	copied := *base.DeepCopy()
	edited := *base.DeepCopy()
	edited.Template.Spec.Containers[0].Image = "j"
	for name, tc := range map[string]struct {
		b    appsv1.ReplicaSetSpec
		want bool
	}{
		"same": {same, false}, "same value": {sameValue, false}, "resized": {resized, true}, "minReadySeconds": {minReady, true},
		"deep copy": {copied, false}, "other image": {edited, true},
	} {
		got := ReplicaSetGenerationBumps(&base, &tc.b)
		if semantic := !equality.Semantic.DeepEqual(&base, &tc.b); got != tc.want || got != semantic {
			t.Errorf("%s: bumps = %v, want %v (semantic comparison: %v)", name, got, tc.want, semantic)
		}
	}
}

// The apps registry bumps a Deployment's generation on a change of the
// spec or of the annotations, not of labels or status.
func TestDeploymentGenerationBumps(t *testing.T) {
	three, four := int32(3), int32(4)
	base := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"a": "1"}, Labels: map[string]string{"l": "1"}},
		Spec: appsv1.DeploymentSpec{Replicas: &three}}
	for name, tc := range map[string]struct {
		edit func(d *appsv1.Deployment)
		want bool
	}{
		"nothing":    {func(*appsv1.Deployment) {}, false},
		"replicas":   {func(d *appsv1.Deployment) { d.Spec.Replicas = &four }, true},
		"annotation": {func(d *appsv1.Deployment) { d.Annotations["a"] = "2" }, true},
		"label":      {func(d *appsv1.Deployment) { d.Labels["l"] = "2" }, false},
		"status":     {func(d *appsv1.Deployment) { d.Status.Replicas = 9 }, false},
	} {
		d := base.DeepCopy()
		tc.edit(d)
		if got := DeploymentGenerationBumps(base, d); got != tc.want {
			t.Errorf("%s: bumps = %v, want %v", name, got, tc.want)
		}
	}
}

func TestConflictMessage(t *testing.T) {
	got := ConflictMessage("deployments.apps", "web")
	if !strings.HasPrefix(got, `Operation cannot be fulfilled on deployments.apps "web": the object has been modified`) {
		t.Errorf("ConflictMessage = %q", got)
	}
}
