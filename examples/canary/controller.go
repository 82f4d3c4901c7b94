package main

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/revision"
	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim"
)

// Controller is the canary controller: it reconciles [Canary] objects and
// the ReplicaSets they own, in the simulator (register it with
// sim.Options.Controllers). It keeps nothing in memory: everything it
// needs is in the Canary's status and the ReplicaSets.
//
// One reconcile reads the Canary and its ReplicaSets, then:
//
//   - without a stable ReplicaSet, creates one for the template at full
//     size (the first version is not a canary), or adopts the
//     ReplicaSet of the template;
//   - when the template has changed and no rollout is under way, creates
//     the canary ReplicaSet (size 0, the next revision) and starts the
//     rollout at the first step, recorded in the status (a change during
//     a rollout waits for its end);
//   - then runs [Decide] on the two ReplicaSets (again at once when a
//     step is reached, for the next one) and writes its outcome: the
//     sizes, the deletions, the events, then the status (step,
//     promotion, counts, the Progressing condition), and requeues when
//     Decide says.
//
// Its own status writes do not queue a Canary again (see Watches): a
// reconcile goes as far as it can.
type Controller struct {
	// seen, set by tests only, is how the stable side's scale-down sees
	// the canary: it plants the bug the property test must catch.
	seen func(rollout.ReplicaSet) rollout.ReplicaSet
}

// Name implements sim.Controller.
func (*Controller) Name() string { return "canary" }

// Watches implements sim.Controller: a Canary created, deleted or with a
// new generation (not a write of its status alone: its own status writes
// would queue it again for nothing; controller-runtime's
// GenerationChangedPredicate), and the ReplicaSets a Canary controls,
// queued under their owner's key (as sim.Owns queues them).
func (*Controller) Watches() []sim.Watch {
	return []sim.Watch{sim.Watches(&Canary{}, specChanged), sim.Watches(&appsv1.ReplicaSet{}, owner)}
}

// specChanged queues a Canary unless only its status (or metadata)
// changed.
func specChanged(ch sim.Change) []sim.Request {
	if ch.Old != nil && ch.New != nil && ch.Old.GetGeneration() == ch.New.GetGeneration() {
		return nil
	}
	return []sim.Request{sim.RequestFor(ch.Object())}
}

// owner queues the Canary that controls a changed ReplicaSet (before and
// after the change).
func owner(ch sim.Change) []sim.Request {
	var out []sim.Request
	for _, o := range [2]sim.Object{ch.Old, ch.New} {
		if o == nil {
			continue
		}
		ref := metav1.GetControllerOfNoCopy(o)
		if ref == nil || ref.Kind != "Canary" || ref.APIVersion != GroupVersion.String() {
			continue
		}
		r := sim.Request{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: ref.Name}}
		if len(out) == 0 || out[0] != r {
			out = append(out, r)
		}
	}
	return out
}

// Restart implements sim.Restartable: a restarted controller is a new
// value (it kept nothing in memory anyway).
func (c *Controller) Restart() sim.Controller { return &Controller{seen: c.seen} }

// CanaryLabel is the label every pod and ReplicaSet of a Canary carries,
// with the Canary's name.
const CanaryLabel = "rollouts.example.com/canary"

