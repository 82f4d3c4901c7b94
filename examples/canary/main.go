package main

import (
	_ "embed"
	"fmt"
	"io"
	"os"

	"github.com/deploymath/deploymath/sim"
)

// bundled is the scenario `go run ./examples/canary` runs.
//
//go:embed canary.yaml
var bundled []byte

func main() {
	os.Exit(run(os.Stdout, os.Stderr, os.Args[1:]))
}

// run runs the scenario file of args (the bundled canary.yaml without
// one) with the canary controller and prints its trace. It returns the
// exit code: 0, 1 when the run stops with an error, 2 for bad input.
func run(stdout, stderr io.Writer, args []string) int {
	var sc *sim.Scenario
	var err error
	switch len(args) {
	case 0:
		sc, err = sim.ParseScenario(bundled)
	case 1:
		sc, err = sim.LoadScenario(args[0])
	default:
		fmt.Fprintln(stderr, "usage: canary [SCENARIO.yaml]")
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "canary:", err)
		return 2
	}
	s, err := sim.New(sc, Options()) // decodes the Canaries: bad input
	if err != nil {
		fmt.Fprintln(stderr, "canary:", err)
		return 2
	}
	res, err := s.Run()
	if err != nil {
		fmt.Fprintln(stderr, "canary:", err)
		return 1
	}
	fmt.Fprint(stdout, res.Text())
	return 0
}

// Options are the simulator's options that host the canary controller:
// the Canary kind in the scheme and the [Controller].
func Options() sim.Options {
	return sim.Options{Scheme: NewScheme(), Controllers: []sim.Controller{&Controller{}}}
}
