// Package bluegreen is a blue/green controller written with
// controller-runtime, for the BlueGreen kind of package v1: the same
// Reconciler runs with a real manager against an API server (cmd/bluegreen,
// and the v1.37.1 control plane test of sim/controlplane) and, through
// github.com/deploymath/deploymath/sim/crsim, in the deploymath simulator,
// where its property test runs (see README.md).
package bluegreen

import (
	"context"
	"fmt"

	v1 "github.com/deploymath/deploymath/examples/bluegreen/api/v1"
	"github.com/deploymath/deploymath/hashing"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// Labels the controller puts on its ReplicaSets and their pods.
const (
	// LabelName is the BlueGreen's name.
	LabelName = "example.deploymath.dev/bluegreen"
	// LabelColour is the colour.
	LabelColour = "example.deploymath.dev/colour"
	// LabelHash is the hash of the template the ReplicaSet runs
	// (hashing.PodTemplateHash of the BlueGreen's template).
	LabelHash = "example.deploymath.dev/template-hash"
)

// Reconciler reconciles BlueGreens. Build it with the manager's client and
// event recorder:
//
//	r := &bluegreen.Reconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorderFor("bluegreen")}
type Reconciler struct {
	client.Client
	Recorder record.EventRecorder
}

// SetupWithManager registers the controller with a controller-runtime
// manager: it reconciles BlueGreens and watches the ReplicaSets they own.
// In the simulator the same calls are made on crsim's builder (see
// README.md).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&v1.BlueGreen{}).Owns(&appsv1.ReplicaSet{}).Complete(r)
}

// Reconcile moves a BlueGreen one step towards its template:
//
//  1. both ReplicaSets exist (created with 0 replicas and the template);
//  2. no colour active yet: blue gets the template and spec.replicas, and
//     becomes active once they are all available;
//  3. the active colour runs the template: it is kept at spec.replicas,
//     the idle one at 0;
//  4. otherwise the idle colour is scaled to 0 if it runs another
//     template, given the template once its pods are gone, scaled to
//     spec.replicas, and made active once all are available (the old
//     colour keeps serving until then, and is scaled down after).
//
// A template whose pods never become available (a crash-looping image)
// therefore never becomes active.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx)
	var bg v1.BlueGreen
	if err := r.Get(ctx, req.NamespacedName, &bg); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if bg.DeletionTimestamp != nil {
		return ctrl.Result{}, nil // the garbage collector takes the ReplicaSets
	}
	hash := hashing.PodTemplateHash(&bg.Spec.Template, nil)
	rss := map[v1.Colour]*appsv1.ReplicaSet{}
	for _, c := range []v1.Colour{v1.Blue, v1.Green} {
		rs, err := r.replicaSet(ctx, &bg, c, hash)
		if err != nil || rs == nil {
			return ctrl.Result{}, err // created: its watch brings us back
		}
		rss[c] = rs
	}
	st := bg.Status
	st.ObservedGeneration = bg.Generation
	target := st.Active.Other()
	switch {
	case st.Active == "":
		target = v1.Blue
		st.Phase = v1.PhasePending
	case labelHash(rss[st.Active]) == hash:
		target = st.Active
		st.Phase = v1.PhaseStable
	default:
		st.Phase = v1.PhasePromoting
	}
	// The target colour runs the template with spec.replicas pods.
	t := rss[target]
	if labelHash(t) != hash {
		if err := r.scale(ctx, &bg, t, 0); err != nil || t.Status.Replicas > 0 {
			return ctrl.Result{}, r.status(ctx, &bg, st, rss, err)
		}
		if err := r.retemplate(ctx, &bg, t, hash); err != nil {
			return ctrl.Result{}, err
		}
	}
	if err := r.scale(ctx, &bg, t, bg.Spec.Replicas); err != nil {
		return ctrl.Result{}, err
	}
	if target != st.Active && st.Active != "" {
		// The active colour keeps serving at full size while the target
		// comes up.
		if err := r.scale(ctx, &bg, rss[st.Active], bg.Spec.Replicas); err != nil {
			return ctrl.Result{}, err
		}
	}
	if target != st.Active && fullyAvailable(t, bg.Spec.Replicas) {
		logger.Info("switching", "from", st.Active, "to", target, "hash", hash)
		st.Active, st.ActiveHash, st.Phase = target, hash, v1.PhaseStable
		// The old colour is scaled down once the switch is recorded; the
		// event follows the write, so that a refused write (a conflict,
		// retried) does not record it twice.
		if err := r.status(ctx, &bg, st, rss, nil); err != nil {
			return ctrl.Result{}, err
		}
		r.Recorder.Eventf(&bg, corev1.EventTypeNormal, "Switched", "Switched active colour to %s (%s, template %s, %d available)", target, t.Name, hash, t.Status.AvailableReplicas)
		return ctrl.Result{}, nil
	}
	if st.Active == target {
		if err := r.scale(ctx, &bg, rss[target.Other()], 0); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, r.status(ctx, &bg, st, rss, nil)
}

