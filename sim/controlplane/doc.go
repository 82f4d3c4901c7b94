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
//     runs), as upstream's integration tests do.
//   - The real Deployment and ReplicaSet controllers
//     (pkg/controller/deployment and pkg/controller/replicaset) on one
//     shared informer factory, five workers each, as
//     test/integration/deployment does. Their log goes to a file whose tail
//     is printed when the test fails.
//   - A kubelet driver of our own, instead of a scheduler and kubelets: it
//     creates the scenario's nodes, binds each new pod to them in turn
//     (pods/binding), reports it Running after the scenario's minimum
//     startup time and Ready (condition and every container) after the
//     minimum readiness time, and deletes a pod that has a
//     deletionTimestamp with grace period 0 after the minimum termination
//     time. Fixed delays keep it deterministic; they decide when syncs
//     happen, not what they decide.
//
// # The scenario
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
