package rollout

import appsv1 "k8s.io/api/apps/v1"

// Planner plans syncs like [PlanWith] while reusing its memory from one
// call to the next: the [Result], its Actions and Events lists, the
// planner's scratch lists and its copies of the Deployment and the
// ReplicaSets it updates. A controller or simulator that plans many syncs
// one after the other allocates less per sync with a Planner; the decisions
// are exactly those of [PlanWith].
//
// The zero value is ready to use. A Planner is not safe for concurrent use:
// give each goroutine its own.
//
// # What a Planner remembers
//
// A Planner also remembers, per Deployment object, what its spec gives
// (that it passed validation, its selector, its parameters and resolved
// maxSurge and maxUnavailable), reused at the next plan of the same object
// with the same generation, and what the look-up of the new ReplicaSet
// found (the claimed ReplicaSets in creation order, which templates match,
// whether the new one's revision annotations were in sync, each one's
// desired-replicas annotation), reused at the next plan of the same
// Deployment object when the Deployment has the same generation and the
// claimed ReplicaSets are the same objects, in the same order: a
// ReplicaSet with a new generation has its template compared again, one
// with a new annotations map its annotations read again, and the revision
// sync is trusted only when the Deployment's annotations map, every
// ReplicaSet's and the new ReplicaSet are the same. A claim of the
// ReplicaSets that wrote nothing is remembered too, with what it read
// (the Deployment's generation and deletion timestamp, each ReplicaSet's
// identity, labels map, owner references and deletion timestamp), and
// reused when those are the same.
//
// And when a plan's only write is the Deployment's status, it remembers
// what that plan read (the options, the instant, the Deployment's
// generation, annotations map and deletion timestamp, the ReplicaSets'
// identities, generations, annotations and labels maps, owner references,
// deletion timestamps, spec.replicas and status values) and the status it
// wrote. The next plan of the same Deployment object whose input is
// exactly that with the written status stored in the Deployment (the sync
// the status write triggers, at the same instant) is answered without
// planning: such a sync writes nothing and records no event, so the
// Result is the Deployment's own status and the requeue the plan would
// ask, as PlanWith gives it. Plans without [Options.Quiet] are always planned (their notes
// are not remembered), and so is a Recreate plan with pods.
//
// And when a RollingUpdate plan got through the claim, the look-up of the
// new ReplicaSet, the scaling-event check and the sizing of the new
// ReplicaSet without writing anything or recording an event, it remembers
// that too, with what that part reads (the options, the Deployment's
// generation, annotations map and deletion timestamp, the ReplicaSets'
// identities, generations, annotations and labels maps, owner references,
// deletion timestamps and spec.replicas; no status), and whether the
// scale-down of old ReplicaSets that follows wrote nothing either, with
// the ReplicaSets' availableReplicas it read. The next plan of the same
// Deployment object with those inputs, whose Progressing condition (with
// a progress deadline) is present and not DeploymentPaused (else that part
// writes it), resumes there: after the scale-down when no
// availableReplicas changed, else at it, with the ReplicaSets the
// remembered plan found; the rest (the cleanup of old ReplicaSets on a
// complete status, the status, its conditions, the requeue) is planned as
// usual, at the new instant. Any other difference (another option, a new
// generation or object, a replaced map, owner references or deletion
// timestamp, a ReplicaSet resized, added or removed, a Progressing
// condition missing or paused) and the sync is planned from the start.
// Such syncs, after a ReplicaSet's status moved (pods created, ready,
// available, terminating), are most of a rollout's, and so are the syncs
// of a converged Deployment that write nothing. Quiet plans only.
//
// Objects are compared by identity (statuses by value), so a Planner takes
// its inputs as an API server's objects are: a changed spec comes with a
// new generation or as a new object, and metadata maps, owner references
// and deletion timestamps are replaced, never modified in place (status
// may be updated in place). It keeps the last Deployment and ReplicaSet
// objects of up to 4,096 Deployments alive.
//
// # Lifetime of the reused memory
//
// The next call of [Planner.Plan] reuses, and so overwrites:
//
//   - the returned *Result itself and the arrays of its Actions and Events
//     slices;
//   - the Deployment of every [UpdateDeployment] and [UpdateDeploymentStatus]
//     action (unlike with PlanWith, it may not be taken over: copy what you
//     keep, for example its Status, before planning again);
//   - the array of the conditions of Result.Status and of the written
//     Deployment, when the plan changed them (copy the conditions, not
//     only the Status that holds them);
//   - the ReplicaSet of every [UpdateReplicaSet] and [ScaleReplicaSet]
//     action (copy the top-level struct to keep it; what it points to is
//     shared, read-only, as with PlanWith).
//
// Everything else the Result holds is allocated for it, or shared with the
// snapshot, as with PlanWith, and may be kept: the ReplicaSets of the other
// actions (whose top-level structs may be taken over), the strings and the
// Notes.
type Planner struct {
	// Options are the options of every plan (see [PlanWith]).
	Options Options

	res         Result
	actions     []Action
	events      []Event
	claimed     []*appsv1.ReplicaSet
	rss         []*appsv1.ReplicaSet
	deployments []*appsv1.Deployment
	replicaSets []*appsv1.ReplicaSet
	// conds is the array the conditions of the status a plan changes are
	// copied into.
	conds []appsv1.DeploymentCondition
	// memos is what the last plan of each Deployment found (see memo.go).
	memos map[*appsv1.Deployment]*memo
	// statusAction is the last UpdateDeploymentStatus handed out, boxed
	// once (see world.statusAction).
	statusAction Action
}

// Plan is [PlanWith](s, pl.Options), with the Result and the written
// Deployments valid until the next call of Plan on pl (see [Planner]).
func (pl *Planner) Plan(s Snapshot) (*Result, error) {
	if pl == nil {
		return plan(s, Options{}, nil)
	}
	return plan(s, pl.Options, pl)
}
