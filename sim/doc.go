// Package sim is a deterministic discrete-event simulator of a Kubernetes
// cluster running Deployments: the in-memory shell around [rollout.Plan].
//
// A [Scenario] (YAML: cluster, manifests, timed steps; every field and
// step kind is described, with an example, in
// testdata/scenarios/REFERENCE.md) is run on a virtual clock by [Run]; the
// [Result] holds a [Trace] (text with [DescribeTrace], JSON with
// [Result.JSON]), a [Summary] for what-if comparisons and, with
// [Options].Check, the [Violation]s of the invariants. The same scenario
// and seed always give a byte-identical trace.
//
// # Map
//
// Directories, bottom up (each imports only those above it in this list,
// checked by .ci/run):
//
//   - internal/apirules (top level): the API server's write rules the
//     simulator shares with rollout.Apply (when a write bumps the
//     generation, the conflict message).
//   - sim/internal/correlator: client-go's event recorder as a pure model
//     (aggregation, deduplication, spam filter).
//   - sim/internal/apiserver: the API server's store (objects by key,
//     resourceVersions and UIDs, the ReplicaSets of each namespace, the
//     error wording), generic over the record the cluster keeps beside
//     each ReplicaSet, and its writes of Deployments and
//     ReplicaSets (preconditions, what a write may change, generations,
//     the status subresource; the rules shared with rollout.Apply are
//     internal/apirules), each returning what it stored.
//   - sim/internal/eventq: the engine's event queue, events in (time,
//     insertion) order.
//   - sim/internal/workqueue: the controllers' work queue, client-go's
//     rate-limited delaying queue as state transitions.
//   - sim/internal/yamlline: the line of a field path in YAML text, and
//     the field path of a line, for the errors of the scenario reader
//     and of sim/snapshot.
//   - sim/internal/inputlimit: one size rule per kind of input (cluster
//     state or manifests, scenarios), checked on the bytes as read and
//     as YAML aliases expand them, and the nesting bound, with one error
//     wherever an input is read.
//   - sim/internal/apivalidation: the API server's checks of a state's
//     objects beyond the planner's (containers, ReplicaSet specs,
//     statuses), shared by sim/snapshot and State.
//   - sim/internal/kubeyaml: kubectl's block YAML to JSON in one pass,
//     for large dumps (sigs.k8s.io/yaml for anything else).
//   - sim/internal/ranking: the order in which the ReplicaSet controller
//     deletes pods (upstream's ranking with logarithmic scale-down) over
//     compact per-pod data, and the exact procedure that applies it.
//   - sim/internal/cluster: the cluster around the Deployment controller,
//     on the store, the work queue's items and the ranking: the record
//     kept beside each stored ReplicaSet (replicaset.go), the pods and
//     their names (pod.go, names.go),
//     the ReplicaSet controller (replicaset.go), the scheduler
//     (scheduler.go), the kubelets (kubelet.go), the nodes and their
//     lifecycle, taint eviction and pod GC (node.go), quota admission
//     (quota.go), the pods of a cluster's state (state.go). It acts when
//     the engine asks (a ReplicaSet sync, a timer, a user's step) and
//     tells the engine what follows through its Engine interface.
//   - sim/snapshot: reads cluster state (kubectl get -o yaml|json, lists,
//     manifests) into typed objects per Deployment.
//   - sim/diagnose: explains each Deployment of a snapshot (deploysim
//     explain).
//   - sim (this package): the simulator. By file: scenario.go, steps.go,
//     podsteps.go, builder.go, variant.go, outcome.go (the scenario format
//     and its steps), validate.go (a scenario's checks), locate.go (the
//     field and line of a decoding error); state.go (a run that starts from a cluster's
//     state: its objects stored as they are; what its pods do next is the
//     cluster model's);
//     queue.go (the engine's events and work-queue keys); sim.go (the
//     engine loop); deployment.go (the Deployment controller shell on
//     rollout.Planner); writes.go (each API-server write with what its
//     watchers see: the cluster's record, informers, the write log,
//     metrics); store.go (the store's rules of in-place writes);
//     cluster.go (the engine's side of the cluster model: what the model
//     asks of it, the ReplicaSet controller's work-queue shell); informer.go (the
//     Deployment controller's informer delay); readable.go (the
//     ReplicaSets a sync of a Deployment reads, and a Deployment's own,
//     through an index of the records by controller); restart.go (the restart
//     controller shell); options.go (a run's options);
//     the host of controllers: controller.go (the Controller API),
//     context.go (what a reconcile works with), host.go (registration,
//     watches, work-queue keys, requeues, ticks), kinds.go (the run's
//     kinds, built-in and custom), view.go and informerview.go (what
//     hosted controllers read), clusterobjects.go (pods and nodes as API
//     objects), client.go, apiwrites.go, mergepatch.go and deletes.go
//     (the client and the API server's rules for every kind, garbage
//     collection), objects.go (a scenario's objects by kind),
//     hostedsteps.go (restarts, injected conflicts, applies of custom
//     objects), userinvariants.go (invariants of your own),
//     hostedtrace.go (custom objects in the trace), deploymentcontroller.go
//     and restartcontroller.go (the built-ins written against the API);
//     trace.go, changes.go (a trace records what changed at each
//     instant), summary.go (the summary, per Deployment), explain.go,
//     stop.go, events.go, writelog.go, svg.go (what a run shows);
//     invariants.go (the checks).
//   - sim/sweep: runs a scenario over seeds and strategy combinations, in
//     parallel or in shards.
//   - sim/simtest: property tests of controllers of your own on the
//     simulator (rapid), for your tests to import.
//   - sim/crsim (a module of its own): controller-runtime reconcilers in
//     the simulator.
//   - sim/cmd/deploysim: the command.
//
// Data flows from a [Scenario] (or manifests, or a snapshot's objects via
// deploysim, as a [State] to start from) into the engine, which runs the
// steps and the controllers against the API-server model on a virtual
// clock; every write and event lands in the [Trace], the [Summary], the
// outcomes, the event list and, with [Options].Check, the invariants'
// [Violation]s.
//
// # Engine
//
// Time is a time.Duration offset from [Epoch]. Events sit in a queue ordered
// by (time, insertion sequence); one math/rand/v2 PCG generator, seeded by
// the scenario, draws every random choice (start-up and readiness delays,
// failure probabilities, pod name suffixes). Nothing reads the wall clock.
//
// Controllers are triggered the way informers trigger them. A change to a
// Deployment, or a create/update/delete of one of its ReplicaSets, queues
// the Deployment; a change to a pod queues its ReplicaSet; the deletion of
// the last pod of a Recreate Deployment queues the Deployment. Keys are
// deduplicated like client-go's work queue (a key queued and not yet
// processed is not queued twice; a delayed add keeps the earliest time), and
// processed after the cluster's controllerLatency (default 0: at the same
// instant, after the change). Requeues follow the [rollout.Result]: Requeue.After
// schedules a sync, Requeue.RateLimited and failed syncs use the default
// controller rate limiter's exponential back-off (5ms·2^failures, capped at
// 1000s, reset after a successful sync; the token bucket is not modelled).
//
// # API server
//
// The store keeps Deployments, ReplicaSets, pods, ConfigMaps, Secrets and
// nodes with UIDs, resourceVersions, generations and creation times
// (second precision, as the API serializes them). Writes of a plan are
// applied in order with optimistic concurrency: a non-empty resourceVersion
// that is not the stored one is a Conflict, and the sync stops there and is
// requeued rate-limited. ReplicaSet writes bump metadata.generation when
// the spec changes, Deployment writes when the spec or the annotations
// change; a status write of a Deployment
// writes status and metadata.annotations only; deleting a ReplicaSet checks
// the UID precondition and the garbage collector deletes its pods
// gracefully. Stored objects are not modified in place, except by the two
// most frequent status writes (of ReplicaSets by the ReplicaSet controller,
// of Deployments by a plan), which nothing holding an older version reads.
//
// # Requeues
//
// A sync that ends early with an error upstream's sync would return
// ([rollout.Result].Stop) is requeued rate-limited and recorded in its
// frame as a [Stop] of a [StopKind]. Most are the normal course of a
// rollout, as in the real controller: the first sync of a rollout records
// the new revision, then writes the status from the Deployment it read at
// the start, which the API server refuses with 409 Conflict. The text trace
// shows each in one line ([DescribeStop]):
//
//	deployment/web: recorded revision 2, then synced again (the sync's next write of the deployment met 409 Conflict: upstream's normal course, not an error)
//	deployment/web: synced again (the sync's 2nd write of replica set web-8679587d46 met 409 Conflict: upstream's normal course, not an error)
//
// A pod-template-hash collision and a write the API server refuses as
// invalid (an int32 overflow of the status counts) get their own lines;
// any other stop keeps the planner's full text. The JSON always has the
// full text (Frame.Stops), and [Options].FullStops shows it in the text
// trace too ("# sync web stopped: ...").
//
// # Explanations
//
// With [Options].Explain (deploysim -explain) the planner runs with its
// explanations (otherwise [rollout.Options].Quiet is set, for speed), and
// each frame records the syncs of the Deployment controller ([Sync]):
// every write with its reason in numbers, and for a sync that wrote
// nothing while the rollout was incomplete, why nothing moved (the plan's
// notes, or what the rollout waits for). The text trace shows them under
// the instant, in the order of the run ([DescribeSync]):
//
//	sync web: scale down web-7788479c79 from 5 to 4: available 6 > minAvailable 5, may remove 1
//	sync web wrote nothing: old replica sets stay: maxScaledDown 0 = all pods 6 - minAvailable 5 - unavailable new pods 1
//
// The JSON has them in each frame's syncs, with the notes of the syncs
// that wrote something too. The explained trace is the plain one with
// these lines added: an instant whose only news is a sync that wrote
// nothing adds no frame.
//
// # ReplicaSet controller and pods
//
// The ReplicaSet controller creates missing pods in slow-start batches
// (1, 2, 4, …, at most 500 per sync), deletes surplus pods by upstream's
// ranking (unassigned, Pending/Unknown/Running, not ready, co-located,
// recently ready in log2 buckets, restarts, newer in log2 buckets), and
// reports replicas, fullyLabeledReplicas, readyReplicas,
// availableReplicas, terminatingReplicas, observedGeneration and the
// ReplicaFailure condition (pod quota). Pods are scheduled round-robin onto
// nodes with room, start after a drawn delay, become ready after another,
// and available minReadySeconds later. Failure rules (by image or labels)
// make pods crash-loop (restarts with the kubelet's 10s…5m back-off),
// never become ready, or fail to pull their image. Deleted pods terminate
// for a drawn time; a failed node makes its pods unready at once and evicts
// them after the eviction timeout (default 5m).
//
// An unreachable node (step unreachableNode) models a kubelet that stops
// reporting: nothing changes for the node-monitor grace period (default
// 50s; the scheduler still binds pods there, and they do not start), then
// the node is Ready=Unknown and tainted and its pods are marked not ready;
// after the eviction timeout they are deleted but stay Terminating, since
// no kubelet confirms it, until the node reports again (recoverNode: the
// kubelet finishes their termination) or its Node object is deleted
// (deleteNode: pod GC force-deletes them 40s later).
//
// Pod steps act on one pod, chosen by ReplicaSet (new, old or a name),
// label selector and index in name order: set its phase (Succeeded and
// Failed are final: the pod stops counting as a replica and stays until
// deleted), make its readiness probe pass or fail, delete it, or make its
// node unreachable. A step with a when waits, from its time, until a
// Deployment or ReplicaSet count is reached or a Deployment condition
// holds, and runs right after the write that made it hold; one that never
// does by its timeout or the end of the run is a [MissedStep] in
// [Result].Missed, a note in the trace and a MISSED line after the
// summary (deploysim exits 1):
//
//	# step 2: waits until new replica set reaches available 2
//	# step 2: met: new replica set reaches available 2 (2, web-58597d7d56)
//	# step 2: delete pod web-58597d7d56-b86jc
//
// # Controllers of your own
//
// A run hosts any [Controller] added with [Options].Controllers, beside
// the built-in ones or, with cluster.deploymentController: false, instead
// of the Deployment controller: a controller built on the rollout blocks,
// a canary or blue/green controller over a kind of your own (a Go type
// registered in [Options].Scheme, declared in the scenario as YAML), or,
// through the adapter module sim/controllerruntime, an unmodified
// controller-runtime reconciler. A controller declares its watches
// ([For], [Owns], [Watches]) and is called for each key its work queue
// hands out, with a [Context]: the virtual clock, a [Client] with the API
// server's semantics for every kind (resourceVersion conflicts,
// generations, the status subresource, merge and strategic merge
// patches, finalizers, owner-reference garbage collection), an event
// recorder, the trace. Its reads come from an informer view (the
// scenario's cluster.informerDelay applies); its writes reach the
// ReplicaSet controller, the scheduler, the kubelets and every other
// controller as anyone's do. [Options].Invariants are checked after each
// of its writes and at every instant; cluster.writeConflicts injects 409
// Conflicts into its writes and the step restartController restarts it
// with nothing in memory ([Restartable]); a [Ticker] also acts at times it
// asks for. The trace shows each custom object with its generation,
// status and the ReplicaSets it controls.
//
//	res, err := sim.Run(sc, sim.Options{Scheme: scheme, Controllers: []sim.Controller{canary}})
//
// The built-in Deployment and restart controllers are controllers of this
// API (deploymentcontroller.go, restartcontroller.go). A run takes the
// engine's fast paths for them (their informer handlers written out at
// the engine's writes, their syncs reading the store without copies);
// TestBuiltinsThroughHost runs every bundled scenario both ways and
// compares the whole JSON of the runs, and TestPropertyBuiltinsThroughHost
// random scenarios with informer delays and controller latencies.
//
// What the simulator does not model is refused with an error that says
// so: a controller cannot create, update or patch pods (the ReplicaSet
// controller makes them; it can delete them), nor write nodes or the
// status of ReplicaSets; server-side apply, JSON patches, field selectors
// and foreground deletion are not implemented; custom kinds are
// namespaced.
//
// # Restart controller
//
// With cluster.restart.enabled, a [restart.Engine] runs beside the
// Deployment controller (see [RestartSpec]: preset deploymath or xing, grace
// period, check interval, Reloader annotations). Every store write of a
// ConfigMap, Secret or Deployment is observed at the virtual now (as its
// informers would see it) and every delete forgotten. The engine is checked
// on the grid of a ticker started at time 0 (every CheckInterval), but a tick
// is queued only while a change waits, at [restart.Engine.NextRelease], so a
// converged run still stops. Each decision's patch is applied to the stored
// Deployment as a merge patch (no resourceVersion precondition), a normal
// write: a restart stamp changes the pod template, bumps generation and
// queues the Deployment, and the rollout follows. Each applied decision is
// a [Restart] in its frame (JSON: the frame's restarts, with the action,
// the triggering configs and checksums) and a line of its own in the text
// trace ([DescribeRestart]); a change that updates no workload, and a
// patch that fails, are notes:
//
//	restart controller: restarted deployment/web: configmap/default/app-config checksum fa29c7bde74b11a2 -> 115f4ef9542df413
//	restart controller: recorded checksums on deployment/web: configmap/default/app-config=fa29c7bde74b11a2
//	# restart controller: processed configmap/default/other-config: no workload to update
//
// The summary counts the restarts of each workload ([Summary].Restarts;
// "restarts: web 2, api 1", most restarted first).
//
// Steps that drive it: editConfigMap, editSecret, apply of a ConfigMap or
// Secret (created or replaced), deleteConfigMap, deleteSecret, and annotate
// (kubectl annotate; a null value removes the key, which opts a workload
// out).
//
// # Scenarios and golden traces
//
// The undo step is kubectl rollout undo [--to-revision]: the Deployment is
// patched with [revision.RollbackTarget] and [revision.Rollback.Apply], so a
// rollback to the current template writes nothing, as with kubectl.
//
// A step kubectl would carry out but the cluster refuses (an undo to a
// missing revision, an apply the validation rejects, a ConfigMap that does
// not exist) is noted in the trace and the run goes on. A setImage naming a
// container the Deployment does not have stops the run with an error naming
// the file, the line and the containers that exist.
//
// # Scenarios built in Go
//
// [NewScenario] builds a scenario from typed objects instead of YAML, for
// tests and property tests written in Go:
//
//	sc := sim.NewScenario("web").WithSeed(7).
//		WithDeployment(d). // *appsv1.Deployment; also WithConfigMap, WithSecret
//		WithSteps(
//			sim.Step{At: sim.Duration(30 * time.Second), SetImage: &sim.SetImage{Container: "web", Image: "web:2"}},
//			sim.Step{At: sim.Duration(30 * time.Second), StopWhenConverged: true},
//		)
//	res, err := sim.Run(sc, sim.Options{})
//
// The objects are stored as manifests in Objects ([Scenario.Marshal] prints
// the scenario as a file), and [Run] checks the scenario as [ParseScenario]
// checks a file, on a copy; errors name the field without a line. A
// Scenario literal with no objects is refused with an error that says so,
// instead of running empty. A scenario that ParseScenario returned is not
// checked again: changing its Seed, Until or delays in Go is fine, but
// objects, steps and failure rules added to it are not decoded; build such
// a scenario in Go from the start.
//
// With rapid, a law of rolling updates becomes a few lines (see the
// example of [NewScenario]): draw replicas, maxSurge and maxUnavailable,
// build the Deployment, run, and check that the rollout completes and that
// the ReplicaSets never ask for more than replicas + maxSurge pods:
//
//	func TestSurgeBound(t *testing.T) { rapid.Check(t, surgeBound) }
//
// # Sweeps
//
// Package sim/sweep runs a scenario over many seeds and combinations of
// strategy values ([Scenario.Variant] makes each combination's scenario),
// on every core or split across machines, and condenses the runs into a
// table.
//
// # Limits
//
// So that a run's memory and time stay bounded, [ParseScenario] refuses
// input larger than [MaxScenarioBytes] (2 MiB), Deployments of more than
// [MaxReplicas] (1,000,000) replicas or more than [MaxTotalReplicas] (1,000,000)
// in all, and steps after the time limit (sim/sweep has limits of its
// own on seeds and runs); a
// [Trace] keeps at most [MaxTraceFrames] frames (the first ones and the
// last, with a count of the others). Every refusal names the field and its
// line, or the limit.
//
// Bundled scenarios live in testdata/scenarios with NAME.golden traces
// (and, for a few, NAME.explain.golden with [Options].Explain);
// `go test ./sim` compares them and `go test ./sim -update` rewrites them.
// The deploysim command (sim/cmd/deploysim) runs a scenario from the command
// line, draws charts, checks invariants and sweeps strategies.
//
// # Invariants
//
// [InvSurge], [InvAvailability], [InvRecreate], [InvDeleteEmpty],
// [InvHistory], [InvDeadline], [InvConvergence] and, for the restart
// controller, [InvRestart] are checked with
// [Options].Check; property tests generate Deployments, strategies and steps
// with rapid: `go test ./sim -run Property -rapid.checks=10000`. Check
// also lists [Result].Warnings: [WarnStuck], a Deployment that ends below
// its replicas with nothing in flight.
package sim
