package rollout

import (
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// testDeployment is a defaulted nginx Deployment with the given size and
// RollingUpdate fenceposts (as strings: "25%" or "1").
func testDeployment(replicas int32, surge, unavailable string) *appsv1.Deployment {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "d-uid", Generation: 1, ResourceVersion: "10"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.14.2"}}},
			},
			Strategy: appsv1.DeploymentStrategy{
				Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxSurge:       ptr(intstr.Parse(surge)),
					MaxUnavailable: ptr(intstr.Parse(unavailable)),
				},
			},
		},
	}
	return Default(d)
}

// withImage returns a copy of d with a new image and generation.
func withImage(d *appsv1.Deployment, image string) *appsv1.Deployment {
	d = d.DeepCopy()
	d.Spec.Template.Spec.Containers[0].Image = image
	d.Generation++
	return d
}

// settle plays a perfect ReplicaSet controller: every ReplicaSet runs
// exactly spec.replicas pods, all ready and available.
func settle(s Snapshot) Snapshot {
	out := s
	out.ReplicaSets = nil
	for _, rs := range s.ReplicaSets {
		rs = rs.DeepCopy()
		n := *rs.Spec.Replicas
		rs.Status = appsv1.ReplicaSetStatus{Replicas: n, FullyLabeledReplicas: n, ReadyReplicas: n, AvailableReplicas: n,
			ObservedGeneration: rs.Generation, TerminatingReplicas: ptr(int32(0))}
		out.ReplicaSets = append(out.ReplicaSets, rs)
	}
	return out
}

// step plans and applies once; it fails the test on a planning error.
func step(t *testing.T, s Snapshot) (Snapshot, *Result) {
	t.Helper()
	r, err := Plan(s)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	next, err := Apply(s, r)
	if err != nil && r.Stop == "" {
		t.Fatalf("Apply: %v\n%s", err, r.Explain())
	}
	next.Now = next.Now.Add(time.Second)
	return next, r
}

// sizes renders "name=spec" for every ReplicaSet, oldest first.
func sizes(s Snapshot) string {
	out := ""
	for _, rs := range sortedByCreation(s.ReplicaSets) {
		out += fmt.Sprintf("%s=%d ", rs.Name, *rs.Spec.Replicas)
	}
	return out
}

func testRS(d *appsv1.Deployment, name string, rev int, replicas, available int32, created time.Time) *appsv1.ReplicaSet {
	tmpl := d.Spec.Template.DeepCopy()
	tmpl.Labels["pod-template-hash"] = name
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: d.Name + "-" + name, Namespace: d.Namespace, UID: types.UID("uid-" + name), ResourceVersion: "5", Generation: 1,
			CreationTimestamp: metav1.NewTime(created),
			Labels:            tmpl.Labels,
			Annotations:       map[string]string{"deployment.kubernetes.io/revision": fmt.Sprint(rev)},
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(d, controllerKind)},
		},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr(replicas), Selector: &metav1.LabelSelector{MatchLabels: tmpl.Labels}, Template: *tmpl},
		Status: appsv1.ReplicaSetStatus{Replicas: replicas, ReadyReplicas: available, AvailableReplicas: available, ObservedGeneration: 1,
			TerminatingReplicas: ptr(int32(0))},
	}
}

func intstrString(s string) intstr.IntOrString { return intstr.FromString(s) }
