package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/deploymath/deploymath/sim"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Config says how [Run] runs a sweep. Its zero value runs every
// run on GOMAXPROCS goroutines.
type Config struct {
	// Parallel is the number of runs carried out at once: 0 for
	// runtime.GOMAXPROCS(0), 1 for one after the other on the calling
	// goroutine. The runs are independent and their results are placed by
	// run number, so the report is the same for every value.
	Parallel int
	// Shard selects the runs to carry out; the zero value selects them all.
	Shard Shard
	// Progress, when set, is called with the number of runs started, the
	// number done and the number to do: once with 0, 0 before the first
	// run, then as each run starts and as it ends. Calls never overlap;
	// with Parallel above 1 they come from the sweep's goroutines.
	Progress func(started, done, total int)
}

// Shard selects a deterministic slice of a sweep's runs, so that n
// machines can share a sweep. Number the runs of a sweep from 0 in the
// order of its table: run k is combination k / S (combinations in table
// order, from 0) with the (k mod S)-th seed, S being the number of seeds.
// Shard i/n holds the runs whose k mod n is i: round robin, so that every
// shard gets a share of every combination. The n shards of a sweep are
// disjoint and together hold every run; a shard is empty when n exceeds
// the number of runs. Count 0 (the zero value) means all runs, as 0/1.
type Shard struct {
	Index, Count int
}

// ParseShard parses "i/n" with 0 ≤ i < n and 1 ≤ n ≤ [MaxRuns].
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	digits := func(s string) bool {
		return s != "" && strings.Trim(s, "0123456789") == ""
	}
	switch {
	case !ok || err1 != nil || err2 != nil || !digits(is) || !digits(strings.TrimPrefix(ns, "-")):
		return Shard{}, fmt.Errorf("%q: want i/n, shard i of n numbered from 0, such as 0/4", s)
	case n < 1:
		return Shard{}, fmt.Errorf("%q: the number of shards n must be at least 1", s)
	case n > MaxRuns:
		return Shard{}, fmt.Errorf("%q: more than %d shards (sweep.MaxRuns, the most runs of a sweep)", s, MaxRuns)
	case i >= n:
		return Shard{}, fmt.Errorf("%q: the shard index i must be below n (shards are numbered 0 to %d)", s, n-1)
	}
	return Shard{Index: i, Count: n}, nil
}

// norm maps the zero value to 0/1.
func (sh Shard) norm() Shard {
	if sh.Count == 0 {
		return Shard{0, 1}
	}
	return sh
}

// Has reports whether run k belongs to the shard.
func (sh Shard) Has(k int) bool {
	sh = sh.norm()
	return k%sh.Count == sh.Index
}

// String returns "i/n".
func (sh Shard) String() string {
	sh = sh.norm()
	return fmt.Sprintf("%d/%d", sh.Index, sh.Count)
}

// MarshalText writes "i/n".
func (sh Shard) MarshalText() ([]byte, error) { return []byte(sh.String()), nil }

// UnmarshalText reads "i/n" as [ParseShard] does.
func (sh *Shard) UnmarshalText(b []byte) error {
	v, err := ParseShard(string(b))
	if err != nil {
		return err
	}
	*sh = v
	return nil
}

// RunSummary is the outcome of one run of a sweep.
type RunSummary struct {
	// Combination is the index of the run's row.
	Combination int `json:"combination"`
	// Seed is the run's seed.
	Seed uint64 `json:"seed"`
	// Summary is the run's summary; nil when the run failed.
	Summary *sim.Summary `json:"summary,omitempty"`
	// Err is why the run failed.
	Err string `json:"error,omitempty"`
}

// ReportVersion is the version of [Report]'s JSON form.
const ReportVersion = 1

// Report is the outcome of a sweep or of a shard of it: what was
// swept, every run of the shard, and the table. Its JSON form
// ([Report.JSON], [ParseReports]) is what deploysim prints with
// -format json; the reports of all the shards of a sweep merge
// ([Merge]) into the report of the whole sweep, byte for byte.
type Report struct {
	// Version is [ReportVersion].
	Version int `json:"version"`
	// Scenario is the scenario's name.
	Scenario string `json:"scenario"`
	// Digest identifies the scenario's content; [Run] leaves it
	// empty and deploysim sets the SHA-256 of the scenario file. Reports
	// with different digests do not merge.
	Digest string `json:"digest,omitempty"`
	// Sweep is the swept parameters in [Parse]'s syntax, canonical
	// ("" for the scenario as written over several seeds).
	Sweep string `json:"sweep"`
	// Until is the run's time limit (the scenario's or Options.Until).
	Until string `json:"until"`
	// Combinations names the rows, in table order.
	Combinations []string `json:"combinations"`
	// Resolved names them with what their percentages resolve to (see
	// [Row].Resolved); absent when no swept value is a percentage.
	Resolved []string `json:"resolved,omitempty"`
	// Seeds are the seeds of every combination, in order.
	Seeds []uint64 `json:"seeds"`
	// Shard is the slice of the runs this report holds; 0/1 for all.
	Shard Shard `json:"shard"`
	// Runs are the shard's runs in run order (see [Shard]).
	Runs []RunSummary `json:"runs"`
	// Rows is the table, one row per combination; only in a report that
	// holds every run (shard 0/1).
	Rows []Row `json:"rows,omitempty"`
}

