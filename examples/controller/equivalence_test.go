package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deploymath/deploymath/sim"
)

// scaleEvent matches upstream's ScalingReplicaSet messages.
var scaleEvent = regexp.MustCompile(`^Scaled (?:up|down) replica set (\S+) from (\d+) to (\d+)$`)

// simScales returns the ReplicaSet scales of a simulator run, from its
// ScalingReplicaSet events (upstream records one per size change).
func simScales(r *sim.Result) (scales, events []string) {
	for _, f := range r.Trace.Frames {
		for _, e := range f.Events {
			events = append(events, e.Type+" "+e.Reason+" "+e.Message)
			if m := scaleEvent.FindStringSubmatch(e.Message); e.Reason == "ScalingReplicaSet" && m != nil {
				scales = append(scales, m[1]+" "+m[2]+"->"+m[3])
			}
		}
	}
	return scales, events
}

// TestEquivalenceWithSimulator runs bundled scenarios twice, with the same
// deterministic pod behaviour: (a) in the simulator (sim.Run, the in-memory
// shell around rollout.Plan), and (b) through this example controller —
// its event handlers, its sync (listers → rollout.Plan → typed client
// writes) and its requeue rules — on the fake clientset with the fake API
// server and fake cluster of the demo. Both must make the same ReplicaSet
// scales in the same order, record the same events, and end with the same
// Deployment status, conditions (times ignored) and ReplicaSets.
//
// Pod behaviour: the scenario's random delays are replaced by fixed ones
// (pods start, become ready and terminate after the same delay every time,
// or at once), so neither run draws a random number that matters.
func TestEquivalenceWithSimulator(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// These must stay supported; other scenarios run when the fake cluster
	// models what they use.
	required := map[string]bool{
		"nginx-rolling-update": true, "recreate": true, "min-ready-seconds": true, "pause-edit-resume": true,
		"proportional-scaling": true, "rollover": true, "scale-to-zero": true, "surge1-unavailable0": true,
		"revision-history-limit": true, "undo": true, "crashloop-deadline-undo": true,
	}
	var scenarios []string
	for _, f := range files {
		scenarios = append(scenarios, strings.TrimSuffix(filepath.Base(f), ".yaml"))
	}
	timings := []struct {
		name string
		podTiming
	}{
		{"fixed", podTiming{Startup: 2 * time.Second, Readiness: time.Second, Termination: 1500 * time.Millisecond}},
		{"instant", podTiming{}},
	}
	for _, name := range scenarios {
		for _, tm := range timings {
			t.Run(name+"/"+tm.name, func(t *testing.T) {
				sc, ok := loadScenario(t, name)
				if !ok {
					if required[name] {
						t.Fatal("scenario no longer supported by the harness")
					}
					t.Skip("scenario uses features the fake cluster does not model")
				}
				sc.Cluster.Startup = sim.Range{Min: sim.Duration(tm.Startup), Max: sim.Duration(tm.Startup)}
				sc.Cluster.Readiness = sim.Range{Min: sim.Duration(tm.Readiness), Max: sim.Duration(tm.Readiness)}
				sc.Cluster.Termination = sim.Range{Min: sim.Duration(tm.Termination), Max: sim.Duration(tm.Termination)}
				for i := range sc.Cluster.Nodes {
					sc.Cluster.Nodes[i].Capacity = 1 << 20 // the fake cluster has no nodes
				}

				want, err := sim.Run(sc, sim.Options{})
				if err != nil {
					t.Fatal(err)
				}
				wantScales, wantEvents := simScales(want)

				h := newHarness(t, sim.Epoch, tm.podTiming)
				h.play(sc)

				if diff := cmp.Diff(wantScales, h.scales); diff != "" {
					t.Errorf("ReplicaSet scales (-sim +controller):\n%s", diff)
				}
				if diff := cmp.Diff(wantEvents, h.events); diff != "" {
					t.Errorf("events (-sim +controller):\n%s", diff)
				}
				if diff := cmp.Diff(simFinals(want), h.finals()); diff != "" {
					t.Errorf("final state (-sim +controller):\n%s", diff)
				}
				if len(wantScales) == 0 {
					t.Errorf("no scales: the scenario did nothing")
				}
				t.Logf("%d scales, %d events, %d deployment syncs, ended at t=%s", len(h.scales), len(h.events), h.syncs, h.clk.Now().Sub(sim.Epoch))
			})
		}
	}
}
