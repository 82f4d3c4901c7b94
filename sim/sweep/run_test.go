package sweep

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/sim"
	"pgregory.net/rapid"
)

// TestRunParallelIsSerial: every bundled scenario, swept and as
// written, gives the same report (byte for byte) on 1, 2 and 5
// goroutines; run with -race, this also shows that parallel runs share
// nothing they write.
func TestRunParallelIsSerial(t *testing.T) {
	files, err := filepath.Glob(scenarioDir + "/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	params, err := Parse("maxSurge=0,1;maxUnavailable=1,25%")
	if err != nil {
		t.Fatal(err)
	}
	seeds := []uint64{3, 4, 5}
	for _, file := range files {
		sc, err := sim.LoadScenario(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, ps := range [][]Param{nil, params} {
			var want []byte
			var wantErr string
			for _, par := range []int{1, 2, 5} {
				r, err := Run(sc, ps, seeds, sim.Options{Check: true}, Config{Parallel: par})
				var got []byte
				gotErr := ""
				if err != nil {
					gotErr = err.Error()
				} else if got, err = r.JSON(); err != nil {
					t.Fatal(err)
				}
				if par == 1 {
					want, wantErr = got, gotErr
					continue
				}
				if gotErr != wantErr || !bytes.Equal(got, want) {
					t.Errorf("%s sweep %q: parallel %d differs from serial:\n%s%s\nvs\n%s%s", filepath.Base(file), formatSweep(ps), par, got, gotErr, want, wantErr)
				}
			}
		}
	}
}

// TestRunProgress: Progress starts at 0, 0 and counts every run once as
// it starts and once as it ends; a run is done only after it started.
func TestRunProgress(t *testing.T) {
	sc, err := sim.LoadScenario(scenarioDir + "/nginx-rolling-update.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, par := range []int{1, 3} {
		var starts, dones []int
		r, err := Run(sc, nil, []uint64{1, 2, 3, 4, 5}, sim.Options{}, Config{Parallel: par, Progress: func(started, done, total int) {
			if total != 5 || done > started || started > par+done {
				t.Errorf("parallel %d: started %d, done %d of %d", par, started, done, total)
			}
			starts, dones = append(starts, started), append(dones, done)
		}})
		if err != nil {
			t.Fatal(err)
		}
		if len(starts) != 11 || !slices.IsSorted(starts) || !slices.IsSorted(dones) || starts[0]+dones[0] != 0 ||
			starts[10] != 5 || dones[10] != 5 || len(r.Runs) != 5 {
			t.Errorf("parallel %d: started %v, done %v, %d runs", par, starts, dones, len(r.Runs))
		}
	}
}

// TestShardsPartitionRuns: the n shards of a space of any size are
// disjoint and hold every run, round robin.
func TestShardsPartitionRuns(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		runs := rapid.IntRange(1, 200).Draw(t, "runs")
		n := rapid.IntRange(1, 250).Draw(t, "n")
		owner := make([]int, runs)
		for k := range owner {
			owner[k] = -1
		}
		for i := range n {
			sh, err := ParseShard(Shard{i, n}.String())
			if err != nil {
				t.Fatal(err)
			}
			for k := range runs {
				if sh.Has(k) {
					if owner[k] >= 0 {
						t.Fatalf("run %d in shards %d and %d of %d", k, owner[k], i, n)
					}
					owner[k] = i
				}
			}
		}
		for k, o := range owner {
			if o != k%n {
				t.Fatalf("run %d in shard %d of %d, want %d", k, o, n, k%n)
			}
		}
	})
}

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Shard
		err  string
	}{
		{"0/1", Shard{0, 1}, ""},
		{"3/7", Shard{3, 7}, ""},
		{"6/7", Shard{6, 7}, ""},
		{"7/7", Shard{}, "the shard index i must be below n (shards are numbered 0 to 6)"},
		{"0/0", Shard{}, "the number of shards n must be at least 1"},
		{"0/-2", Shard{}, "the number of shards n must be at least 1"},
		{"-1/3", Shard{}, "want i/n"},
		{"+1/3", Shard{}, "want i/n"},
		{"1", Shard{}, "want i/n"},
		{"1/", Shard{}, "want i/n"},
		{"a/b", Shard{}, "want i/n"},
		{"1/2/3", Shard{}, "want i/n"},
		{" 1/2", Shard{}, "want i/n"},
		{"0/10001", Shard{}, "more than 10000 shards"},
	} {
		got, err := ParseShard(c.in)
		if c.err == "" && (err != nil || got != c.want) || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, %q", c.in, got, err, c.want, c.err)
		}
	}
}

