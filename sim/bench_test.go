package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
)

// benchScenario builds a scenario with n Deployments of r replicas each,
// all updated to a new image at 1m.
func benchScenario(b testing.TB, n, r, nodes int) *Scenario {
	b.Helper()
	var s strings.Builder
	fmt.Fprintf(&s, "name: bench-%dx%d\nseed: 1\nuntil: 1h\ncluster:\n  startup: {min: 2s, max: 20s}\n  readiness: {min: 1s, max: 5s}\n  termination: {min: 1s, max: 10s}\n  nodes:\n", n, r)
	capacity := (n*r*2)/nodes + 1
	for i := 0; i < nodes; i++ {
		fmt.Fprintf(&s, "  - {name: node-%d, capacity: %d}\n", i, capacity)
	}
	s.WriteString("objects:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&s, `- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: app-%d, namespace: ns-%d}
  spec:
    replicas: %d
    selector: {matchLabels: {app: app-%d}}
    template:
      metadata: {labels: {app: app-%d}}
      spec:
        containers: [{name: app, image: "app:v1"}]
`, i, i, r, i, i)
	}
	s.WriteString("steps:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&s, "- at: 2m\n  deployment: app-%d\n  setImage: {container: app, image: \"app:v2\"}\n", i)
	}
	s.WriteString("- at: 2m\n  stopWhenConverged: true\n")
	sc, err := ParseScenario([]byte(s.String()))
	if err != nil {
		b.Fatal(err)
	}
	return sc
}

func benchRun(b *testing.B, sc *Scenario) {
	b.ReportAllocs()
	var events, pods, syncs int
	for b.Loop() {
		res, err := Run(sc, Options{NoTrace: true})
		if err != nil {
			b.Fatal(err)
		}
		if !res.Summary.Completed {
			b.Fatalf("did not complete: %s", DescribeSummary(&res.Summary))
		}
		events += res.Stats.Events
		pods += res.Stats.PodsCreated
		syncs += res.Stats.DeploymentSyncs
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
	b.ReportMetric(float64(pods)/float64(b.N), "pods/op")
	b.ReportMetric(float64(syncs)/float64(b.N), "depsyncs/op")
}

// BenchmarkRolling10k: one Deployment of 10,000 replicas rolled to a new image.
func BenchmarkRolling10k(b *testing.B) { benchRun(b, benchScenario(b, 1, 10000, 100)) }

// BenchmarkRolling150k: 100 Deployments × 1,500 replicas rolled at once.
func BenchmarkRolling150k(b *testing.B) { benchRun(b, benchScenario(b, 100, 1500, 1000)) }

// BenchmarkRolling150kLatency: the same rollout with a 10 ms controller
// reaction latency (cluster.controllerLatency), so that the work queue
// deduplicates the bursts of ReplicaSet updates the way a busy real
// controller's queue does. A different workload from BenchmarkRolling150k
// (fewer Deployment syncs), reported beside it, not instead of it.
func BenchmarkRolling150kLatency(b *testing.B) {
	sc := benchScenario(b, 100, 1500, 1000)
	sc.Cluster.ControllerLatency = Duration(10 * time.Millisecond)
	benchRun(b, sc)
}

// BenchmarkPlanRolloutSnapshots measures rollout.PlanWith alone on the
// snapshots the simulator plans during a rollout of 5 Deployments × 1,500
// replicas (every 16th of them, ~3,000): the planner's share of the
// simulator's cost, without the simulator.
func BenchmarkPlanRolloutSnapshots(b *testing.B) {
	s, err := New(benchScenario(b, 5, 1500, 50), Options{NoTrace: true})
	if err != nil {
		b.Fatal(err)
	}
	var snaps []rollout.Snapshot
	n := 0
	s.planned = func(snap rollout.Snapshot) {
		if n++; n%16 != 0 {
			return
		}
		// The simulator writes ReplicaSet status in place and reuses the
		// slice: keep shallow copies (sharing what a plan shares).
		rss := make([]*appsv1.ReplicaSet, len(snap.ReplicaSets))
		for i, rs := range snap.ReplicaSets {
			c := *rs
			rss[i] = &c
		}
		snap.ReplicaSets = rss
		snaps = append(snaps, snap)
	}
	if _, err := s.Run(); err != nil {
		b.Fatal(err)
	}
	opts := rollout.Options{Quiet: true}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, snap := range snaps {
			if _, err := rollout.PlanWith(snap, opts); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(snaps)), "ns/plan")
	b.ReportMetric(float64(len(snaps)), "plans/op")
}

// BenchmarkRolling1Mx1: one Deployment of 1,000,000 replicas rolled to a
// new image (issue #13's scale target; run with -benchtime 1x).
func BenchmarkRolling1Mx1(b *testing.B) { benchRun(b, benchScenario(b, 1, 1_000_000, 1000)) }

// BenchmarkRolling1kx1k: 1,000 Deployments × 1,000 replicas rolled at once.
func BenchmarkRolling1kx1k(b *testing.B) { benchRun(b, benchScenario(b, 1000, 1000, 1000)) }

// BenchmarkRolling1Mon2: the docs' nginx Deployment at 1,000,000 replicas
// on its two nodes of 600,000 pods each (testdata/scale/nginx-1m.yaml, the
// file deploysim runs for the same figure), rolled to a new image.
func BenchmarkRolling1Mon2(b *testing.B) {
	sc, err := LoadScenario("testdata/scale/nginx-1m.yaml")
	if err != nil {
		b.Fatal(err)
	}
	benchRun(b, sc)
}

// BenchmarkMemoryLatency is not the simulator's: it times dependent loads,
// one 64-byte line after another in a random cycle, over a set the size of
// the L3 cache this VM reports (16 MiB) and over 512 MiB, in ns per load.
// The large runs above are bound by such loads, and the VM they were
// measured on has phases in which both figures double (sim/BENCHMARKS.md,
// "What the VM's slow phase is"): run it beside them to tell which phase a
// figure was taken in.
func BenchmarkMemoryLatency(b *testing.B) {
	for _, mib := range []int{16, 512} {
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			lines := mib << 20 / 64
			next := make([]int32, lines*16) // one int32 used per 64-byte line
			perm := rand.New(rand.NewPCG(1, 2)).Perm(lines)
			for i, p := range perm {
				next[p*16] = int32(perm[(i+1)%lines] * 16)
			}
			const loads = 1 << 20
			j := int32(0)
			for b.Loop() {
				for range loads {
					j = next[j]
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/loads, "ns/load")
			if j < 0 {
				b.Fatal("unreachable")
			}
		})
	}
}
