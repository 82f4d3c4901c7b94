package simtest

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/deploymath/deploymath/sim"
	"pgregory.net/rapid"
)

// Faults says which faults a case may draw and how large they may be. A
// zero field draws none of that fault; [DefaultFaults] enables them all.
type Faults struct {
	// Startup and Readiness bound the pods' start-up and readiness delays:
	// a case draws cluster.startup and cluster.readiness as ranges within
	// [0, Startup] and [0, Readiness] (when the base scenario sets none).
	Startup, Readiness time.Duration
	// Nodes is the most nodes a case draws (at least one), each with room
	// for NodeCapacity pods, when the base scenario names none.
	Nodes, NodeCapacity int
	// NodeFaults is the most node faults a case draws: a node fails
	// (step failNode: its pods are unready at once) or becomes unreachable
	// (step unreachableNode: its kubelet stops reporting), at most one
	// fault per node, and recovers (step recoverNode) within MaxOutage.
	NodeFaults int
	MaxOutage  time.Duration
	// Permanent lets a case draw faults that never heal: a node fault
	// without recovery, and a failure rule (cluster.failures) that makes
	// the pods of one of Images crash-loop, never become ready or fail to
	// pull their image, always or half of the time.
	Permanent bool
	// Images are the images a failure rule may name; nil: every
	// container image of the base scenario's objects and apply steps
	// (every string field named "image").
	Images []string
	// WriteConflicts is the largest probability drawn for
	// cluster.writeConflicts: writes of your controllers refused with 409
	// Conflict at random.
	WriteConflicts float64
	// InformerDelay is the longest cluster.informerDelay drawn: your
	// controllers' informers see changes that much later.
	InformerDelay time.Duration
	// Restarts is the most restartController steps a case draws for each
	// of your controllers that is a [sim.Restartable]: it loses its
	// in-memory state and lists every object again.
	Restarts int
	// Window is when the drawn faults happen: between time 0 and Window.
	Window time.Duration
	// Settle is how long a run goes on after the last step (the user's
	// or a fault's), so that the controllers can converge: the case's
	// time limit is at least the last step plus Settle.
	Settle time.Duration
}

// DefaultFaults are every fault, at sizes that keep a run short: start-up
// and readiness delays up to 30s each, up to 3 nodes of 500 pods with up
// to 2 node faults of at most 2 minutes, permanent faults, write conflicts
// up to 20%, an informer delay up to 500ms, up to 2 restarts of each
// restartable controller, faults within the first 5 minutes, and 15
// minutes to settle.
func DefaultFaults() Faults {
	return Faults{
		Startup: 30 * time.Second, Readiness: 30 * time.Second,
		Nodes: 3, NodeCapacity: 500, NodeFaults: 2, MaxOutage: 2 * time.Minute,
		Permanent:      true,
		WriteConflicts: 0.2, InformerDelay: 500 * time.Millisecond, Restarts: 2,
		Window: 5 * time.Minute, Settle: 15 * time.Minute,
	}
}

// failureModes are the modes of cluster.failures.
var failureModes = []string{"crashloop", "never-ready", "image-pull-error"}