// TestMergeSweeps: the shards of a sweep merge into the whole, in any
// order; reports that are not the shards of one sweep are refused with
// the name of the report.
func TestMergeSweeps(t *testing.T) {
	sc, err := sim.LoadScenario(scenarioDir + "/nginx-rolling-update.yaml")
	if err != nil {
		t.Fatal(err)
	}
	params, err := Parse("maxSurge=0,1,2")
	if err != nil {
		t.Fatal(err)
	}
	seeds := []uint64{1, 2, 3}
	shard := func(i, n int) *Report {
		r, err := Run(sc, params, seeds, sim.Options{}, Config{Shard: Shard{i, n}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	js := func(r *Report) string {
		b, err := r.JSON()
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	whole := js(shard(0, 1))
	for _, n := range []int{1, 2, 4, 9, 12} {
		var rs []*Report
		for i := n - 1; i >= 0; i-- {
			// Through JSON, as from files.
			parsed, err := ParseReports([]byte(js(shard(i, n))))
			if err != nil || len(parsed) != 1 {
				t.Fatalf("parse shard %d/%d: %v", i, n, err)
			}
			rs = append(rs, parsed[0])
		}
		m, err := Merge(rs, nil)
		if err != nil {
			t.Fatalf("merge of %d: %v", n, err)
		}
		if got := js(m); got != whole {
			t.Errorf("merge of %d shards:\n%s\nwant\n%s", n, got, whole)
		}
	}

	other := func(f func(r *Report)) *Report {
		r := shard(1, 2)
		f(r)
		return r
	}
	for _, c := range []struct {
		name string
		rs   []*Report
		want string
	}{
		{"none", nil, "no reports to merge"},
		{"missing", []*Report{shard(0, 3), shard(2, 3)}, "shard 1/3 missing"},
		{"twice", []*Report{shard(0, 2), shard(1, 2), shard(1, 2)}, "c: shard 1/2 is also in b"},
		{"split", []*Report{shard(0, 2), shard(1, 3)}, "b: shard 1/3, of a split in 3, not 2"},
		{"scenario", []*Report{shard(0, 2), other(func(r *Report) { r.Scenario = "other" })}, `b: scenario "other", not "nginx-rolling-update" as in a`},
		{"digest", []*Report{shard(0, 2), other(func(r *Report) { r.Digest = "abc" })}, "b: scenario \"nginx-rolling-update\" with digest abc, not  (the scenario file changed)"},
		{"sweep", []*Report{shard(0, 2), other(func(r *Report) { r.Sweep = "maxSurge=0" })}, `b: sweep "maxSurge=0", not "maxSurge=0,1,2"`},
		{"seeds", []*Report{shard(0, 2), other(func(r *Report) { r.Seeds = []uint64{2, 3, 4} })}, "b: seeds 2..4, not 1..3"},
		{"until", []*Report{shard(0, 2), other(func(r *Report) { r.Until = "1m0s" })}, "b: time limit 1m0s, not 10m0s"},
		{"truncated", []*Report{shard(0, 2), other(func(r *Report) { r.Runs = r.Runs[1:] })}, "b: shard 1/2 holds 3 runs, want 4"},
		{"foreign run", []*Report{shard(0, 2), other(func(r *Report) { r.Runs[0].Seed = 9 })}, "b: run 0 is combination 0 seed 9, want combination 0 seed 2"},
		{"no summary", []*Report{shard(0, 2), other(func(r *Report) { r.Runs[0].Summary = nil })}, "b: run 0 is combination 0 seed 2, want combination 0 seed 2 with a summary or an error"},
	} {
		_, err := Merge(c.rs, []string{"a", "b", "c"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestParseReports(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "empty file"},
		{" \n", "empty file"},
		{"{", "report 1: not a sweep report"},
		{`{"trace": []}`, `report 1: not a sweep report (want the -format json output of deploysim -sweep or -seeds): json: unknown field "trace"`},
		{`{"version": 2}`, "report 1: version 2, want 1"},
		{`{"version": 1} ]`, "report 2: not a sweep report"},
	} {
		if _, err := ParseReports([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseReports(%q) = %v, want %q", c.in, err, c.want)
		}
	}
}
