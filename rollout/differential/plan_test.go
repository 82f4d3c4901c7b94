package differential

import (
	"context"
	"slices"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/rollout/clientgo"
)

// planOnce plans one sync of ns/name from the server's objects at now.
func planOnce(srv *server, ns, name string, now time.Time) (rollout.Snapshot, *rollout.Result, error) {
	s := rollout.Snapshot{Now: now}
	for _, d := range srv.deployments() {
		if d.Namespace == ns && d.Name == name {
			s.Deployment = d
		}
	}
	s.ReplicaSets = append(s.ReplicaSets, srv.replicaSets()...)
	s.Pods = srv.pods()
	res, err := rollout.Plan(s)
	return s, res, err
}

// applyPlan applies a plan as a controller built on deploymath does:
// rollout.Execute with the client-go writer of rollout/clientgo, on a
// clientset served by srv. It returns whether Execute succeeded and the
// events recorded.
//
// claimOrder, when set, is the order in which the real controller patched
// ReplicaSets while claiming them: it lists them in informer-cache order,
// which is Go map order, so that order is not a decision of the
// controller's. The plan's leading adopt and release actions are applied
// in the same order (see the package doc).
func applyPlan(srv *server, s rollout.Snapshot, res *rollout.Result, claimOrder []string) (bool, []string) {
	ordered := *res
	ordered.Actions = slices.Clone(res.Actions)
	claims := 0
	for claims < len(ordered.Actions) && isClaim(ordered.Actions[claims]) {
		claims++
	}
	rank := func(a rollout.Action) int {
		if i := slices.Index(claimOrder, claimName(a)); i >= 0 {
			return i
		}
		return len(claimOrder)
	}
	slices.SortStableFunc(ordered.Actions[:claims], func(a, b rollout.Action) int { return rank(a) - rank(b) })
	for _, e := range res.Events {
		if e.After > 0 && e.After < claims {
			panic("an event among the claims") // claims record none
		}
	}
	rec := &recorder{}
	err := rollout.Execute(context.Background(), clientgo.NewWriter(srv.clientset(), rec), s, &ordered)
	return err == nil || res.Stop != "" && !failedWrite(srv), rec.list
}

// failedWrite reports whether the server refused a write of the plan.
func failedWrite(srv *server) bool {
	for _, w := range srv.log {
		if w.Outcome != "ok" {
			return true
		}
	}
	return false
}

func isClaim(a rollout.Action) bool {
	switch a.(type) {
	case rollout.AdoptReplicaSet, rollout.ReleaseReplicaSet:
		return true
	}
	return false
}

func claimName(a rollout.Action) string {
	switch a := a.(type) {
	case rollout.AdoptReplicaSet:
		return a.ReplicaSet.Name
	case rollout.ReleaseReplicaSet:
		return a.ReplicaSet.Name
	}
	return ""
}
