package sweep

import (
	"strings"
	"testing"

	"github.com/deploymath/deploymath/sim"
)

// TestPeakRunningWithinSurge: the sweep's peak is the figure maxSurge
// bounds. The docs' nginx Deployment (3 replicas) with maxSurge=0 never
// runs more than 3 pods, though an old pod still terminating beside 3
// running ones makes 4 pods in the cluster; the table and the chart show
// the 3 and the terminating pods apart, and the cluster-wide count stays
// in the report as peakPods.
func TestPeakRunningWithinSurge(t *testing.T) {
	sc, err := sim.LoadScenario(scenarioDir + "/nginx-rolling-update.yaml")
	if err != nil {
		t.Fatal(err)
	}
	params, err := Parse("maxSurge=0,1;maxUnavailable=1")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Rows(sc, params, []uint64{1, 2, 3}, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, surge := range []int{0, 1} {
		r := rows[i]
		if r.PeakRunning != 3+surge {
			t.Errorf("%s: peak running %d, want replicas + maxSurge = %d", r.Params, r.PeakRunning, 3+surge)
		}
		if r.PeakTerminating < 1 || r.PeakPods <= r.PeakRunning {
			t.Errorf("%s: peak terminating %d, peak pods %d: want old pods seen terminating beside the running ones", r.Params, r.PeakTerminating, r.PeakPods)
		}
	}
	table := Describe(rows)
	if !strings.Contains(table, "PEAK RUNNING") || !strings.Contains(table, "PEAK TERMINATING") || strings.Contains(table, "PEAK PODS") {
		t.Errorf("the table's columns:\n%s", table)
	}
	if svg := string(SVG("nginx", rows)); !strings.Contains(svg, "peak running (worst)") {
		t.Errorf("the chart does not name its peak column as running pods")
	}
}

// TestDescribeResolved: the table names a combination with what its
// percentages resolve to, as the chart and explain do.
func TestDescribeResolved(t *testing.T) {
	table := Describe([]Row{
		{Params: "maxSurge=25%", Resolved: "maxSurge=25% (1)", Runs: 1},
		{Params: "maxSurge=1", Runs: 1, Err: "boom"},
	})
	if !strings.Contains(table, "\nmaxSurge=25% (1)  ") || !strings.Contains(table, "\nmaxSurge=1        error: boom") {
		t.Errorf("the table:\n%s", table)
	}
}