// Reconcile implements sim.Controller.
func (c *Controller) Reconcile(ctx *sim.Context, req sim.Request) (sim.ReconcileResult, error) {
	cl := ctx.Client()
	var k Canary
	if err := cl.Get(req.NamespacedName, &k); err != nil {
		if apierrors.IsNotFound(err) {
			return sim.ReconcileResult{}, nil
		}
		return sim.ReconcileResult{}, err
	}
	if k.DeletionTimestamp != nil {
		return sim.ReconcileResult{}, nil // the garbage collector removes the ReplicaSets
	}
	rss, err := ownedReplicaSets(cl, &k)
	if err != nil {
		return sim.ReconcileResult{}, err
	}
	hash := hashing.PodTemplateHash(&k.Spec.Template, nil)
	cur := find(rss, func(rs *appsv1.ReplicaSet) bool { return rs.Labels[hashing.LabelKey] == hash })
	stable := find(rss, byName(k.Status.StableReplicaSet))
	canary := find(rss, byName(k.Status.CanaryReplicaSet))
	st := k.Status.DeepCopy()
	steps := int32(len(k.Spec.Steps))
	if canary == nil {
		st.CanaryReplicaSet, st.Step = "", steps
	}

	if stable == nil {
		switch {
		case canary != nil:
			// A promotion deleted the old stable ReplicaSet but its
			// status was not written (or someone deleted the stable
			// ReplicaSet): the canary is the stable one.
			stable, canary = canary, nil
		case cur != nil:
			stable = cur // its status was lost: adopt it
		default:
			rs, err := create(cl, newReplicaSet(&k, hash, k.Spec.Replicas, revision.MaxRevision(rss)+1))
			if err != nil {
				return sim.ReconcileResult{}, err
			}
			ctx.Recorder().Eventf(&k, corev1.EventTypeNormal, "Created", "created stable replica set %s with %d pods", rs.Name, k.Spec.Replicas)
			stable, cur, rss = rs, rs, append(rss, rs)
		}
		st.StableReplicaSet, st.CanaryReplicaSet, st.Step = stable.Name, "", steps
		if err := writeStatus(cl, &k, st); err != nil {
			return sim.ReconcileResult{}, err
		}
	}
	if canary == nil && cur != stable {
		rs := cur
		if rs == nil {
			if rs, err = create(cl, newReplicaSet(&k, hash, 0, revision.MaxRevision(rss)+1)); err != nil {
				return sim.ReconcileResult{}, err
			}
			rss = append(rss, rs)
		}
		ctx.Recorder().Eventf(&k, corev1.EventTypeNormal, "RolloutStarted", "canary replica set %s, step 1 of %d", rs.Name, steps)
		st.CanaryReplicaSet, st.Step = rs.Name, 0
		setProgressing(st, corev1.ConditionTrue, rollout.ReplicaSetUpdatedReason, fmt.Sprintf("%s is progressing at step 1", k.Name), ctx.Now())
		st.ObservedGeneration = k.Generation
		if err := writeStatus(cl, &k, st); err != nil {
			return sim.ReconcileResult{}, err
		}
		cur, canary = rs, rs
	}
	// On to the decision at once: nothing else may queue the Canary (its
	// status writes do not, see Watches).

	r, err := rolloutOf(&k, st, stable, canary, rss)
	if err != nil {
		return sim.ReconcileResult{}, err
	}
	for {
		out, err := decide(r, ctx.Now(), c.seen)
		if err != nil {
			return sim.ReconcileResult{}, fmt.Errorf("%w: %w", err, sim.ErrTerminal) // invalid spec: retrying cannot help
		}
		if err := write(ctx, &k, st, rss, out); err != nil {
			return sim.ReconcileResult{}, err
		}
		if out.Promote && cur != canary {
			// The template changed during the rollout: start the next one.
			return sim.ReconcileResult{Requeue: true}, nil
		}
		if out.Step == r.Step || out.Promote || len(out.Scale) > 0 {
			switch {
			case out.Requeue.After > 0:
				return sim.ReconcileResult{RequeueAfter: out.Requeue.After}, nil
			case out.Requeue.RateLimited:
				return sim.ReconcileResult{Requeue: true}, nil
			}
			return sim.ReconcileResult{}, nil
		}
		// A step reached, and recorded: act on the next one now. Nothing
		// else would queue the Canary (its status writes do not, see
		// Watches).
		r.Step, r.Status = out.Step, out.Status
	}
}

// write writes a decision: the sizes, the deletions, the events, then
// the status of k (st, updated; k takes the stored object); a promotion's
// status goes first.
func write(ctx *sim.Context, k *Canary, st *CanaryStatus, rss []*appsv1.ReplicaSet, out Outcome) error {
	cl := ctx.Client()
	st.Step = int32(out.Step)
	if out.Promote {
		st.StableReplicaSet, st.CanaryReplicaSet = st.CanaryReplicaSet, ""
	}
	statusFrom(st, &out.Status)
	st.ObservedGeneration = k.Generation
	if out.Promote {
		// Record the promotion before deleting the old stable side: a
		// delete that fails is retried by the cleanup of the next
		// reconcile, a status that fails would leave no stable side.
		if err := writeStatus(cl, k, st); err != nil {
			return err
		}
	}
	for _, s := range out.Scale {
		rs := find(rss, byName(s.Name)).DeepCopy()
		rs.Spec.Replicas = &s.To
		if err := cl.Update(rs); err != nil {
			return fmt.Errorf("scale %s to %d: %w", s.Name, s.To, err)
		}
	}
	for _, name := range out.Delete {
		rs := find(rss, byName(name))
		if err := cl.Delete(rs, sim.WithPreconditions(rs.UID, rs.ResourceVersion)); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete %s: %w", name, err)
		}
	}
	for _, e := range out.Events {
		ctx.Recorder().Event(k, e.Type, e.Reason, e.Message)
	}
	return writeStatus(cl, k, st)
}

// ownedReplicaSets are the ReplicaSets k controls, oldest first.
func ownedReplicaSets(cl sim.Reader, k *Canary) ([]*appsv1.ReplicaSet, error) {
	var list appsv1.ReplicaSetList
	if err := cl.List(&list, sim.InNamespace(k.Namespace)); err != nil {
		return nil, err
	}
	var out []*appsv1.ReplicaSet
	for i := range list.Items {
		if ref := metav1.GetControllerOfNoCopy(&list.Items[i]); ref != nil && ref.UID == k.UID {
			out = append(out, &list.Items[i])
		}
	}
	slices.SortStableFunc(out, func(a, b *appsv1.ReplicaSet) int { return a.CreationTimestamp.Compare(b.CreationTimestamp.Time) })
	return out, nil
}

func find(rss []*appsv1.ReplicaSet, match func(*appsv1.ReplicaSet) bool) *appsv1.ReplicaSet {
	for _, rs := range rss {
		if match(rs) {
			return rs
		}
	}
	return nil
}

