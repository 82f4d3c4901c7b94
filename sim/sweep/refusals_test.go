package sweep

import (
	"strings"
	"testing"

	"github.com/deploymath/deploymath/sim"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestSweepRefusals: sweeps that used to run and print error rows (or
// run for ever) are refused before anything runs.
func TestSweepRefusals(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"maxSurge=abc", `sweep[0]: maxSurge: invalid value "abc"`},
		{"maxSurge=-1", `invalid value "-1"`},
		{"maxSurge=1.5", `invalid value "1.5"`},
		{"maxSurge=1;maxUnavailable=0;maxSurge=2", "sweep[2]: parameter maxSurge given twice"},
		{"maxSurge=1,", "sweep[0]: maxSurge: empty value"},
		{"", "sweep: no parameters"},
		{"maxSurge=" + strings.Repeat("1,", 200) + "1;maxUnavailable=" + strings.Repeat("1,", 60) + "1", "more than 10000 combinations"},
	} {
		if _, err := Parse(c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%.40q) = %v, want %q", c.spec, err, c.want)
		}
	}
	sc, err := sim.LoadScenario(scenarioDir + "/nginx-rolling-update.yaml")
	if err != nil {
		t.Fatal(err)
	}
	zero := []Param{{Name: "maxSurge", Values: []intstr.IntOrString{intstr.FromInt32(0), intstr.FromInt32(1)}}, {Name: "maxUnavailable", Values: []intstr.IntOrString{intstr.FromInt32(0)}}}
	if _, err := Rows(sc, zero, []uint64{1}, sim.Options{}); err == nil || !strings.Contains(err.Error(), "sweep maxSurge=0 maxUnavailable=0: deployment nginx-deployment: spec.strategy.rollingUpdate.maxUnavailable") {
		t.Errorf("invalid combination: %v", err)
	}
	eleven := []Param{{Name: "maxSurge"}}
	for i := range int32(11) {
		eleven[0].Values = append(eleven[0].Values, intstr.FromInt32(i+1))
	}
	if _, err := Rows(sc, eleven, make([]uint64, MaxSeeds+1), sim.Options{}); err == nil || !strings.Contains(err.Error(), "sweep.MaxSeeds") {
		t.Errorf("too many seeds: %v", err)
	}
	if _, err := Rows(sc, eleven, make([]uint64, MaxSeeds), sim.Options{}); err == nil || !strings.Contains(err.Error(), "sweep.MaxRuns") {
		t.Errorf("too many runs: %v", err)
	}
}

const scenarioDir = "../../testdata/scenarios"
