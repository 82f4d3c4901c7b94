package sweep

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/sim"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The sweep chart shows, for every combination named with what its
// percentages resolve to, the spread of its time to complete over the
// seeds (fastest to slowest, p50, mean: those of its row) and its
// completed runs out of all.
func TestSVGSpread(t *testing.T) {
	sc, err := sim.LoadScenario(scenarioDir + "/nginx-rolling-update.yaml")
	if err != nil {
		t.Fatal(err)
	}
	params, err := Parse("maxSurge=0,25%;maxUnavailable=1,25%")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(sc, params, []uint64{1, 2, 3, 4, 5}, sim.Options{}, Config{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	rows := rep.Rows
	svg := string(SVG(sc.Name, rows))
	var labels []string
	for _, m := range regexp.MustCompile(`data-row="\d+">([^<]*)<`).FindAllStringSubmatch(svg, -1) {
		labels = append(labels, m[1])
	}
	want := "maxSurge=0 maxUnavailable=1|maxSurge=0 maxUnavailable=25% (1)|maxSurge=25% (1) maxUnavailable=1|maxSurge=25% (1) maxUnavailable=25% (0)"
	if got := strings.Join(labels, "|"); got != want {
		t.Errorf("rows %q, want %q", got, want)
	}
	for j, r := range rows {
		// the fastest and slowest of the combination's runs
		lo, hi := time.Duration(-1), time.Duration(0)
		for _, run := range rep.Runs[j*5 : (j+1)*5] {
			d := run.Summary.TimeToComplete
			if lo < 0 || d < lo {
				lo = d
			}
			hi = max(hi, d)
		}
		if r.Completed != 5 || r.TimeToCompleteMin != lo || r.TimeToCompleteMax != hi || lo >= hi {
			t.Errorf("%s: completed %d, min %s max %s; the runs' %s %s", r.Params, r.Completed, r.TimeToCompleteMin, r.TimeToCompleteMax, lo, hi)
		}
		for _, mark := range []string{
			fmt.Sprintf(`data-spread="%s %s"`, r.TimeToCompleteMin, r.TimeToCompleteMax),
			fmt.Sprintf(`data-p50="%s"`, r.TimeToCompleteP50),
			fmt.Sprintf(`data-mean="%s"`, r.TimeToComplete),
			`data-completed="5/5"`,
		} {
			if !strings.Contains(svg, mark) {
				t.Errorf("%s: the chart lacks %s", r.Params, mark)
			}
		}
	}
}

// A row without a completed run says so and counts its runs; one with
// some completed counts them.
func TestSVGIncomplete(t *testing.T) {
	svg := string(SVG("s", []Row{
		{Params: "maxSurge=1", Runs: 3},
		{Params: "maxSurge=2", Runs: 3, Completed: 2, TimeToComplete: 9 * time.Second, TimeToCompleteP50: 8 * time.Second,
			TimeToCompleteMin: 8 * time.Second, TimeToCompleteMax: 10 * time.Second},
	}))
	for _, want := range []string{"no run completed", `data-completed="0/3"`, `data-completed="2/3"`, `data-spread="8s 10s"`} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart lacks %s", want)
		}
	}
}

// A percentage that resolves differently for the scenario's Deployments
// names each.
func TestResolvedName(t *testing.T) {
	params := []Param{{Name: "maxSurge"}, {Name: "replicas"}}
	vals := []intstr.IntOrString{intstr.FromString("25%"), intstr.FromInt32(4)}
	got, percent := resolvedName(params, vals, []limits{{"web", 1, 1}, {"api", 3, 2}})
	if want := "maxSurge=25% (1 web, 3 api) replicas=4"; got != want || !percent {
		t.Errorf("%q %v, want %q", got, percent, want)
	}
	got, _ = resolvedName(params, vals, []limits{{"web", 1, 1}, {"api", 1, 2}})
	if want := "maxSurge=25% (1) replicas=4"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
