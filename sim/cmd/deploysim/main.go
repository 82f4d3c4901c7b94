// Command deploysim runs a deployment scenario on the deterministic
// simulator and prints its trace and summary.
//
//	deploysim [flags] SCENARIO.yaml
//
// Flags:
//
//	-seed N        override the scenario's seed
//	-until D       override the time limit (e.g. 10m)
//	-format F      text (default) or json
//	-svg FILE      write a chart of replicas per ReplicaSet and available pods
//	-check         check the invariants; exit 1 naming the step that broke one
//	-sweep SPEC    e.g. 'maxSurge=0,1,25%;maxUnavailable=0,10%': run every
//	               combination over -seeds seeds and print a table
//	-seeds N       number of seeds per sweep combination (default 5)
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/deploymath/deploymath/sim"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("deploysim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seed := fs.Int64("seed", -1, "seed (default: the scenario's)")
	until := fs.Duration("until", 0, "time limit (default: the scenario's)")
	format := fs.String("format", "text", "output format: text or json")
	svg := fs.String("svg", "", "write an SVG chart to this file")
	check := fs.Bool("check", false, "check invariants and exit 1 on a violation")
	sweep := fs.String("sweep", "", "strategy sweep, e.g. 'maxSurge=0,1,25%;maxUnavailable=0,10%'")
	seeds := fs.Int("seeds", 5, "seeds per sweep combination")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: deploysim [flags] SCENARIO.yaml")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	sc, err := sim.LoadScenario(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	opts := sim.Options{Until: *until, Check: *check}
	if *seed >= 0 {
		s := uint64(*seed)
		opts.Seed = &s
	}
	if *sweep != "" {
		params, err := sim.ParseSweep(*sweep)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		base := sc.Seed
		if opts.Seed != nil {
			base = *opts.Seed
		}
		var ss []uint64
		for i := 0; i < max(1, *seeds); i++ {
			ss = append(ss, base+uint64(i))
		}
		rows, err := sim.Sweep(sc, params, ss, opts)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		fmt.Fprintf(stdout, "scenario %s, seeds %d..%d\n", sc.Name, ss[0], ss[len(ss)-1])
		fmt.Fprint(stdout, sim.DescribeSweep(rows))
		return 0
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
	default:
		fmt.Fprintf(stderr, "-format: unknown format %q (want text or json)\n", *format)
		return 2
	}
	if *svg != "" {
		if err := os.WriteFile(*svg, sim.SVG(res), 0o644); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}
	if *check && len(res.Violations) > 0 {
		for _, v := range res.Violations {
			fmt.Fprintf(stderr, "invariant broken: %s\n", v)
		}
		return 1
	}
	return 0
}
