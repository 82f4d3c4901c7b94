package rollout_test

import (
	"fmt"
	"maps"
	"math"
	"testing"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
)

// benchCases are BenchmarkPlan's rolling and converged snapshots.
func benchCases() []struct {
	name string
	s    rollout.Snapshot
} {
	var out []struct {
		name string
		s    rollout.Snapshot
	}
	for _, n := range []int{1, 10, 100} {
		out = append(out, struct {
			name string
			s    rollout.Snapshot
		}{fmt.Sprintf("rolling/rs=%d", n), midRollout(n)})
	}
	for _, n := range []int{1, 10, 100} {
		out = append(out, struct {
			name string
			s    rollout.Snapshot
		}{fmt.Sprintf("converged/rs=%d", n), convergedSnapshot(n)})
	}
	return out
}

// BenchmarkPlanQuiet is BenchmarkPlan's RollingUpdate syncs planned as a
// simulator plans them: without explanations (Options.Quiet), a new Result
// each time.
func BenchmarkPlanQuiet(b *testing.B) {
	for _, c := range benchCases() {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r, err := rollout.PlanWith(c.s, rollout.Options{Quiet: true})
				if err != nil {
					b.Fatal(err)
				}
				sinkResult = r
			}
		})
	}
}

// BenchmarkPlanner is BenchmarkPlanQuiet with one rollout.Planner reusing
// its Result, lists and Deployment copies from one sync to the next.
func BenchmarkPlanner(b *testing.B) {
	for _, c := range benchCases() {
		b.Run(c.name, func(b *testing.B) {
			pl := rollout.Planner{Options: rollout.Options{Quiet: true}}
			b.ReportAllocs()
			for b.Loop() {
				r, err := pl.Plan(c.s)
				if err != nil {
					b.Fatal(err)
				}
				sinkResult = r
			}
		})
	}
}

// TestPlannerAllocations pins the allocations of a quiet plan with a warm
// Planner: none for a converged sync, none for a sync whose only write is
// the status (the same status action is handed out again), and for
// BenchmarkPlan's mid-rollout sync only what the Result keeps (the written
// ReplicaSet, its annotations and size, the boxed actions, the event
// messages, the new conditions).
func TestPlannerAllocations(t *testing.T) {
	for _, c := range []struct {
		name string
		s    rollout.Snapshot
		max  float64
	}{
		{"converged", convergedSnapshot(1), 0},
		{"status-only", statusWriteSnapshot(t), 0},
		{"rolling/rs=1", midRollout(1), 24},
	} {
		pl := rollout.Planner{Options: rollout.Options{Quiet: true}}
		n := math.Inf(1)
		for range 5 {
			n = min(n, testing.AllocsPerRun(100, func() {
				if _, err := pl.Plan(c.s); err != nil {
					t.Fatal(err)
				}
			}))
		}
		if raceEnabled {
			c.max += 3
		}
		if n > c.max {
			t.Errorf("%s: %v allocations per plan, want at most %v", c.name, n, c.max)
		}
		t.Logf("%s: %v allocations", c.name, n)
	}
}

// statusWriteSnapshot is a RollingUpdate Deployment of 10 replicas in the
// middle of a rollout with two ReplicaSets whose next sync writes only the
// status (the ReplicaSets' pods became available since the last one).
func statusWriteSnapshot(b testing.TB) rollout.Snapshot {
	s := midRollout(2)
	for range 20 {
		r, err := rollout.Plan(s)
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Actions) == 1 && len(r.Events) == 0 && r.Stop == "" {
			if _, ok := r.Actions[0].(rollout.UpdateDeploymentStatus); ok {
				return s
			}
		}
		s, _ = rollout.Apply(s, r)
		for j, rs := range s.ReplicaSets {
			rs = rs.DeepCopy()
			size := *rs.Spec.Replicas
			rs.Status = appsv1.ReplicaSetStatus{Replicas: size, FullyLabeledReplicas: size, ReadyReplicas: size,
				AvailableReplicas: size - 1, ObservedGeneration: rs.Generation, TerminatingReplicas: new(int32)}
			if j == 0 {
				rs.Status.AvailableReplicas = size
			}
			s.ReplicaSets[j] = rs
		}
	}
	b.Fatal("no status-only sync")
	return s
}

