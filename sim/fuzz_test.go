package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseScenario: no input makes the scenario parser panic, and every
// refusal says where (a line, a field path or the scenario name).
func FuzzParseScenario(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(scenarioDir, "*.yaml"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("name: x\nsteps: [{at: -1s, scale: -3}]\n"))
	f.Add([]byte("{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := ParseScenario(data)
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("empty error")
			}
			return
		}
		if sc == nil {
			t.Fatal("nil scenario without an error")
		}
	})
}
