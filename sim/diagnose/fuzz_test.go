package diagnose

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/sim/snapshot"
)

// TestTruncatedDumps reads every prefix of whole lines of the dumps (one
// in five) and of their first 2,000 bytes: each is an error naming the
// input, or a snapshot Explain diagnoses without panicking.
func TestTruncatedDumps(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(clusters, "*.yaml"))
	json1, _ := filepath.Glob(filepath.Join(clusters, "*.json"))
	for _, f := range append(files, json1...) {
		if strings.Contains(f, ".explain.") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(data), "\n")
		var inputs []string
		for i := 0; i < len(lines); i += 5 {
			inputs = append(inputs, strings.Join(lines[:i], ""))
		}
		for i := 0; i < min(len(data), 2000); i += 37 {
			inputs = append(inputs, string(data[:i]))
		}
		for _, in := range inputs {
			explainAny(t, []byte(in))
		}
	}
}

func explainAny(t *testing.T, data []byte) {
	s, err := snapshot.Parse(data, "dump", snapshot.Options{})
	if err != nil {
		if !strings.HasPrefix(err.Error(), "dump") {
			t.Fatalf("error does not name the input: %v", err)
		}
		return
	}
	r := Explain(s, Options{})
	_ = r.Text()
	if _, err := json.Marshal(r); err != nil {
		t.Fatal(err)
	}
}

func FuzzExplain(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(clusters, "*.yaml"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil && !strings.Contains(file, ".explain.") {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { explainAny(t, data) })
}
