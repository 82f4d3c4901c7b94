// Package diagnose answers "why is my rollout stuck?" about a cluster
// snapshot ([snapshot.Snapshot], read from `kubectl get deploy,rs,pods -o
// yaml`). For every Deployment, at an instant now, [Explain] reports:
//
//   - its state in kubectl's words: the line `kubectl rollout status`
//     prints for it (kubectl v0.37.2's messages, word for word), and the
//     status counts;
//   - its ReplicaSets (new and old) with their sizes and pod counts;
//   - what the Deployment controller will do at its next sync and why:
//     [rollout.Plan] run on the snapshot, each write with its reason in
//     numbers, the events, the notes on decisions that wrote nothing, and
//     when it will look again;
//   - when the rollout is not complete, why it does not move, in plain
//     words with the numbers ([Blocker]): the Deployment is paused; its
//     progress deadline is exceeded; the new pods do not become available
//     (crash-looping, image pull errors, not ready, pending or
//     unschedulable, waiting in minReadySeconds — read from the pods'
//     statuses and conditions, counted per reason with example pods); the
//     scale-down budget is zero because too few pods are available; the
//     Recreate strategy waits for old pods to terminate; a ReplicaSet
//     cannot create pods (ReplicaFailure, for example a quota); the spec
//     is not observed yet; a pod-template-hash collision; a ReplicaSet's
//     stale desired-replicas annotation, which makes every sync a scaling
//     event that writes nothing (the rollout never starts); and, for any
//     Deployment, a selector that adopts orphaned ReplicaSets or overlaps
//     another Deployment's.
//
// # Now
//
// [Options].Now is the instant of the diagnosis. When it is zero, the
// latest timestamp recorded in the snapshot is used ([snapshot.Snapshot.Latest]:
// creation, managedFields, condition, pod start and container times),
// which is the closest the snapshot says to when it was taken; with none
// (bare manifests) the zero time is kept and [Report].NowFrom says so.
// The diagnosis never reads a clock.
//
// # Output
//
// [Report.Text] renders the report for a person; [Report] marshals to
// JSON with the stable field names its struct tags give (documented on
// each field). Both are deterministic.
package diagnose
