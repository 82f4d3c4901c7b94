package sim

import (
	"time"

	"github.com/deploymath/deploymath/rollout"
	"k8s.io/apimachinery/pkg/runtime"
)

// Options tune one run. The zero value runs the scenario as written.
type Options struct {
	// Seed, when non-nil, replaces the scenario's seed.
	Seed *uint64
	// Until, when positive, replaces the scenario's time limit.
	Until time.Duration
	// Plan is passed to [rollout.PlanWith] on every sync, with Quiet set
	// unless Explain is (the explanations cost time and only Explain reads
	// them).
	Plan rollout.Options
	// Explain plans with explanations and records, in each frame, every
	// sync of the Deployment controller that wrote something, with each
	// write's reason in numbers, and every sync that wrote nothing while
	// its Deployment's rollout was incomplete, with the plan's notes on
	// why nothing moved ([Frame].Syncs). An instant whose only news is a
	// sync that wrote nothing (a retry, a timed requeue) adds no frame.
	// Off by default: a run with it plans more slowly.
	Explain bool
	// NoTrace skips building the trace (frames); the summary is still
	// computed. Benchmarks use it.
	NoTrace bool
	// Check runs the invariants (see [Invariants]) after every write of the
	// Deployment controller and at the end of the run.
	Check bool
	// FullStops makes the text trace ([Result.Text], [DescribeTrace]) show
	// each sync that ended early with the planner's full explanation
	// ("# sync web stopped: ..."), instead of one line saying what kind of
	// requeue it was ([DescribeStop]). The JSON has the full text either
	// way ([Frame].Stops).
	FullStops bool
	// Writes records every accepted write of a Deployment or a ReplicaSet
	// (create, update, status, delete) with the object's size and status
	// after it, in [Result].Writes and the JSON's "writes": the states a
	// watch sees, including those that last no simulated time.
	Writes bool
	// Progress, when set, is called on the run's goroutine as an instant
	// of virtual time ends, once [ProgressEvery] events or more were
	// processed since the last call, with where the run stands: for a
	// progress line (deploysim shows one on a terminal). It sees copies:
	// the run is the same with it or without it. Nil costs a comparison
	// per instant.
	Progress func(Progress)
	// Controllers are run beside the built-in controllers (see
	// [Controller]): each gets its work-queue keys from its watches and
	// reads and writes the simulated cluster through its [Context]. A
	// scenario with cluster.deploymentController: false runs them without
	// the built-in Deployment controller.
	Controllers []Controller
	// Scheme holds the Go types of the kinds of the controllers and of the
	// scenario's objects beyond the built-in ones (nil: the built-in
	// kinds only). apps/v1 and core/v1 are added to it.
	Scheme *runtime.Scheme
	// Invariants are checked after each write of a hosted controller and
	// at the end of every instant (see [Invariant]); their violations are
	// in [Result].Violations.
	Invariants []Invariant

	// genericBuiltins runs the built-in Deployment controller through the
	// host's generic path (deploymentcontroller.go) instead of the
	// engine's fast path, for the test that compares the two.
	genericBuiltins bool
}

// Progress is where a run stands, as [Options].Progress sees it.
type Progress struct {
	// Now is the virtual time reached, Until the run's time limit.
	Now, Until time.Duration
	// Events counts the events processed so far ([Stats].Events).
	Events int
	// Pods counts the pods that exist now, terminating ones included.
	Pods int
}

// ProgressEvery is the least number of events between two calls of
// [Options].Progress: at most about 100 calls a second at the engine's
// speed on large rollouts.
const ProgressEvery = 1 << 14
