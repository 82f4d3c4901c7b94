// Package simtest is property testing for your own controllers on the
// simulator, with rapid (pgregory.net/rapid). Like net/http/httptest, it
// exists to be imported by tests.
//
// # Test your own controller
//
// A controller of your own runs in the simulator beside the built-in
// ReplicaSet controller, scheduler, kubelets and nodes: it implements
// [sim.Controller] (Name, Watches with [sim.For], [sim.Owns] or
// [sim.Watches], Reconcile with a [sim.Context] whose client has the API
// server's semantics), its kinds are Go types registered in a
// [runtime.Scheme], and scenarios hold its objects as YAML manifests (or
// [sim.Scenario.WithObject] in Go). A [Config] says what to test:
//
//	func TestCanary(t *testing.T) {
//		simtest.Check(t, simtest.Config{
//			Scheme:      NewScheme(),
//			Controllers: func() []sim.Controller { return []sim.Controller{&Controller{}} },
//			Base:        drawCanary, // func(*rapid.T) *sim.Scenario: your objects and steps
//			Invariants:  invariants, // func() []sim.Invariant
//			Converged:   promoted,   // func(sim.Reader) error
//		})
//	}
//
// Base draws your part of a case: a scenario built with
// [sim.NewScenario] from your objects and steps. [Check] draws the faults
// of [Faults] on top of it — pods' start-up and readiness delays, images
// that crash-loop, never become ready or cannot be pulled, nodes that
// fail or become unreachable (and recover, or not), API write conflicts
// injected at random writes of your controllers, an informer delay,
// restarts of your controllers that lose their in-memory state — and runs
// each case with the built-in cluster and the built-in invariants
// ([sim.Options].Check; a controller that keeps reconciling at one
// instant without settling stops the run). Your invariants
// ([sim.Invariant]) are checked after each write of your controllers and
// at every instant; Converged, a predicate over the cluster, at the end
// of every run whose faults all heal ([Heals]); End, when set, at the end
// of every run, with the [Case].
//
// # A failure
//
// On a failure rapid shrinks the case, and Check writes the smallest one
// as a scenario file (testdata/simtest/TEST.yaml) with the trace of its
// run beside it (TEST.golden), and prints both, the failure, and the one
// line that replays it:
//
//	violated canary: availability after step 1 at t=11s: web: scaling web-6c7874fc5f 2->1 took the pods available within the sizes from 2 to 1 (minAvailable 2)
//
//	the shrunk case is in testdata/simtest/TestCanary.yaml (its trace in testdata/simtest/TestCanary.golden); replay it with
//
//		simtest.Replay(t, "testdata/simtest/TestCanary.yaml", cfg) // cfg: the simtest.Config of this test
//
// [Replay] runs the file with your controllers and fails the same way
// until the bug is fixed: keep the file and the line as a regression
// test. The file is a plain scenario: when only the built-in controllers
// run, deploysim replays it too (the failure prints the command).
//
// # Writing invariants
//
// An invariant sees the API server as it is after a write or at the end
// of an instant, faults included: a node failure takes pods' availability
// away without any controller's doing. Judge what your controller did,
// not what the cluster suffered: remember the previous check (Invariants
// returns a new set for each run, so closures may keep state) and look at
// what changed by your controller's writes — the sizes it set, the step
// it recorded — over the statuses as they are now. examples/canary has
// four such invariants (availability, surge, steps in order, the halt at
// the progress deadline) and a planted bug they catch.
package simtest
