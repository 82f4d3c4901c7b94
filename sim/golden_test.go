package sim

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden traces in testdata/scenarios")

const scenarioDir = "../testdata/scenarios"

// TestGolden runs every bundled scenario and compares its text trace with
// NAME.golden. Run `go test ./sim -update` to rewrite them.
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
			res, err := Run(sc, Options{Check: true})
			if err != nil {
				t.Fatal(err)
			}
			got := res.Text()
			golden := strings.TrimSuffix(file, ".yaml") + ".golden"
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
				t.Errorf("trace of %s differs (-want +got):\n%s", name, diff)
			}
		})
	}
}
