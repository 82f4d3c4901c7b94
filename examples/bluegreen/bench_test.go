package bluegreen_test

import (
	"fmt"
	"testing"

	"github.com/deploymath/deploymath/sim"
)

// rollout1000 is a BlueGreen of 1,000 replicas whose template changes at
// 1m: green comes up beside blue's 1,000 pods (2,000 at the peak),
// becomes active, and blue goes to zero.
func rollout1000(image0, image1 string) string {
	return fmt.Sprintf(`name: bluegreen-1000
seed: 1
until: 5m
cluster:
  deploymentController: false
  nodes: [{name: node-1, capacity: 1100}, {name: node-2, capacity: 1100}]
objects:
%ssteps:
- at: 1m
  apply:
%s`, manifest("- ", 1000, image0), manifest("    ", 1000, image1))
}

// The same rollout of a Deployment by the built-in Deployment controller
// (RollingUpdate, maxSurge 100%: all new pods at once, as blue/green
// does): the reference of BenchmarkRollout1000.
const deployment1000 = `name: deployment-1000
seed: 1
until: 5m
cluster:
  nodes: [{name: node-1, capacity: 1100}, {name: node-2, capacity: 1100}]
objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: 1000
    strategy: {rollingUpdate: {maxSurge: 100%, maxUnavailable: 0}}
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: web, image: "web:1"}]
steps:
- at: 1m
  setImage: {container: web, image: "web:2"}
- at: 1m
  stopWhenConverged: true
`

// BenchmarkRollout1000 runs the blue/green controller (through sim/crsim)
// on a BlueGreen of 1,000 pods, from nothing to web:1 and then to web:2.
// The run ends when nothing is left to happen (stopWhenConverged concerns
// Deployments only).
func BenchmarkRollout1000(b *testing.B) {
	sc, err := sim.ParseScenario([]byte(rollout1000("web:1", "web:2")))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s, err := sim.New(sc, setup(b, sim.Options{NoTrace: true}))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Run(); err != nil {
			b.Fatal(err)
		}
		if err := converged(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDeployment1000 is the reference: the built-in Deployment
// controller rolling 1,000 pods with maxSurge 100%.
func BenchmarkDeployment1000(b *testing.B) {
	sc, err := sim.ParseScenario([]byte(deployment1000))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := sim.Run(sc, sim.Options{NoTrace: true}); err != nil {
			b.Fatal(err)
		}
	}
}
