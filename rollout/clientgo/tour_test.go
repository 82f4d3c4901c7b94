package clientgo_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/rollout/clientgo"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
)

// tourSync is the README's "60-second tour", verbatim between the markers
// (TestREADMETour checks that): one sync planned and applied.
func tourSync(ctx context.Context, client kubernetes.Interface, recorder record.EventRecorder,
	d *appsv1.Deployment, rss []*appsv1.ReplicaSet, pods []*corev1.Pod) error {
	// tour:begin
	snap := rollout.Snapshot{
		Deployment:  d,    // from your informer cache (defaulted by the API server)
		ReplicaSets: rss,  // every ReplicaSet in d's namespace
		Pods:        pods, // read only by the Recreate strategy
		Now:         time.Now(),
	}
	res, err := rollout.Plan(snap)
	if err != nil {
		return err // invalid input; the error names the field
	}
	fmt.Print(res.Explain())
	w := clientgo.NewWriter(client, recorder) // github.com/deploymath/deploymath/rollout/clientgo
	err = rollout.Execute(ctx, w, snap, res)  // writes in order, events, stops at the first error
	// err != nil: requeue rate-limited, as upstream does; requeue after res.Requeue.After
	// tour:end
	return err
}

// The tour on a new Deployment: its first sync creates the ReplicaSet.
func Example_tour() {
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
	client := fake.NewClientset(d)
	recorder := record.NewFakeRecorder(10)
	err := tourSync(context.Background(), client, recorder, d, nil, nil)
	fmt.Println("error:", err)
	rss, _ := client.AppsV1().ReplicaSets("default").List(context.Background(), metav1.ListOptions{})
	for _, rs := range rss.Items {
		fmt.Println("replica set", rs.Name, *rs.Spec.Replicas)
	}
	fmt.Println(<-recorder.Events)
	// Output:
	// 1. create replica set nginx-7cc6ddf6fd with 3 replicas: no replica set has the pod template; revision 1, hash 7cc6ddf6fd; total 0 < replicas 3 + maxSurge 1, room for 4, capped by 3 still missing
	// 2. update status of deployment nginx: record revision 1 and Progressing=True NewReplicaSetCreated
	// event: Normal ScalingReplicaSet Scaled up replica set nginx-7cc6ddf6fd from 0 to 3
	// stopped: unavailable 0->3, observedGeneration 0->1, terminating nil->0, Available=False MinimumReplicasUnavailable: upstream sends the deployment read at the start of the sync again after an earlier write: conflict (requeue rate-limited)
	// error: sync stopped early: unavailable 0->3, observedGeneration 0->1, terminating nil->0, Available=False MinimumReplicasUnavailable: upstream sends the deployment read at the start of the sync again after an earlier write: conflict
	// replica set nginx-7cc6ddf6fd 3
	// Normal ScalingReplicaSet Scaled up replica set nginx-7cc6ddf6fd from 0 to 3
}

// TestREADMETour: the README's tour is tourSync's body, line for line, so
// it compiles as shown.
func TestREADMETour(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("tour_test.go")
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	i := strings.Index(section, "## A 60-second tour")
	if i < 0 {
		t.Fatal("README has no tour")
	}
	section = section[i:]
	_, section, ok := strings.Cut(section, "```go\n")
	section, _, ok2 := strings.Cut(section, "```")
	if !ok || !ok2 {
		t.Fatal("README's tour has no go block")
	}
	tour := strings.Split(strings.TrimSpace(section), "\n")

	_, body, ok := strings.Cut(string(src), "// tour:begin\n")
	body, _, ok2 = strings.Cut(body, "\t// tour:end")
	if !ok || !ok2 {
		t.Fatal("tour_test.go: no tour:begin and tour:end markers")
	}
	var got []string
	for _, l := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		got = append(got, strings.TrimPrefix(l, "\t"))
	}
	if strings.Join(tour, "\n") != strings.Join(got, "\n") {
		t.Errorf("README tour and tourSync differ:\nREADME:\n%s\n\ntourSync:\n%s", strings.Join(tour, "\n"), strings.Join(got, "\n"))
	}
}
