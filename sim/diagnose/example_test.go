package diagnose_test

import (
	"fmt"

	"github.com/deploymath/deploymath/sim/diagnose"
	"github.com/deploymath/deploymath/sim/snapshot"
)

// The crash-looping dump of testdata/clusters, written by a real v1.37.1
// control plane: kubectl's verdict and the first reason nothing moves.
func ExampleExplain() {
	s, err := snapshot.ReadFile("../../testdata/clusters/crashloop.yaml", snapshot.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := diagnose.Explain(s, diagnose.Options{})
	d := r.Deployments[0]
	fmt.Println(d.Status.Message)
	for _, b := range d.Blockers {
		fmt.Println(b.Reason, b.Count, b.Examples)
	}
	// Output:
	// deployment "checkout" exceeded its progress deadline
	// ProgressDeadlineExceeded 0 []
	// CrashLoopBackOff 1 [checkout-575b6f67d6-6mm2g]
	// ScaleDownBudget 0 []
}
