// Package rollout is the Kubernetes Deployment controller's sync as a pure
// function: a [Snapshot] (the Deployment, the ReplicaSets of its namespace,
// their pods and the current instant) goes in, a [Result] (the API writes,
// events, new status and when to sync again) comes out. Nothing is read from
// a client or a clock and nothing is written: the caller applies the result.
// The same snapshot always gives the same result.
//
// One call of [Plan] reproduces one call of syncDeployment in the upstream
// controller of Kubernetes v1.37 (pkg/controller/deployment), with its exact
// order of steps, its early returns, its arithmetic, and its event and
// condition strings. Iterating plan → apply → plan therefore walks through
// the same sequence of states a cluster goes through.
//
// # Order of one sync
//
//  1. A selector that selects everything: a SelectingAll warning, only
//     observedGeneration is recorded.
//  2. Claim ReplicaSets: adopt matching orphans, release owned ones that no
//     longer match ([AdoptReplicaSet], [ReleaseReplicaSet]).
//  3. A Deployment being deleted: status only.
//  4. Paused and resumed conditions (Progressing=Unknown).
//  5. Paused: scale and clean up, nothing else.
//  6. The legacy rollback annotation deprecated.deployment.rollback.to:
//     roll the template back ([UpdateDeployment]).
//  7. A scaling event (an active ReplicaSet whose desired-replicas
//     annotation differs from spec.replicas): proportional scaling.
//  8. The rollout: RollingUpdate or Recreate, then cleanup beyond
//     revisionHistoryLimit and the rollout status.
//
// # Building blocks
//
// The arithmetic of a sync is exported as pure functions over two small
// values, [Params] (a rollout's replicas, strategy, fenceposts, deadlines;
// [ParamsOf] reads a Deployment) and [ReplicaSet] (a ReplicaSet's size, pod
// counts, creation time, revision and annotations; [ReplicaSetOf] reads an
// apps/v1 one), so that a controller with a workload type of its own can use
// them without a Deployment. In the order of one sync:
//
//   - the new and the old ReplicaSets: [FindNewReplicaSet],
//     [FindOldReplicaSets];
//   - fenceposts: [Params.Limits], [Params.MinAvailable] (see package
//     fencepost);
//   - the new ReplicaSet's size: [NewRSNewReplicas];
//   - the old ReplicaSets' scale-down: [MaxScaledDown] (the budget),
//     [CleanupUnhealthy] (unavailable pods first), [ScaleDownOld] (oldest
//     first, keeping minAvailable), or all of a RollingUpdate sync's sizing
//     composed as Plan composes it: [RollingStep];
//   - scaling events: [ActiveOrLatest], [IsSaturated], [Proportions];
//   - history: [HistoryToDelete];
//   - status: [Counts], [Complete], [Progressing], [TimedOut], [RequeueAfter].
//
// Each returns its decision with the numbers that made it (String explains
// it), never mutates its input, and reports bad input (nil, negative sizes,
// sums beyond int32: [ErrOverflow]) as an error naming the argument. [Plan]
// is built on them. They take a *Params (64 bytes: a pointer costs less to
// pass than a copy, and it is only read) and cost no more than upstream's
// functions of the same meaning; those that plan writes put their steps in
// memory the caller hands back in ([CleanupUnhealthy], [ScaleDownOld],
// [RollingStep]), so that a controller's syncs allocate nothing once that
// memory has grown.
//
// Applying a plan: [Execute] makes the calls through a [Writer] in upstream's
// order; the module rollout/clientgo implements Writer with client-go.
//
// # Writes, conflicts and requeues
//
// Upstream sometimes writes an object it read at the start of the sync
// after it has already written that object once (most often: the Deployment
// status after recording the new revision). A real API server refuses such
// a write with a conflict, the sync returns an error and the Deployment is
// requeued with rate limiting. [Plan] reproduces this: the plan ends at the
// write that would conflict, [Result.Stop] says so and [Result.Requeue] asks
// for a rate-limited requeue. Every action carries the resourceVersion
// upstream would send, so a caller that applies actions with optimistic
// concurrency sees the same thing.
//
// # Upstream bugs, reproduced
//
// The zero [Options] reproduce upstream exactly, including its known bugs;
// each is pinned by a test:
//
//   - proportional scaling multiplies in int32, so very large Deployments
//     get nonsense (even negative) sizes, which the API server refuses
//     ([Options.FixProportionOverflow] computes in 64 bits);
//   - a Recreate Deployment whose two ReplicaSets are both active when a
//     scaling event arrives never makes progress;
//   - the scale-down budget counts the available pods a just-shrunk
//     ReplicaSet still reports, so after a mid-rollout scale-down
//     availability can dip below minAvailable;
//   - the write conflicts described above, which cost a requeue;
//   - a paused Deployment whose template changed while every ReplicaSet
//     was at 0 gets its newest old ReplicaSet scaled up to spec.replicas
//     and, when revisionHistoryLimit is below the number of old
//     ReplicaSets, deleted in the same sync (cleanup works on the
//     ReplicaSets read before the scale), so it is left with no ReplicaSet
//     and no pod until it is resumed;
//   - the status counts are sums in int32: ReplicaSets whose sizes add up
//     beyond 2³¹−1 give a negative status, which the API server refuses, so
//     every sync of such a Deployment ends with that error (the plan stops
//     before the write and says why).
//
// [Options.DisableTerminatingReplicas] models a cluster with the
// DeploymentReplicaSetTerminatingReplicas feature gate off.
//
// # Where Plan differs from upstream
//
// Only where upstream would panic, call a server, or read a clock:
//
//   - invalid input is an error naming the field, never a panic;
//   - a [DeleteReplicaSet] carries a UID precondition (upstream deletes by
//     name only), so a plan never deletes a later incarnation;
//   - before adopting an orphan, upstream re-reads the Deployment from the
//     server to check it is not being deleted; Plan trusts the snapshot;
//   - condition times are Now cut to whole seconds in UTC, which is what
//     the API server stores;
//   - a hash collision is detected from the snapshot (which holds every
//     ReplicaSet of the namespace) instead of from an AlreadyExists answer.
//
// Each is pinned by a test.
//
// # Measured, not assumed
//
// The module rollout/differential runs Plan and the real v1.37.1
// controller side by side on random cluster states (both strategies,
// percent and int fenceposts, paused, scaling events with stale
// annotations, history limits, progress deadlines at their edge, the
// legacy rollback annotation, hash collisions, adoption and release, huge
// counts, unparsable annotations, pods of every phase) and compares every
// write, event, requeue and stored object, for one sync and for runs to the
// fixpoint; see its package documentation for the numbers and the few
// normalisations.
//
// # Explaining decisions
//
// Every action carries the reason it was planned, in numbers, and
// [Result.Notes] records the decisions that wrote nothing (for example why
// old ReplicaSets were not scaled down). [Result.Explain] renders it all,
// which answers "why is my rollout stuck?".
//
// # Input
//
// The Deployment must be defaulted as the API server stores it and valid
// ([Validate]); Plan returns an error naming the field otherwise, and never
// panics. An object read from a cluster is already defaulted; a manifest
// needs one call of [Default] (the v1.37 API server's defaults, pod template
// included, so that the pod-template-hash and the ReplicaSet names are a
// cluster's). Objects may
// come straight from informer caches: Plan never modifies its input. Its
// output shares unchanged parts with the input (copies are shallow), so it
// is read-only in the same way.
//
// # Cost
//
// A sync that writes nothing (the most common one) of a 10-ReplicaSet
// Deployment with a production-size pod template costs about 3–5 µs and 5
// allocations on a shared 2-core machine; one that scales a ReplicaSet and
// writes the status 6–18 µs and 34 allocations (the range is the
// machine's drift between days). Cost is linear in ReplicaSets (about
// 0.1–0.2 µs each) and, for Recreate only, in pods (about 10–35 ns each).
// [Options.Quiet] skips the explanations for callers that never read them.
// A [Planner] plans sync after sync reusing its Result and copies: a
// converged sync then allocates nothing, and a sync that writes is 10–20 %
// faster; it also remembers, per Deployment object, what the spec and the
// look-up of the new ReplicaSet gave, reused while the objects are the
// same (identity, generation and annotations map: see [Planner]), and,
// after a plan whose only write is the Deployment's status, answers the
// sync that write triggers (the same objects and instant, the written
// status stored) without planning: it writes nothing, so its Result is
// known (BenchmarkPlannerAfterStatusWrite: 60–80 ns instead of 0.4–0.6 µs
// for a Deployment with two ReplicaSets). The
// building blocks alone cost tens to hundreds of nanoseconds. See
// BENCHMARKS.md.
//
// [Apply] applies a result to a snapshot the way an API server would, for
// tests and simulations.
package rollout
