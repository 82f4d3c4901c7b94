package sim

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// durationFields are the names of the run JSON's durations.
var durationFields = []string{"at", "lastUpdate", "lastTransition", "completedAt", "timeToComplete", "belowMinAvailable", "start", "end", "firstSeen", "lastSeen"}

// TestJSONFormat: the run JSON of every bundled scenario (with the write
// log, explanations and invariants) says its format version and view, has
// beside every duration the same as a Go duration string, and its frames
// decoded and replayed give the full view's state at every frame.
func TestJSONFormat(t *testing.T) {
	forEachScenario(t, func(t *testing.T, sc *Scenario) {
		res, err := Run(sc, Options{Writes: true, Explain: true, Check: true})
		if err != nil {
			t.Fatal(err)
		}
		b, err := res.JSON()
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if doc["formatVersion"] != float64(FormatVersion) || doc["view"] != "changes" {
			t.Errorf("formatVersion %v, view %v", doc["formatVersion"], doc["view"])
		}
		n := checkDurations(t, "", doc)
		if n == 0 {
			t.Error("no duration found")
		}
		var decoded struct {
			Frames []Frame `json:"frames"`
		}
		if err := json.Unmarshal(b, &decoded); err != nil {
			t.Fatal(err)
		}
		full, err := Run(sc, Options{FullView: true})
		if err != nil {
			t.Fatal(err)
		}
		tr := Trace{Frames: decoded.Frames}
		if d := cmp.Diff(full.Trace.Final(), tr.Final()); d != "" {
			t.Errorf("the JSON's frames replayed (-full view +JSON):\n%s", d)
		}
	})
}

// checkDurations checks every duration under v (at path) and returns how
// many it saw.
func checkDurations(t *testing.T, path string, v any) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			for _, d := range durationFields {
				if k != d {
					continue
				}
				n++
				ns, ok := x.(float64)
				text, has := v[k+"Text"]
				if !ok || !has || text != time.Duration(ns).String() {
					t.Errorf("%s.%s: %v beside %sText %v", path, k, x, k, text)
				}
			}
			n += checkDurations(t, path+"."+k, x)
		}
	case []any:
		for _, x := range v {
			n += checkDurations(t, path+"[]", x)
		}
	}
	return n
}

// TestJSONDurationsOfFindings: violations and missed steps, which no
// bundled scenario has, carry their time as a Go duration string too.
func TestJSONDurationsOfFindings(t *testing.T) {
	for _, v := range []any{Violation{At: 1500 * time.Millisecond, Invariant: InvSurge}, MissedStep{Step: 2, At: 1500 * time.Millisecond}} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"atText":"1.5s"`) || !strings.Contains(string(b), `"at":1500000000`) {
			t.Errorf("%T: %s", v, b)
		}
	}
}
