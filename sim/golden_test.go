package sim

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden traces in testdata/scenarios")

const scenarioDir = "../testdata/scenarios"

// explainGoldens are the scenarios that also have a trace with
// Options.Explain, NAME.explain.golden.
var explainGoldens = []string{"crashloop-deadline-undo", "nginx-rolling-update", "stall-explained", "surge1-unavailable0"}

// fullGoldens are the scenarios that also have a trace with
// Options.FullView, NAME.full.golden (TestChangesReplayToFullView checks
// the full view of every scenario against its trace of changes).
var fullGoldens = []string{"nginx-rolling-update"}

// TestGolden runs every bundled scenario and compares its text trace with
// NAME.golden, for explainGoldens its trace with Options.Explain with
// NAME.explain.golden, and for fullGoldens its full view with
// NAME.full.golden. Run `go test ./sim -update` to rewrite them.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(scenarioDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scenarios found")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			sc, err := LoadScenario(file)
			if err != nil {
				t.Fatal(err)
			}
			base := strings.TrimSuffix(file, ".yaml")
			checkGolden(t, sc, Options{Check: true}, base+".golden")
			if slices.Contains(explainGoldens, name) {
				checkGolden(t, sc, Options{Check: true, Explain: true}, base+".explain.golden")
			}
			if slices.Contains(fullGoldens, name) {
				checkGolden(t, sc, Options{Check: true, FullView: true}, base+".full.golden")
			}
		})
	}
}

// TestGoldenWithoutChecks: without the invariant checker, whose captures
// make the simulator copy ReplicaSets it would otherwise scale in place,
// every bundled scenario gives the same JSON (frames, summary, outcomes,
// write log, events) as with it, violations and warnings aside (there are
// none in the bundled scenarios' goldens either way).
func TestGoldenWithoutChecks(t *testing.T) {
	forEachScenario(t, func(t *testing.T, sc *Scenario) {
		var out [2]string
		for i, o := range []Options{{Check: true, Writes: true}, {Writes: true}} {
			res, err := Run(sc, o)
			if err != nil {
				t.Fatal(err)
			}
			res.Violations, res.Warnings = nil, nil
			b, err := res.JSON()
			if err != nil {
				t.Fatal(err)
			}
			out[i] = string(b)
		}
		if diff := cmp.Diff(out[0], out[1]); diff != "" {
			t.Errorf("without checks (-with +without):\n%s", diff)
		}
	})
}

// TestExplainGoldensExist fails on an explain or full-view golden of a
// scenario that is not in explainGoldens or fullGoldens (it would never be
// compared) or that does not exist.
func TestExplainGoldensExist(t *testing.T) {
	for suffix, names := range map[string][]string{".explain.golden": explainGoldens, ".full.golden": fullGoldens} {
		files, err := filepath.Glob(filepath.Join(scenarioDir, "*"+suffix))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if name := strings.TrimSuffix(filepath.Base(f), suffix); !slices.Contains(names, name) {
				t.Errorf("%s: %s has no entry for %s goldens: add it or remove the file", f, name, suffix)
			}
		}
		for _, name := range names {
			if _, err := os.Stat(filepath.Join(scenarioDir, name+".yaml")); err != nil {
				t.Errorf("%s goldens: %v", suffix, err)
			}
		}
	}
}

// checkGolden runs sc with o and compares its text with the file golden,
// or rewrites the file with -update.
func checkGolden(t *testing.T, sc *Scenario, o Options, golden string) {
	t.Helper()
	res, err := Run(sc, o)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Text()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./sim -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("trace %s differs (-want +got):\n%s", filepath.Base(golden), diff)
	}
}

// forEachScenario runs f as a subtest on every bundled scenario, named
// after its file.
func forEachScenario(t *testing.T, f func(t *testing.T, sc *Scenario)) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(scenarioDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatal(err, files)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".yaml"), func(t *testing.T) {
			sc, err := LoadScenario(file)
			if err != nil {
				t.Fatal(err)
			}
			f(t, sc)
		})
	}
}
