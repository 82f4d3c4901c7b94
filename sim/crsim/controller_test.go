package crsim_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/sim"
	"github.com/deploymath/deploymath/sim/crsim"
	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Without Owns nothing brings the reconciler back when its ReplicaSet's
// pods become ready; with it, the ReplicaSet's changes queue its
// controller owner.
func TestOwns(t *testing.T) {
	for _, owns := range []bool{false, true} {
		mgr := newManager(t)
		r := &widgetReconciler{Client: mgr.GetClient()}
		b := crsim.NewControllerManagedBy(mgr).For(&Widget{})
		if owns {
			b = b.Owns(&appsv1.ReplicaSet{})
		}
		if err := b.Complete(r); err != nil {
			t.Fatal(err)
		}
		s, _ := run(t, widgetScenario, mgr)
		var w Widget
		if err := s.APIReader().Get(w1, &w); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int32{false: 0, true: 3}[owns]; w.Status.Ready != want {
			t.Errorf("owns %v: %d ready in the status, want %d", owns, w.Status.Ready, want)
		}
	}
}

// recorder reconciles nothing and records which keys it was called for,
// when.
type recorder struct {
	mgr   *crsim.Manager
	calls []string
}

func (r *recorder) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.calls = append(r.calls, fmt.Sprintf("%s@%s", req.Name, r.mgr.GetClock().Now().Sub(sim.Epoch)))
	return reconcile.Result{}, nil
}

const watchScenario = twoWidgets + `- apiVersion: v1
  kind: ConfigMap
  metadata: {name: cfg}
  data: {team: a}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata:
    name: shared
    ownerReferences: [{apiVersion: test.deploymath.dev/v1, kind: Widget, name: w2, uid: u2}]
  spec:
    replicas: 1
    selector: {matchLabels: {app: shared}}
    template:
      metadata: {labels: {app: shared}}
      spec:
        containers: [{name: s, image: "s:1"}]
steps:
- at: 10s
  editConfigMap: {name: cfg, data: {team: b}}
- at: 20s
  apply:
    apiVersion: test.deploymath.dev/v1
    kind: Widget
    metadata: {name: w1, labels: {team: a, relabelled: "yes"}}
    spec: {replicas: 3, image: "app:1"}
- at: 30s
  apply:
    apiVersion: test.deploymath.dev/v1
    kind: Widget
    metadata: {name: w1, labels: {team: a, relabelled: "yes"}}
    spec: {replicas: 4, image: "app:1"}
`

// calls returns the calls at or after from.
func callsFrom(calls []string, from time.Duration) []string {
	var out []string
	for _, c := range calls {
		_, at, _ := strings.Cut(c, "@")
		d, _ := time.ParseDuration(at)
		if d >= from {
			out = append(out, c)
		}
	}
	return out
}

