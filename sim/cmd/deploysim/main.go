// Command deploysim runs a deployment scenario on the deterministic
// simulator and prints its trace and summary.
//
//	deploysim [flags] SCENARIO.yaml [flags]
//
// Flags (before or after the file name):
//
//	-seed N        override the scenario's seed (a non-negative integer)
//	-until D       override the time limit (e.g. 10m; positive)
//	-format F      text (default) or json
//	-svg FILE      write a chart of replicas per ReplicaSet and available pods
//	-check         check the invariants; exit 1 naming the step that broke one;
//	               warn (exit status unchanged) about a Deployment that ends
//	               with fewer available pods than replicas and nothing in flight
//	-sweep SPEC    e.g. 'maxSurge=0,1,25%;maxUnavailable=0,10%': run every
//	               combination over -seeds seeds and print a table
//	-seeds N       number of seeds per sweep combination (default 5)
//
// Limits, so that a run's memory and time stay bounded: a scenario file of
// at most 2 MiB ([sim.MaxScenarioBytes]), at most 50,000 replicas per
// Deployment ([sim.MaxReplicas]), at most 1,000 seeds per combination
// ([sim.MaxSweepSeeds]) and 10,000 runs per sweep ([sim.MaxSweepRuns]); a
// trace keeps at most 100,000 frames ([sim.MaxTraceFrames]), the first ones
// and the last.
//
// Exit status: 0 on success, 1 when the scenario cannot be loaded or run or
// (with -check) an invariant broke, 2 for a usage error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/deploymath/deploymath/sim"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// seedFlag is -seed: unset (the scenario's seed) or a non-negative
// integer.
type seedFlag struct {
	v   uint64
	set bool
}

func (f *seedFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return strconv.FormatUint(f.v, 10)
}

func (f *seedFlag) Set(s string) error {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return errors.New("want a non-negative integer")
	}
	f.v, f.set = v, true
	return nil
}

// parseArgs parses flags placed before and after the file names and
// returns the file names.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return files, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(files, rest...), nil // "--" ends the flags
		}
		files = append(files, rest[0])
		args = rest[1:]
	}
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("deploysim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var seed seedFlag
	fs.Var(&seed, "seed", "the run's `seed`, a non-negative integer (default: the scenario's)")
	until := fs.Duration("until", 0, "time limit, positive (default: the scenario's)")
	format := fs.String("format", "text", "output format: text or json")
	svg := fs.String("svg", "", "write an SVG chart to this file")
	check := fs.Bool("check", false, "check invariants and exit 1 on a violation")
	sweep := fs.String("sweep", "", "strategy sweep, e.g. 'maxSurge=0,1,25%;maxUnavailable=0,10%'")
	seeds := fs.Int("seeds", 5, fmt.Sprintf("seeds per sweep combination, 1 to %d", sim.MaxSweepSeeds))
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: deploysim [flags] SCENARIO.yaml [flags]")
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "limits: scenario file %d MiB, %d replicas per Deployment, %d seeds per sweep combination, %d runs per sweep, %d trace frames (the first ones and the last are kept)\n",
			sim.MaxScenarioBytes>>20, sim.MaxReplicas, sim.MaxSweepSeeds, sim.MaxSweepRuns, sim.MaxTraceFrames)
	}
	files, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return 0 // -h: the flag package printed the usage
	}
	if err != nil {
		return 2 // the flag package printed the error and the usage
	}
	if err := checkFlags(fs, files, *until, *format, *seeds); err != nil {
		fmt.Fprintf(stderr, "deploysim: %v\n", err)
		if len(files) == 0 {
			fs.Usage()
		}
		return 2
	}
	var params []sim.SweepParam
	if *sweep != "" {
		if params, err = sim.ParseSweep(*sweep); err != nil {
			fmt.Fprintf(stderr, "deploysim: -sweep: %v\n", err)
			return 2
		}
	}
	sc, err := sim.LoadScenario(files[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	opts := sim.Options{Until: *until, Check: *check}
	if seed.set {
		opts.Seed = &seed.v
	}
	if *until > 0 {
		if err := sc.CheckUntil(*until); err != nil {
			fmt.Fprintf(stderr, "deploysim: -until %s: %v\n", *until, err)
			return 2
		}
	}
	if params != nil {
		return runSweep(sc, params, opts, *seeds, stdout, stderr)
	}
	res, err := sim.Run(sc, opts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	switch *format {
	case "text":
		fmt.Fprint(stdout, res.Text())
	case "json":
		b, err := res.JSON()
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		fmt.Fprintf(stdout, "%s\n", b)
	}
	if *svg != "" {
		if err := os.WriteFile(*svg, sim.SVG(res), 0o644); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if *check && len(res.Violations) > 0 {
		for _, v := range res.Violations {
			fmt.Fprintf(stderr, "invariant broken: %s\n", v)
		}
		return 1
	}
	return 0
}

// checkFlags checks what the flag package cannot: the number of files and
// the flags' ranges, before anything runs.
func checkFlags(fs *flag.FlagSet, files []string, until time.Duration, format string, seeds int) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var errs []error
	switch len(files) {
	case 0:
		errs = append(errs, errors.New("no scenario file"))
	case 1:
	default:
		errs = append(errs, fmt.Errorf("want one scenario file, got %d: %s", len(files), strings.Join(files, " ")))
	}
	if set["until"] && until <= 0 {
		errs = append(errs, fmt.Errorf("-until %s: must be positive", until))
	}
	if format != "text" && format != "json" {
		errs = append(errs, fmt.Errorf("-format %q: unknown format (want text or json)", format))
	}
	if seeds < 1 || seeds > sim.MaxSweepSeeds {
		errs = append(errs, fmt.Errorf("-seeds %d: want 1 to %d (sim.MaxSweepSeeds)", seeds, sim.MaxSweepSeeds))
	}
	return errors.Join(errs...)
}

// runSweep runs a sweep and prints its table; a run that failed makes the
// exit status 1.
func runSweep(sc *sim.Scenario, params []sim.SweepParam, opts sim.Options, n int, stdout, stderr io.Writer) int {
	base := sc.Seed
	if opts.Seed != nil {
		base = *opts.Seed
	}
	ss := make([]uint64, n)
	for i := range ss {
		ss[i] = base + uint64(i)
	}
	rows, err := sim.Sweep(sc, params, ss, opts)
	if err != nil {
		fmt.Fprintf(stderr, "deploysim: -sweep: %v\n", err)
		return 2
	}
	fmt.Fprintf(stdout, "scenario %s, seeds %d..%d\n", sc.Name, ss[0], ss[len(ss)-1])
	fmt.Fprint(stdout, sim.DescribeSweep(rows))
	code := 0
	for _, r := range rows {
		if r.Err != "" {
			fmt.Fprintf(stderr, "sweep %s: %s\n", r.Params, r.Err)
			code = 1
		}
	}
	return code
}
