package rollout

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Snapshot is everything one sync of a Deployment looks at. It is what a
// controller reads from its informer caches; nothing else is consulted.
//
// The objects may come straight from a cache: [Plan] never mutates them.
type Snapshot struct {
	// Deployment is the Deployment to sync. It must be defaulted (see
	// [Default]) and valid (see [Validate]).
	Deployment *appsv1.Deployment
	// ReplicaSets are all ReplicaSets in the Deployment's namespace, owned or
	// not. Plan claims the ones that belong to the Deployment (adopting
	// orphans, releasing owned ones that no longer match) and uses the others
	// to detect pod-template-hash name collisions.
	ReplicaSets []*appsv1.ReplicaSet
	// Pods are the pods in the Deployment's namespace (at least those whose
	// controller is one of its ReplicaSets). Only the Recreate strategy reads
	// them: it waits until no pod of an old ReplicaSet is still running.
	// Terminal pods (Succeeded, Failed) do not count.
	Pods []*corev1.Pod
	// Now is the instant of the sync. Condition times and the progress
	// deadline are computed from it; Plan never reads a clock.
	Now time.Time
}

// Options select deviations from upstream behaviour. The zero value
// reproduces the upstream Kubernetes v1.37 controller exactly, including its
// known bugs.
type Options struct {
	// DisableTerminatingReplicas turns off status.terminatingReplicas, as a
	// cluster with the DeploymentReplicaSetTerminatingReplicas feature gate
	// disabled does. The gate is beta and on by default in v1.37.
	DisableTerminatingReplicas bool
	// FixProportionOverflow computes proportional scaling in 64-bit
	// arithmetic. Upstream multiplies rs.spec.replicas by the Deployment's
	// maximum replicas in int32, which wraps around for very large
	// Deployments (rs.spec.replicas × (replicas+maxSurge) > 2³¹−1) and then
	// scales ReplicaSets by nonsense amounts. It also writes the
	// max-replicas annotation (replicas + maxSurge) held to 2147483647
	// where upstream writes its wrapped int32 sum, so that no wrapped
	// number is written.
	FixProportionOverflow bool
	// Quiet skips building the explanations: Action.Why and Result.Notes
	// stay mostly empty. For simulators and benchmarks that never read
	// them; the decisions, events, status and Stop are unchanged.
	Quiet bool
}

// Result is the outcome of one sync: what upstream's syncDeployment would do,
// as values. A caller applies Actions in order, records Events, and requeues
// the Deployment as Requeue says.
type Result struct {
	// Actions are the API writes, in the order upstream issues them. Apply
	// them one by one and stop at the first failure (then requeue with rate
	// limiting, as upstream does when a sync returns an error). Each action
	// carries the object to write with the resourceVersion upstream would
	// send; an empty resourceVersion means the write is unconditional.
	//
	// The objects are the planner's own copies, but shallow ones: they share
	// every unchanged part (the pod template, labels, owner references, the
	// selector, ...) with the snapshot's objects. Treat them, and the rest of
	// the Result, as read-only, like objects from an informer cache:
	// DeepCopy before changing one.
	Actions []Action
	// Events are the events upstream records on the Deployment during the
	// sync, in order. Record an event only if the actions before it (see
	// [Event.After]) succeeded.
	Events []Event
	// Status is the Deployment's status once every action has been applied.
	Status appsv1.DeploymentStatus
	// Requeue says when to sync the Deployment again even if nothing changes.
	Requeue Requeue
	// Notes explain decisions that wrote nothing, in numbers: why old
	// ReplicaSets were not scaled down, why Recreate waits, and so on.
	// Together with each action's Why they answer "why is my rollout
	// stuck?". See [Result.Explain].
	Notes []string
	// Stop explains why the sync ended early with an error upstream would
	// return (for example a write that would conflict because upstream sends
	// a stale object, or a pod-template-hash collision). Empty when the sync
	// ran to completion.
	Stop string
}