func TestWatches(t *testing.T) {
	t.Run("map function reading through the client", func(t *testing.T) {
		mgr := newManager(t)
		r := &recorder{mgr: mgr}
		c := mgr.GetClient()
		byTeam := handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
			cm := o.(*corev1.ConfigMap)
			var l WidgetList
			if err := c.List(ctx, &l, client.InNamespace(cm.Namespace), client.MatchingLabels{"team": cm.Data["team"]}); err != nil {
				t.Errorf("list in the map function: %v", err)
				return nil
			}
			var out []reconcile.Request
			for _, w := range l.Items {
				out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: w.Namespace, Name: w.Name}})
			}
			return out
		})
		if err := crsim.NewControllerManagedBy(mgr).Named("by-team").Watches(&corev1.ConfigMap{}, byTeam).Complete(r); err != nil {
			t.Fatal(err)
		}
		run(t, watchScenario, mgr)
		// At the start the ConfigMap names team a (w1, w3); at 10s team b:
		// an update maps the old object and the new one, as
		// controller-runtime's EnqueueRequestsFromMapFunc does (w1 and w3,
		// then w2).
		if got, want := r.calls, []string{"w1@0s", "w3@0s", "w1@10s", "w3@10s", "w2@10s"}; !slices.Equal(got, want) {
			t.Errorf("calls %v, want %v", got, want)
		}
	})
	t.Run("predicates", func(t *testing.T) {
		for _, c := range []struct {
			name  string
			build func(b *crsim.Builder) *crsim.Builder
			want  []string
		}{
			{"none", func(b *crsim.Builder) *crsim.Builder { return b.For(&Widget{}) }, []string{"w1@20s", "w1@30s"}},
			{"generation changed", func(b *crsim.Builder) *crsim.Builder {
				return b.For(&Widget{}, crsim.WithPredicates(predicate.GenerationChangedPredicate{}))
			}, []string{"w1@30s"}},
			{"event filter", func(b *crsim.Builder) *crsim.Builder {
				return b.For(&Widget{}).WithEventFilter(predicate.LabelChangedPredicate{})
			}, []string{"w1@20s"}},
			{"a predicate that refuses creates", func(b *crsim.Builder) *crsim.Builder {
				return b.For(&Widget{}, crsim.WithPredicates(predicate.Funcs{CreateFunc: func(event.CreateEvent) bool { return false }}))
			}, []string{"w1@20s", "w1@30s"}},
		} {
			mgr := newManager(t)
			r := &recorder{mgr: mgr}
			if err := c.build(crsim.NewControllerManagedBy(mgr)).Complete(r); err != nil {
				t.Fatal(err)
			}
			run(t, watchScenario, mgr)
			if got := callsFrom(r.calls, time.Second); !slices.Equal(got, c.want) {
				t.Errorf("%s: calls after the start %v, want %v", c.name, got, c.want)
			}
			if c.name == "a predicate that refuses creates" && len(callsFrom(r.calls, 0)) != 2 {
				t.Errorf("%s: calls %v: the first list's creates passed", c.name, r.calls)
			}
		}
	})
	t.Run("match every owner", func(t *testing.T) {
		for _, every := range []bool{false, true} {
			mgr := newManager(t)
			r := &recorder{mgr: mgr}
			var opts []crsim.OwnsOption
			if every {
				opts = append(opts, crsim.MatchEveryOwner)
			}
			if err := crsim.NewControllerManagedBy(mgr).For(&Widget{}).Owns(&appsv1.ReplicaSet{}, opts...).Complete(r); err != nil {
				t.Fatal(err)
			}
			run(t, watchScenario, mgr)
			// The shared ReplicaSet's status changes as its pod starts:
			// its owner w2 (not its controller) is queued only with
			// MatchEveryOwner.
			var w2 []string
			for _, c := range callsFrom(r.calls, time.Millisecond) {
				if strings.HasPrefix(c, "w2@") {
					w2 = append(w2, c)
				}
			}
			if (len(w2) > 0) != every {
				t.Errorf("match every owner %v: calls of w2 after the start %v", every, w2)
			}
		}
	})
}

// scripted returns the results of its script in turn, recording the
// virtual time of each call.
type scripted struct {
	mgr    *crsim.Manager
	script []func() (reconcile.Result, error)
	at     []time.Duration
}

func (s *scripted) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if req.Name != "w1" {
		return reconcile.Result{}, nil
	}
	s.at = append(s.at, s.mgr.GetClock().Now().Sub(sim.Epoch))
	if i := len(s.at) - 1; i < len(s.script) {
		return s.script[i]()
	}
	return reconcile.Result{}, nil
}

