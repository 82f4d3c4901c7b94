package rollout_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// printWriter is a [rollout.Writer] that prints each call instead of
// sending it; a real one sends it to the API server (rollout/clientgo).
type printWriter struct{}

func (printWriter) CreateReplicaSet(_ context.Context, rs *appsv1.ReplicaSet) error {
	fmt.Println("create replicaset", rs.Name, "replicas", *rs.Spec.Replicas)
	return nil
}

func (printWriter) UpdateReplicaSet(_ context.Context, rs *appsv1.ReplicaSet) error {
	fmt.Println("update replicaset", rs.Name, "replicas", *rs.Spec.Replicas)
	return nil
}

func (printWriter) PatchReplicaSet(_ context.Context, _, name string, _ []byte) error {
	fmt.Println("patch replicaset", name)
	return nil
}

func (printWriter) DeleteReplicaSet(_ context.Context, _, name string, _ types.UID) error {
	fmt.Println("delete replicaset", name)
	return nil
}

func (printWriter) UpdateDeployment(_ context.Context, d *appsv1.Deployment) error {
	fmt.Println("update deployment", d.Name)
	return nil
}

func (printWriter) UpdateDeploymentStatus(_ context.Context, d *appsv1.Deployment) error {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing {
			fmt.Println("update deployment status", d.Name, "Progressing", c.Status, c.Reason)
		}
	}
	return nil
}

func (printWriter) Event(_ *appsv1.Deployment, e rollout.Event) {
	fmt.Println("event", e.Type, e.Reason, e.Message)
}

// The first sync of a new Deployment, applied through a Writer: the
// ReplicaSet is created, the event recorded after it, the status written;
// the sync then stops where upstream's would meet a conflict, and Execute
// says so (requeue rate-limited).
func ExampleExecute() {
	replicas := int32(3)
	d := rollout.Default(&appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx", Namespace: "default", UID: "d1", Generation: 1},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "nginx"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.14.2"}}},
			},
		},
	})
	snap := rollout.Snapshot{Deployment: d, Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	res, err := rollout.Plan(snap)
	if err != nil {
		fmt.Println(err)
		return
	}
	err = rollout.Execute(context.Background(), printWriter{}, snap, res)
	fmt.Println("stopped early:", errors.Is(err, rollout.ErrStopped))
	// Output:
	// create replicaset nginx-7cc6ddf6fd replicas 3
	// event Normal ScalingReplicaSet Scaled up replica set nginx-7cc6ddf6fd from 0 to 3
	// update deployment status nginx Progressing True NewReplicaSetCreated
	// stopped early: true
}
