package revision

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func i32(i int32) *int32 { return &i }

// rsWith builds a ReplicaSet named name with the given revision annotation
// ("" = none), created at t0+age seconds.
func rsWith(name, rev string, age int) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{
		Name:              name,
		Namespace:         "ns",
		UID:               types.UID("uid-" + name),
		CreationTimestamp: metav1.NewTime(t0.Add(time.Duration(age) * time.Second)),
	}}
	if rev != "" {
		rs.Annotations = map[string]string{RevisionAnnotation: rev}
	}
	return rs
}

func deploymentWith(annotations map[string]string, replicas int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "d-uid", Annotations: annotations},
		Spec:       appsv1.DeploymentSpec{Replicas: &replicas},
	}
}

func template(image string, hash string) corev1.PodTemplateSpec {
	labels := map[string]string{"app": "web"}
	if hash != "" {
		labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	}
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: image}}},
	}
}

// ownedRS builds a ReplicaSet controlled by d, with the given revision,
// image and change cause.
func ownedRS(d *appsv1.Deployment, name, rev, image, cause string, age int) *appsv1.ReplicaSet {
	rs := rsWith(name, rev, age)
	if cause != "" {
		if rs.Annotations == nil {
			rs.Annotations = map[string]string{}
		}
		rs.Annotations[ChangeCauseAnnotation] = cause
	}
	rs.Labels = map[string]string{"app": "web", appsv1.DefaultDeploymentUniqueLabelKey: "h-" + name}
	rs.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))}
	rs.Spec.Template = template(image, "h-"+name)
	return rs
}