func TestRequeue(t *testing.T) {
	fail := func() (reconcile.Result, error) { return reconcile.Result{}, errors.New("boom") }
	ok := func() (reconcile.Result, error) { return reconcile.Result{}, nil }
	after := func(d time.Duration) func() (reconcile.Result, error) {
		return func() (reconcile.Result, error) { return reconcile.Result{RequeueAfter: d}, nil }
	}
	ms := time.Millisecond
	for _, c := range []struct {
		name   string
		script []func() (reconcile.Result, error)
		want   []time.Duration
	}{
		{"errors back off 5ms·2^n", []func() (reconcile.Result, error){fail, fail, fail, ok}, []time.Duration{0, 5 * ms, 15 * ms, 35 * ms}},
		{"requeue after", []func() (reconcile.Result, error){after(3 * time.Second), after(time.Second), ok}, []time.Duration{0, 3 * time.Second, 4 * time.Second}},
		{"requeue after forgets the failures", []func() (reconcile.Result, error){fail, fail, after(time.Second), fail, ok},
			[]time.Duration{0, 5 * ms, 15 * ms, 1015 * ms, 1020 * ms}},
		{"an error wins over requeue after", []func() (reconcile.Result, error){
			func() (reconcile.Result, error) {
				return reconcile.Result{RequeueAfter: time.Minute}, errors.New("boom")
			}, ok},
			[]time.Duration{0, 5 * ms}},
		{"requeue is rate-limited", []func() (reconcile.Result, error){
			func() (reconcile.Result, error) { return reconcile.Result{Requeue: true}, nil }, ok}, //lint:ignore SA1019 still honoured
			[]time.Duration{0, 5 * ms}},
		{"a terminal error is not retried", []func() (reconcile.Result, error){
			func() (reconcile.Result, error) {
				return reconcile.Result{}, reconcile.TerminalError(errors.New("bad spec"))
			}},
			[]time.Duration{0}},
		{"a panic is recovered and retried", []func() (reconcile.Result, error){
			func() (reconcile.Result, error) { panic("oops") }, ok},
			[]time.Duration{0, 5 * ms}},
	} {
		mgr := newManager(t)
		r := &scripted{mgr: mgr, script: c.script}
		if err := crsim.NewControllerManagedBy(mgr).For(&Widget{}).Complete(r); err != nil {
			t.Fatal(err)
		}
		_, res := run(t, twoWidgets, mgr)
		if !slices.Equal(r.at, c.want) {
			t.Errorf("%s: reconciles of w1 at %v, want %v", c.name, r.at, c.want)
		}
		if c.name == "a terminal error is not retried" && !hasNote(res, "terminal, not retried") {
			t.Errorf("%s: the trace does not say so", c.name)
		}
	}
}

func hasNote(res *sim.Result, s string) bool {
	for _, f := range res.Trace.Frames {
		for _, n := range f.Notes {
			if strings.Contains(n, s) {
				return true
			}
		}
	}
	return false
}

// With RecoverPanic false a panic ends the run, naming the controller.
func TestPanicNotRecovered(t *testing.T) {
	mgr := newManager(t)
	r := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { panic("oops") })
	if err := crsim.NewControllerManagedBy(mgr).For(&Widget{}).WithOptions(controller.Options{RecoverPanic: ptr.To(false)}).Complete(r); err != nil {
		t.Fatal(err)
	}
	sc, err := sim.ParseScenario([]byte(widgetScenario))
	if err != nil {
		t.Fatal(err)
	}
	_, err = sim.Run(sc, mgr.SimOptions(sim.Options{}))
	if err == nil || !strings.Contains(err.Error(), "controller widget panicked") || !strings.Contains(err.Error(), "oops") {
		t.Fatalf("%v", err)
	}
}

