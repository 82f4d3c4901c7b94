package correlator_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/deploymath/deploymath/sim/internal/correlator"
)

// Twelve scaling events with different messages on one Deployment, a second
// apart: the first nine are written as they are, the tenth and later become
// one combined Event whose count goes up.
func Example() {
	c, err := correlator.New(correlator.Options{})
	if err != nil {
		panic(err)
	}
	start := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	d := corev1.ObjectReference{Kind: "Deployment", Namespace: "default", Name: "web", APIVersion: "apps/v1"}
	for i := range 12 {
		a, err := c.Record(correlator.Input{
			Time:    start.Add(time.Duration(i) * time.Second),
			Object:  d,
			Source:  corev1.EventSource{Component: "deployment-controller"},
			Type:    corev1.EventTypeNormal,
			Reason:  "ScalingReplicaSet",
			Message: fmt.Sprintf("Scaled up replica set web-1 from %d to %d", i, i+1),
		})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-6s count=%d %s\n", a.Op, a.Event.Count, a.Event.Message)
	}
	fmt.Println("kubectl get events:")
	for _, e := range c.Events() {
		fmt.Printf("%s x%d %s\n", e.LastTimestamp.UTC().Format("15:04:05"), e.Count, e.Message)
	}
	// Output:
	// create count=1 Scaled up replica set web-1 from 0 to 1
	// create count=1 Scaled up replica set web-1 from 1 to 2
	// create count=1 Scaled up replica set web-1 from 2 to 3
	// create count=1 Scaled up replica set web-1 from 3 to 4
	// create count=1 Scaled up replica set web-1 from 4 to 5
	// create count=1 Scaled up replica set web-1 from 5 to 6
	// create count=1 Scaled up replica set web-1 from 6 to 7
	// create count=1 Scaled up replica set web-1 from 7 to 8
	// create count=1 Scaled up replica set web-1 from 8 to 9
	// create count=1 (combined from similar events): Scaled up replica set web-1 from 9 to 10
	// patch  count=2 (combined from similar events): Scaled up replica set web-1 from 10 to 11
	// patch  count=3 (combined from similar events): Scaled up replica set web-1 from 11 to 12
	// kubectl get events:
	// 10:00:00 x1 Scaled up replica set web-1 from 0 to 1
	// 10:00:01 x1 Scaled up replica set web-1 from 1 to 2
	// 10:00:02 x1 Scaled up replica set web-1 from 2 to 3
	// 10:00:03 x1 Scaled up replica set web-1 from 3 to 4
	// 10:00:04 x1 Scaled up replica set web-1 from 4 to 5
	// 10:00:05 x1 Scaled up replica set web-1 from 5 to 6
	// 10:00:06 x1 Scaled up replica set web-1 from 6 to 7
	// 10:00:07 x1 Scaled up replica set web-1 from 7 to 8
	// 10:00:08 x1 Scaled up replica set web-1 from 8 to 9
	// 10:00:11 x3 (combined from similar events): Scaled up replica set web-1 from 11 to 12
}
