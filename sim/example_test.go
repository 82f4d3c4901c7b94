package sim_test

import (
	"fmt"

	"github.com/deploymath/deploymath/sim"
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
	// summary
	//   complete:            t=1m6s (6s after the first step)
	//   scaling steps:       4
	//   peak pods:           4
	//   min available:       2
	//   below minAvailable:  0s
}
