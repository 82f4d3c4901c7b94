package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/deploymath/deploymath/sim"
)

const nginxScenario = "../../testdata/scenarios/nginx-rolling-update.yaml"

// TestNginxRollingUpdate runs the documentation's nginx Deployment through
// the real control plane and through the simulator, from the same scenario
// file, and compares what they did.
func TestNginxRollingUpdate(t *testing.T) {
	data, err := os.ReadFile(nginxScenario)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := sim.ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	d, image := nginxInputs(t, sc)

	// The simulator first: it takes milliseconds and needs no cluster.
	res, err := sim.Run(sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	simRec, err := simRecord(res, d.Name)
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	c := startCluster(t)
	k := &kubelet{
		Nodes:       nodeNames(sc),
		Startup:     time.Duration(sc.Cluster.Startup.Min),
		Readiness:   time.Duration(sc.Cluster.Readiness.Min),
		Termination: time.Duration(sc.Cluster.Termination.Min),
	}
	startKubelet(t, c, k)
	t.Cleanup(func() { k.check(t) })
	rsw := watchReplicaSets(t, c, d.Namespace)
	t.Logf("control plane up after %v", time.Since(start).Round(time.Millisecond))

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rollStart := time.Now()
	if _, err := c.client.AppsV1().Deployments(d.Namespace).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the Deployment: %v", err)
	}
	waitConverged(ctx, t, c, d)
	t.Logf("first rollout converged after %v", time.Since(rollStart).Round(time.Millisecond))

	rollStart = time.Now()
	patch := fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":%q,"image":%q}]}}}}`, image.Container, image.Image)
	if _, err := c.client.AppsV1().Deployments(d.Namespace).Patch(ctx, d.Name, "application/strategic-merge-patch+json", []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("setting the image: %v", err)
	}
	final := waitConverged(ctx, t, c, d)
	t.Logf("second rollout converged after %v", time.Since(rollStart).Round(time.Millisecond))

	events := waitEventsSettled(ctx, t, c, d)
	realRec := rolloutRecord{
		Revision:    final.Annotations[revisionAnnotation],
		ReplicaSets: rsw.records(),
		Events:      events,
		Final:       statusOf(final),
	}

	cmp := compareRecords(simRec, realRec)
	t.Logf("simulator (testdata/scenarios/nginx-rolling-update.yaml) against the real v1.37.1 control plane:\n%s", cmp.Table)
	for _, diff := range cmp.Diffs {
		t.Error(diff)
	}
}

// nginxInputs takes the Deployment and the setImage step from the
// scenario, so that both sides run the same manifest and the same edit.
func nginxInputs(t *testing.T, sc *sim.Scenario) (*appsv1.Deployment, *sim.SetImage) {
	t.Helper()
	if len(sc.Objects) != 1 {
		t.Fatalf("scenario %s: want one object, the Deployment; have %d", sc.Name, len(sc.Objects))
	}
	d := &appsv1.Deployment{}
	if err := json.Unmarshal(sc.Objects[0], d); err != nil {
		t.Fatalf("scenario %s: %v", sc.Name, err)
	}
	if d.Namespace == "" {
		d.Namespace = metav1.NamespaceDefault
	}
	var image *sim.SetImage
	for _, st := range sc.Steps {
		switch {
		case st.SetImage != nil && image == nil:
			image = st.SetImage
		case st.StopWhenConverged:
		default:
			t.Fatalf("scenario %s: this test drives one setImage step; found another step at %v", sc.Name, time.Duration(st.At))
		}
	}
	if image == nil {
		t.Fatalf("scenario %s has no setImage step", sc.Name)
	}
	return d, image
}

func nodeNames(sc *sim.Scenario) []string {
	var out []string
	for _, n := range sc.Cluster.Nodes {
		out = append(out, n.Name)
	}
	if len(out) == 0 {
		out = []string{"node-1"}
	}
	return out
}

// waitConverged waits, polling every 100ms and at most two minutes, until
// the rollout is complete as kubectl rollout status reports it (status
// observed, every replica updated and available, no old replica left) and,
// as the simulator's stopWhenConverged also requires, no pod of the
// Deployment is terminating and every ReplicaSet's status is observed and
// settled. It returns the Deployment as it was then.
func waitConverged(ctx context.Context, t *testing.T, c *cluster, want *appsv1.Deployment) *appsv1.Deployment {
	t.Helper()
	var d *appsv1.Deployment
	var why string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		d, err = c.client.AppsV1().Deployments(want.Namespace).Get(ctx, want.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		why = convergedWhy(ctx, c, d)
		return why == "", nil
	})
	if err != nil {
		t.Fatalf("Deployment %s did not converge in 2m (%v); last state: %s", want.Name, err, why)
	}
	return d
}

// convergedWhy says why the Deployment has not converged ("" when it has).
func convergedWhy(ctx context.Context, c *cluster, d *appsv1.Deployment) string {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	st := d.Status
	if st.ObservedGeneration < d.Generation {
		return fmt.Sprintf("generation %d observed %d", d.Generation, st.ObservedGeneration)
	}
	if st.UpdatedReplicas != want || st.Replicas != want || st.AvailableReplicas != want {
		return fmt.Sprintf("replicas %d updated %d available %d, want %d", st.Replicas, st.UpdatedReplicas, st.AvailableReplicas, want)
	}
	if st.TerminatingReplicas != nil && *st.TerminatingReplicas != 0 {
		return fmt.Sprintf("%d terminating replicas", *st.TerminatingReplicas)
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return err.Error()
	}
	pods, err := c.client.CoreV1().Pods(d.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return err.Error()
	}
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil {
			return "pod " + p.Name + " terminating"
		}
	}
	rss, err := c.client.AppsV1().ReplicaSets(d.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	var busy []string
	for _, rs := range rss.Items {
		n := int32(1)
		if rs.Spec.Replicas != nil {
			n = *rs.Spec.Replicas
		}
		if rs.Status.ObservedGeneration < rs.Generation || rs.Status.Replicas != n {
			busy = append(busy, rs.Name)
		}
	}
	if len(busy) > 0 {
		return "ReplicaSets not settled: " + strings.Join(busy, ", ")
	}
	return ""
}

// waitEventsSettled reads the Deployment's events until two reads a second
// apart agree (events are written asynchronously by the controller's
// broadcaster), at most 15 seconds.
func waitEventsSettled(ctx context.Context, t *testing.T, c *cluster, d *appsv1.Deployment) []string {
	t.Helper()
	var prev []string
	var last []string
	err := wait.PollUntilContextTimeout(ctx, time.Second, 15*time.Second, true, func(ctx context.Context) (bool, error) {
		evs, err := deploymentEvents(ctx, c, d.Namespace, d.Name)
		if err != nil {
			return false, err
		}
		prev, last = last, evs
		return prev != nil && strings.Join(prev, "\n") == strings.Join(last, "\n"), nil
	})
	if err != nil {
		t.Fatalf("the Deployment's events did not settle in 15s (%v); last read: %q", err, last)
	}
	return last
}
