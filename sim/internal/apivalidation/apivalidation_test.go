package apivalidation

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func rs(edit func(*appsv1.ReplicaSet)) *appsv1.ReplicaSet {
	r := &appsv1.ReplicaSet{Spec: appsv1.ReplicaSetSpec{
		Replicas: new(int32(1)),
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web"}}}},
	}}
	if edit != nil {
		edit(r)
	}
	return r
}

// TestReplicaSet: each rule in the API server's words.
func TestReplicaSet(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*appsv1.ReplicaSet)
		want string
	}{
		{"valid", nil, "[]"},
		{"no selector", func(r *appsv1.ReplicaSet) { r.Spec.Selector = nil }, "[spec.selector: Required value]"},
		{"empty selector", func(r *appsv1.ReplicaSet) { r.Spec.Selector = &metav1.LabelSelector{} }, "[spec.selector: Invalid value: {}: empty selector is invalid for deployment]"},
		{"not matching", func(r *appsv1.ReplicaSet) { r.Spec.Template.Labels = map[string]string{"app": "api"} },
			"[spec.template.metadata.labels: Invalid value: app=api: `selector` does not match template `labels`]"},
		{"negative", func(r *appsv1.ReplicaSet) { r.Spec.Replicas = new(int32(-1)) }, "[spec.replicas: Invalid value: -1: must be greater than or equal to 0]"},
		{"no containers", func(r *appsv1.ReplicaSet) { r.Spec.Template.Spec.Containers = nil }, "[spec.template.spec.containers: Required value]"},
		{"container names", func(r *appsv1.ReplicaSet) {
			r.Spec.Template.Spec.Containers = []corev1.Container{{Name: "a"}, {Name: "a"}, {}, {Name: "A_b"}}
		}, `[spec.template.spec.containers[1].name: Duplicate value: "a" spec.template.spec.containers[2].name: Required value spec.template.spec.containers[3].name: Invalid value: "A_b": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')]`},
	} {
		if got := fmt.Sprint(ReplicaSet(rs(tc.edit))); got != tc.want {
			t.Errorf("%s: %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestStatuses: the status rules the API server checks at a status write.
func TestStatuses(t *testing.T) {
	d := &appsv1.DeploymentStatus{Replicas: 2, UpdatedReplicas: 3, ReadyReplicas: 1, AvailableReplicas: 2, CollisionCount: new(int32(-1))}
	if got, want := fmt.Sprint(DeploymentStatus(d)), "[status.collisionCount: Invalid value: -1: must be greater than or equal to 0 status.updatedReplicas: Invalid value: 3: cannot be greater than status.replicas status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas]"; got != want {
		t.Errorf("deployment: %s\nwant %s", got, want)
	}
	r := &appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 1}
	if got, want := fmt.Sprint(ReplicaSetStatus(r)), "[status.fullyLabeledReplicas: Invalid value: 2: cannot be greater than status.replicas]"; got != want {
		t.Errorf("replica set: %s\nwant %s", got, want)
	}
	if errs := DeploymentStatus(&appsv1.DeploymentStatus{Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 2}); len(errs) > 0 {
		t.Errorf("valid status: %v", errs)
	}
}
