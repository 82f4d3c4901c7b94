package simtest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/sim"
	"k8s.io/apimachinery/pkg/runtime"
	"pgregory.net/rapid"
)

// Config is what a property test of your controllers needs: the
// controllers, their scheme, how to draw a case, and what must hold.
type Config struct {
	// Controllers returns new instances of the controllers under test,
	// for one run (each case gets its own; nil: only the built-in
	// controllers run).
	Controllers func() []sim.Controller
	// Scheme registers the Go types of your kinds ([sim.Options].Scheme).
	Scheme *runtime.Scheme
	// Base draws your part of a case: a scenario built with
	// [sim.NewScenario] (objects of your kinds with
	// [sim.Scenario.WithObject], your steps, your cluster settings). The
	// faults are drawn on top of it; a cluster field it sets is kept, and
	// so is its seed unless 0 (then drawn).
	Base func(t *rapid.T) *sim.Scenario
	// Faults are the faults a case may draw (nil: [DefaultFaults]).
	Faults *Faults
	// Invariants returns your invariants for one run, checked after each
	// write of your controllers and at the end of every instant (see
	// [sim.Invariant]). A new set for each run, so that an invariant may
	// remember what it saw at its previous check.
	Invariants func() []sim.Invariant
	// Converged says whether your controllers have brought the cluster
	// where they should: checked at the end of every run whose faults all
	// heal ([Heals]), it returns an error saying what is not there yet.
	Converged func(r sim.Reader) error
	// End, when set, checks the end of every run, with the case (for
	// example that a rollout whose new image never becomes ready halts).
	End func(r sim.Reader, c *Case) error
	// Dir is where a failing case is written (default testdata/simtest,
	// beside the test).
	Dir string
}

// Case is one run of a drawn (or replayed) scenario.
type Case struct {
	// Scenario is the scenario that ran: the base with its faults.
	Scenario *sim.Scenario
	// Heals reports whether every fault of the scenario heals ([Heals]):
	// Converged was checked.
	Heals bool
	// Result is the run's result (nil when the run stopped with an error,
	// such as a controller that keeps syncing at one instant).
	Result *sim.Result

	// hosted says controllers of Config.Controllers ran.
	hosted bool
}

// Draw draws a case's scenario: the base of cfg with the faults of cfg on
// top, and a seed.
func Draw(t *rapid.T, cfg Config) *sim.Scenario {
	if cfg.Base == nil {
		t.Fatalf("simtest: Config.Base must be set")
	}
	sc := cfg.Base(t)
	if sc == nil {
		t.Fatalf("simtest: Config.Base returned nil")
	}
	c := *sc
	c.Steps = slices.Clone(sc.Steps)
	c.Cluster.Failures = slices.Clone(sc.Cluster.Failures)
	c.Cluster.Nodes = slices.Clone(sc.Cluster.Nodes)
	if c.Seed == 0 {
		c.Seed = rapid.Uint64().Draw(t, "seed")
	}
	f := DefaultFaults()
	if cfg.Faults != nil {
		f = *cfg.Faults
	}
	var restartable []string
	if cfg.Controllers != nil {
		ctrls := cfg.Controllers()
		if len(ctrls) == 0 {
			f.WriteConflicts = 0 // they apply to your controllers only
		}
		for _, ctrl := range ctrls {
			if _, ok := ctrl.(sim.Restartable); ok {
				restartable = append(restartable, ctrl.Name())
			}
		}
	} else {
		f.WriteConflicts = 0
	}
	f.draw(t, &c, restartable)
	return &c
}

// options are the run's options for cfg: fresh controllers and
// invariants, and the built-in invariants.
func (cfg Config) options() sim.Options {
	o := sim.Options{Scheme: cfg.Scheme, Check: true}
	if cfg.Controllers != nil {
		o.Controllers = cfg.Controllers()
	}
	if cfg.Invariants != nil {
		o.Invariants = cfg.Invariants()
	}
	return o
}

// Run runs sc with the controllers and invariants of cfg and checks it as
// [Check] checks a drawn case. The error, a *[Failure], says every way the
// case failed. The Case is returned either way.
func Run(sc *sim.Scenario, cfg Config) (*Case, error) { return run(sc, cfg, true) }

// Failure is how a case failed: the error of [Run].
type Failure struct {
	// Stopped is why the run stopped: the scenario does not run with the
	// controllers (an unregistered kind, an invalid object), a controller
	// kept reconciling at one instant without settling, or panicked.
	Stopped error
	// Violations are the broken invariants: yours and the built-in ones
	// of [sim.Options].Check, in time order.
	Violations []sim.Violation
	// NotConverged is Converged's error at the end of a run whose faults
	// all healed.
	NotConverged error
	// End is Config.End's error.
	End error
	// At is when the run ended.
	At time.Duration
}

// Error lists the ways the case failed, one a line.
func (f *Failure) Error() string {
	var lines []string
	if f.Stopped != nil {
		lines = append(lines, "the run stopped: "+f.Stopped.Error())
	}
	for _, v := range f.Violations {
		lines = append(lines, "violated "+v.String())
	}
	if f.NotConverged != nil {
		lines = append(lines, fmt.Sprintf("not converged at the end (t=%s), though every fault healed: %v", f.At, f.NotConverged))
	}
	if f.End != nil {
		lines = append(lines, fmt.Sprintf("at the end (t=%s): %v", f.At, f.End))
	}
	return strings.Join(lines, "\n")
}

