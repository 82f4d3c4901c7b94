package restart_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/deploymath/deploymath/restart"
)

// catalog returns an engine holding nc ConfigMaps and nw opted-in
// Deployments (workload i uses configs 2i and 2i+1 modulo nc), with every
// checksum recorded and the queue empty, and the time it reached that state.
func catalog(b *testing.B, nc, nw int) (*restart.Engine, time.Time) {
	b.Helper()
	e, err := restart.New(restart.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	for i := range nc {
		cm := configMap("default", fmt.Sprint("c", i), map[string]string{"key": fmt.Sprint("value-", i), "other": "x"})
		cm.ResourceVersion = "1"
		must(b, e.Observe(cm, t0))
	}
	for i := range nw {
		d := deployment("default", fmt.Sprint("w", i), optIn(), fmt.Sprint("cm:c", (2*i)%nc), fmt.Sprint("cm:c", (2*i+1)%nc))
		d.ResourceVersion = "1"
		must(b, e.Observe(d, t0))
	}
	now := t0.Add(restart.DefaultGracePeriod)
	batch := e.Release(now)
	if len(batch.Decisions) != nw || e.Counters().ChangesWaiting != 0 {
		b.Fatalf("setup: %d decisions, %d waiting", len(batch.Decisions), e.Counters().ChangesWaiting)
	}
	return e, now
}

// BenchmarkConfigChange measures one config edit and the release of its
// decision (one restart patch) in catalogs of two sizes: the cost must not
// grow with the catalog.
func BenchmarkConfigChange(b *testing.B) {
	for _, size := range []struct{ configs, workloads int }{{1_000, 500}, {10_000, 5_000}} {
		b.Run(fmt.Sprintf("configs=%d/workloads=%d", size.configs, size.workloads), func(b *testing.B) {
			e, now := catalog(b, size.configs, size.workloads)
			edits := [2]*corev1.ConfigMap{
				configMap("default", "c0", map[string]string{"key": "edit-a", "other": "x"}),
				configMap("default", "c0", map[string]string{"key": "edit-b", "other": "x"}),
			}
			edits[0].ResourceVersion, edits[1].ResourceVersion = "a", "b"
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				now = now.Add(time.Second)
				if err := e.Observe(edits[i%2], now); err != nil {
					b.Fatal(err)
				}
				now = now.Add(restart.DefaultGracePeriod)
				batch := e.Release(now)
				if len(batch.Decisions) != 1 || !batch.Decisions[0].Restart {
					b.Fatalf("want one restart, got %d decisions", len(batch.Decisions))
				}
			}
		})
	}
}

// BenchmarkRelease measures a release with nothing due in a large catalog.
func BenchmarkReleaseIdle(b *testing.B) {
	e, now := catalog(b, 10_000, 5_000)
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(500 * time.Millisecond)
		e.Release(now)
	}
}

func BenchmarkChecksumConfigMap(b *testing.B) {
	data := map[string]string{}
	for i := range 20 {
		data[fmt.Sprint("key-", i)] = fmt.Sprintf("%0100d", i)
	}
	cm := configMap("default", "c", data)
	b.ReportAllocs()
	for b.Loop() {
		restart.ChecksumConfigMap(cm)
	}
}

func BenchmarkReferences(b *testing.B) {
	d := deployment("default", "w", nil, "cm:a", "cm:b", "secret:c", "secret:d")
	b.ReportAllocs()
	for b.Loop() {
		restart.References("default", &d.Spec.Template.Spec)
	}
}

// BenchmarkDiffChecksums diffs a workload with n referenced ConfigMaps
// (two keys each), all recorded, one of them edited since: checksums of n
// configs, one restart, the new annotation.
func BenchmarkDiffChecksums(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("refs=%d", n), func(b *testing.B) {
			refs := make([]restart.Ref, n)
			current := map[string]runtime.Object{}
			recorded := map[string]string{}
			for i := range refs {
				refs[i] = restart.Ref{Kind: restart.KindConfigMap, Namespace: "default", Name: fmt.Sprint("c", i)}
				cm := configMap("default", refs[i].Name, map[string]string{"key": fmt.Sprint("value-", i), "other": "x"})
				current[refs[i].Key()] = cm
				recorded[refs[i].Key()] = restart.ChecksumConfigMap(cm)
			}
			recorded[refs[0].Key()] = "0123456789abcdef"
			annotation := restart.FormatChecksums(recorded)
			lookup := func(r restart.Ref) (runtime.Object, error) { return current[r.Key()], nil }
			opts := restart.DefaultOptions()
			b.ReportAllocs()
			for b.Loop() {
				d, err := restart.DiffChecksums(opts, refs, annotation, lookup, nil)
				if err != nil || !d.Restart || len(d.Changes) != 1 {
					b.Fatalf("%+v, %v", d, err)
				}
			}
		})
	}
}
