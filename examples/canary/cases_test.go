package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim"
	"github.com/deploymath/deploymath/sim/simtest"
)

// The cases the property test found, kept as scenario files under
// testdata/simtest: the planted bug's, and the real bugs found while this
// example was written, each replayed with simtest.Replay.

// plantedBug is the bug the property test must catch: the stable side
// shrinks as if the canary's pods were all available (its scale-down
// budget and the available pods it counts ignore the canary's
// unavailable pods).
func plantedBug(c rollout.ReplicaSet) rollout.ReplicaSet {
	c.AvailableReplicas = c.Replicas
	return c
}

// plantedCase is the case rapid shrank the planted bug to, kept with the
// trace of its run (-update rewrites the trace from the kept case; a new
// search writes its case where TestPlantedBugCaught's report says).
const plantedCase = "testdata/simtest/planted-bug.yaml"

// The property test catches the planted bug: rapid finds a case, shrinks
// it and writes it as a scenario file.
func TestPlantedBugCaught(t *testing.T) {
	if err := flag.Set("rapid.nofailfile", "true"); err != nil { // the failure is expected
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = flag.Set("rapid.nofailfile", "false") })
	cfg := config(plantedBug)
	cfg.Dir = t.TempDir()
	rec := &recorder{name: strings.TrimSuffix(filepath.Base(plantedCase), ".yaml")}
	simtest.Check(rec, cfg)
	if !rec.failed {
		t.Fatal("the property test passed the planted bug")
	}
	file := filepath.Join(cfg.Dir, filepath.Base(plantedCase))
	for _, want := range []string{"violated canary: availability", fmt.Sprintf("simtest.Replay(t, %q, cfg)", file)} {
		if !strings.Contains(rec.out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, rec.out.String())
		}
	}
	if _, err := os.Stat(file); err != nil {
		t.Error(err)
	}
}

// The kept case replays the planted bug's failure with the trace of the
// run rapid found, and the shipped controller passes it.
func TestPlantedBugReplays(t *testing.T) {
	sc, err := sim.LoadScenario(plantedCase)
	if err != nil {
		t.Fatal(err)
	}
	c, err := simtest.Run(sc, config(plantedBug))
	if err == nil || !strings.Contains(err.Error(), "violated canary: availability") {
		t.Fatalf("the planted bug's case replays with %v", err)
	}
	goldenFile := strings.TrimSuffix(plantedCase, ".yaml") + ".golden"
	if *update {
		if err := os.WriteFile(goldenFile, []byte(c.Result.Text()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	golden, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Result.Text(); got != string(golden) {
		t.Errorf("the replay's trace differs from the kept one:\n--- kept\n%s\n--- replay\n%s", golden, got)
	}
	simtest.Replay(t, plantedCase, config(nil))
}

// recorder is a rapid.TB that records what rapid reports.
type recorder struct {
	name   string
	failed bool
	out    strings.Builder
}

func (*recorder) Helper()                     {}
func (r *recorder) Name() string              { return r.name }
func (r *recorder) Logf(f string, a ...any)   { fmt.Fprintf(&r.out, f+"\n", a...) }
func (r *recorder) Log(a ...any)              { fmt.Fprintln(&r.out, a...) }
func (r *recorder) Skipf(f string, a ...any)  { r.Logf(f, a...) }
func (r *recorder) Skip(a ...any)             { r.Log(a...) }
func (*recorder) SkipNow()                    {}
func (r *recorder) Errorf(f string, a ...any) { r.failed = true; r.Logf(f, a...) }
func (r *recorder) Error(a ...any)            { r.failed = true; r.Log(a...) }
func (r *recorder) Fatalf(f string, a ...any) { r.Errorf(f, a...) }
func (r *recorder) Fatal(a ...any)            { r.Error(a...) }
func (r *recorder) FailNow()                  { r.failed = true }
func (r *recorder) Fail()                     { r.failed = true }
func (r *recorder) Failed() bool              { return r.failed }

// A case the property test found while the controller stopped queueing
// a Canary for its own status writes: a reached step waited for a
// ReplicaSet to change, and with nothing changing the rollout halted at
// its deadline. The reconcile now goes on to the next step at once.
func TestStallAfterStep(t *testing.T) {
	simtest.Replay(t, "testdata/simtest/stall-after-step.yaml", config(nil))
}

// Another: the reconcile that started a rollout (recorded in the status)
// returned, and, with a write conflict injected into an earlier attempt,
// nothing queued the Canary again: the rollout never began, nor halted.
// The reconcile now goes on to the decision at once.
func TestStallAfterStart(t *testing.T) {
	simtest.Replay(t, "testdata/simtest/stall-after-start.yaml", config(nil))
}

// A third: with an informer delay, the status write of a promotion was
// refused (a stale Canary) after the old stable ReplicaSet was deleted;
// the next reconcile found no stable side and created one for the
// newest template at full size (14 pods for 7 replicas + maxSurge 4).
// A promotion is now recorded before the deletion, and a canary without
// a stable side becomes the stable one.
func TestPromotionStatusLost(t *testing.T) {
	simtest.Replay(t, "testdata/simtest/promotion-status-lost.yaml", config(nil))
}
