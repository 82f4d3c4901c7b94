// Command nginx prints what deploymath computes for the nginx Deployment of
// the Kubernetes documentation (3 replicas of nginx:1.14.2, default
// RollingUpdate strategy): its fenceposts, its pod-template-hash, and the
// plans of the first syncs of a rollout to nginx:1.16.1, each with the
// reasons behind every write.
//
//	go run ./examples/nginx
package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/deploymath/deploymath/fencepost"
	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

const manifest = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
  namespace: default
  uid: 6f1c1b8e-0000-4000-8000-000000000001
  generation: 1
  labels:
    app: nginx
spec:
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.14.2
        ports:
        - containerPort: 80
`

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "nginx:", err)
		os.Exit(1)
	}
}

func run() error {
	var d appsv1.Deployment
	if err := yaml.UnmarshalStrict([]byte(manifest), &d); err != nil {
		return err
	}
	dep := rollout.Default(&d)
	if err := rollout.Validate(dep); err != nil {
		return err
	}
	ru := dep.Spec.Strategy.RollingUpdate
	fmt.Printf("deployment %s: %d replicas, maxSurge %s, maxUnavailable %s\n", dep.Name, *dep.Spec.Replicas, ru.MaxSurge, ru.MaxUnavailable)
	fmt.Printf("fenceposts: maxSurge %d, maxUnavailable %d, minAvailable %d\n",
		fencepost.MaxSurge(dep), fencepost.MaxUnavailable(dep), fencepost.MinAvailable(dep))
	fmt.Printf("pod-template-hash: %s\n", hashing.PodTemplateHash(&dep.Spec.Template, nil))

	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := rollout.Snapshot{Deployment: dep, Now: now}
	fmt.Println("\n# first rollout (revision 1)")
	s, err := syncUntilSettled(s)
	if err != nil {
		return err
	}

	d2 := s.Deployment.DeepCopy()
	d2.Spec.Template.Spec.Containers[0].Image = "nginx:1.16.1"
	d2.Generation++
	s.Deployment = d2
	fmt.Printf("\n# set image nginx:1.16.1 (pod-template-hash %s)\n", hashing.PodTemplateHash(&d2.Spec.Template, nil))
	_, err = syncUntilSettled(s)
	return err
}

// syncUntilSettled plans and applies syncs, pretending every pod becomes
// available at once, until a sync writes nothing.
func syncUntilSettled(s rollout.Snapshot) (rollout.Snapshot, error) {
	for i := 1; i <= 20; i++ {
		r, err := rollout.Plan(s)
		if err != nil {
			return s, err
		}
		fmt.Printf("sync %d:\n%s", i, indent(r.Explain()))
		if len(r.Actions) == 0 {
			return s, nil
		}
		s, _ = rollout.Apply(s, r) // a refused write just ends the sync early, as in a cluster
		s = allAvailable(s)
		s.Now = s.Now.Add(time.Second)
	}
	return s, fmt.Errorf("no convergence after 20 syncs")
}

// allAvailable plays an instant ReplicaSet controller.
func allAvailable(s rollout.Snapshot) rollout.Snapshot {
	rss := make([]*appsv1.ReplicaSet, 0, len(s.ReplicaSets))
	for _, rs := range s.ReplicaSets {
		rs = rs.DeepCopy()
		n := *rs.Spec.Replicas
		zero := int32(0)
		rs.Status = appsv1.ReplicaSetStatus{Replicas: n, FullyLabeledReplicas: n, ReadyReplicas: n, AvailableReplicas: n,
			ObservedGeneration: rs.Generation, TerminatingReplicas: &zero}
		rss = append(rss, rs)
	}
	s.ReplicaSets = rss
	return s
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ") + "\n"
}