// Requeue tells the caller when to sync the Deployment again.
type Requeue struct {
	// After is the delay before the next sync (zero: no timed requeue).
	After time.Duration
	// RateLimited asks for a requeue through the work queue's rate limiter,
	// as upstream does after an error or when a progress check is due now.
	RateLimited bool
}

// Event is a Kubernetes event upstream records on the Deployment.
type Event struct {
	// Type is corev1.EventTypeNormal or corev1.EventTypeWarning.
	Type string
	// Reason is upstream's event reason, for example "ScalingReplicaSet".
	Reason string
	// Message is upstream's message, word for word.
	Message string
	// After is how many of the plan's actions upstream has written when it
	// records the event. Record the event only if those actions succeeded.
	After int
}

// String renders the event like kubectl describe does: "Normal ScalingReplicaSet Scaled up ...".
func (e Event) String() string { return e.Type + " " + e.Reason + " " + e.Message }

// Action is one API write of a plan. The concrete types are
// [CreateReplicaSet], [UpdateReplicaSet], [ScaleReplicaSet],
// [DeleteReplicaSet], [AdoptReplicaSet], [ReleaseReplicaSet],
// [UpdateDeployment] and [UpdateDeploymentStatus].
type Action interface {
	// Explain says what the action does and why, with the numbers that
	// decided it.
	Explain() string
	isAction()
}

// CreateReplicaSet creates the Deployment's new ReplicaSet.
type CreateReplicaSet struct {
	// ReplicaSet is the object to create (name, labels, selector, template
	// with the pod-template-hash label, owner reference, annotations and
	// initial replicas set).
	ReplicaSet *appsv1.ReplicaSet
	// Why explains the decision.
	Why string
}

// UpdateReplicaSet updates a ReplicaSet's annotations or minReadySeconds
// without changing its size (the revision sync of the new ReplicaSet).
type UpdateReplicaSet struct {
	// ReplicaSet is the whole object to write. Like the objects of
	// [ScaleReplicaSet], [AdoptReplicaSet] and [ReleaseReplicaSet], its
	// top-level struct is allocated for this Result and referenced nowhere
	// else in it, so a caller may take it over (set its resourceVersion,
	// store it); what it points to may be shared and stays read-only.
	ReplicaSet *appsv1.ReplicaSet
	// Why explains the decision.
	Why string
}

// ScaleReplicaSet changes spec.replicas of a ReplicaSet (and refreshes its
// desired-replicas and max-replicas annotations). From may equal To when
// only the annotations change.
type ScaleReplicaSet struct {
	// ReplicaSet is the whole object to write, with the new size. Its
	// top-level struct may be taken over (see [UpdateReplicaSet]).
	ReplicaSet *appsv1.ReplicaSet
	// From and To are the sizes before and after.
	From, To int32
	// Why explains the decision in numbers.
	Why string
}

// DeleteReplicaSet deletes an old, empty ReplicaSet beyond
// revisionHistoryLimit. Delete it with a UID precondition.
type DeleteReplicaSet struct {
	Namespace, Name string
	// UID is the precondition: delete only this incarnation.
	UID types.UID
	// Why explains the decision.
	Why string
}

// AdoptReplicaSet makes the Deployment the controller of an orphan
// ReplicaSet that matches its selector.
type AdoptReplicaSet struct {
	// ReplicaSet is the object as it will be after the adoption. Its
	// top-level struct may be taken over (see [UpdateReplicaSet]).
	ReplicaSet *appsv1.ReplicaSet
	// Patch is the strategic merge patch upstream sends.
	Patch []byte
	// Why explains the decision.
	Why string
}

// ReleaseReplicaSet removes the Deployment's controller reference from a
// ReplicaSet it owns whose labels no longer match its selector.
type ReleaseReplicaSet struct {
	// ReplicaSet is the object as it will be after the release. Its
	// top-level struct may be taken over (see [UpdateReplicaSet]).
	ReplicaSet *appsv1.ReplicaSet
	// Patch is the strategic merge patch upstream sends.
	Patch []byte
	// Why explains the decision.
	Why string
}