// BenchmarkPlannerStatusWrite is the pair of syncs a simulator plans with
// one rollout.Planner after its ReplicaSets' pods change: one whose only
// write is the Deployment's status, then the sync that write triggers, at
// the same instant, of the same objects with the written status stored in
// the Deployment in place.
func BenchmarkPlannerStatusWrite(b *testing.B) {
	s := statusWriteSnapshot(b)
	d := s.Deployment
	before := *d.Status.DeepCopy()
	conds := make([]appsv1.DeploymentCondition, 0, 4)
	pl := rollout.Planner{Options: rollout.Options{Quiet: true}}
	b.ReportAllocs()
	for b.Loop() {
		d.Status = before
		r, err := pl.Plan(s)
		if err != nil || len(r.Actions) != 1 {
			b.Fatalf("first sync: %v, %d actions", err, len(r.Actions))
		}
		written := r.Actions[0].(rollout.UpdateDeploymentStatus).Deployment.Status
		conds = append(conds[:0], written.Conditions...)
		d.Status = written
		d.Status.Conditions = conds
		if r, err = pl.Plan(s); err != nil || len(r.Actions) != 0 {
			b.Fatalf("second sync: %v, %d actions", err, len(r.Actions))
		}
	}
	d.Status = before
}

// BenchmarkPlannerAfterStatusWrite is the second sync of
// BenchmarkPlannerStatusWrite alone: the sync a status write triggers, which
// writes nothing, planned again and again.
func BenchmarkPlannerAfterStatusWrite(b *testing.B) {
	s := statusWriteSnapshot(b)
	d := s.Deployment
	before := *d.Status.DeepCopy()
	pl := rollout.Planner{Options: rollout.Options{Quiet: true}}
	r, err := pl.Plan(s)
	if err != nil || len(r.Actions) != 1 {
		b.Fatalf("first sync: %v, %d actions", err, len(r.Actions))
	}
	d.Status = *r.Actions[0].(rollout.UpdateDeploymentStatus).Deployment.Status.DeepCopy()
	b.ReportAllocs()
	for b.Loop() {
		if r, err = pl.Plan(s); err != nil || len(r.Actions) != 0 {
			b.Fatalf("second sync: %v, %d actions", err, len(r.Actions))
		}
	}
	d.Status = before
}

// BenchmarkPlannerStatusOnly is a sync whose only write is the
// Deployment's status, planned again and again with one rollout.Planner,
// as a simulator plans the syncs that ReplicaSet status changes trigger
// during a rollout: resumed after the old ReplicaSets' scale-down (no
// availableReplicas moved since the last plan), resumed at it (an old
// ReplicaSet's availableReplicas alternates between two values that
// scale nothing), and planned in full (a ReplicaSet's labels alternate
// between two equal maps, which the Planner cannot tell are equal).
func BenchmarkPlannerStatusOnly(b *testing.B) {
	for _, c := range []struct {
		name string
		move func(s rollout.Snapshot, i int, labels [2]map[string]string)
	}{
		{"resume=cleanup", func(rollout.Snapshot, int, [2]map[string]string) {}},
		{"resume=old", func(s rollout.Snapshot, i int, _ [2]map[string]string) {
			s.ReplicaSets[1].Status.AvailableReplicas = *s.ReplicaSets[1].Spec.Replicas - 1 - int32(i&1)
		}},
		{"full", func(s rollout.Snapshot, i int, labels [2]map[string]string) {
			s.ReplicaSets[1].Labels = labels[i&1]
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := statusWriteSnapshot(b)
			rs := s.ReplicaSets[1]
			labels := [2]map[string]string{rs.Labels, maps.Clone(rs.Labels)}
			pl := rollout.Planner{Options: rollout.Options{Quiet: true}}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				c.move(s, i, labels)
				i++
				r, err := pl.Plan(s)
				if err != nil || len(r.Actions) != 1 || len(r.Events) != 0 {
					b.Fatalf("%v, %d actions, %d events", err, len(r.Actions), len(r.Events))
				}
				if _, ok := r.Actions[0].(rollout.UpdateDeploymentStatus); !ok {
					b.Fatalf("%T, not a status write", r.Actions[0])
				}
			}
		})
	}
}
