package snapshot_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim/snapshot"
)

// A dump as `kubectl get deploy,rs -o yaml` prints it (shortened), read
// and grouped per Deployment, then planned at the instant it was taken.
func ExampleRead() {
	dump := `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: nginx-deployment
    namespace: default
    uid: 0b6b1e0c-8f0a-4a43-9d55-3f1d8b0c5a11
    generation: 1
    creationTimestamp: "2026-11-20T10:00:00Z"
  spec:
    replicas: 3
    selector:
      matchLabels: {app: nginx}
    template:
      metadata:
        labels: {app: nginx}
      spec:
        containers:
        - name: nginx
          image: nginx:1.14.2
          ports:
          - containerPort: 80
- apiVersion: v1
  kind: Service
  metadata: {name: nginx, namespace: default}
`
	s, err := snapshot.Read(strings.NewReader(dump), "state.yaml", snapshot.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ignored:", s.Ignored, "latest:", s.Latest().Format(time.RFC3339))
	for _, r := range s.Rollouts() {
		res, err := rollout.Plan(r.Input(s.Latest()))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %d replica sets; next: %s\n", r.Deployment.Name, len(r.ReplicaSets), res.Actions[0].Explain())
	}
	// Output:
	// ignored: map[Service:1] latest: 2026-11-20T10:00:00Z
	// nginx-deployment: 0 replica sets; next: create replica set nginx-deployment-54fd4d6d4c with 3 replicas: no replica set has the pod template; revision 1, hash 54fd4d6d4c; total 0 < replicas 3 + maxSurge 1, room for 4, capped by 3 still missing
}
