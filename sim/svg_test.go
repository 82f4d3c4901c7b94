package sim

import (
	"regexp"
	"strings"
	"testing"
)

// The chart tells the story: axis titles, ReplicaSets by revision, a
// marker for each step and for the deadline exceeded, round ticks, and a
// time axis that ends shortly after the last change, not at the limit.
func TestSVGTellsTheStory(t *testing.T) {
	sc, err := LoadScenario("../testdata/scenarios/crashloop-deadline-undo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	svg := string(SVG(res))
	for _, want := range []string{
		"time since the start of the scenario", ">pods<",
		"rev 2: web-", "rev 3: web-", "available pods (all)",
		"1: set image web web=web:v2", "deadline exceeded", "2: rollout undo web",
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	var ticks []string
	for _, m := range regexp.MustCompile(`text-anchor="middle">([0-9hms.]+)</text>`).FindAllStringSubmatch(svg, -1) {
		ticks = append(ticks, m[1])
	}
	if got := strings.Join(ticks, " "); got != "0s 30s 1m0s 1m30s 2m0s 2m30s 3m0s" {
		t.Errorf("time ticks %q, want round ones up to shortly after the undo converged (run limit %v)", got, sc.Until)
	}
}
