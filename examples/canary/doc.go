// Command canary is a canary controller built on deploymath's rollout
// building blocks alone, without [rollout.Plan], and tested on the
// simulator: a custom kind, [Canary] (a template, replicas, maxSurge and
// maxUnavailable, a progress deadline and weighted steps such as 20%,
// 50%, 100%), and a [Controller] that the simulator hosts beside its
// ReplicaSet controller, scheduler and kubelets. `go run ./examples/canary`
// runs the bundled scenario (canary.yaml) and prints the trace; `go run
// ./examples/canary FILE` runs another scenario file with the controller
// (the files the property test writes, for instance).
//
// # The reconcile rule
//
// A step of weight w (a percent) gives the canary the target size
// ceil(w × replicas / 100) and the stable ReplicaSet the rest. [Decide]
// does at most one kind of scaling and then returns, as the Deployment
// controller's RollingUpdate sync does:
//
//  1. Timed out ([rollout.TimedOut] on the status): halt. Nothing is scaled
//     any more; a person has to look at the canary.
//  2. Grow the canary: [rollout.NewRSNewReplicas] gives the room left under
//     replicas + maxSurge; the canary takes it, but never beyond the step's
//     target.
//  3. Shrink the stable ReplicaSet: [rollout.MaxScaledDown] is the budget
//     that does not count on the canary's unavailable pods; within it (and
//     never below the stable target) [rollout.CleanupUnhealthy] removes
//     unavailable stable pods, then [rollout.ScaleDownOld] removes
//     available ones as far as minAvailable allows.
//  4. Nothing to scale and the step is reached (the canary runs its target,
//     all available, no other stable pod left): go to the next step. After
//     the last one (100%) promote: the canary becomes the stable
//     ReplicaSet, the old stable one joins the history, and
//     [rollout.HistoryToDelete] picks the empty ones beyond
//     revisionHistoryLimit to delete.
//
// Every decision ends with the status: [rollout.Counts] over both
// ReplicaSets, and the Progressing condition refreshed when the counts made
// progress ([rollout.Progressing]), set to NewReplicaSetAvailable once
// promoted, to ProgressDeadlineExceeded when [rollout.TimedOut]; the
// outcome says when to look again ([rollout.RequeueAfter]). The
// [Controller] reads the [Rollout] from the Canary and its ReplicaSets,
// and writes the [Outcome] back.
//
// # Tests
//
// property_test.go checks the controller with sim/simtest over random
// canaries and faults: availability never taken below minAvailable by the
// controller, never more than replicas + maxSurge pods, every step reached
// in order, promotion once the faults heal, a halt at the progress
// deadline when the canary's pods never become available. A planted bug
// (the stable side shrinks without counting the canary's unavailable
// pods) is caught, and the scenario file rapid shrank it to is kept in
// testdata/simtest with the trace of its run.
package main
