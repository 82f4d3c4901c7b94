package sim

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The built-in Deployment controller as a [Controller] of the host:
// rollout.Planner over what its informers show, its plan written through
// the client, its events recorded as client-go's recorder does. The
// engine runs it on a fast path of its own (deployment.go: its informer
// handlers written out at the engine's writes, its syncs reading the
// store without copies); this is the same controller written against the
// public API, and a run with Options.genericBuiltins uses it instead.
// TestBuiltinsThroughHost runs every bundled scenario both ways and
// compares the traces byte for byte: the fast path is an optimisation
// with identical behaviour.

// BuiltinDeploymentController is the name of the built-in Deployment
// controller: the writer of its writes in the write log and the source of
// its events. [Options].Controllers cannot take it; a scenario turns the
// controller off with cluster.deploymentController: false.
const BuiltinDeploymentController = writerDeployment

// deploymentController is the built-in Deployment controller as a hosted
// controller.
type deploymentController struct {
	s  *Sim
	pl rollout.Planner
}

func (*deploymentController) Name() string { return BuiltinDeploymentController }

// Watches are upstream's informer handlers: a Deployment queues itself; a
// ReplicaSet queues its controller Deployment, or, an orphan, every
// Deployment of its namespace whose selector matches it; the deletion of
// the last pod of a Recreate Deployment's ReplicaSets queues it.
func (c *deploymentController) Watches() []Watch {
	return []Watch{
		For(&appsv1.Deployment{}),
		Watches(&appsv1.ReplicaSet{}, c.replicaSetKeys),
		Watches(&corev1.Pod{}, c.podKeys),
	}
}

// replicaSetKeys maps a ReplicaSet change to its Deployments.
func (c *deploymentController) replicaSetKeys(ch Change) []Request {
	s := c.s
	var out []Request
	add := func(ns, name string) {
		r := Request{types.NamespacedName{Namespace: ns, Name: name}}
		for _, o := range out {
			if o == r {
				return
			}
		}
		out = append(out, r)
	}
	for _, o := range [2]Object{ch.Old, ch.New} {
		if o == nil {
			continue
		}
		if ref := metav1.GetControllerOfNoCopy(o); ref != nil {
			if ref.Kind == "Deployment" {
				if d := s.st.Deployments[objKey(o.GetNamespace(), ref.Name)]; d != nil && d.UID == ref.UID {
					add(o.GetNamespace(), ref.Name)
				}
			}
			continue
		}
		for _, key := range sortedKeys(s.st.Deployments) {
			d := s.st.Deployments[key]
			if d.Namespace == o.GetNamespace() && deploymentSelects(d, o.GetLabels()) {
				add(d.Namespace, d.Name)
			}
		}
	}
	return out
}

// podKeys maps the deletion of a pod to its Recreate Deployment once the
// Deployment's ReplicaSets have no pod left.
func (c *deploymentController) podKeys(ch Change) []Request {
	s := c.s
	if ch.New != nil || ch.Old == nil {
		return nil
	}
	ref := metav1.GetControllerOfNoCopy(ch.Old)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return nil
	}
	st := s.st.ReplicaSets[objKey(ch.Old.GetNamespace(), ref.Name)]
	if st == nil || st.OwnerItem == nil {
		return nil
	}
	d := st.OwnerItem.X.Dep
	if d == nil || d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType || s.c.HasPods(d.Namespace, objKey(d.Namespace, d.Name)) {
		return nil
	}
	return []Request{RequestFor(d)}
}

// errSyncFailed is the error of a sync that failed or stopped early (the
// trace says why).
var errSyncFailed = errors.New("sync failed")

// Reconcile is one sync: rollout.Plan on what the informers show, the
// plan written in order through the client, the events recorded.
func (c *deploymentController) Reconcile(ctx *Context, req Request) (ReconcileResult, error) {
	s := c.s
	cl := ctx.Client()
	var d appsv1.Deployment
	if err := cl.Get(req.NamespacedName, &d); err != nil {
		if apierrors.IsNotFound(err) {
			return ReconcileResult{}, nil
		}
		return ReconcileResult{}, err
	}
	var list appsv1.ReplicaSetList
	if err := cl.List(&list, InNamespace(d.Namespace)); err != nil {
		return ReconcileResult{}, err
	}
	rss := make([]*appsv1.ReplicaSet, len(list.Items))
	for i := range list.Items {
		rss[i] = &list.Items[i]
	}
	s.stats.DeploymentSyncs++
	snap := rollout.Snapshot{Deployment: &d, ReplicaSets: rss, Now: ctx.Now()}
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		// as the engine's own controller, which reads pods undelayed
		pods, err := c.podsOf(ctx, &d, rss)
		if err != nil {
			return ReconcileResult{}, err
		}
		snap.Pods = pods
	}
	planOpts := s.opts.Plan
	planOpts.Quiet = !s.opts.Explain
	c.pl.Options = planOpts
	res, err := c.pl.Plan(snap)
	if err != nil {
		s.note("sync %s failed: %v", d.Name, err)
		return ReconcileResult{}, errSyncFailed
	}
	for i, a := range res.Actions {
		var before *checkState
		if s.checks != nil {
			before = s.checks.capture(d.Namespace, d.Name)
		}
		if err := c.write(cl, a); err != nil {
			s.explainSync(&d, snap.ReplicaSets, res, i)
			s.recordEvents(&d, res.Events, i)
			s.note("sync %s: action %d of %d (%s) failed: %v", d.Name, i+1, len(res.Actions), actionName(a), err)
			return ReconcileResult{}, errSyncFailed
		}
		if s.checks != nil {
			s.checks.afterAction(before, a, s.checks.capture(d.Namespace, d.Name))
		}
	}
	s.explainSync(&d, snap.ReplicaSets, res, len(res.Actions))
	s.recordEvents(&d, res.Events, len(res.Actions))
	if res.Stop != "" {
		s.stopped(d.Name, res)
		return ReconcileResult{}, errSyncFailed
	}
	return ReconcileResult{Requeue: res.Requeue.RateLimited, RequeueAfter: res.Requeue.After}, nil
}