func TestBuilderErrors(t *testing.T) {
	r := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil })
	type unknown struct{ Widget }
	for _, c := range []struct {
		name  string
		build func(b *crsim.Builder) error
		want  string
	}{
		{"For twice", func(b *crsim.Builder) error { return b.For(&Widget{}).For(&Widget{}).Complete(r) }, "only be called once"},
		{"Owns without For", func(b *crsim.Builder) error { return b.Named("x").Owns(&appsv1.ReplicaSet{}).Complete(r) }, "together with For"},
		{"no watches", func(b *crsim.Builder) error { return b.Named("x").Complete(r) }, "no watches configured"},
		{"no name", func(b *crsim.Builder) error {
			return b.Watches(&corev1.ConfigMap{}, &handler.EnqueueRequestForObject{}).Complete(r)
		}, "one of For() or Named() must be called"},
		{"a bad name", func(b *crsim.Builder) error { return b.For(&Widget{}).Named("Bad Name").Complete(r) }, "is invalid"},
		{"no reconciler", func(b *crsim.Builder) error { return b.For(&Widget{}).Complete(nil) }, "non-nil Reconciler"},
		{"two reconcilers", func(b *crsim.Builder) error {
			return b.For(&Widget{}).WithOptions(controller.Options{Reconciler: r}).Complete(r)
		}, "via WithOptions() and via Build()"},
		{"a queue of its own", func(b *crsim.Builder) error {
			return b.For(&Widget{}).WithOptions(controller.Options{LogConstructor: func(*reconcile.Request) logr.Logger { return logr.Discard() }}).Complete(r)
		}, "LogConstructor"},
		{"a rate limiter", func(b *crsim.Builder) error {
			return b.For(&Widget{}).WithOptions(controller.Options{RateLimiter: workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]()}).Complete(r)
		}, "RateLimiter or NewQueue is not modelled"},
		{"a kind outside the scheme", func(b *crsim.Builder) error { return b.For(&unknown{}).Complete(r) }, "no kind is registered"},
		{"a nil handler", func(b *crsim.Builder) error { return b.Named("x").Watches(&corev1.ConfigMap{}, nil).Complete(r) }, "must not be nil"},
	} {
		err := c.build(crsim.NewControllerManagedBy(newManager(t)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	mgr := newManager(t)
	if err := crsim.NewControllerManagedBy(mgr).For(&Widget{}).Complete(r); err != nil {
		t.Fatal(err)
	}
	if err := crsim.NewControllerManagedBy(mgr).For(&Widget{}).Complete(r); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("a second controller named widget: %v", err)
	}
	if err := crsim.NewControllerManagedBy(mgr).For(&Widget{}).WithOptions(controller.Options{SkipNameValidation: ptr.To(true)}).Named("other").Complete(r); err != nil {
		t.Errorf("a second controller of the kind, named: %v", err)
	}
}

func TestEventsAndLogs(t *testing.T) {
	var lines []string
	log := funcr.New(func(prefix, args string) { lines = append(lines, prefix+" "+args) }, funcr.Options{})
	mgr, err := crsim.NewManager(crsim.Options{Scheme: newScheme(), Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	old, events := mgr.GetEventRecorderFor("widget"), mgr.GetEventRecorder("widget")
	calls := 0
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		calls++
		var w Widget
		if err := mgr.GetClient().Get(ctx, req.NamespacedName, &w); err != nil {
			return reconcile.Result{}, err
		}
		logf.FromContext(ctx).Info("reconciling", "replicas", w.Spec.Replicas)
		if calls == 1 {
			old.Eventf(&w, corev1.EventTypeNormal, "Seen", "seen %d replicas", w.Spec.Replicas)
			old.AnnotatedEventf(&w, map[string]string{"a": "b"}, corev1.EventTypeWarning, "Annotated", "with %s", "annotations")
			events.Eventf(&w, nil, corev1.EventTypeNormal, "NewAPI", "Reconcile", "note %d", 1)
			return reconcile.Result{}, errors.New("first time")
		}
		return reconcile.Result{}, nil
	})
	if err := crsim.NewControllerManagedBy(mgr).For(&Widget{}).Complete(r); err != nil {
		t.Fatal(err)
	}
	_, res := run(t, widgetScenario, mgr)
	var got []string
	for _, e := range res.Events {
		got = append(got, e.Object+" "+e.Type+" "+e.Reason+": "+e.Message)
	}
	want := []string{"widget/w1 Normal Seen: seen 3 replicas", "widget/w1 Warning Annotated: with annotations", "widget/w1 Normal NewAPI: note 1"}
	if !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
	all := strings.Join(lines, "\n")
	for _, w := range []string{`"msg"="reconciling" "controller"="widget" "controllerGroup"="test.deploymath.dev" "controllerKind"="Widget" "Widget"={"name"="w1" "namespace"="default"} "namespace"="default" "name"="w1" "reconcileID"="widget-1" "replicas"=3`,
		`"msg"="Reconciler error" "error"="first time" "controller"="widget"`} {
		if !strings.Contains(all, w) {
			t.Errorf("the log has no %s:\n%s", w, all)
		}
	}
}

var _ runtime.Object = (*Widget)(nil)