// replicaSet returns the ReplicaSet of colour c, creating it (0 replicas,
// the template of hash) when it does not exist; nil when created.
func (r *Reconciler) replicaSet(ctx context.Context, bg *v1.BlueGreen, c v1.Colour, hash string) (*appsv1.ReplicaSet, error) {
	var rs appsv1.ReplicaSet
	err := r.Get(ctx, client.ObjectKey{Namespace: bg.Namespace, Name: bg.Name + "-" + string(c)}, &rs)
	if err == nil {
		if !metav1.IsControlledBy(&rs, bg) {
			return nil, fmt.Errorf("replica set %s exists and is not controlled by bluegreen %s", rs.Name, bg.Name)
		}
		return &rs, nil
	}
	if !apierrors.IsNotFound(err) {
		return nil, err
	}
	sel := map[string]string{LabelName: bg.Name, LabelColour: string(c)}
	zero := int32(0)
	rs = appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: bg.Name + "-" + string(c), Namespace: bg.Namespace,
			Labels:          map[string]string{LabelName: bg.Name, LabelColour: string(c), LabelHash: hash},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(bg, v1.GroupVersion.WithKind("BlueGreen"))}},
		Spec: appsv1.ReplicaSetSpec{Replicas: &zero, Selector: &metav1.LabelSelector{MatchLabels: sel}, Template: podTemplate(bg, c, hash)},
	}
	if err := r.Create(ctx, &rs); err != nil {
		return nil, err
	}
	r.Recorder.Eventf(bg, corev1.EventTypeNormal, "Created", "Created replica set %s", rs.Name)
	return nil, nil
}

// podTemplate is the BlueGreen's template with the labels of colour c and
// the hash.
func podTemplate(bg *v1.BlueGreen, c v1.Colour, hash string) corev1.PodTemplateSpec {
	t := *bg.Spec.Template.DeepCopy()
	labels := map[string]string{}
	for k, v := range t.Labels {
		labels[k] = v
	}
	labels[LabelName], labels[LabelColour], labels[LabelHash] = bg.Name, string(c), hash
	t.Labels = labels
	return t
}

// retemplate gives rs (with no pods) the BlueGreen's template.
func (r *Reconciler) retemplate(ctx context.Context, bg *v1.BlueGreen, rs *appsv1.ReplicaSet, hash string) error {
	c := v1.Colour(rs.Labels[LabelColour])
	orig := rs.DeepCopy()
	rs.Spec.Template = podTemplate(bg, c, hash)
	if rs.Labels == nil {
		rs.Labels = map[string]string{}
	}
	rs.Labels[LabelHash] = hash
	if err := r.Patch(ctx, rs, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		return err
	}
	r.Recorder.Eventf(bg, corev1.EventTypeNormal, "Retemplated", "Gave replica set %s template %s", rs.Name, hash)
	return nil
}

// scale sets rs's replicas to n (an update: a conflict is retried).
func (r *Reconciler) scale(ctx context.Context, bg *v1.BlueGreen, rs *appsv1.ReplicaSet, n int32) error {
	if rs.Spec.Replicas != nil && *rs.Spec.Replicas == n {
		return nil
	}
	from := int32(1)
	if rs.Spec.Replicas != nil {
		from = *rs.Spec.Replicas
	}
	rs.Spec.Replicas = &n
	if err := r.Update(ctx, rs); err != nil {
		return err
	}
	verb := "up"
	if n < from {
		verb = "down"
	}
	r.Recorder.Eventf(bg, corev1.EventTypeNormal, "Scaled", "Scaled %s replica set %s from %d to %d", verb, rs.Name, from, n)
	return nil
}

// status writes st when it differs from bg's; err, when not nil, is
// returned as it is.
func (r *Reconciler) status(ctx context.Context, bg *v1.BlueGreen, st v1.BlueGreenStatus, rss map[v1.Colour]*appsv1.ReplicaSet, err error) error {
	if err != nil {
		return err
	}
	st.AvailableReplicas = 0
	if rs := rss[st.Active]; rs != nil && labelHash(rs) == st.ActiveHash {
		st.AvailableReplicas = rs.Status.AvailableReplicas
	}
	if st == bg.Status {
		return nil
	}
	bg.Status = st
	return r.Status().Update(ctx, bg)
}

// labelHash is the template hash rs runs.
func labelHash(rs *appsv1.ReplicaSet) string { return rs.Labels[LabelHash] }

// fullyAvailable reports whether rs's controller has observed its spec
// and has n available pods and no others.
func fullyAvailable(rs *appsv1.ReplicaSet, n int32) bool {
	return rs.Spec.Replicas != nil && *rs.Spec.Replicas == n &&
		rs.Status.ObservedGeneration >= rs.Generation &&
		rs.Status.AvailableReplicas >= n && rs.Status.Replicas == n
}
