// Command deploysim runs a deployment scenario on the deterministic
// simulator and prints its trace and summary.
//
//	deploysim [flags] SCENARIO.yaml [flags]
//	deploysim [flags] STATE.yaml [flags]
//	deploysim [flags] [-from STATE.yaml] MANIFEST.yaml [flags]
//	deploysim merge [-format F] [-require-complete] FILE...
//	deploysim explain [flags] STATE.yaml|- [DEPLOYMENT]
//	deploysim history [-n NS] [--revision N] STATE.yaml [DEPLOYMENT]
//	deploysim undo [-n NS] [--to-revision N] [flags] STATE.yaml DEPLOYMENT
//	deploysim -version
//
// The scenario format and these flags are described, with examples, in
// testdata/scenarios/REFERENCE.md.
//
// Instead of a scenario, the file may hold Kubernetes objects (a manifest
// as users write it, several documents, a List, or kubectl get -o yaml|json
// output). Bare manifests: its Deployments, ConfigMaps and Secrets are
// created on a default cluster (defaulted as the API server defaults them)
// and the run goes on until they settle. Cluster state (a dump with
// ReplicaSets or Pods, or Deployments with a status): the run starts from
// the dump's objects as they are, times shifted so that the dump's moment
// (-now, default its latest time) is t=0, and shows what happens next
// (sim.State says what pods on their way are assumed to do). With -from
// STATE, the file's objects are applied as `kubectl apply -f` would: at t=0
// of a run from STATE when STATE is cluster state, or once STATE's
// manifests are rolled out. -overlay FILE lays a scenario without objects
// over such a run: its cluster (delays, failures such as "the new image
// crash-loops" or "these pods never become ready"), steps, seed, time
// limit and expect:.
//
// Flags (before or after the file name):
//
//	-seed N        override the scenario's seed (a non-negative integer)
//	-until D       override the time limit (e.g. 10m; positive)
//	-format F      text (default) or json
//	-svg FILE      write a chart: per ReplicaSet its desired, available and
//	               terminating pods, per Deployment its ceiling and floor,
//	               the steps; for a sweep, each combination's spread over
//	               the seeds
//	-explain       show under each instant every write of the Deployment
//	               controller with its reason in numbers, and for a sync that
//	               wrote nothing while the rollout is incomplete, why (the
//	               plan's notes); with -format json, each frame's syncs.
//	               Off by default: planning with explanations is slower
//	-full-stops    show each requeued sync with the planner's full text
//	-full          show every Deployment with its conditions and ReplicaSets
//	               at every instant of the trace (text and JSON), not only
//	               what changed (the trace's form before format version 2;
//	               its size grows with the Deployments times the instants)
//	-summary       print the summary only, without the trace (for runs of
//	               many Deployments: the trace is not even recorded)
//	-check         check the invariants; exit 1 naming the step that broke one;
//	               warn (exit status unchanged) about a Deployment that ends
//	               with fewer available pods than replicas and nothing in
//	               flight; end with a one-line verdict (not with -sweep or
//	               -seeds)
//	-sweep SPEC    e.g. 'maxSurge=0,1,25%;maxUnavailable=1,10%': run every
//	               combination over -seeds seeds and print a table
//	-seeds N       number of seeds per sweep combination (default 5); without
//	               -sweep, run the scenario as written over N seeds (seeds
//	               -seed, -seed+1, …) and print the same table in one row
//	-parallel N    runs of -sweep or -seeds carried out at once (default 0:
//	               GOMAXPROCS; 1: one after the other); the output is the
//	               same for every N
//	-quiet         no progress line on stderr (it is shown only when stderr
//	               is a terminal and the work takes more than 2 s: a run's
//	               virtual time, pods and events/s; the runs of a sweep
//	               started and done)
//	-version       print the module's version and the Kubernetes version
//	               deploysim models (v1.37)
//	-shard i/n     carry out only shard i of n (0 ≤ i < n) of a -sweep or
//	               -seeds run and print its runs as JSON (needs -format json)
//	               for deploysim merge: run k, numbered from 0 in table order
//	               (combination k / seeds, seed number k mod seeds), belongs to
//	               shard k mod n
//
// With -format json, -sweep and -seeds print a report (sweep.Report):
// the scenario's name and SHA-256, the sweep, the seeds, the shard, every
// run's summary and, unsharded, the table's rows.
//
// deploysim merge reads the -format json reports of the n shards of one
// sweep (in any order; a file may hold several reports one after the
// other) and prints exactly what the sweep run on one machine prints: the
// table (text, the default) or the report (-format json). It refuses
// reports of different scenario files, sweeps, seeds, time limits or shard
// counts, a shard given twice or missing, and an empty file, naming the
// file. examples/sweep-job.yaml runs the shards as a Kubernetes Indexed
// Job.
//
// Limits, so that a run's memory and time stay bounded: a scenario file of
// at most 2 MiB ([sim.MaxScenarioBytes]), at most 1,000,000 replicas per
// Deployment ([sim.MaxReplicas]) and 1,000,000 in all ([sim.MaxTotalReplicas]),
// at most 1,000 seeds per combination
// ([sweep.MaxSeeds]) and 10,000 runs per sweep ([sweep.MaxRuns]); a
// trace keeps at most 100,000 frames ([sim.MaxTraceFrames]), the first ones
// and the last.
//
//	-events        after the trace, list the Events as `kubectl get events -o
//	               wide` shows them at the end of the run: what the
//	               controller recorded after client-go's recorder combined
//	               similar events ("(combined from similar events): "),
//	               counted repeats and dropped bursts; -format json always
//	               has them ("events", and each raw event's "write")
//	-writes        with -format json, list every accepted write of a
//	               Deployment or ReplicaSet in order ("writes": time, writer,
//	               verb, object, resourceVersion, size and status after it)
//	-require-complete
//	               exit 3 when a Deployment's rollout is not complete at the
//	               end of the run, unless the scenario's expect: says so
//	               (-sweep, -seeds: when a run ended with one not complete)
//
// deploysim history and undo act as kubectl rollout history and undo
// would on the cluster of a dump: history prints kubectl's table (or,
// with --revision, the revision's pod template); undo prints the write
// kubectl sends and runs on from the dump with it, as -from does.
//
// A first argument that is neither a command nor a file is an unknown
// command, with the command it most likely meant.
//
// Exit status, the same in every command (exit.go, README.md's table): 0
// on success; 1 when a rollout failed: a Deployment's rollout ends
// otherwise than the scenario's expect: declares — like `kubectl rollout
// status`, a Deployment without an expectation fails the run when it ends
// ProgressDeadlineExceeded —, a when: step never fired, or (with -check)
// an invariant broke; 2 for bad usage or input (an unknown command or
// flag, a file that cannot be read or does not validate, a scenario that
// cannot be simulated, nothing that matches); 3 with -require-complete
// when a rollout is not complete. Outcomes do not make -sweep, -seeds and
// merge exit 1.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/deploymath/deploymath/sim"
	"github.com/deploymath/deploymath/sim/sweep"
	"golang.org/x/term"
)

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// gcPercent is deploysim's garbage-collection target, unless GOGC says
// otherwise. A run of deploysim reads its input once and keeps most of
// what it builds to the end (a dump's objects, a run's cluster), so that
// at Go's default (100) the collector marks the same live heap at every
// doubling of it. At 200, a run of a dump of 1,000 Deployments takes 16 %
// fewer instructions (2.06 -> 1.73 G) and explain of it 5 % fewer, for a
// peak RSS 14 % and 8 % higher at 10,000 Deployments (sim/BENCHMARKS.md,
// issue 27); 400 saves 4 % more for 43 % more memory.
const gcPercent = 200

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