// Run runs the runs of c.Shard of the sweep that [Rows] runs (the
// same checks, the same errors) on c.Parallel goroutines, and returns
// them with the table when the shard holds every run. The report depends
// only on sc, params, seeds, o and the shard: never on Parallel, the
// machine or the order in which the runs end.
func Run(sc *sim.Scenario, params []Param, seeds []uint64, o sim.Options, c Config) (*Report, error) {
	if c.Parallel < 0 {
		return nil, fmt.Errorf("sweep: parallel %d: want 0 (GOMAXPROCS) or more", c.Parallel)
	}
	sh := c.Shard.norm()
	if sh.Count < 1 || sh.Index < 0 || sh.Index >= sh.Count {
		return nil, fmt.Errorf("sweep: shard %d/%d: want i/n with 0 ≤ i < n", sh.Index, sh.Count)
	}
	sp, err := newSweepSpace(sc, params, seeds)
	if err != nil {
		return nil, err
	}
	until := time.Duration(sc.Until)
	if o.Until > 0 {
		until = o.Until
	}
	if until <= 0 {
		until = sim.DefaultUntil
	}
	r := &Report{
		Version:      ReportVersion,
		Scenario:     sc.Name,
		Sweep:        sp.spec,
		Until:        until.String(),
		Combinations: sp.names,
		Resolved:     sp.resolved,
		Seeds:        sp.seeds,
		Shard:        sh,
	}
	var ks []int
	for k := range sp.runs() {
		if sh.Has(k) {
			ks = append(ks, k)
		}
	}
	r.Runs = make([]RunSummary, len(ks))
	workers := c.Parallel
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(ks))
	var mu sync.Mutex
	started, done := 0, 0
	report := func(start, end int) {
		if c.Progress != nil {
			mu.Lock()
			started, done = started+start, done+end
			c.Progress(started, done, len(ks))
			mu.Unlock()
		}
	}
	if c.Progress != nil {
		c.Progress(0, 0, len(ks))
	}
	one := func(i int) {
		report(1, 0)
		r.Runs[i] = sp.run(ks[i], o)
		report(0, 1)
	}
	if workers <= 1 {
		for i := range ks {
			one(i)
		}
	} else {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for {
					i := int(next.Add(1) - 1)
					if i >= len(ks) {
						return
					}
					one(i)
				}
			})
		}
		wg.Wait()
	}
	if sh.Count == 1 {
		r.Rows = sweepRows(r.Combinations, r.Resolved, len(r.Seeds), r.Runs)
	}
	return r, nil
}

