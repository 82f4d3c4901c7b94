package sim

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInformerDelay: with cluster.informerDelay the Deployment controller
// plans from a cache that lags the store, so its writes meet 409
// Conflicts the store-reading controller never meets, as the real
// controller does (on pause-edit-resume the real v1.37 controller met 11
// where the simulator without a delay meets 4; with 10–20 ms here, 9–15);
// the rollout still ends in the same state.
func TestInformerDelay(t *testing.T) {
	sc, err := LoadScenario(filepath.Join(scenarioDir, "pause-edit-resume.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	conflicts := func(delay time.Duration) (int, *Result) {
		c := *sc
		c.Cluster.InformerDelay = Duration(delay)
		res, err := Run(&c, Options{})
		if err != nil {
			t.Fatal(err)
		}
		text := res.Text()
		return strings.Count(text, "409 Conflict") + strings.Count(text, "the object has been modified"), res
	}
	n0, r0 := conflicts(0)
	n20, r20 := conflicts(20 * time.Millisecond)
	if n0 != 4 || n20 != 15 {
		t.Errorf("conflicts without a delay %d, with 20ms %d; want 4 and 15", n0, n20)
	}
	last := func(r *Result) string {
		var b strings.Builder
		for _, d := range r.Trace.Final() {
			fmt.Fprintf(&b, "%s rev %s replicas %d updated %d available %d;", d.Name, d.Revision, d.Replicas, d.Updated, d.Available)
			for _, rs := range d.ReplicaSets {
				fmt.Fprintf(&b, " %s %d/%d", rs.Name, rs.Desired, rs.Available)
			}
		}
		return b.String()
	}
	if a, b := last(r0), last(r20); a != b {
		t.Errorf("final state differs:\nwithout delay %s\nwith 20ms     %s", a, b)
	}
	if !r20.Summary.Completed {
		t.Errorf("with a delay the rollout did not complete: %s", DescribeSummary(&r20.Summary))
	}
}