// maxParallel bounds -parallel: every run in flight holds a simulated
// cluster in memory.
const maxParallel = 256

// options are the command line of a run.
type options struct {
	files    []string
	set      map[string]bool
	until    time.Duration
	format   string
	svg      string
	sweep    string
	seeds    int
	parallel int
	shard    string
	quiet    bool
	explain  bool
	check    bool
	// undo is deploysim undo: files holds the dump only
	undo bool
}

// multi reports whether the command line asks for many runs and a table.
func (o *options) multi() bool { return o.sweep != "" || o.set["seeds"] }

// run is deploysim with its arguments; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "merge":
			return runMerge(args[1:], stdout, stderr)
		case "explain":
			return runExplain(args[1:], os.Stdin, stdout, stderr)
		case "history":
			return runHistory(args[1:], stdout, stderr)
		case "undo":
			return runSim(args[1:], &undoRequest{}, stdout, stderr)
		}
	}
	return runSim(args, nil, stdout, stderr)
}

// runSim runs a FILE (a scenario, manifests or cluster state) or, with
// undo, deploysim undo: the rollback kubectl would write and a run of
// it from the dump's state.
func runSim(args []string, undo *undoRequest, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("deploysim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var seed seedFlag
	fs.Var(&seed, "seed", "the run's `seed`, a non-negative integer (default: the scenario's)")
	until := fs.Duration("until", 0, "time limit, positive (default: the scenario's)")
	format := fs.String("format", "text", "output format: text or json")
	svg := fs.String("svg", "", "write an SVG chart to this file")
	check := fs.Bool("check", false, "check invariants, exit 1 on a violation, and end with a one-line verdict")
	from := fs.String("from", "", "with a manifest file: the `STATE` it is applied to, cluster state (kubectl get deploy,rs,pods -o yaml output: applied at once) or manifests (applied once rolled out)")
	overlay := fs.String("overlay", "", "with a manifest FILE: a scenario without objects (`FILE`) whose cluster, steps and expect: are laid over the run, e.g. a failure rule for the new image")
	nowFlag := fs.String("now", "", "with cluster state (kubectl get -o yaml output): the `RFC3339` moment it was taken, the run's time 0 (default: the latest time in it)")
	events := fs.Bool("events", false, "after the trace, list the Events as `kubectl get events -o wide` shows them at the end of the run (aggregated by client-go's rules)")
	writes := fs.Bool("writes", false, "with -format json, list every accepted write of a Deployment or ReplicaSet in order (\"writes\")")
	requireComplete := fs.Bool("require-complete", false, "exit 3 when a Deployment's rollout is not complete at the end of the run (unless the scenario's expect: says so; -sweep, -seeds: when a run ended with one not complete)")
	fullStops := fs.Bool("full-stops", false, "show each requeued sync with the planner's full text")
	fullView := fs.Bool("full", false, "show every Deployment at every instant of the trace, not only what changed")
	summaryOnly := fs.Bool("summary", false, "print the summary only, without the trace (not recorded: faster for many Deployments)")
	explain := fs.Bool("explain", false, "show under each instant every write of the deployment controller with its reason, and why a sync of an incomplete rollout wrote nothing (slower)")
	sweepSpec := fs.String("sweep", "", "strategy sweep, e.g. 'maxSurge=0,1,25%;maxUnavailable=1,10%'")
	seeds := fs.Int("seeds", 5, fmt.Sprintf("seeds per sweep combination, 1 to %d; without -sweep, run the scenario as written over this many seeds", sweep.MaxSeeds))
	parallel := fs.Int("parallel", 0, fmt.Sprintf("carry out `N` runs of -sweep or -seeds at once, 0 (GOMAXPROCS) to %d; 1 runs them one after the other; the output is the same for every N", maxParallel))
	quiet := fs.Bool("quiet", false, "no progress line on stderr (shown only on a terminal, for runs over 2 s)")
	shard := fs.String("shard", "", "carry out only shard `i/n` (i of n, from 0) of -sweep or -seeds, for deploysim merge (needs -format json): run k, numbered from 0 in table order, is in shard k mod n")
	version := fs.Bool("version", false, "print deploysim's version and the Kubernetes version it models")
	if undo != nil {
		undo.flags(fs)
		undo.stderr = stderr
	}
	fs.Usage = func() {
		if undo != nil {
			fmt.Fprint(stderr, undoUsage)
			fs.PrintDefaults()
			return
		}
		fmt.Fprintln(stderr, "usage: deploysim [flags] SCENARIO.yaml [flags]")
		fmt.Fprintln(stderr, "       deploysim [flags] STATE.yaml   (what happens next to the cluster state of kubectl get deploy,rs,pods -o yaml)")
		fmt.Fprintln(stderr, "       deploysim [flags] [-from STATE.yaml] MANIFEST.yaml   (what kubectl apply -f MANIFEST.yaml does)")
		fmt.Fprintln(stderr, "       deploysim merge [-format text|json] FILE...   (merge the -format json output of the shards of a sweep)")
		fmt.Fprintln(stderr, "       deploysim explain [flags] FILE|- [DEPLOYMENT]   (explain the Deployments of kubectl get deploy,rs,pods -o yaml; deploysim explain -h)")
		fmt.Fprintln(stderr, "       deploysim history [-n NAMESPACE] [--revision N] DUMP [DEPLOYMENT]   (kubectl rollout history of a dump)")
		fmt.Fprintln(stderr, "       deploysim undo [-n NAMESPACE] [--to-revision N] [flags] DUMP DEPLOYMENT   (what kubectl rollout undo writes, and a run of it)")
		fmt.Fprintln(stderr, "       deploysim -version")
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "limits: scenario file %d MiB, %d replicas per Deployment and %d in all, %d seeds per sweep combination, %d runs per sweep, %d trace frames (the first ones and the last are kept)\n",
			sim.MaxScenarioBytes>>20, sim.MaxReplicas, sim.MaxTotalReplicas, sweep.MaxSeeds, sweep.MaxRuns, sim.MaxTraceFrames)
	}
	files, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return 0 // -h: the flag package printed the usage
	}
	if err != nil {
		return exitUsage // the flag package printed the error and the usage
	}
	if *version {
		info, ok := debug.ReadBuildInfo()
		printVersion(stdout, info, ok)
		return exitOK
	}
	if undo == nil && len(files) > 0 {
		if err := unknownCommand(files[0]); err != nil {
			fmt.Fprintf(stderr, "deploysim: %v\n", err)
			return exitUsage
		}
	}
	if undo != nil {
		if files, err = undo.args(files); err != nil {
			fmt.Fprintf(stderr, "deploysim undo: %v\n", err)
			fs.Usage()
			return exitUsage
		}
	}
	o := &options{files: files, set: map[string]bool{}, until: *until, format: *format, svg: *svg,
		sweep: *sweepSpec, seeds: *seeds, parallel: *parallel, shard: *shard, quiet: *quiet, explain: *explain,
		check: *check, undo: undo != nil}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	sh, err := checkFlags(o)
	if err != nil {
		fmt.Fprintf(stderr, "deploysim: %v\n", err)
		if len(files) == 0 {
			fs.Usage()
		}
		return exitUsage
	}
	var params []sweep.Param
	if *sweepSpec != "" {
		if params, err = sweep.Parse(*sweepSpec); err != nil {
			fmt.Fprintf(stderr, "deploysim: -sweep: %v\n", err)
			return exitUsage
		}
	}
	var now time.Time
	if *nowFlag != "" {
		if now, err = time.Parse(time.RFC3339, *nowFlag); err != nil {
			fmt.Fprintf(stderr, "deploysim: -now %q: want an RFC 3339 time such as 2026-11-23T10:00:00Z\n", *nowFlag)
			return exitUsage
		}
	}
	var sc *sim.Scenario
	if undo != nil {
		sc, err = undo.scenario(*overlay, now)
	} else {
		sc, err = loadScenario(files[0], *from, *overlay, now)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	if *writes && *format != "json" {
		fmt.Fprintln(stderr, "deploysim: -writes needs -format json")
		return exitUsage
	}
	if *summaryOnly && (*svg != "" && !o.multi() || *events || *explain || *fullView) {
		fmt.Fprintln(stderr, "deploysim: -summary leaves the trace out: not with -svg, -events, -explain or -full")
		return 2
	}
	opts := sim.Options{Until: *until, Check: *check, FullStops: *fullStops, Explain: *explain, Writes: *writes,
		FullView: *fullView, NoTrace: *summaryOnly}
	if seed.set {
		opts.Seed = &seed.v
	}
	if *until > 0 {
		if err := sc.CheckUntil(*until); err != nil {
			fmt.Fprintf(stderr, "deploysim: -until %s: %v\n", *until, err)
			return exitUsage
		}
	}
	if o.multi() {
		return runSweep(sc, params, opts, o, sh, *requireComplete, stdout, stderr)
	}
	res, err := runOne(sc, opts, o.quiet, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	switch *format {
	case "text":
		if undo != nil {
			fmt.Fprint(stdout, undo.text())
		}
		fmt.Fprint(stdout, res.Text())
		if *events {
			fmt.Fprintf(stdout, "events at the end (%s), as kubectl get events -o wide lists them:\n%s", res.Summary.End, sim.DescribeEvents(res.Events, res.Summary.End))
		}
	case "json":
		b, err := res.JSON()
		if err == nil && undo != nil {
			b, err = undo.json(b)
		}
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "%s\n", b)
	}
	if *svg != "" {
		if err := os.WriteFile(*svg, sim.SVG(res), 0o644); err != nil {
			fmt.Fprintln(stderr, err)
			return exitUsage
		}
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	for _, m := range res.Missed {
		fmt.Fprintf(stderr, "deploysim: %s\n", m.Message)
	}
	code := exitOK
	if len(res.Missed) > 0 {
		code = exitFailed
	}
	for _, o := range res.Outcomes {
		switch {
		case o.Unexpected(false):
			fmt.Fprintf(stderr, "deploysim: %s\n", o)
			code = worse(code, exitFailed)
		case o.Unexpected(*requireComplete):
			fmt.Fprintf(stderr, "deploysim: %s\n", o)
			code = worse(code, exitIncomplete)
		}
	}
	if *check {
		for _, v := range res.Violations {
			fmt.Fprintf(stderr, "invariant broken: %s\n", v)
		}
		fmt.Fprintln(stderr, checkVerdict(res))
		if len(res.Violations) > 0 {
			code = worse(code, exitFailed)
		}
	}
	return code
}

// checkFlags checks what the flag package cannot: the number of files and
// the flags' ranges and combinations, before anything runs. It returns
// the parsed -shard.
func checkFlags(o *options) (sweep.Shard, error) {
	var errs []error
	switch len(o.files) {
	case 0:
		errs = append(errs, errors.New("no scenario file"))
	case 1:
	default:
		errs = append(errs, fmt.Errorf("want one scenario file, got %d: %s", len(o.files), strings.Join(o.files, " ")))
	}
	if o.undo {
		for _, f := range []string{"sweep", "seeds", "shard", "from"} {
			if o.set[f] {
				errs = append(errs, fmt.Errorf("-%s: deploysim undo runs the rollback once from the dump; not with -%s", f, f))
			}
		}
	}
	if o.set["until"] && o.until <= 0 {
		errs = append(errs, fmt.Errorf("-until %s: must be positive", o.until))
	}
	if err := checkFormat(o.format); err != nil {
		errs = append(errs, err)
	}
	if o.seeds < 1 || o.seeds > sweep.MaxSeeds {
		errs = append(errs, fmt.Errorf("-seeds %d: want 1 to %d (sweep.MaxSeeds)", o.seeds, sweep.MaxSeeds))
	}
	if o.parallel < 0 || o.parallel > maxParallel {
		errs = append(errs, fmt.Errorf("-parallel %d: want 0 (GOMAXPROCS) to %d", o.parallel, maxParallel))
	}
	var sh sweep.Shard
	if o.set["shard"] {
		var err error
		switch sh, err = sweep.ParseShard(o.shard); {
		case err != nil:
			errs = append(errs, fmt.Errorf("-shard %v", err))
		case !o.multi():
			errs = append(errs, fmt.Errorf("-shard %s: shards split the runs of -sweep or -seeds; give one of them", o.shard))
		case o.format != "json":
			errs = append(errs, fmt.Errorf("-shard %s: a shard prints its runs for deploysim merge; add -format json", o.shard))
		}
	}
	if o.explain && o.multi() {
		errs = append(errs, errors.New("-explain: explains the trace of a single run; not with -sweep or -seeds"))
	}
	if o.check && o.multi() {
		errs = append(errs, errors.New("-check: checks the invariants of a single run; not with -sweep or -seeds (their runs keep only summaries)"))
	}
	if o.svg != "" && o.multi() && o.format == "json" && o.set["shard"] {
		errs = append(errs, fmt.Errorf("-svg %s: a shard holds part of the sweep; draw the merged one", o.svg))
	}
	return sh, errors.Join(errs...)
}

func checkFormat(format string) error {
	if format != "text" && format != "json" {
		return fmt.Errorf("-format %q: unknown format (want text or json)", format)
	}
	return nil
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
