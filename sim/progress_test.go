package sim

import (
	"reflect"
	"testing"
	"time"
)

// TestOptionsProgress: the engine reports a run's progress as instants
// begin, ProgressEvery events or more apart, in order, and the run is the
// same with the hook as without it.
func TestOptionsProgress(t *testing.T) {
	sc := benchScenario(t, 1, 2000, 10)
	var got []Progress
	with, err := Run(sc, Options{Progress: func(p Progress) { got = append(got, p) }})
	if err != nil {
		t.Fatal(err)
	}
	without, err := Run(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(with.Summary, without.Summary) || with.Stats != without.Stats || with.Text() != without.Text() {
		t.Errorf("the hook changed the run: %+v vs %+v", with.Stats, without.Stats)
	}
	if len(got) < with.Stats.Events/(2*ProgressEvery) || len(got) > with.Stats.Events/ProgressEvery {
		t.Fatalf("%d calls for %d events", len(got), with.Stats.Events)
	}
	prev := Progress{}
	for i, p := range got {
		// a call comes at the first instant after ProgressEvery events:
		// at most a few hundred events later
		if p.Events < prev.Events+ProgressEvery || p.Events > prev.Events+ProgressEvery+1000 || p.Until != time.Hour || p.Pods <= 0 || p.Now <= prev.Now {
			t.Errorf("call %d: %+v after %+v", i, p, prev)
		}
		prev = p
	}
}
