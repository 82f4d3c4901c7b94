package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim/internal/cluster"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// syncDeployment is one sync of the Deployment controller: rollout.Plan on
// the store as of now, then the plan applied as the API server would.
func (s *Sim) syncDeployment(k *wqItem) {
	d, rss := s.controllerView(k)
	if d == nil {
		return
	}
	s.stats.DeploymentSyncs++
	s.writer = writerDeployment
	s.syncItem, s.syncDep = k, nil
	if !s.delayed() {
		s.syncDep = d
	}
	defer func() { s.writer, s.syncItem, s.syncDep = "", nil, nil }()
	snap := rollout.Snapshot{Deployment: d, ReplicaSets: rss, Now: s.wall()}
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		snap.Pods = s.podsOf(d)
	}
	// Only Explain reads the explanations: otherwise skip building them.
	planOpts := s.opts.Plan
	planOpts.Quiet = !s.opts.Explain
	if s.planned != nil {
		s.planned(snap)
	}
	s.pl.Options = planOpts
	res, err := s.pl.Plan(snap)
	if err != nil {
		s.note("sync %s failed: %v", d.Name, err)
		s.syncFailed(k)
		return
	}
	for i, a := range res.Actions {
		var before *checkState
		if s.checks != nil {
			before = s.checks.capture(d.Namespace, d.Name)
		}
		if err := s.apply(a); err != nil {
			s.explainSync(d, rss, res, i)
			// upstream recorded the events that precede the failed write
			s.recordEvents(d, res.Events, i)
			s.note("sync %s: action %d of %d (%s) failed: %v", d.Name, i+1, len(res.Actions), actionName(a), err)
			s.syncFailed(k)
			return
		}
		if s.checks != nil {
			s.checks.afterAction(before, a, s.checks.capture(d.Namespace, d.Name))
		}
	}
	s.explainSync(d, rss, res, len(res.Actions))
	s.recordEvents(d, res.Events, len(res.Actions))
	if res.Stop != "" {
		s.stopped(d.Name, res)
		s.syncFailed(k)
		return
	}
	if res.Requeue.RateLimited {
		s.addAfterItem(k, k.Backoff())
	}
	if res.Requeue.After > 0 {
		s.addAfterItem(k, res.Requeue.After)
	}
	k.Forget() // the sync succeeded
}

// syncFailed requeues k through the rate limiter, as upstream's handleErr
// does, and drops it after maxRetries failures.
func (s *Sim) syncFailed(k *wqItem) {
	if k.Failures() < maxRetries {
		s.addAfterItem(k, k.Backoff())
		return
	}
	k.Forget()
	s.note("dropping deployment %q out of the queue after %d retries", k.Key.Name, maxRetries)
}

// recordEvents records the events of a plan that upstream emits once the
// first applied actions have been written: those with Event.After ≤ applied.
func (s *Sim) recordEvents(d *appsv1.Deployment, evs []rollout.Event, applied int) {
	var f *Frame
	it := s.syncItem
	if it == nil { // the generic built-in (deploymentcontroller.go)
		it = s.wq.Item(queueKey{Ctrl: ctrlDeployment, Name: s.st.Key(d.Namespace, d.Name)})
	}
	for _, e := range evs {
		if e.After > applied {
			continue
		}
		s.met.event(it, e)
		if s.opts.NoTrace {
			continue
		}
		if f == nil {
			f = s.frame()
		}
		f.Events = append(f.Events, TraceEvent{Object: d.Name, Type: e.Type, Reason: e.Reason, Message: e.Message,
			Write: s.recordEvent(d, e)})
	}
}

func actionName(a rollout.Action) string {
	switch a := a.(type) {
	case rollout.CreateReplicaSet:
		return "create replicaset " + a.ReplicaSet.Name
	case rollout.UpdateReplicaSet:
		return "update replicaset " + a.ReplicaSet.Name
	case rollout.ScaleReplicaSet:
		return "scale replicaset " + a.ReplicaSet.Name
	case rollout.DeleteReplicaSet:
		return "delete replicaset " + a.Name
	case rollout.AdoptReplicaSet:
		return "adopt replicaset " + a.ReplicaSet.Name
	case rollout.ReleaseReplicaSet:
		return "release replicaset " + a.ReplicaSet.Name
	case rollout.UpdateDeployment:
		return "update deployment " + a.Deployment.Name
	case rollout.UpdateDeploymentStatus:
		return "update status of deployment " + a.Deployment.Name
	}
	return fmt.Sprintf("%T", a)
}

// apply performs one action against the store.
func (s *Sim) apply(a rollout.Action) error {
	switch a := a.(type) {
	case rollout.CreateReplicaSet:
		return s.createReplicaSet(a.ReplicaSet)
	case rollout.UpdateReplicaSet:
		// The Planner reuses the ReplicaSets of updates and scales at its
		// next plan: they are copied.
		return s.updateReplicaSet(a.ReplicaSet, false)
	case rollout.ScaleReplicaSet:
		return s.scaleReplicaSet(a.ReplicaSet)
	case rollout.AdoptReplicaSet:
		return s.updateReplicaSet(a.ReplicaSet, true)
	case rollout.ReleaseReplicaSet:
		return s.updateReplicaSet(a.ReplicaSet, true)
	case rollout.DeleteReplicaSet:
		return s.deleteReplicaSet(a.Namespace, a.Name, a.UID)
	case rollout.UpdateDeployment:
		return s.updateDeployment(a.Deployment)
	case rollout.UpdateDeploymentStatus:
		return s.updateDeploymentStatus(a.Deployment)
	}
	return fmt.Errorf("unknown action %T", a)
}

// podsOf returns the pods of d's ReplicaSets as API objects (for the
// Recreate strategy, which checks that no old pod is still running), by
// ReplicaSet oldest first, then by name.
func (s *Sim) podsOf(d *appsv1.Deployment) []*corev1.Pod {
	var out []*corev1.Pod
	for _, rs := range s.ownedReplicaSets(d) {
		st := s.st.ReplicaSets[objKey(rs.Namespace, rs.Name)]
		first := len(out)
		for _, p := range st.Pods {
			out = append(out, podObject(p, rs))
		}
		slices.SortFunc(out[first:], func(a, b *corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	}
	return out
}

// podObject renders the pod p of rs as an API object (for snapshots).
func podObject(p *cluster.Pod, rs *appsv1.ReplicaSet) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: p.Name, Namespace: p.Namespace, UID: p.UID, Labels: p.Labels,
			CreationTimestamp: truncTime(metav1.NewTime(Epoch.Add(p.Created))),
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))},
		},
		Spec:   corev1.PodSpec{NodeName: p.NodeName()},
		Status: corev1.PodStatus{Phase: p.Phase},
	}
	if p.Terminating {
		t := truncTime(metav1.NewTime(Epoch.Add(p.DeletedAt)))
		pod.DeletionTimestamp = &t
	}
	return pod
}
