package rollout_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/deploymath/deploymath/rollout"
)

// benchSets is n ReplicaSets of a 10·n-replica rollout in flight.
func benchSets(n int) (rollout.Params, []rollout.ReplicaSet) {
	p := rolling(int32(10*n), "25%", "25%")
	p.RevisionHistoryLimit = i32p(int32(n / 2))
	rss := make([]rollout.ReplicaSet, n)
	for i := range rss {
		rss[i] = rollout.ReplicaSet{
			Name: fmt.Sprintf("web-%d", i), Created: t0.Add(time.Duration(i) * time.Minute), Revision: int64(i + 1),
			Replicas: 10, StatusReplicas: 10, ReadyReplicas: 9, AvailableReplicas: 8, Generation: 1, ObservedGeneration: 1,
		}
	}
	return p, rss
}

var sinkInt int32

func BenchmarkBlocks(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		p, rss := benchSets(n)
		newRS := rss[n-1]
		old := rss[:n-1]
		b.Run(fmt.Sprintf("NewRSNewReplicas/rs=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s, _ := rollout.NewRSNewReplicas(&p, rss, n-1)
				sinkInt = s.Size
			}
		})
		b.Run(fmt.Sprintf("MaxScaledDown/rs=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bu, _ := rollout.MaxScaledDown(&p, rss, n-1)
				sinkInt = bu.MaxScaledDown()
			}
		})
		b.Run(fmt.Sprintf("Proportions/rs=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			up := p
			up.Replicas *= 2
			o := rollout.ProportionOptions{Shares: make([]rollout.Share, 0, n)}
			for b.Loop() {
				props, _ := rollout.Proportions(&up, p.Replicas, rss, o)
				sinkInt = int32(props.Added)
			}
		})
		b.Run(fmt.Sprintf("ScaleDownOld/rs=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var buf []rollout.Step
			for b.Loop() {
				s, _ := rollout.ScaleDownOld(buf, &p, old, &newRS)
				buf = s.Steps
				sinkInt = s.Total
			}
		})
		b.Run(fmt.Sprintf("HistoryToDelete/rs=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				h, _ := rollout.HistoryToDelete(&p, old)
				sinkInt = h.Excess()
			}
		})
		b.Run(fmt.Sprintf("Counts/rs=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c, _ := rollout.Counts(rss, n-1)
				sinkInt = c.AvailableReplicas
			}
		})
	}
}