// draw adds the faults of f to sc (a copy of the base scenario, which it
// changes): cluster delays, nodes, failure rules, write conflicts and
// informer delay, and the fault steps, merged into the steps in time
// order. restartable names the controllers a step may restart.
func (f Faults) draw(t *rapid.T, sc *sim.Scenario, restartable []string) {
	c := &sc.Cluster
	if f.Startup > 0 && c.Startup == (sim.Range{}) {
		c.Startup = drawRange(t, "startup", f.Startup)
	}
	if f.Readiness > 0 && c.Readiness == (sim.Range{}) {
		c.Readiness = drawRange(t, "readiness", f.Readiness)
	}
	nodes := nodeNames(sc)
	if len(nodes) == 0 && f.Nodes > 0 {
		n := rapid.IntRange(1, f.Nodes).Draw(t, "nodes")
		for i := range n {
			c.Nodes = append(c.Nodes, sim.NodeSpec{Name: fmt.Sprintf("node-%d", i+1), Capacity: max(f.NodeCapacity, 1)})
		}
		nodes = nodeNames(sc)
	}
	if f.WriteConflicts > 0 && c.WriteConflicts == 0 && rapid.Bool().Draw(t, "writeConflicts?") {
		// In percent, so that the file says 0.05, not 0.0500000001.
		c.WriteConflicts = float64(rapid.IntRange(1, max(int(f.WriteConflicts*100), 1)).Draw(t, "writeConflicts%")) / 100
	}
	if f.InformerDelay > 0 && c.InformerDelay == 0 && rapid.Bool().Draw(t, "informerDelay?") {
		c.InformerDelay = sim.Duration(time.Duration(rapid.Int64Range(1, max(f.InformerDelay.Milliseconds(), 1)).Draw(t, "informerDelayMs")) * time.Millisecond)
	}
	window := max(f.Window, time.Second)
	at := func(label string) sim.Duration {
		return sim.Duration(time.Duration(rapid.Int64Range(0, window.Milliseconds()).Draw(t, label)) * time.Millisecond)
	}
	var steps []sim.Step
	if f.Permanent {
		images := f.Images
		if images == nil {
			images = scenarioImages(sc)
		}
		if len(images) > 0 && rapid.Bool().Draw(t, "failure?") {
			p := 1.0
			if rapid.Bool().Draw(t, "failureHalfTheTime") {
				p = 0.5
			}
			c.Failures = append(c.Failures, sim.FailureRule{
				Image:       rapid.SampledFrom(images).Draw(t, "failureImage"),
				Mode:        rapid.SampledFrom(failureModes).Draw(t, "failureMode"),
				Probability: &p,
			})
		}
	}
	if f.NodeFaults > 0 && len(nodes) > 0 {
		n := rapid.IntRange(0, min(f.NodeFaults, len(nodes))).Draw(t, "nodeFaults")
		free := slices.Clone(nodes)
		for i := range n {
			j := rapid.IntRange(0, len(free)-1).Draw(t, "faultNode")
			node := free[j]
			free = slices.Delete(free, j, j+1)
			start := at(fmt.Sprintf("nodeFault%dAt", i))
			down := sim.Step{At: start, FailNode: node}
			if rapid.Bool().Draw(t, "unreachable") {
				down = sim.Step{At: start, UnreachableNode: node}
			}
			steps = append(steps, down)
			if f.Permanent && rapid.IntRange(0, 3).Draw(t, "neverRecovers") == 0 {
				continue
			}
			outage := time.Duration(rapid.Int64Range(1, max(f.MaxOutage.Milliseconds(), 1)).Draw(t, "outageMs")) * time.Millisecond
			steps = append(steps, sim.Step{At: start + sim.Duration(outage), RecoverNode: node})
		}
	}
	if f.Restarts > 0 {
		for _, name := range restartable {
			n := rapid.IntRange(0, f.Restarts).Draw(t, "restarts")
			for i := range n {
				steps = append(steps, sim.Step{At: at(fmt.Sprintf("restart%dAt", i)), RestartController: name})
			}
		}
	}
	sc.Steps = append(slices.Clone(sc.Steps), steps...)
	slices.SortStableFunc(sc.Steps, func(a, b sim.Step) int { return compareDuration(a.At, b.At) })
	var last sim.Duration
	for _, st := range sc.Steps {
		last = max(last, st.At)
	}
	sc.Until = max(sc.Until, last+sim.Duration(f.Settle))
}

func compareDuration(a, b sim.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// drawRange draws a range within [0, most], in steps of 100ms.
func drawRange(t *rapid.T, label string, most time.Duration) sim.Range {
	n := int(most / (100 * time.Millisecond))
	lo := rapid.IntRange(0, n).Draw(t, label+"Min")
	hi := rapid.IntRange(lo, n).Draw(t, label+"Max")
	step := sim.Duration(100 * time.Millisecond)
	return sim.Range{Min: sim.Duration(lo) * step, Max: sim.Duration(hi) * step}
}

// nodeNames are the nodes of sc: cluster.nodes and the Node objects.
func nodeNames(sc *sim.Scenario) []string {
	var out []string
	for _, n := range sc.Cluster.Nodes {
		out = append(out, n.Name)
	}
	for _, raw := range sc.Objects {
		var o struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if json.Unmarshal(raw, &o) == nil && o.APIVersion == "v1" && o.Kind == "Node" && o.Metadata.Name != "" {
			out = append(out, o.Metadata.Name)
		}
	}
	return out
}

// scenarioImages are the values of every string field named "image" in
// the objects and apply steps of sc, sorted, each once.
func scenarioImages(sc *sim.Scenario) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "image" && s != "" {
					out = append(out, s)
					continue
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	raws := slices.Clone(sc.Objects)
	for _, st := range sc.Steps {
		if len(st.Apply) > 0 {
			raws = append(raws, st.Apply)
		}
	}
	for _, raw := range raws {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			walk(v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Heals reports whether every fault of sc heals, so that its controllers
// can be expected to converge: no failure rule (cluster.failures), and
// every node that fails or becomes unreachable (steps failNode,
// unreachableNode, pod with unreachable) recovers later (recoverNode)
// and is not deleted (deleteNode); a pod step that makes a pod's node
// unreachable counts as a fault that does not heal. It reads the scenario only, so a case
// loaded from a file is judged as it was when drawn.
func Heals(sc *sim.Scenario) bool {
	if len(sc.Cluster.Failures) > 0 {
		return false
	}
	down := map[string]bool{}
	for _, st := range sc.Steps {
		switch {
		case st.FailNode != "":
			down[st.FailNode] = true
		case st.UnreachableNode != "":
			down[st.UnreachableNode] = true
		case st.RecoverNode != "":
			delete(down, st.RecoverNode)
		case st.DeleteNode != "":
			return false
		case st.Pod != nil && st.Pod.Unreachable:
			return false // its node is known only during the run
		}
	}
	return len(down) == 0
}
