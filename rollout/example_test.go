package rollout_test

import (
	"fmt"
	"time"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A Deployment of 3 nginx pods whose ReplicaSet runs the old image: the
// first sync of the rollout creates the new ReplicaSet with one surge pod.
func ExamplePlan() {
	replicas := int32(3)
	d := rollout.Default(&appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx", Namespace: "default", UID: "d1", Generation: 2,
			Annotations: map[string]string{"deployment.kubernetes.io/revision": "1"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "nginx"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.16.1"}}},
			},
		},
	})
	old := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx-old", Namespace: "default", UID: "rs1",
			Labels:          map[string]string{"app": "nginx", "pod-template-hash": "old"},
			Annotations:     map[string]string{"deployment.kubernetes.io/revision": "1", "deployment.kubernetes.io/desired-replicas": "3"},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))}},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx", "pod-template-hash": "old"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "nginx", "pod-template-hash": "old"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.14.2"}}},
			},
		},
		Status: appsv1.ReplicaSetStatus{Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3},
	}
	res, err := rollout.Plan(rollout.Snapshot{
		Deployment:  d,
		ReplicaSets: []*appsv1.ReplicaSet{old},
		Now:         time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range res.Actions {
		if c, ok := a.(rollout.CreateReplicaSet); ok {
			fmt.Println("create", c.ReplicaSet.Name, "replicas", *c.ReplicaSet.Spec.Replicas)
		}
	}
	for _, e := range res.Events {
		fmt.Println(e)
	}
	fmt.Println(res.Notes[0])
	// Output:
	// create nginx-5f76cbf49 replicas 1
	// Normal ScalingReplicaSet Scaled up replica set nginx-5f76cbf49 from 0 to 1
	// old replica sets stay: maxScaledDown 0 = all pods 4 - minAvailable 3 - unavailable new pods 1
}
