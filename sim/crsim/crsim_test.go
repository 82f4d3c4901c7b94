package crsim_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/sim"
	"github.com/deploymath/deploymath/sim/crsim"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Widget is the custom kind of these tests: a workload of one
// ReplicaSet, with a status subresource.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec"`
	Status            WidgetStatus `json:"status,omitempty"`
}

type WidgetSpec struct {
	Replicas int32  `json:"replicas"`
	Image    string `json:"image"`
}

type WidgetStatus struct {
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	Ready              int32 `json:"ready,omitempty"`
}

func (w *Widget) DeepCopyObject() runtime.Object {
	c := *w
	w.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

func (l *WidgetList) DeepCopyObject() runtime.Object {
	c := *l
	c.Items = make([]Widget, len(l.Items))
	for i := range l.Items {
		c.Items[i] = *l.Items[i].DeepCopyObject().(*Widget)
	}
	return &c
}

var widgetGV = schema.GroupVersion{Group: "test.deploymath.dev", Version: "v1"}

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	s.AddKnownTypes(widgetGV, &Widget{}, &WidgetList{})
	metav1.AddToGroupVersion(s, widgetGV)
	return s
}

// widgetReconciler keeps one ReplicaSet per Widget, named after it.
type widgetReconciler struct {
	client.Client
	times []time.Duration
	clock interface{ Now() time.Time }
}

func (r *widgetReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if r.clock != nil {
		r.times = append(r.times, r.clock.Now().Sub(sim.Epoch))
	}
	var w Widget
	if err := r.Get(ctx, req.NamespacedName, &w); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	labels := map[string]string{"widget": w.Name}
	var rs appsv1.ReplicaSet
	err := r.Get(ctx, req.NamespacedName, &rs)
	if client.IgnoreNotFound(err) != nil {
		return reconcile.Result{}, err
	}
	if err != nil {
		rs = appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: w.Name, Namespace: w.Namespace, Labels: labels,
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(&w, widgetGV.WithKind("Widget"))}},
			Spec: appsv1.ReplicaSetSpec{Replicas: &w.Spec.Replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: w.Spec.Image}}}}},
		}
		return reconcile.Result{}, r.Create(ctx, &rs)
	}
	if *rs.Spec.Replicas != w.Spec.Replicas {
		orig := rs.DeepCopy()
		rs.Spec.Replicas = &w.Spec.Replicas
		if err := r.Patch(ctx, &rs, client.MergeFrom(orig)); err != nil {
			return reconcile.Result{}, err
		}
	}
	if w.Status.Ready != rs.Status.ReadyReplicas || w.Status.ObservedGeneration != w.Generation {
		w.Status.Ready = rs.Status.ReadyReplicas
		w.Status.ObservedGeneration = w.Generation
		return reconcile.Result{}, r.Status().Update(ctx, &w)
	}
	return reconcile.Result{}, nil
}

const widgetScenario = `name: widgets
seed: 1
until: 1m
cluster:
  deploymentController: false
objects:
- apiVersion: test.deploymath.dev/v1
  kind: Widget
  metadata: {name: w1, labels: {team: a}}
  spec: {replicas: 3, image: "app:1"}
`

// run runs src with the manager's controllers.
func run(t *testing.T, src string, mgr *crsim.Manager) (*sim.Sim, *sim.Result) {
	t.Helper()
	sc, err := sim.ParseScenario([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(sc, mgr.SimOptions(sim.Options{Writes: true}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	return s, res
}

func newManager(t *testing.T) *crsim.Manager {
	t.Helper()
	mgr, err := crsim.NewManager(crsim.Options{Scheme: newScheme()})
	if err != nil {
		t.Fatal(err)
	}
	return mgr
}

// A reconciler set up as for a manager (For, Owns, Complete) creates its
// ReplicaSet, whose pods become ready, and reports them in its status.
func TestReconcilerRuns(t *testing.T) {
	mgr := newManager(t)
	r := &widgetReconciler{Client: mgr.GetClient()}
	if err := crsim.NewControllerManagedBy(mgr).For(&Widget{}).Owns(&appsv1.ReplicaSet{}).Complete(r); err != nil {
		t.Fatal(err)
	}
	s, res := run(t, widgetScenario, mgr)
	var w Widget
	if err := s.APIReader().Get(types.NamespacedName{Namespace: "default", Name: "w1"}, &w); err != nil {
		t.Fatal(err)
	}
	if w.Status.Ready != 3 || w.Status.ObservedGeneration != 1 {
		t.Errorf("status %+v, want 3 ready of generation 1", w.Status)
	}
	by := map[string]int{}
	for _, wr := range res.Writes {
		by[wr.By+" "+wr.Verb+" "+wr.Kind]++
	}
	if by["widget create ReplicaSet"] != 1 || by["widget status Widget"] == 0 {
		t.Errorf("writes by the controller (named after the For kind): %v", by)
	}
}

// probe runs fn once, at the first reconcile of a controller over
// widgetScenario, and returns what it returned.
func probe(t *testing.T, src string, fn func(ctx context.Context, c client.Client, mgr *crsim.Manager) error) error {
	t.Helper()
	mgr := newManager(t)
	var got error
	done := false
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		if !done {
			done = true
			got = fn(ctx, mgr.GetClient(), mgr)
		}
		return reconcile.Result{}, nil
	})
	if err := crsim.NewControllerManagedBy(mgr).For(&Widget{}).Complete(r); err != nil {
		t.Fatal(err)
	}
	run(t, src, mgr)
	if !done {
		t.Fatal("the probe never ran")
	}
	return got
}

// check is a list of named checks a probe runs in turn.
type check struct {
	name string
	fn   func(ctx context.Context, c client.Client) error
}

func runChecks(ctx context.Context, c client.Client, checks []check) error {
	var errs []error
	for _, ch := range checks {
		if err := ch.fn(ctx, c); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", ch.name, err))
		}
	}
	return errors.Join(errs...)
}

func want(cond bool, format string, args ...any) error {
	if cond {
		return nil
	}
	return fmt.Errorf(format, args...)
}

var w1 = types.NamespacedName{Namespace: "default", Name: "w1"}

func isCode(err error, code int32) bool {
	var se interface{ Status() metav1.Status }
	return errors.As(err, &se) && se.Status().Code == code
}

func notModelled(err error) bool {
	return isCode(err, 405) && strings.Contains(err.Error(), "not modelled by the simulator")
}

func TestClientOutsideRun(t *testing.T) {
	mgr := newManager(t)
	var w Widget
	if err := mgr.GetClient().Get(context.Background(), w1, &w); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("Get before a run: %v", err)
	}
	if err := mgr.GetAPIReader().List(context.Background(), &WidgetList{}); err == nil {
		t.Error("List before a run: no error")
	}
	mgr.GetEventRecorderFor("x").Event(&w, corev1.EventTypeNormal, "Dropped", "before the run") // must not panic
	if got := mgr.GetClock().Now(); !got.Equal(sim.Epoch) {
		t.Errorf("clock before a run: %v, want the epoch", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := mgr.GetClient().Get(ctx, w1, &w); !errors.Is(err, context.Canceled) {
		t.Errorf("Get with a cancelled context: %v", err)
	}
}
