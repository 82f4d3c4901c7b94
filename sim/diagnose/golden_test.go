package diagnose

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/sim/snapshot"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the explain goldens in testdata/clusters")

const clusters = "../../testdata/clusters"

// TestGoldens explains each dump of testdata/clusters (written by a real
// v1.37.1 control plane, see sim/controlplane's TestWriteClusterDumps)
// and compares the text and the JSON with NAME.explain.txt and
// NAME.explain.json beside it. go test ./sim/diagnose -update rewrites
// them; review the diff.
func TestGoldens(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(clusters, "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if ext := filepath.Ext(f); strings.Contains(filepath.Base(f), ".explain.") || ext != ".yaml" && ext != ".json" {
			continue // goldens, README.md, what-next goldens, whatif/
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := snapshot.ReadFile(f, snapshot.Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := Explain(s, Options{})
			js, err := json.MarshalIndent(r, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			base := strings.TrimSuffix(f, filepath.Ext(f))
			for _, g := range []struct{ file, got string }{
				{base + ".explain.txt", r.Text()},
				{base + ".explain.json", string(js) + "\n"},
			} {
				if *update {
					if err := os.WriteFile(g.file, []byte(g.got), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(g.file)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(string(want), g.got); diff != "" {
					t.Errorf("%s (-want +got):\n%s", g.file, diff)
				}
			}
		})
	}
	if n < 6 {
		t.Errorf("found %d dumps, want at least 6", n)
	}
}

// TestPasteGoldens explains each paste of testdata/clusters/pastes (dumps
// as users post them: old apiVersions, fragments, cut-short Lists,
// broken lines, dumps without ReplicaSets or pods, kubectl describe and
// kubectl get's table as .txt; see the README there)
// and compares what `deploysim explain` prints, the report or the error,
// with NAME.explain.txt beside it (-update rewrites them).
func TestPasteGoldens(t *testing.T) {
	dir := filepath.Join(clusters, "pastes")
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if ext := filepath.Ext(f); strings.Contains(filepath.Base(f), ".explain.") || ext != ".yaml" && ext != ".json" && ext != ".txt" {
			continue
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			if s, err := snapshot.Parse(data, filepath.Base(f), snapshot.Options{}); err != nil {
				got = "error: " + err.Error() + "\n"
			} else {
				got = Explain(s, Options{}).Text()
			}
			golden := strings.TrimSuffix(f, filepath.Ext(f)) + ".explain.txt"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", golden, diff)
			}
		})
	}
	if n < 10 {
		t.Errorf("found %d pastes, want at least 10", n)
	}
}
