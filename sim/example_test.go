package sim_test

import (
	"fmt"
	"time"

	"github.com/deploymath/deploymath/sim"
	"github.com/deploymath/deploymath/sim/snapshot"
)

// Run a small scenario and print its summary.
func ExampleRun() {
	sc, err := sim.ParseScenario([]byte(`
name: example
seed: 7
cluster:
  startup: {min: 2s, max: 2s}
  readiness: {min: 1s, max: 1s}
objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: 2
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: web, image: web:1}]
steps:
- at: 1m
  setImage: {container: web, image: web:2}
- at: 1m
  stopWhenConverged: true
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := sim.Run(sc, sim.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(sim.DescribeSummary(&res.Summary))
	// Output:
	// summary, t=1m0s to t=1m7s (from the first step on):
	//   DEPLOYMENT  COMPLETE      SCALING STEPS  PEAK PODS/CEILING  PEAK TERMINATING  MIN AVAILABLE/FLOOR  BELOW FLOOR
	//   web         t=1m6s (+6s)  4              3/3                1                 2/2                  0s
	//   (peak pods: the most running at once, terminating ones not counted, and replicas + maxSurge then;
	//    min available: the fewest available against minAvailable = replicas - maxUnavailable then)
}

// Start from a cluster's state, as `kubectl get deploy,rs,pods -o yaml`
// printed it (read with sim/snapshot), and see how each rollout ends.
func ExampleScenario_WithState() {
	snap, err := snapshot.ReadFile("../testdata/clusters/rolling.yaml", snapshot.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	sc := sim.NewScenario("what-next").WithState(&sim.State{
		Now:         snap.Latest(), // the dump's moment is the run's t=0
		Deployments: snap.Deployments, ReplicaSets: snap.ReplicaSets, Pods: snap.Pods,
	})
	// The assumption that web's unready pods never become ready.
	sc.Cluster.Failures = []sim.FailureRule{{Image: "shop/web:1.1-unready", Mode: "never-ready"}}
	res, err := sim.Run(sc, sim.Options{Until: 15 * time.Minute})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range res.Outcomes {
		fmt.Println(o.Deployment, o.Outcome)
	}
	// Output:
	// shop/api Complete
	// shop/web ProgressDeadlineExceeded
}
