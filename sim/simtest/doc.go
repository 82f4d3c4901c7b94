// Package simtest is property testing for your own controllers on the
// simulator, with rapid (pgregory.net/rapid). Like net/http/httptest, it
// exists to be imported by tests.
//
// A [Config] names the controllers under test ([sim.Controller]s, with
// the [runtime.Scheme] of their kinds), how to draw your part of a case
// (Base: a scenario built with [sim.NewScenario] from your objects and
// steps) and what must hold: your invariants ([sim.Invariant], checked
// after each write of your controllers and at every instant), and
// Converged, a predicate over the cluster checked at the end of every run
// whose faults all heal. [Check] draws cases: your base, and on top of it
// the faults of [Faults] — pods' start-up and readiness delays, images
// that crash-loop, never become ready or cannot be pulled, nodes that fail
// or become unreachable (and recover, or not), API write conflicts
// injected at random writes, an informer delay, restarts of your
// controllers that lose their in-memory state — and runs each with the
// built-in cluster (ReplicaSet controller, scheduler, kubelets, nodes) and
// the built-in invariants ([sim.Options].Check; a controller that keeps
// syncing at one instant stops the run).
//
// On a failure rapid shrinks the case, and Check writes the smallest one
// as a scenario file (testdata/simtest/TEST.yaml) with the trace of its
// run beside it (TEST.golden), and says how to replay it: the one-line
// test
//
//	func TestCanaryRegression(t *testing.T) { simtest.Replay(t, "testdata/simtest/TestCanary.yaml", cfg) }
//
// runs the file with your controllers and fails the same way until the
// bug is fixed. When only the built-in controllers run, the file replays
// with deploysim as well.
package simtest
