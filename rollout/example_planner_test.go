package rollout_test

import (
	"fmt"
	"time"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A simulator plans sync after sync with one Planner. The first sync
// creates the ReplicaSet and records the revision; like upstream it then
// stops, as its second status write would be stale. Each Result is used
// (here: applied with [rollout.Apply], which copies what it keeps) before
// the next call of Plan overwrites it.
func ExamplePlanner() {
	replicas := int32(2)
	d := rollout.Default(&appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "d1", Generation: 1},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web:1"}}},
			},
		},
	})
	s := rollout.Snapshot{Deployment: d, Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	pl := rollout.Planner{Options: rollout.Options{Quiet: true}}
	for sync := 1; sync <= 2; sync++ {
		res, err := pl.Plan(s)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, a := range res.Actions {
			switch a := a.(type) {
			case rollout.CreateReplicaSet:
				fmt.Printf("sync %d: create %s with %d replicas\n", sync, a.ReplicaSet.Name, *a.ReplicaSet.Spec.Replicas)
			case rollout.UpdateDeploymentStatus:
				// a.Deployment is the Planner's: read it now.
				fmt.Printf("sync %d: status replicas %d, observedGeneration %d\n", sync, a.Deployment.Status.Replicas, a.Deployment.Status.ObservedGeneration)
			default:
				fmt.Printf("sync %d: %T\n", sync, a)
			}
		}
		if res.Stop != "" {
			fmt.Printf("sync %d: stopped early (requeued)\n", sync)
		}
		if s, err = rollout.Apply(s, res); err != nil {
			fmt.Println(err)
			return
		}
		s.Now = s.Now.Add(time.Second)
	}
	// Output:
	// sync 1: create web-57d9664db9 with 2 replicas
	// sync 1: status replicas 0, observedGeneration 0
	// sync 1: stopped early (requeued)
	// sync 2: status replicas 0, observedGeneration 1
}
