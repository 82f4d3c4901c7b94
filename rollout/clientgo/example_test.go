package clientgo_test

import (
	"context"
	"fmt"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/rollout/clientgo"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
)

// The nginx Deployment of the Kubernetes docs, scaled from 3 to 5 replicas
// (`kubectl scale deployment/nginx --replicas=5`): one sync scales its
// ReplicaSet and writes the status.
func ExampleWriter() {
	replicas, zero := int32(5), int32(0)
	then := metav1.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // when the last rollout finished
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
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3,
			AvailableReplicas: 3, TerminatingReplicas: &zero, Conditions: []appsv1.DeploymentCondition{
				{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable",
					Message: "Deployment has minimum availability.", LastUpdateTime: then, LastTransitionTime: then},
				{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable",
					Message: `ReplicaSet "nginx-6df7dc6747" has successfully progressed.`, LastUpdateTime: then, LastTransitionTime: then},
			}},
	})
	running := int32(3)
	labels := map[string]string{"app": "nginx", "pod-template-hash": "6df7dc6747"}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx-6df7dc6747", Namespace: "default", UID: "rs1", Labels: labels,
			Annotations:     map[string]string{"deployment.kubernetes.io/revision": "1"},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))}},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &running,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       d.Spec.Template.Spec,
			},
		},
		Status: appsv1.ReplicaSetStatus{Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3, TerminatingReplicas: &zero},
	}

	// A cluster: here client-go's fake clientset and recorder.
	client := fake.NewClientset(d, rs)
	recorder := record.NewFakeRecorder(10)

	// One sync: the snapshot (normally from informer caches), the plan,
	// its writes.
	ctx := context.Background()
	snap := rollout.Snapshot{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{rs}, Now: time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)}
	res, err := rollout.Plan(snap)
	if err != nil {
		fmt.Println(err)
		return
	}
	err = rollout.Execute(ctx, clientgo.NewWriter(client, recorder), snap, res)
	fmt.Println("Execute:", err)

	list, err := client.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, rs := range list.Items {
		fmt.Println(rs.Name, "replicas", *rs.Spec.Replicas)
	}
	close(recorder.Events)
	for e := range recorder.Events {
		fmt.Println(e)
	}
	// Output:
	// Execute: <nil>
	// nginx-6df7dc6747 replicas 5
	// Normal ScalingReplicaSet Scaled up replica set nginx-6df7dc6747 from 3 to 5
}