// UpdateDeployment writes the Deployment's metadata and spec (the legacy
// rollback: new template, annotations, rollback annotation removed).
type UpdateDeployment struct {
	// Deployment is the whole object to write.
	Deployment *appsv1.Deployment
	// Why explains the decision.
	Why string
}

// UpdateDeploymentStatus writes the status subresource. As upstream, the
// object also carries annotation changes (the revision annotation): the
// apps/v1 status strategy keeps metadata.annotations from the request.
type UpdateDeploymentStatus struct {
	// Deployment is the whole object to write. Its top-level struct is
	// allocated for this Result and referenced nowhere else in it, so a
	// caller may take it over (set its resourceVersion, store it); what it
	// points to may be shared and stays read-only.
	Deployment *appsv1.Deployment
	// Why explains the decision.
	Why string
}

func (CreateReplicaSet) isAction()       {}
func (UpdateReplicaSet) isAction()       {}
func (ScaleReplicaSet) isAction()        {}
func (DeleteReplicaSet) isAction()       {}
func (AdoptReplicaSet) isAction()        {}
func (ReleaseReplicaSet) isAction()      {}
func (UpdateDeployment) isAction()       {}
func (UpdateDeploymentStatus) isAction() {}

// Explain implements [Action].
func (a CreateReplicaSet) Explain() string {
	return fmt.Sprintf("create replica set %s with %d replicas: %s", rsName(a.ReplicaSet), replicasOf(a.ReplicaSet), a.Why)
}

// Explain implements [Action].
func (a UpdateReplicaSet) Explain() string {
	return fmt.Sprintf("update replica set %s: %s", rsName(a.ReplicaSet), a.Why)
}

// Explain implements [Action].
func (a ScaleReplicaSet) Explain() string {
	if a.From == a.To {
		return fmt.Sprintf("update replica set %s (size %d): %s", rsName(a.ReplicaSet), a.To, a.Why)
	}
	dir := "up"
	if a.To < a.From {
		dir = "down"
	}
	return fmt.Sprintf("scale %s %s from %d to %d: %s", dir, rsName(a.ReplicaSet), a.From, a.To, a.Why)
}

// Explain implements [Action].
func (a DeleteReplicaSet) Explain() string {
	return fmt.Sprintf("delete replica set %s: %s", a.Name, a.Why)
}

// Explain implements [Action].
func (a AdoptReplicaSet) Explain() string {
	return fmt.Sprintf("adopt replica set %s: %s", rsName(a.ReplicaSet), a.Why)
}

// Explain implements [Action].
func (a ReleaseReplicaSet) Explain() string {
	return fmt.Sprintf("release replica set %s: %s", rsName(a.ReplicaSet), a.Why)
}

// Explain implements [Action].
func (a UpdateDeployment) Explain() string {
	return fmt.Sprintf("update deployment %s: %s", deploymentName(a.Deployment), a.Why)
}

// Explain implements [Action].
func (a UpdateDeploymentStatus) Explain() string {
	return fmt.Sprintf("update status of deployment %s: %s", deploymentName(a.Deployment), a.Why)
}

// rsName is rs's name, or "<nil>" for an action built without one (Explain
// never panics; Execute refuses such an action).
func rsName(rs *appsv1.ReplicaSet) string {
	if rs == nil {
		return "<nil>"
	}
	return rs.Name
}

// deploymentName is d's name, or "<nil>".
func deploymentName(d *appsv1.Deployment) string {
	if d == nil {
		return "<nil>"
	}
	return d.Name
}

func replicasOf(rs *appsv1.ReplicaSet) int32 {
	if rs == nil || rs.Spec.Replicas == nil {
		return 0
	}
	return *rs.Spec.Replicas
}
