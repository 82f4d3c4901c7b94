package sweep

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/sim"
)

// benchScenario is one Deployment of r replicas on nodes nodes rolled to a
// new image at 2m (the delays of sim's rollout benchmarks).
func benchScenario(b testing.TB, r, nodes int) *sim.Scenario {
	b.Helper()
	var s strings.Builder
	fmt.Fprintf(&s, "name: bench-%d\nseed: 1\nuntil: 1h\ncluster:\n  startup: {min: 2s, max: 20s}\n  readiness: {min: 1s, max: 5s}\n  termination: {min: 1s, max: 10s}\n  nodes:\n", r)
	for i := 0; i < nodes; i++ {
		fmt.Fprintf(&s, "  - {name: node-%d, capacity: %d}\n", i, 2*r/nodes+1)
	}
	fmt.Fprintf(&s, `objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: app}
  spec:
    replicas: %d
    selector: {matchLabels: {app: app}}
    template:
      metadata: {labels: {app: app}}
      spec:
        containers: [{name: app, image: "app:v1"}]
steps:
- at: 2m
  setImage: {container: app, image: "app:v2"}
- at: 2m
  stopWhenConverged: true
`, r)
	sc, err := sim.ParseScenario([]byte(s.String()))
	if err != nil {
		b.Fatal(err)
	}
	return sc
}

// BenchmarkSweep runs one sweep (1 Deployment × 1,000 replicas rolled to
// a new image; maxSurge 1 and 25 %, 4 seeds: 8 runs) one run after the
// other and on GOMAXPROCS goroutines, in the same process, so that the
// two figures share the machine's state. Both must give the same rows.
func BenchmarkSweep(b *testing.B) {
	sc := benchScenario(b, 1000, 10)
	params, err := Parse("maxSurge=1,25%")
	if err != nil {
		b.Fatal(err)
	}
	seeds := []uint64{1, 2, 3, 4}
	var want string
	for _, par := range []int{1, runtime.GOMAXPROCS(0)} {
		name := "serial"
		if par > 1 {
			name = "parallel-" + strconv.Itoa(par)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r, err := Run(sc, params, seeds, sim.Options{}, Config{Parallel: par})
				if err != nil {
					b.Fatal(err)
				}
				got := Describe(r.Rows)
				if want == "" {
					want = got
				} else if got != want {
					b.Fatalf("parallel %d:\n%s\nserial:\n%s", par, got, want)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/float64(len(seeds)*2), "ms/run")
		})
	}
}
