package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkDumpNext is `deploysim DUMP` (what happens next) on the
// generated dump of 1,000, 3,000 and 10,000 Deployments of 3 replicas
// (genDump: 10 Deployments a namespace, one in ten in the middle of a
// rolling update), reading the dump, running it to convergence and
// printing its text trace and summary (to io.Discard, counted). The dump
// is written once per size, outside the timing.
func BenchmarkDumpNext(b *testing.B) {
	for _, n := range []int{1000, 3000, 10000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			file := filepath.Join(b.TempDir(), fmt.Sprintf("dump%d.json", n))
			if err := os.WriteFile(file, genDump(n, 10), 0o644); err != nil {
				b.Fatal(err)
			}
			benchDeploysim(b, []string{"-quiet", file})
		})
	}
}

// BenchmarkDumpNextOneNamespace is BenchmarkDumpNext with every
// Deployment in one namespace, where a run grew with the square of the
// number of Deployments while each sync was given every ReplicaSet of the
// namespace (see sim/readable.go and sim/BENCHMARKS.md, issue 27).
func BenchmarkDumpNextOneNamespace(b *testing.B) {
	for _, n := range []int{1000, 3000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			file := filepath.Join(b.TempDir(), fmt.Sprintf("dump%d.json", n))
			if err := os.WriteFile(file, genDump(n, n), 0o644); err != nil {
				b.Fatal(err)
			}
			benchDeploysim(b, []string{"-quiet", file})
		})
	}
}

// BenchmarkDumpExplain is `deploysim explain DUMP` on the dumps of
// BenchmarkDumpNext: reading the dump, diagnosing every Deployment and
// printing the report (to io.Discard, counted).
func BenchmarkDumpExplain(b *testing.B) {
	for _, n := range []int{1000, 3000, 10000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			file := filepath.Join(b.TempDir(), fmt.Sprintf("dump%d.json", n))
			if err := os.WriteFile(file, genDump(n, 10), 0o644); err != nil {
				b.Fatal(err)
			}
			benchDeploysim(b, []string{"explain", file})
		})
	}
}

// benchDeploysim runs deploysim with args, counting the bytes it prints.
func benchDeploysim(b *testing.B, args []string) {
	b.ReportAllocs()
	var out countWriter
	var errb strings.Builder
	for b.Loop() {
		out = 0
		if code := run(args, &out, &errb); code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
	b.ReportMetric(float64(out), "stdout-bytes")
}

// countWriter counts what is written to it.
type countWriter int

func (w *countWriter) Write(p []byte) (int, error) {
	*w += countWriter(len(p))
	return len(p), nil
}

var _ io.Writer = (*countWriter)(nil)
