package simtest_test

import (
	"slices"
	"testing"
	"time"

	"github.com/deploymath/deploymath/sim"
	"github.com/deploymath/deploymath/sim/simtest"
	"pgregory.net/rapid"
)

func TestHeals(t *testing.T) {
	half := 0.5
	for _, c := range []struct {
		name  string
		sc    sim.Scenario
		heals bool
	}{
		{"nothing", sim.Scenario{}, true},
		{"a failure rule", sim.Scenario{Cluster: sim.Cluster{Failures: []sim.FailureRule{{Image: "x", Mode: "crashloop", Probability: &half}}}}, false},
		{"conflicts, delay", sim.Scenario{Cluster: sim.Cluster{WriteConflicts: 0.3, InformerDelay: sim.Duration(time.Second)}}, true},
		{"a node recovers", sim.Scenario{Steps: []sim.Step{{FailNode: "a"}, {UnreachableNode: "b"}, {RecoverNode: "b"}, {RecoverNode: "a"}}}, true},
		{"a node does not", sim.Scenario{Steps: []sim.Step{{FailNode: "a"}, {UnreachableNode: "b"}, {RecoverNode: "b"}}}, false},
		{"recovered before it failed", sim.Scenario{Steps: []sim.Step{{RecoverNode: "a"}, {FailNode: "a"}}}, false},
		{"a node deleted", sim.Scenario{Steps: []sim.Step{{UnreachableNode: "a"}, {RecoverNode: "a"}, {DeleteNode: "a"}}}, false},
		{"a pod's node unreachable", sim.Scenario{Steps: []sim.Step{{Pod: &sim.PodStep{Unreachable: true}}}}, false},
		{"a restart", sim.Scenario{Steps: []sim.Step{{RestartController: "c"}}}, true},
	} {
		if got := simtest.Heals(&c.sc); got != c.heals {
			t.Errorf("%s: Heals = %v, want %v", c.name, got, c.heals)
		}
	}
}

// The faults are drawn on top of the base: the base's cluster fields and
// steps stay, every step is in time order, node faults name the drawn
// nodes (one fault each, recovering within MaxOutage unless permanent),
// restarts name the restartable controllers, and the time limit leaves
// Settle after the last step.
func TestDrawOnTopOfTheBase(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := simtest.DefaultFaults()
		f.Permanent = rapid.Bool().Draw(t, "permanent")
		base := func(t *rapid.T) *sim.Scenario {
			sc := drawPool(t)
			sc.Cluster.Readiness = sim.Range{Min: sim.Duration(time.Second), Max: sim.Duration(2 * time.Second)}
			return sc
		}
		cfg := simtest.Config{Base: base, Faults: &f, Scheme: poolScheme(),
			Controllers: func() []sim.Controller { return []sim.Controller{poolController{}} }}
		sc := simtest.Draw(t, cfg)
		if sc.Cluster.Readiness.Max != sim.Duration(2*time.Second) {
			t.Fatalf("the base's readiness was replaced: %+v", sc.Cluster.Readiness)
		}
		if !slices.IsSortedFunc(sc.Steps, func(a, b sim.Step) int { return int(a.At - b.At) }) {
			var at []string
			for _, st := range sc.Steps {
				at = append(at, time.Duration(st.At).String())
			}
			t.Fatalf("steps out of order: at %v", at)
		}
		var nodes []string
		for _, n := range sc.Cluster.Nodes {
			nodes = append(nodes, n.Name)
		}
		down := map[string]sim.Duration{}
		var last sim.Duration
		applies := 0
		for _, st := range sc.Steps {
			last = max(last, st.At)
			switch {
			case len(st.Apply) > 0:
				applies++
			case st.FailNode != "" || st.UnreachableNode != "":
				n := st.FailNode + st.UnreachableNode
				if !slices.Contains(nodes, n) {
					t.Fatalf("a fault of node %s, not one of %v", n, nodes)
				}
				if _, twice := down[n]; twice {
					t.Fatalf("node %s fails twice", n)
				}
				down[n] = st.At
			case st.RecoverNode != "":
				if d := st.At - down[st.RecoverNode]; d <= 0 || d > sim.Duration(f.MaxOutage) {
					t.Fatalf("node %s recovers %s after it failed", st.RecoverNode, time.Duration(d))
				}
				delete(down, st.RecoverNode)
			case st.RestartController != "" && st.RestartController != "pool":
				t.Fatalf("restart of %q", st.RestartController)
			}
		}
		if applies != 1 {
			t.Fatalf("%d applies, want the base's one", applies)
		}
		if !f.Permanent && (len(down) > 0 || len(sc.Cluster.Failures) > 0) {
			t.Fatalf("permanent faults drawn: nodes %v, failures %+v", down, sc.Cluster.Failures)
		}
		if simtest.Heals(sc) != (len(down) == 0 && len(sc.Cluster.Failures) == 0) {
			t.Fatal("Heals disagrees with the faults drawn")
		}
		if sc.Until < last+sim.Duration(f.Settle) {
			t.Fatalf("until %s, last step %s: less than Settle", time.Duration(sc.Until), time.Duration(last))
		}
		for _, r := range sc.Cluster.Failures {
			if r.Image != "web:1" {
				t.Fatalf("a failure rule of image %q, not the scenario's", r.Image)
			}
		}
	})
}