// run is Run; without trace the run builds no trace (sim.Options.NoTrace,
// about half the time of a small run).
func run(sc *sim.Scenario, cfg Config, trace bool) (*Case, error) {
	o := cfg.options()
	o.NoTrace = !trace
	c := &Case{Scenario: sc, Heals: Heals(sc), hosted: len(o.Controllers) > 0}
	s, err := sim.New(sc, o)
	if err != nil {
		return c, &Failure{Stopped: err}
	}
	res, err := s.Run()
	if err != nil {
		return c, &Failure{Stopped: err}
	}
	c.Result = res
	f := &Failure{Violations: res.Violations, At: res.Summary.End}
	r := s.APIReader()
	if c.Heals && cfg.Converged != nil {
		f.NotConverged = cfg.Converged(r)
	}
	if cfg.End != nil {
		f.End = cfg.End(r, c)
	}
	if len(f.Violations) == 0 && f.NotConverged == nil && f.End == nil {
		return c, nil
	}
	return c, f
}

// Check runs the property test of cfg with rapid: each case draws a
// scenario ([Draw]), runs it ([Run]) and fails when the run does. On a
// failure rapid shrinks the case; the smallest failing scenario is
// written to Dir/NAME.yaml (NAME from the test's name) and the trace of
// its run to Dir/NAME.golden, and the failure says where they are, the
// one line that replays the case ([Replay]), and the trace.
//
// With only the built-in controllers (Config.Controllers nil) the file is
// a plain scenario: deploysim replays it too (the failure lists the
// command; your invariants and Converged are not deploysim's, its -check
// runs the built-in ones).
func Check(t rapid.TB, cfg Config) {
	t.Helper()
	if cfg.Base == nil {
		t.Fatalf("simtest: Config.Base must be set")
		return
	}
	file := cfg.path(t.Name())
	rapid.Check(t, func(rt *rapid.T) {
		sc := Draw(rt, cfg)
		if _, err := run(sc, cfg, false); err == nil {
			return
		}
		c, err := Run(sc, cfg) // again, for the trace
		if err == nil {
			rt.Fatalf("simtest: the case fails without a trace and passes with one: the simulator is not deterministic")
			return
		}
		where, werr := write(file, c)
		if werr != nil {
			rt.Fatalf("%v\n(the case could not be written: %v)", err, werr)
			return
		}
		if c.Result != nil {
			rt.Logf("trace of the failing run (also in %s):\n%s", strings.TrimSuffix(file, ".yaml")+".golden", c.Result.Text())
		}
		// One call site for each kind of failure: rapid shrinks a case
		// only to cases that fail at the same line, so the shrunk case
		// fails as the first one did.
		f := err.(*Failure)
		switch {
		case f.Stopped != nil:
			rt.Fatalf("%v\n\n%s", err, where)
		case len(f.Violations) > 0:
			rt.Fatalf("%v\n\n%s", err, where)
		case f.NotConverged != nil:
			rt.Fatalf("%v\n\n%s", err, where)
		default:
			rt.Fatalf("%v\n\n%s", err, where)
		}
	})
}

// path is the file of a failing case of the test name.
func (cfg Config) path(name string) string {
	dir := cfg.Dir
	if dir == "" {
		dir = filepath.Join("testdata", "simtest")
	}
	return filepath.Join(dir, unsafeChars.ReplaceAllString(name, "_")+".yaml")
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// write writes the case's scenario to file and its trace beside it, and
// says where they are and how to replay them.
func write(file string, c *Case) (string, error) {
	src, err := c.Scenario.Marshal()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(file, src, 0o644); err != nil {
		return "", err
	}
	golden := strings.TrimSuffix(file, ".yaml") + ".golden"
	if c.Result != nil {
		if err := os.WriteFile(golden, []byte(c.Result.Text()), 0o644); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the shrunk case is in %s (its trace in %s); replay it with\n\n", file, golden)
	fmt.Fprintf(&b, "\tsimtest.Replay(t, %q, cfg) // cfg: the simtest.Config of this test\n", file)
	if !c.hosted {
		fmt.Fprintf(&b, "\nor, since only built-in controllers run, with\n\n\tgo run ./sim/cmd/deploysim -check %s\n", file)
	}
	return b.String(), nil
}

// Replay loads the scenario file (as [Check] writes it) and runs it with
// the controllers and invariants of cfg: the test fails, with the same
// failure and the run's trace, when the case fails, and passes once the
// bug is fixed. Keep the file under testdata and the line as a
// regression test:
//
//	func TestCanaryRegression(t *testing.T) { simtest.Replay(t, "testdata/simtest/TestCanary.yaml", cfg) }
func Replay(t testing.TB, file string, cfg Config) {
	t.Helper()
	sc, err := sim.LoadScenario(file)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Run(sc, cfg)
	if err == nil {
		return
	}
	if c.Result != nil {
		t.Logf("trace:\n%s", c.Result.Text())
	}
	t.Fatalf("%s: %v", file, err)
}
