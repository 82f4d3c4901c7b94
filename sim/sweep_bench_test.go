package sim

import (
	"runtime"
	"strconv"
	"testing"
)

// BenchmarkSweep runs one sweep (1 Deployment × 1,000 replicas rolled to
// a new image; maxSurge 1 and 25 %, 4 seeds: 8 runs) one run after the
// other and on GOMAXPROCS goroutines, in the same process, so that the
// two figures share the machine's state. Both must give the same rows.
func BenchmarkSweep(b *testing.B) {
	sc := benchScenario(b, 1, 1000, 10)
	params, err := ParseSweep("maxSurge=1,25%")
	if err != nil {
		b.Fatal(err)
	}
	seeds := []uint64{1, 2, 3, 4}
	var want string
	for _, par := range []int{1, runtime.GOMAXPROCS(0)} {
		name := "serial"
		if par > 1 {
			name = "parallel-" + strconv.Itoa(par)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r, err := RunSweep(sc, params, seeds, Options{}, SweepConfig{Parallel: par})
				if err != nil {
					b.Fatal(err)
				}
				got := DescribeSweep(r.Rows)
				if want == "" {
					want = got
				} else if got != want {
					b.Fatalf("parallel %d:\n%s\nserial:\n%s", par, got, want)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/float64(len(seeds)*2), "ms/run")
		})
	}
}
