// Package crsim runs controller-runtime reconcilers, unmodified, in the
// deploymath simulator ([github.com/deploymath/deploymath/sim]): a
// deterministic cluster on a virtual clock, with ReplicaSets that create
// pods, a scheduler, kubelets that start, crash and get ready, node
// failures, informer lag and the API server's write rules, in which a
// rollout takes milliseconds and the same seed replays the same run.
//
// It is a Go module of its own, so that the deploymath library never
// requires controller-runtime.
//
// # Test your own controller
//
// A reconciler written for a manager,
//
//	func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
//		return ctrl.NewControllerManagedBy(mgr).For(&v1.BlueGreen{}).Owns(&appsv1.ReplicaSet{}).Complete(r)
//	}
//
// runs in the simulator when the same builder calls are made on a
// [Manager] of this package, with the client and recorders the manager
// hands out:
//
//	mgr, _ := crsim.NewManager(crsim.Options{Scheme: scheme})
//	r := &Reconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorderFor("bluegreen")}
//	err := crsim.NewControllerManagedBy(mgr).For(&v1.BlueGreen{}).Owns(&appsv1.ReplicaSet{}).Complete(r)
//	...
//	sc, _ := sim.ParseScenario(yaml) // objects: your BlueGreen; steps: apply a new template, fail a node, ...
//	res, err := sim.Run(sc, mgr.SimOptions(sim.Options{}))
//
// The scenario file declares objects of your kinds as YAML manifests
// (objects:, and apply steps), and cluster.deploymentController: false
// turns the built-in Deployment controller off when yours replaces it.
// After the run, read the cluster with [sim.Sim].APIReader; during it,
// check your invariants with [sim.Options].Invariants (checked after each
// of your controllers' writes and at every instant).
// A reconciler that measures time takes a clock.PassiveClock:
// clock.RealClock{} with a real manager, [Manager.GetClock] (the virtual
// clock) here. Property tests draw scenarios with pgregory.net/rapid
// (package sim/simtest draws the faults: pod start-up and readiness
// ranges, crash-looping images, node failures, write conflicts, informer
// delay, controller restarts); see examples/bluegreen of the repository
// (its README.md) for a controller that runs both here and on a real API
// server, with its property test.
//
// # What is modelled
//
// The client ([Manager.GetClient]) has the API server's semantics of
// [sim.Client]: resourceVersion conflicts, generations, the status
// subresource, merge and strategic merge patches, finalizers and
// owner-reference garbage collection. It reads from the controller's
// informer view (the scenario's cluster.informerDelay applies) like a
// manager's cached client; [Manager.GetAPIReader] reads the API server.
// Server-side apply, JSON patches, field selectors, dry runs, grace
// periods, foreground deletion, subresources other than status, and
// unstructured or metadata-only objects are refused with an error that
// says so (a *apierrors.StatusError, 405 Method Not Allowed, for what
// the simulator does not model).
//
// The watches map changes through controller-runtime's own event
// handlers and predicates; the requeue rules are controller-runtime's
// (see [Controller]). The simulator reconciles one request at a time,
// on its virtual clock: options about concurrency, leader election and
// cache sync have no effect.
package crsim
