package differential

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/deploymath/deploymath/rollout"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// planOnce plans one sync of ns/name from the server's objects at now.
func planOnce(srv *server, ns, name string, now time.Time) (*rollout.Result, error) {
	s := rollout.Snapshot{Now: now}
	for _, d := range srv.deployments() {
		if d.Namespace == ns && d.Name == name {
			s.Deployment = d
		}
	}
	s.ReplicaSets = append(s.ReplicaSets, srv.replicaSets()...)
	s.Pods = srv.pods()
	return rollout.Plan(s)
}

// applyPlan makes the client calls a controller built on Plan makes: the
// actions in order, stopping at the first refused one; then the events
// whose actions all succeeded. It returns whether every action was
// applied, and the events recorded.
//
// claimOrder, when set, is the order in which the real controller patched
// ReplicaSets while claiming them: it lists them in informer-cache order,
// which is Go map order, so that order is not a decision of the
// controller's. The plan's leading adopt and release actions are applied
// in the same order (see the package doc).
func applyPlan(srv *server, res *rollout.Result, claimOrder []string) (bool, []string) {
	c := srv.clientset()
	ctx := context.Background()
	applied := 0
	actions := slices.Clone(res.Actions)
	claims := 0
	for claims < len(actions) && isClaim(actions[claims]) {
		claims++
	}
	rank := func(a rollout.Action) int {
		n := claimName(a)
		if i := slices.Index(claimOrder, n); i >= 0 {
			return i
		}
		return len(claimOrder)
	}
	slices.SortStableFunc(actions[:claims], func(a, b rollout.Action) int { return rank(a) - rank(b) })
	// Events keep their place relative to the actions; claims record none.
	for _, a := range actions {
		var err error
		switch a := a.(type) {
		case rollout.CreateReplicaSet:
			_, err = c.AppsV1().ReplicaSets(a.ReplicaSet.Namespace).Create(ctx, a.ReplicaSet, metav1.CreateOptions{})
		case rollout.UpdateReplicaSet:
			_, err = c.AppsV1().ReplicaSets(a.ReplicaSet.Namespace).Update(ctx, a.ReplicaSet, metav1.UpdateOptions{})
		case rollout.ScaleReplicaSet:
			_, err = c.AppsV1().ReplicaSets(a.ReplicaSet.Namespace).Update(ctx, a.ReplicaSet, metav1.UpdateOptions{})
		case rollout.DeleteReplicaSet:
			uid := a.UID
			err = c.AppsV1().ReplicaSets(a.Namespace).Delete(ctx, a.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		case rollout.AdoptReplicaSet:
			_, err = c.AppsV1().ReplicaSets(a.ReplicaSet.Namespace).Patch(ctx, a.ReplicaSet.Name, types.StrategicMergePatchType, a.Patch, metav1.PatchOptions{})
		case rollout.ReleaseReplicaSet:
			_, err = c.AppsV1().ReplicaSets(a.ReplicaSet.Namespace).Patch(ctx, a.ReplicaSet.Name, types.StrategicMergePatchType, a.Patch, metav1.PatchOptions{})
		case rollout.UpdateDeployment:
			_, err = c.AppsV1().Deployments(a.Deployment.Namespace).Update(ctx, a.Deployment, metav1.UpdateOptions{})
		case rollout.UpdateDeploymentStatus:
			_, err = c.AppsV1().Deployments(a.Deployment.Namespace).UpdateStatus(ctx, a.Deployment, metav1.UpdateOptions{})
		default:
			err = fmt.Errorf("unknown action %T", a)
		}
		if err != nil {
			break
		}
		applied++
	}
	var events []string
	for _, e := range res.Events {
		if e.After < claims && e.After > 0 {
			panic("an event among the claims")
		}
		if e.After <= applied {
			events = append(events, e.String())
		}
	}
	return applied == len(res.Actions), events
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
