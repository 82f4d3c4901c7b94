package rollout

import appsv1 "k8s.io/api/apps/v1"

// Planner plans syncs like [PlanWith] while reusing its memory from one
// call to the next: the [Result], its Actions and Events lists, the
// planner's scratch lists and its copies of the Deployment. A controller or simulator that plans
// many syncs one after the other allocates less per sync with a Planner;
// the decisions are exactly those of [PlanWith].
//
// The zero value is ready to use. A Planner is not safe for concurrent use:
// give each goroutine its own.
//
// # Lifetime of the reused memory
//
// The next call of [Planner.Plan] reuses, and so overwrites:
//
//   - the returned *Result itself and the arrays of its Actions and Events
//     slices;
//   - the Deployment of every [UpdateDeployment] and [UpdateDeploymentStatus]
//     action (unlike with PlanWith, it may not be taken over: copy what you
//     keep, for example its Status, before planning again).
//
// Everything else the Result holds is allocated for it, or shared with the
// snapshot, as with PlanWith, and may be kept: the ReplicaSets of the
// actions (whose top-level structs may be taken over), the strings, the
// Notes, and the conditions of Result.Status and of the written Deployment.
type Planner struct {
	// Options are the options of every plan (see [PlanWith]).
	Options Options

	res         Result
	actions     []Action
	events      []Event
	claimed     []*appsv1.ReplicaSet
	rss         []*appsv1.ReplicaSet
	deployments []*appsv1.Deployment
}

// Plan is [PlanWith](s, pl.Options), with the Result and the written
// Deployments valid until the next call of Plan on pl (see [Planner]).
func (pl *Planner) Plan(s Snapshot) (*Result, error) {
	return plan(s, pl.Options, pl)
}
