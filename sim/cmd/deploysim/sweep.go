package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/deploymath/deploymath/sim"
	"github.com/deploymath/deploymath/sim/internal/inputlimit"
	"github.com/deploymath/deploymath/sim/sweep"
)

// runSweep runs a sweep, or the scenario over several seeds, and prints
// its table or its report. The runs' outcomes are the table's data, not
// failures: the exit status is 2 when a run could not be simulated, and,
// with requireComplete, 3 when one ended with a rollout not complete.
func runSweep(sc *sim.Scenario, params []sweep.Param, opts sim.Options, o *options, sh sweep.Shard, requireComplete bool, stdout, stderr io.Writer) int {
	data, err := inputlimit.ReadFile(o.files[0], inputlimit.State) // read and checked before
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	ss, err := sweepSeeds(sc.Seed, opts.Seed, o.seeds)
	if err != nil {
		fmt.Fprintf(stderr, "deploysim: %v\n", err)
		return exitUsage
	}
	cfg := sweep.Config{Parallel: o.parallel, Shard: sh}
	var p *progress
	if !o.quiet && isTerminal(stderr) {
		start := time.Now() // before the ticker, so that tick n shows n s
		t := time.NewTicker(time.Second)
		defer t.Stop()
		p = startProgress(stderr, start, t.C)
		cfg.Progress = p.setRuns
	}
	r, err := sweep.Run(sc, params, ss, opts, cfg)
	p.stop(time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "deploysim: -sweep: %v\n", err)
		return exitUsage
	}
	sum := sha256.Sum256(data)
	r.Digest = hex.EncodeToString(sum[:])
	if o.svg != "" && r.Rows != nil {
		if err := os.WriteFile(o.svg, sweep.SVG(r.Scenario, r.Rows), 0o644); err != nil {
			fmt.Fprintln(stderr, err)
			return exitUsage
		}
	}
	return printReport(r, o.format, requireComplete, stdout, stderr)
}

// sweepSeeds returns the n consecutive seeds of a sweep from -seed (set)
// or else the scenario's seed. Seeds that would pass the largest seed
// (2^64-1) are refused rather than wrapped to 0, 1, …: the report names
// its seeds as a range, and a wrapped one would repeat another sweep's.
func sweepSeeds(scenarioSeed uint64, set *uint64, n int) ([]uint64, error) {
	base, from := scenarioSeed, fmt.Sprintf("the scenario's seed %d", scenarioSeed)
	if set != nil {
		base, from = *set, fmt.Sprintf("-seed %d", *set)
	}
	if n > 0 && base > math.MaxUint64-uint64(n-1) {
		return nil, fmt.Errorf("%s -seeds %d: the seeds would pass %d, the largest seed; start at -seed %d or lower", from, n, uint64(math.MaxUint64), math.MaxUint64-uint64(n-1))
	}
	ss := make([]uint64, n)
	for i := range ss {
		ss[i] = base + uint64(i)
	}
	return ss, nil
}

// printReport prints a report as its table (text) or as JSON, and the
// errors of runs that could not be simulated on stderr. It returns the
// exit status: 2 for such a run, else with requireComplete 3 when a run
// ended with a rollout not complete.
func printReport(r *sweep.Report, format string, requireComplete bool, stdout, stderr io.Writer) int {
	if format == "json" {
		b, err := r.JSON()
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitUsage
		}
		stdout.Write(b)
	} else {
		fmt.Fprintf(stdout, "scenario %s, seeds %d..%d\n", r.Scenario, r.Seeds[0], r.Seeds[len(r.Seeds)-1])
		fmt.Fprint(stdout, sweep.Describe(r.Rows))
	}
	code := exitOK
	for _, row := range r.Rows {
		if row.Err != "" {
			fmt.Fprintf(stderr, "sweep %s: %s\n", row.Params, row.Err)
			code = exitUsage
		}
	}
	incomplete := 0
	for _, run := range r.Runs {
		if r.Rows == nil && run.Err != "" {
			fmt.Fprintf(stderr, "sweep %s seed %d: %s\n", r.Combinations[run.Combination], run.Seed, run.Err)
			code = exitUsage
		}
		if run.Summary != nil && !run.Summary.Completed {
			incomplete++
		}
	}
	if requireComplete && incomplete > 0 {
		fmt.Fprintf(stderr, "deploysim: %d of %d runs ended with a rollout not complete (-require-complete)\n", incomplete, len(r.Runs))
		code = worse(code, exitIncomplete)
	}
	return code
}

// runMerge is deploysim merge: it merges the -format json reports of the
// shards of one sweep and prints the table or the report of the whole.
func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("deploysim merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output format: text (the table) or json (the report)")
	requireComplete := fs.Bool("require-complete", false, "exit 3 when a run ended with a rollout not complete, as the sweep would")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: deploysim merge [-format text|json] [-require-complete] FILE...")
		fmt.Fprintln(stderr, "merges the -format json output of the n shards (-shard i/n) of one sweep into what the sweep prints on one machine, with its exit status")
		fs.PrintDefaults()
	}
	files, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	if err := checkFormat(*format); err != nil {
		fmt.Fprintf(stderr, "deploysim merge: %v\n", err)
		return exitUsage
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "deploysim merge: no files (want the -format json output of every shard)")
		fs.Usage()
		return exitUsage
	}
	var reports []*sweep.Report
	var names []string
	for _, f := range files {
		data, err := readReportFile(f)
		if err != nil {
			fmt.Fprintf(stderr, "deploysim merge: %v\n", err)
			return exitUsage
		}
		rs, err := sweep.ParseReports(data)
		if err != nil {
			fmt.Fprintf(stderr, "deploysim merge: %s: %v\n", f, err)
			return exitUsage
		}
		for i, r := range rs {
			reports = append(reports, r)
			if len(rs) == 1 {
				names = append(names, f)
			} else {
				names = append(names, fmt.Sprintf("%s (report %d)", f, i+1))
			}
		}
	}
	r, err := sweep.Merge(reports, names)
	if err != nil {
		fmt.Fprintf(stderr, "deploysim merge: %v\n", err)
		return exitUsage
	}
	return printReport(r, *format, *requireComplete, stdout, stderr)
}

// maxReportBytes bounds a report file: 10,000 runs take about 2.5 MB.
const maxReportBytes = 64 << 20

func readReportFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxReportBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxReportBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB: not the report of a sweep", name, maxReportBytes>>20)
	}
	return data, nil
}
