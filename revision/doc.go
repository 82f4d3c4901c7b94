// Package revision owns the revision bookkeeping of a Deployment and its
// ReplicaSets, byte-for-byte as the Kubernetes v1.37 Deployment controller
// and kubectl do it: the revision, revision-history, desired-replicas and
// max-replicas annotations, which annotations travel between a Deployment
// and its ReplicaSets, the rollout history and the target of
// `kubectl rollout undo`.
//
// Every function is pure: it reads its arguments, never modifies them
// (informer-cache objects can be passed as they are), and returns new maps
// and slices.
//
// # Revisions
//
// [Revision] parses the revision annotation of an object; [MaxRevision] and
// [LastRevision] find the highest and second highest revision of a set of
// ReplicaSets, and [Next] the revision of a new one. [ByRevision] sorts
// ReplicaSets by revision with a total order.
//
// # Annotations
//
// [NewReplicaSetAnnotations] computes the annotations of a Deployment's new
// ReplicaSet: copied Deployment annotations (except the [SkipCopy] keys), the
// raised revision, the revision history capped at [MaxHistoryChars], and the
// replica annotations of a ReplicaSet about to be created.
// [ReplicasAnnotations], [DesiredReplicas] and [MaxReplicas] write and read
// the desired-replicas and max-replicas annotations; [WithRevision] sets the
// Deployment's revision; [AnnotationsForRollback] gives the Deployment's
// annotations after a rollback.
//
// # History and rollback
//
// [History] lists a Deployment's revisions as `kubectl rollout history`
// does, and [DescribeHistory] prints them the same way. [RollbackTarget]
// computes what `kubectl rollout undo [--to-revision=N]` would patch, as a
// [Rollback] value that [Rollback.Apply] applies to a copy of the Deployment.
package revision
