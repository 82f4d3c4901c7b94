package sim

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEventAggregation: the events the Deployment controller records go
// through client-go's recorder model. On pause-edit-resume the tenth
// distinct ScalingReplicaSet message within 10 minutes starts a combined
// Event, which then counts the rest (one create, three patches); the raw
// events stay in the frames, each with the write it caused.
func TestEventAggregation(t *testing.T) {
	sc, err := LoadScenario(filepath.Join(scenarioDir, "pause-edit-resume.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var raw []TraceEvent
	for _, f := range res.Trace.Frames {
		raw = append(raw, f.Events...)
	}
	if len(raw) != 13 || len(res.Events) != 10 {
		t.Fatalf("%d raw events, %d Events; want 13 and 10", len(raw), len(res.Events))
	}
	var ops []string
	for _, e := range raw {
		if e.Write == nil {
			t.Fatalf("raw event %q without its write", e.Message)
		}
		op := e.Write.Op
		if e.Write.Combined {
			op += "+combined"
		}
		ops = append(ops, op)
	}
	want := "create create create create create create create create create create+combined patch+combined patch+combined patch+combined"
	if got := strings.Join(ops, " "); got != want {
		t.Errorf("writes %s\nwant   %s", got, want)
	}
	last := res.Events[9]
	if last.Count != 4 || last.Message != "(combined from similar events): Scaled down replica set web-5669f7dd7f from 1 to 0" || last.Object != "deployment/web" {
		t.Errorf("combined Event = %+v", last)
	}
	for _, e := range res.Events[:9] {
		if e.Count != 1 || strings.HasPrefix(e.Message, "(combined") {
			t.Errorf("Event %+v: want a single raw event", e)
		}
	}
	if got := DescribeEvents(res.Events, res.Summary.End); !strings.Contains(got, "4s          Normal   ScalingReplicaSet   deployment/web   (combined from similar events): Scaled down replica set web-5669f7dd7f from 1 to 0   7s           4\n") {
		t.Errorf("DescribeEvents:\n%s", got)
	}
	if res, err := Run(sc, Options{NoTrace: true}); err != nil || res.Events != nil {
		t.Errorf("NoTrace: %d Events, err %v; want none", len(res.Events), err)
	}
}
