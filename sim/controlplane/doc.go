// Package controlplane runs a scenario on a real Kubernetes v1.37.1 control
// plane and compares what it did with what the simulator
// ([github.com/deploymath/deploymath/sim.Run]) does with the same scenario
// file. It is a Go module of its own, so that k8s.io/kubernetes never
// enters the library's module graph; no package of deploymath imports it,
// and it has no exported API: everything is in its tests.
//
// # Running it
//
// From this directory:
//
//	go test ./...                                # what CI runs
//	go test -v -run TestNginxRollingUpdate .     # also prints the comparison table
//	DEPLOYMATH_CONTROLPLANE_SCENARIOS=all go test -v -timeout 60m -run TestScenarios .
//	DEPLOYMATH_CONTROLPLANE_SCENARIOS=all go test -v -timeout 90m -run TestExampleController .
//	DEPLOYMATH_CONTROLPLANE_SCENARIOS=rollover,undo go test -v -run TestScenarios .
//
// CI runs TestNginxRollingUpdate, TestScenarios on pause-edit-resume,
// recreate, scale-to-zero and restart-config-edit, TestExampleController
// on pause-edit-resume and TestBlueGreen (about 40 s more): 251 s of tests on 2026-11-25, with the node and quota
// controllers running (247 s before them). Every bundled scenario
// (TestScenarios, all) took 24m55s on 2026-11-25 on the project's machine,
// shared with other tests (16 to 18 minutes on 2026-11-23, before
// node-failure, unreachable-node and pod-quota were played: 161 s, 202 s
// and 29 s, the node scenarios in wall time, since their clock cannot jump
// ahead). RESULTS.md has the table of what it found. Each test prints, per
// scenario, the comparison tables and a line "RESULT name: equal", "equal
// up to timing" or "differs".
//
// The first build compiles the API server, the controllers and etcd. With
// an empty build cache (the modules already downloaded) it took 7m44s on
// the project's two-core machine while other builds ran (8.6 CPU-minutes,
// so about 4½ minutes on two idle cores); 2m52s when the build cache
// already held what rollout/differential builds; seconds afterwards. A run
// takes about 20 seconds: etcd is ready in about one second, the API
// server two to three seconds later, the first rollout takes about 3
// seconds and the second about 10.
//
// If etcd, the API server or a controller cannot start, the test fails
// with the reason; it never skips.
//
// # What runs
//
// All of it in the test process, on loopback ports the kernel picks, torn
// down in reverse order when the test ends, whether it passed or not:
//
//   - etcd: embedded (go.etcd.io/etcd/server/v3/embed, v3.7.0, the version
//     in k8s.io/kubernetes v1.37.1's module graph), one member, its data in
//     the test's temporary directory, without fsync.
//   - kube-apiserver: the real one, started by upstream's test helper
//     (k8s.io/kubernetes/cmd/kube-apiserver/app/testing.StartTestServer)
//     with the storage configuration test/integration/framework builds,
//     pointed at the embedded etcd; the endpoint reconciler off and the
//     ServiceAccount admission plugin disabled (no ServiceAccount controller
//     runs), as upstream's integration tests do. ResourceQuota and
//     DefaultTolerationSeconds admission are on (named in
//     --enable-admission-plugins, though on by default), and
//     --default-not-ready-toleration-seconds and
//     --default-unreachable-toleration-seconds are the scenario's
//     evictionTimeout (default 5m, as upstream's 300 s).
//   - The real Deployment and ReplicaSet controllers
//     (pkg/controller/deployment and pkg/controller/replicaset) on one
//     shared informer factory, five workers each, as
//     test/integration/deployment does. Their log goes to a file whose tail
//     is printed when the test fails.
//   - On the same factory, the controllers node failures and quotas need:
//     the node lifecycle controller (pkg/controller/nodelifecycle), the
//     taint eviction controller (pkg/controller/tainteviction), pod GC
//     (pkg/controller/podgc) and the ResourceQuota controller
//     (pkg/controller/resourcequota, started as test/integration/quota
//     does). Their settings are kube-controller-manager's defaults except
//     three: the node lifecycle controller's node-monitor-grace-period is
//     the scenario's nodeMonitorGracePeriod (default 50 s, as
//     kube-controller-manager's since v1.32), its
//     node-monitor-period 100 ms instead of 5 s, and pod GC checks every
//     second instead of every 20 s (its quarantine of a deleted node's pods
//     is upstream's 40 s), so that they act within a fraction of a second
//     of when the simulator, which does not model their polling, has them
//     act.
//   - A kubelet driver of our own, instead of a scheduler and kubelets: it
//     creates the scenario's nodes, reports them Ready and renews their
//     Leases every second, binds each new pod to the schedulable nodes in
//     turn (pods/binding; a node is schedulable unless it failed, was
//     deleted or has a NoSchedule taint), as the simulator's scheduler
//     does, reports a pod Running after the scenario's minimum startup time
//     and Ready (condition and every container) after the minimum
//     readiness time, and deletes a pod that has a deletionTimestamp with
//     grace period 0 after the minimum termination time (at once if it
//     never ran, as the simulator does). Fixed delays keep it
//     deterministic; they decide when syncs happen, not what they decide.
//     Node capacities are not played.
//
// # Every bundled scenario
//
// TestScenarios plays a scenario file on the control plane (scenario_test.go)
// and runs it in the simulator, and compares the two per Deployment:
//
//   - Pod timings: the scenario's delay ranges are fixed at their
//     midpoints on both sides (the simulator's random draws cannot be
//     replayed pod by pod), and the kubelet driver moves every transition
//     to the next 100 ms of a grid, so that pods the ReplicaSet
//     controller created in one sync change together, as pods created at
//     one instant do in the simulator.
//   - Steps go through the API as kubectl would send them: set image,
//     scale, pause, resume and annotate as Deployment updates (steps at the
//     same instant on the same Deployment as one write), undo with
//     revision.RollbackTarget (kubectl's computation), apply, ConfigMap and
//     Secret edits and deletes, pod deletes; a step's when is polled from
//     informer caches every 2 ms. Failure rules with probability 1 are
//     played by the kubelet driver (crashloop and never-ready: running,
//     never ready; image-pull-error: Pending). Not expressible, and
//     skipped with the reason: failure rules with a probability below 1
//     and pod steps other than delete.
//   - A pod quota (cluster.podQuota) is a ResourceQuota of that many pods
//     in the namespace, created before the objects; the run waits until
//     the ResourceQuota controller has computed its usage.
//   - Node steps are played by the kubelet driver: failNode reports the
//     node Ready=False and its running pods not ready (the node lifecycle
//     controller then taints it not-ready, and the taint eviction
//     controller evicts its pods after their toleration; their deletion
//     completes, the kubelet still runs); recoverNode reports it Ready
//     again and restarts the pods left on it; unreachableNode renews the
//     node's Lease one last time and then stops every report of the node
//     and its pods (Ready=Unknown and the unreachable taints follow after
//     the grace period, evicted pods stay Terminating); recoverNode of an
//     unreachable node resumes them; deleteNode deletes the Node object
//     (pod GC force-deletes its pods after 40 s).
//   - The clock follows the wall clock but jumps ahead to the next step
//     when every Deployment has converged, nothing changed for 200 ms and
//     the restart controller cannot be waiting on a change; so a scenario
//     whose steps are minutes apart takes the time its rollouts take. From
//     the first node step on it no longer jumps: the node lifecycle, taint
//     eviction and pod GC controllers count down on the wall clock.
//   - The restart controller is examples/restartcontroller, built and run
//     as a process of its own with a kubeconfig for the API server, where a
//     scenario enables one.
//   - The end: with stopWhenConverged, convergence of every Deployment
//     (after the restart controller's grace period); otherwise no change to
//     a Deployment, ReplicaSet or pod for longer than a pod's life cycle.
//   - The simulator's ReplicaSet sizes come from its frames and from its
//     scaling events (a size written and overwritten at one instant is only
//     in the events); its events are the Events it holds at the end of the
//     run ([github.com/deploymath/deploymath/sim.Result].Events), after its
//     own model of client-go's recorder and EventCorrelator
//     (sim/internal/correlator, which TestCorrelatorMatchesClientGo checks
//     against client-go's): "(combined from similar events): "
//     aggregation, counting and the spam filter. The comparison sees both
//     sides as the events API holds them, ordered by first time and name,
//     counts expanded.
//   - A ReplicaSet whose template carries a restart stamp (a wall-clock
//     time on the control plane, a virtual one in the simulator) is
//     matched by revision only: its name cannot be equal.
//
// Besides the exact comparison below, a run is "equal up to timing" when
// only the intermediate sizes and the ScalingReplicaSet events differ
// (every ReplicaSet reaches the same largest and last size; revisions,
// other events and the final Deployment are equal). With maxSurge or
// maxUnavailable above 1, how many pods a scale-down removes depends on
// how many had become available when the sync ran, milliseconds apart on
// the control plane, at one instant in the simulator. One difference of
// the final Deployment also counts as timing: a Progressing condition
// "NewReplicaSetAvailable" whose message names the ReplicaSet of an
// earlier revision on one side and the final one on the other. Upstream
// leaves that stale message when the status write recording "Created new
// replica set" is refused with a conflict (its informer behind its
// previous write) and the rollout has as many replicas as updated ones
// from then on (Recreate); see staleProgressing. A scenario fails the
// test only when it differs up to timing and is not listed in
// knownDifferences.
//
// # examples/controller in place of the real controller
//
// TestExampleController runs a scenario twice on the control plane, with the
// real Deployment controller and with examples/controller (built from its
// module and run as a process of its own, five workers), with the same
// ReplicaSet controller and kubelet driver, and compares the two runs the
// same way.
//
// # examples/bluegreen, a controller-runtime controller
//
// TestBlueGreen runs examples/bluegreen's reconciler (written with
// controller-runtime, over a BlueGreen custom kind) on
// examples/bluegreen/testdata/bluegreen.yaml twice: in the simulator
// through sim/crsim, and on the control plane with a real
// controller-runtime manager (v0.25.2) in the test process, the kind's CRD
// (examples/bluegreen/config/crd.yaml) installed, beside the real
// ReplicaSet controller and the kubelet driver (no Deployment controller).
// Each apply step is a BlueGreen update made once the previous change has
// settled (no change of the BlueGreen, its ReplicaSets or the pods for
// 2 s). Compared: the BlueGreen's final status, its ReplicaSets' images
// and every size each was written with, and the BlueGreen's events as the
// events API holds them (a multiset of reason, message and count). The
// run prints "RESULT bluegreen: equal" (or "equal up to timing", when only
// intermediate sizes and Scaled events differ); "differs" fails the test.
// CI runs it: 36 s on 2026-11-27, "equal", 34.6 s of it on the control
// plane (the simulator's run: 64 ms).
//
// # The nginx scenario
//
// TestNginxRollingUpdate reads testdata/scenarios/nginx-rolling-update.yaml
// (the documentation's nginx Deployment, 3 replicas, nginx:1.14.2, the
// default RollingUpdate strategy) and uses its Deployment manifest and its
// setImage step on both sides. On the control plane the Deployment is
// created, the test waits until it has converged, sets the image to
// nginx:1.16.1 with a strategic merge patch (as kubectl set image does) and
// waits again. Converged is what kubectl rollout status reports (status
// observed, every replica updated and available, no old replica) plus what
// the simulator's stopWhenConverged also requires: no pod terminating and
// every ReplicaSet's status observed and settled. The simulator edits at
// 30s, long after its first rollout converged, so both sides edit a
// converged Deployment.
//
// # What is compared, and every normalisation
//
//  1. ReplicaSets are matched by revision, and their names must be equal
//     too: the simulator applies the API server's defaulting before
//     hashing, so both sides name them nginx-deployment-54fd4d6d4c and
//     nginx-deployment-76df5b8bb8. In event and condition messages every
//     ReplicaSet name is still replaced by "<rs rev N>", so that a name
//     difference is reported once, in the ReplicaSet table.
//  2. Sizes: every spec.replicas a ReplicaSet was written with, consecutive
//     repeats dropped, compared in order. On the control plane they come
//     from a watch (every write is a watch event); in the simulator from
//     its trace. Exact comparison is right for this scenario: with maxSurge
//     1 and maxUnavailable 0 (what 25% resolves to for 3 replicas) each
//     sync moves a ReplicaSet by one, so the sequence does not depend on
//     when pods become ready. A scenario with larger fenceposts could skip
//     sizes depending on how many pods were ready at a sync, and would
//     need a weaker comparison.
//  3. Events of the Deployment (type, reason, message; an event's count
//     expanded): compared as a multiset, and in order per ReplicaSet, but
//     not in their global order. Per ReplicaSet the order is causal (each
//     scaling starts from the size the previous one left). Between two
//     ReplicaSets it is timing: which ReplicaSet a sync scales depends on
//     when pods became ready, the controller's broadcaster writes events
//     asynchronously, and the events API orders them only by creation time
//     (firstTimestamp has whole seconds). The table shows both orders side
//     by side; here they agree. The events are read once two reads a
//     second apart agree.
//  4. The final Deployment: its revision, generation and observed
//     generation, the replica counts (replicas, updated, ready, available,
//     unavailable, terminating) and each condition's status, reason and
//     normalised message. Condition times are not compared: the control
//     plane's are wall-clock times, the simulator's virtual ones.
//
// Not compared: pods; timings; the simulator's requeue lines (the 409
// Conflict of the sync that records a revision, which the real controller
// gets too but does not report as an event); and the real controllers'
// transient errors in their log (the ReplicaSet controller's "read version
// ... is not as new as written version", its informer catching up with its
// own write, after which it retries).
package controlplane