// requeue is the built-in's own requeue (see selfRequeuer): a failed sync
// is retried rate-limited and dropped after maxRetries failures, as
// upstream's handleErr does; a successful one may ask for both a
// rate-limited requeue and one after a delay, then forgets the failures.
func (c *deploymentController) requeue(it *wqItem, res ReconcileResult, err error) {
	s := c.s
	if err != nil {
		if it.Failures() < maxRetries {
			s.addAfterItem(it, it.Backoff())
			return
		}
		it.Forget()
		ns, name, _ := cutKey(it.Key.Name)
		s.note("dropping deployment %q out of the queue after %d retries", ns+"/"+name, maxRetries)
		return
	}
	if res.Requeue {
		s.addAfterItem(it, it.Backoff())
	}
	if res.RequeueAfter > 0 {
		s.addAfterItem(it, res.RequeueAfter)
	}
	it.Forget()
}

// write makes one action of a plan through the client.
func (c *deploymentController) write(cl Client, a rollout.Action) error {
	switch a := a.(type) {
	case rollout.CreateReplicaSet:
		return cl.Create(a.ReplicaSet.DeepCopy())
	case rollout.UpdateReplicaSet:
		return cl.Update(a.ReplicaSet.DeepCopy())
	case rollout.ScaleReplicaSet:
		return cl.Update(a.ReplicaSet.DeepCopy())
	case rollout.AdoptReplicaSet:
		return cl.Update(a.ReplicaSet.DeepCopy())
	case rollout.ReleaseReplicaSet:
		return cl.Update(a.ReplicaSet.DeepCopy())
	case rollout.DeleteReplicaSet:
		rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: a.Namespace, Name: a.Name}}
		return cl.Delete(rs, WithPreconditions(a.UID, ""))
	case rollout.UpdateDeployment:
		return cl.Update(a.Deployment.DeepCopy())
	case rollout.UpdateDeploymentStatus:
		return cl.Status().Update(a.Deployment.DeepCopy())
	}
	return fmt.Errorf("unknown action %T", a)
}

// podsOf lists the pods of d's ReplicaSets (for the Recreate strategy)
// from the API server, by ReplicaSet oldest first, then by name.
func (c *deploymentController) podsOf(ctx *Context, d *appsv1.Deployment, rss []*appsv1.ReplicaSet) ([]*corev1.Pod, error) {
	var owned []*appsv1.ReplicaSet
	for _, rs := range rss {
		if ref := metav1.GetControllerOfNoCopy(rs); ref != nil && ref.UID == d.UID {
			owned = append(owned, rs)
		}
	}
	slices.SortStableFunc(owned, func(a, b *appsv1.ReplicaSet) int {
		return cmp.Or(a.CreationTimestamp.Compare(b.CreationTimestamp.Time), strings.Compare(a.Name, b.Name))
	})
	var pods corev1.PodList
	if err := ctx.APIReader().List(&pods, InNamespace(d.Namespace)); err != nil {
		return nil, err
	}
	var out []*corev1.Pod
	for _, rs := range owned {
		for i := range pods.Items { // in name order
			if ref := metav1.GetControllerOfNoCopy(&pods.Items[i]); ref != nil && ref.UID == rs.UID {
				out = append(out, &pods.Items[i])
			}
		}
	}
	return out, nil
}

// selfRequeuer is a hosted controller that makes its requeues itself (the
// built-ins, whose retry rules are upstream's, not controller-runtime's).
type selfRequeuer interface {
	requeue(it *wqItem, res ReconcileResult, err error)
}

// cutKey splits a work-queue key "namespace/name".
func cutKey(key string) (namespace, name string, ok bool) { return strings.Cut(key, "/") }