// JSON renders the report: indented, one line per run and per row.
// [ParseReports] reads it back.
func (r *Report) JSON() ([]byte, error) {
	var b bytes.Buffer
	field := func(name string, v any, last bool) error {
		j, err := json.Marshal(v)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "  %q: %s", name, j)
		if !last {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
		return nil
	}
	list := func(name string, n int, elem func(i int) any, last bool) error {
		fmt.Fprintf(&b, "  %q: [", name)
		for i := range n {
			j, err := json.Marshal(elem(i))
			if err != nil {
				return err
			}
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n    ")
			b.Write(j)
		}
		if n > 0 {
			b.WriteString("\n  ")
		}
		b.WriteByte(']')
		if !last {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
		return nil
	}
	b.WriteString("{\n")
	err := errors.Join(
		field("version", r.Version, false),
		field("scenario", r.Scenario, false),
		field("digest", r.Digest, false),
		field("sweep", r.Sweep, false),
		field("until", r.Until, false),
		field("combinations", r.Combinations, false),
	)
	if r.Resolved != nil {
		err = errors.Join(err, field("resolved", r.Resolved, false))
	}
	err = errors.Join(err,
		field("seeds", r.Seeds, false),
		field("shard", r.Shard, false),
		list("runs", len(r.Runs), func(i int) any { return r.Runs[i] }, r.Rows == nil),
	)
	if r.Rows != nil {
		err = errors.Join(err, list("rows", len(r.Rows), func(i int) any { return r.Rows[i] }, true))
	}
	if err != nil {
		return nil, err
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}

// ParseReports reads the reports in data: one, or several written
// one after the other (the logs of several shards in one file).
func ParseReports(data []byte) ([]*Report, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("empty file (want the -format json output of a sweep)")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var out []*Report
	for dec.More() {
		r := new(Report)
		if err := dec.Decode(r); err != nil {
			return nil, fmt.Errorf("report %d: not a sweep report (want the -format json output of deploysim -sweep or -seeds): %w", len(out)+1, err)
		}
		if r.Version != ReportVersion {
			return nil, fmt.Errorf("report %d: version %d, want %d (the -format json output of deploysim -sweep or -seeds)", len(out)+1, r.Version, ReportVersion)
		}
		out = append(out, r)
	}
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) > 0 {
		return nil, fmt.Errorf("report %d: not a sweep report: unexpected %.20q", len(out)+1, rest)
	}
	return out, nil
}

// Merge merges the reports of the n shards of one sweep, in any
// order, into the report of the whole sweep (shard 0/1, with its rows),
// the same byte for byte as the report of the sweep run on one machine.
// names[i] names reports[i] in errors (a file name; nil for "report i").
// It refuses reports of different scenarios (name or digest), sweeps,
// seeds, time limits or shard counts, a shard given twice or missing, and
// a report whose runs are not exactly those of its shard.
func Merge(reports []*Report, names []string) (*Report, error) {
	name := func(i int) string {
		if i < len(names) {
			return names[i]
		}
		return fmt.Sprintf("report %d", i+1)
	}
	if len(reports) == 0 {
		return nil, errors.New("no reports to merge")
	}
	first := reports[0]
	if len(first.Combinations) == 0 || len(first.Seeds) == 0 {
		return nil, fmt.Errorf("%s: no combinations or no seeds", name(0))
	}
	n := first.Shard.norm().Count
	total := len(first.Combinations) * len(first.Seeds)
	runs := make([]RunSummary, total)
	from := make([]int, n) // report index + 1 of each shard
	for i, r := range reports {
		what := ""
		switch {
		case r.Scenario != first.Scenario:
			what = fmt.Sprintf("scenario %q, not %q", r.Scenario, first.Scenario)
		case r.Digest != first.Digest:
			what = fmt.Sprintf("scenario %q with digest %.12s, not %.12s (the scenario file changed)", r.Scenario, r.Digest, first.Digest)
		case r.Sweep != first.Sweep || !slices.Equal(r.Combinations, first.Combinations) || !slices.Equal(r.Resolved, first.Resolved):
			what = fmt.Sprintf("sweep %q, not %q", r.Sweep, first.Sweep)
		case !slices.Equal(r.Seeds, first.Seeds):
			what = fmt.Sprintf("seeds %s, not %s", seedRange(r.Seeds), seedRange(first.Seeds))
		case r.Until != first.Until:
			what = fmt.Sprintf("time limit %s, not %s", r.Until, first.Until)
		case r.Shard.norm().Count != n:
			what = fmt.Sprintf("shard %s, of a split in %d, not %d", r.Shard, r.Shard.norm().Count, n)
		}
		if what != "" {
			return nil, fmt.Errorf("%s: %s as in %s: not a shard of the same sweep", name(i), what, name(0))
		}
		sh := r.Shard.norm()
		if from[sh.Index] != 0 {
			return nil, fmt.Errorf("%s: shard %s is also in %s", name(i), sh, name(from[sh.Index]-1))
		}
		from[sh.Index] = i + 1
		want := 0
		if sh.Index < total {
			want = (total-sh.Index-1)/n + 1
		}
		if len(r.Runs) != want {
			return nil, fmt.Errorf("%s: shard %s holds %d runs, want %d", name(i), sh, len(r.Runs), want)
		}
		for j, run := range r.Runs {
			k := sh.Index + j*n
			c, s := k/len(first.Seeds), k%len(first.Seeds)
			if run.Combination != c || run.Seed != first.Seeds[s] || (run.Summary == nil) == (run.Err == "") {
				return nil, fmt.Errorf("%s: run %d is combination %d seed %d, want combination %d seed %d with a summary or an error", name(i), j, run.Combination, run.Seed, c, first.Seeds[s])
			}
			runs[k] = run
		}
	}
	for i, f := range from {
		if f == 0 {
			return nil, fmt.Errorf("shard %d/%d missing (%d reports given)", i, n, len(reports))
		}
	}
	out := *first
	out.Shard = Shard{0, 1}
	out.Runs = runs
	out.Rows = sweepRows(out.Combinations, out.Resolved, len(out.Seeds), runs)
	return &out, nil
}

// seedRange describes seeds as "a..b" when consecutive.
func seedRange(seeds []uint64) string {
	if len(seeds) == 0 {
		return "none"
	}
	for i, s := range seeds {
		if s != seeds[0]+uint64(i) {
			return fmt.Sprint(seeds)
		}
	}
	return fmt.Sprintf("%d..%d", seeds[0], seeds[len(seeds)-1])
}
