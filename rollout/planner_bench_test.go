package rollout_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/deploymath/deploymath/rollout"
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
// Planner: none for a converged sync, and for BenchmarkPlan's mid-rollout
// sync only what the Result keeps (the written ReplicaSet, its annotations
// and size, the boxed actions, the event messages, the new conditions).
func TestPlannerAllocations(t *testing.T) {
	for _, c := range []struct {
		name string
		s    rollout.Snapshot
		max  float64
	}{
		{"converged", convergedSnapshot(1), 0},
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