func byName(name string) func(*appsv1.ReplicaSet) bool {
	return func(rs *appsv1.ReplicaSet) bool { return name != "" && rs.Name == name }
}

// newReplicaSet is the ReplicaSet of k's template (hash) at a size and
// revision: named NAME-HASH, its pods labelled with the Canary's name and
// the hash, controlled by k.
func newReplicaSet(k *Canary, hash string, replicas int32, rev int64) *appsv1.ReplicaSet {
	labels := maps.Clone(k.Spec.Template.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[CanaryLabel] = k.Name
	labels = hashing.LabelsWithHash(labels, hash)
	tmpl := k.Spec.Template.DeepCopy()
	tmpl.Labels = labels
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: k.Name + "-" + hash, Namespace: k.Namespace, Labels: labels,
			Annotations:     map[string]string{revision.RevisionAnnotation: strconv.FormatInt(rev, 10)},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(k, GroupVersion.WithKind("Canary"))},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &replicas, MinReadySeconds: k.Spec.MinReadySeconds,
			Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: *tmpl,
		},
	}
}

// create creates rs; one that exists already (created by an earlier
// reconcile that the informer view has not shown yet) is an error, and
// the reconcile is retried.
func create(cl sim.Client, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	if err := cl.Create(rs); err != nil {
		return nil, fmt.Errorf("create %s: %w", rs.Name, err)
	}
	return rs, nil
}

// rolloutOf reads the rollout of k (with the status st) for Decide.
func rolloutOf(k *Canary, st *CanaryStatus, stable, canary *appsv1.ReplicaSet, rss []*appsv1.ReplicaSet) (Rollout, error) {
	r := Rollout{Name: k.Name, Params: paramsOf(&k.Spec), Steps: k.Spec.Steps, Step: int(min(st.Step, int32(len(k.Spec.Steps))))}
	var err error
	if r.Stable, err = rollout.ReplicaSetOf(stable); err != nil {
		return r, err
	}
	if canary != nil {
		if r.Canary, err = rollout.ReplicaSetOf(canary); err != nil {
			return r, err
		}
	}
	for _, rs := range rss {
		if rs != stable && rs != canary {
			h, err := rollout.ReplicaSetOf(rs)
			if err != nil {
				return r, err
			}
			r.History = append(r.History, h)
		}
	}
	r.Status = appsv1.DeploymentStatus{
		Replicas: st.Replicas, UpdatedReplicas: st.UpdatedReplicas, ReadyReplicas: st.ReadyReplicas,
		AvailableReplicas: st.AvailableReplicas, UnavailableReplicas: st.UnavailableReplicas,
		TerminatingReplicas: st.TerminatingReplicas, Conditions: st.Conditions,
	}
	return r, nil
}

// paramsOf are the rollout parameters of a Canary's spec, with its
// defaults.
func paramsOf(s *CanarySpec) rollout.Params {
	quarter := intstr.FromString("25%")
	p := rollout.Params{
		Replicas: s.Replicas, Strategy: appsv1.RollingUpdateDeploymentStrategyType,
		MaxSurge: s.MaxSurge, MaxUnavailable: s.MaxUnavailable, MinReadySeconds: s.MinReadySeconds,
		ProgressDeadlineSeconds: s.ProgressDeadlineSeconds, RevisionHistoryLimit: s.RevisionHistoryLimit,
	}
	if p.MaxSurge == nil {
		p.MaxSurge = &quarter
	}
	if p.MaxUnavailable == nil {
		p.MaxUnavailable = &quarter
	}
	if p.ProgressDeadlineSeconds == nil {
		p.ProgressDeadlineSeconds = new(int32(600))
	}
	if p.RevisionHistoryLimit == nil {
		p.RevisionHistoryLimit = new(int32(10))
	}
	return p
}

// statusFrom copies the counts and conditions of a decision into st.
func statusFrom(st *CanaryStatus, s *appsv1.DeploymentStatus) {
	st.Replicas, st.UpdatedReplicas, st.ReadyReplicas = s.Replicas, s.UpdatedReplicas, s.ReadyReplicas
	st.AvailableReplicas, st.UnavailableReplicas = s.AvailableReplicas, s.UnavailableReplicas
	st.TerminatingReplicas, st.Conditions = s.TerminatingReplicas, s.Conditions
}

// writeStatus writes st as k's status unless it is k's already.
func writeStatus(cl sim.Client, k *Canary, st *CanaryStatus) error {
	if reflect.DeepEqual(&k.Status, st) {
		return nil
	}
	k.Status = *st
	if err := cl.Status().Update(k); err != nil {
		return fmt.Errorf("status: %w", err)
	}
	return nil
}

// setProgressing sets the Progressing condition of a Canary's status.
func setProgressing(st *CanaryStatus, status corev1.ConditionStatus, reason, msg string, now time.Time) {
	s := appsv1.DeploymentStatus{Conditions: slices.Clone(st.Conditions)}
	setProgressingIn(&s, status, reason, msg, now)
	st.Conditions = s.Conditions
}
