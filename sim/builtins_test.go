package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestBuiltinsThroughHost runs every bundled scenario with the built-in
// Deployment controller on the engine's fast path and as a hosted
// controller through the public API (its Watches and a Reconcile that
// reads through its client and writes through it), and compares the whole
// JSON of the runs (frames, summary, outcomes, write log, events, the
// invariant checker's verdicts), with and without explanations: the fast
// path is an optimisation that changes nothing.
func TestBuiltinsThroughHost(t *testing.T) {
	forEachScenario(t, func(t *testing.T, sc *Scenario) {
		for _, o := range []Options{{Check: true, Writes: true}, {Writes: true, Explain: true}} {
			fast := runJSON(t, sc, o)
			o.genericBuiltins = true
			generic := runJSON(t, sc, o)
			if diff := cmp.Diff(fast, generic); diff != "" {
				t.Fatalf("explain %v: the generic built-in differs (-fast +generic):\n%s", o.Explain, diff)
			}
		}
	})
}

func runJSON(t interface {
	Helper()
	Fatal(...any)
}, sc *Scenario, o Options) string {
	t.Helper()
	res, err := Run(sc, o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPropertyBuiltinsThroughHost compares the two paths of the built-in
// Deployment controller on random scenarios (those of the invariant
// property test), with random informer delays and controller latencies:
// go test ./sim -run PropertyBuiltins -rapid.checks=10000
func TestPropertyBuiltinsThroughHost(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		src := genScenario(t)
		delay := rapid.SampledFrom([]string{"0s", "0s", "10ms", "1s"}).Draw(t, "informerDelay")
		latency := rapid.SampledFrom([]string{"0s", "0s", "5ms"}).Draw(t, "controllerLatency")
		src = strings.Replace(src, "cluster:\n", "cluster:\n  informerDelay: "+delay+"\n  controllerLatency: "+latency+"\n", 1)
		sc, err := ParseScenario([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		o := Options{Writes: true, Explain: rapid.Bool().Draw(t, "explain")}
		fast := runJSON(t, sc, o)
		o.genericBuiltins = true
		if diff := cmp.Diff(fast, runJSON(t, sc, o)); diff != "" {
			t.Fatalf("the generic built-in differs (-fast +generic):\n%s\nscenario:\n%s", diff, src)
		}
	})
}

// TestStateBuiltinsThroughHost: a run from a cluster's state (its objects
// stored as they are, the informers' first list) is the same both ways,
// with and without an informer delay.
func TestStateBuiltinsThroughHost(t *testing.T) {
	for _, delay := range []time.Duration{0, 10 * time.Millisecond} {
		sc := NewScenario("state").WithState(newStateWorld(4, 4, 1).state())
		sc.Cluster.InformerDelay = Duration(delay)
		o := Options{Writes: true, Check: true}
		fast := runJSON(t, sc, o)
		o.genericBuiltins = true
		if diff := cmp.Diff(fast, runJSON(t, sc, o)); diff != "" {
			t.Errorf("delay %v: the generic built-in differs (-fast +generic):\n%s", delay, diff)
		}
	}
}
