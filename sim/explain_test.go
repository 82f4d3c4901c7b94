package sim

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestExplainOnlyAddsLines runs every bundled scenario with and without
// Options.Explain: the explained trace is the plain one with "sync" lines
// added, frame for frame.
func TestExplainOnlyAddsLines(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(scenarioDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			sc, err := LoadScenario(file)
			if err != nil {
				t.Fatal(err)
			}
			plain, err := Run(sc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			explained, err := Run(sc, Options{Explain: true})
			if err != nil {
				t.Fatal(err)
			}
			var kept []string
			syncs := 0
			for _, l := range strings.SplitAfter(explained.Text(), "\n") {
				if strings.HasPrefix(l, "  sync ") {
					syncs++
					continue
				}
				kept = append(kept, l)
			}
			if diff := cmp.Diff(plain.Text(), strings.Join(kept, "")); diff != "" {
				t.Errorf("the explained trace without its sync lines differs from the plain trace (-plain +explained):\n%s", diff)
			}
			if syncs == 0 {
				t.Errorf("no sync lines in the explained trace")
			}
			if diff := cmp.Diff(plain.Summary, explained.Summary); diff != "" {
				t.Errorf("summary differs (-plain +explained):\n%s", diff)
			}
		})
	}
}

// TestExplainJSON checks the syncs of the JSON trace: only with Explain,
// the writes with their reasons and a sync that wrote nothing with why.
func TestExplainJSON(t *testing.T) {
	sc, err := LoadScenario(filepath.Join(scenarioDir, "surge1-unavailable0.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, explain := range []bool{false, true} {
		res, err := Run(sc, Options{Explain: explain})
		if err != nil {
			t.Fatal(err)
		}
		b, err := res.JSON()
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Frames []struct {
				Syncs []Sync `json:"syncs"`
			} `json:"frames"`
		}
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		var scaleDown, stay, stopped int
		for _, f := range out.Frames {
			for _, x := range f.Syncs {
				for _, a := range x.Actions {
					if strings.HasPrefix(a, "scale down api-") && strings.Contains(a, "available 6 > minAvailable 5, may remove 1") {
						scaleDown++
					}
				}
				if len(x.Actions) == 0 && len(x.Notes) == 1 && x.Notes[0] == "old replica sets stay: maxScaledDown 0 = all pods 6 - minAvailable 5 - unavailable new pods 1" {
					stay++
				}
				if x.Stopped {
					stopped++
				}
			}
		}
		if !explain {
			if scaleDown+stay+stopped != 0 {
				t.Errorf("without Explain: %d scale-downs, %d notes, %d stops explained; want none", scaleDown, stay, stopped)
			}
			continue
		}
		// 5 old pods go one by one; each step waits with maxScaledDown 0
		// until the new pod is available; the first syncs of both
		// rollouts stop after recording the revision.
		if scaleDown != 5 || stay == 0 || stopped != 2 {
			t.Errorf("with Explain: %d scale-downs (want 5), %d notes on old replica sets staying (want some), %d stopped syncs (want 2)", scaleDown, stay, stopped)
		}
	}
}

// TestExplainStaleDesired: a state whose only active ReplicaSet, of the
// old template and at spec.replicas, has a desired-replicas annotation
// that says otherwise: every sync is a scaling event that writes nothing,
// and -explain says so and names the fix, instead of "waiting for pods";
// without the annotation the rollout starts.
func TestExplainStaleDesired(t *testing.T) {
	w := newStateWorld(3, 3, 0)
	w.old.Annotations["deployment.kubernetes.io/desired-replicas"] = "2"
	st := w.state()
	st.ReplicaSets = st.ReplicaSets[:1] // only the old one
	sc := NewScenario("stale").WithState(st)
	sc.Until = Duration(time.Minute)
	res, err := Run(sc, Options{Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	want := `sync web wrote nothing: a scaling event that changes nothing, at every sync: replica set web-h1 has deployment.kubernetes.io/desired-replicas "2" but spec.replicas is 3, and already has 3 replicas, so the sync ends before the rollout, which never starts (remove the annotation: kubectl annotate rs web-h1 -n default deployment.kubernetes.io/desired-replicas-)`
	if text := res.Text(); !strings.Contains(text, want) || res.Summary.ScalingSteps != 0 {
		t.Errorf("trace lacks %q (or the rollout moved):\n%s", want, text)
	}
	delete(w.old.Annotations, "deployment.kubernetes.io/desired-replicas")
	sc = NewScenario("fixed").WithState(st)
	sc.Until = Duration(time.Minute)
	res, err = Run(sc, Options{Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Text(); strings.Contains(text, "scaling event that changes nothing") || res.Summary.ScalingSteps == 0 {
		t.Errorf("without the annotation the rollout should start:\n%s", text)
	}
}
