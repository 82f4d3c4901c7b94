package sim

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim/snapshot"
	"github.com/google/go-cmp/cmp"
)

// TestChangesReplayToFullView: for every bundled scenario (as written,
// with Explain, and without status.terminatingReplicas, where the trace
// counts terminating pods that no status write reports; and with late
// controllers and informers), the trace of changes keeps the same frames as the
// full view (same instants, notes, stops, syncs, events), and its
// changes applied in order (Trace.States) give, at every frame, the rows
// the full view holds, field for field and rendered byte for byte.
func TestChangesReplayToFullView(t *testing.T) {
	forEachScenario(t, func(t *testing.T, sc *Scenario) {
		for _, o := range []Options{{}, {Explain: true}, {Plan: rollout.Options{DisableTerminatingReplicas: true}}} {
			checkReplay(t, sc, o)
		}
		// controllers and informers late: the states of an instant
		// between a pod's change and its ReplicaSet's status write
		late := *sc
		late.Cluster.ControllerLatency = Duration(15 * time.Millisecond)
		late.Cluster.InformerDelay = Duration(40 * time.Millisecond)
		checkReplay(t, &late, Options{Plan: rollout.Options{DisableTerminatingReplicas: true}})
		checkReplay(t, &late, Options{})
	})
}

// TestChangesReplayToFullViewStates: the same for runs from the bundled
// cluster dumps (many namespaces, conditions and ReplicaSets of a real
// cluster), and with a lowered frame limit, whose last frame then holds
// every Deployment.
func TestChangesReplayToFullViewStates(t *testing.T) {
	files, err := filepath.Glob("../testdata/clusters/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			snap, err := snapshot.ReadFile(file, snapshot.Options{})
			if err != nil {
				t.Fatal(err)
			}
			st := &State{Now: snap.Latest(), Deployments: snap.Deployments, ReplicaSets: snap.ReplicaSets, Pods: snap.Pods,
				Nodes: snap.Nodes, ResourceQuotas: snap.ResourceQuotas}
			checkReplay(t, NewScenario("dump").WithState(st), Options{Until: 30 * time.Minute})
		})
	}
}

// checkReplay runs sc with o as changes and as the full view and compares
// them frame by frame.
func checkReplay(t *testing.T, sc *Scenario, o Options) {
	t.Helper()
	changes, err := Run(sc, o)
	if err != nil {
		t.Fatal(err)
	}
	o.FullView = true
	full, err := Run(sc, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes.Trace.Frames) != len(full.Trace.Frames) {
		t.Fatalf("%d frames of changes, %d of the full view", len(changes.Trace.Frames), len(full.Trace.Frames))
	}
	i := 0
	for f, rows := range changes.Trace.States() {
		want := &full.Trace.Frames[i]
		got := *f
		got.Deployments = rows
		if d := cmp.Diff(describeFrame(want, false), describeFrame(&got, false)); d != "" {
			t.Fatalf("frame %d (t=%s) replayed differs from the full view (-full +replayed):\n%s", i, f.At, d)
		}
		if d := cmp.Diff(want.Deployments, rows); d != "" {
			t.Fatalf("frame %d (t=%s) rows differ (-full +replayed):\n%s", i, f.At, d)
		}
		i++
	}
	if d := cmp.Diff(full.Summary, changes.Summary); d != "" {
		t.Errorf("summaries differ (-full +changes):\n%s", d)
	}
}

// TestDescribeRemoved: a row of changes names the ReplicaSets its
// Deployment no longer controls, deleted or released, and the conditions
// gone, after its table.
func TestDescribeRemoved(t *testing.T) {
	d := &DeploymentRow{Name: "web", Generation: 2, ObservedGeneration: 2, Spec: 2, Replicas: 2,
		ReplicaSets:        []ReplicaSetRow{{Name: "web-2", Revision: "2", Desired: 2, Current: 2}},
		RemovedReplicaSets: []string{"web-1", "web-0"}, ReleasedReplicaSets: []string{"web-0"},
		RemovedConditions: []string{"ReplicaFailure"}}
	want := `  deployment web gen 2/2: replicas 2/2 updated 0 ready 0 available 0 unavailable 0
    ReplicaFailure: condition removed
    REPLICASET  REV  DESIRED  CURRENT  READY  AVAILABLE  TERMINATING
    web-2         2        2        2      0          0            0
    replica set web-1: deleted
    replica set web-0: released (no longer controlled by web)
`
	if got := DescribeDeployment(d); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
