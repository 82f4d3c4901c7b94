package sim_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/sim"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Replicated is a custom kind of these tests: a workload that keeps one
// ReplicaSet of spec.replicas pods, reporting its ready pods in status.
type Replicated struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ReplicatedSpec   `json:"spec"`
	Status            ReplicatedStatus `json:"status,omitempty"`
}

type ReplicatedSpec struct {
	Replicas int32                  `json:"replicas"`
	Template corev1.PodTemplateSpec `json:"template"`
}

type ReplicatedStatus struct {
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	ReadyReplicas      int32 `json:"readyReplicas,omitempty"`
}

func (r *Replicated) DeepCopyObject() runtime.Object {
	c := *r
	r.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	r.Spec.Template.DeepCopyInto(&c.Spec.Template)
	return &c
}

type ReplicatedList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Replicated `json:"items"`
}

func (l *ReplicatedList) DeepCopyObject() runtime.Object {
	c := *l
	c.Items = make([]Replicated, len(l.Items))
	for i := range l.Items {
		c.Items[i] = *l.Items[i].DeepCopyObject().(*Replicated)
	}
	return &c
}

var replicatedGV = schema.GroupVersion{Group: "test.deploymath.dev", Version: "v1"}

func testScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	s.AddKnownTypes(replicatedGV, &Replicated{}, &ReplicatedList{})
	metav1.AddToGroupVersion(s, replicatedGV)
	return s
}

// replicator reconciles Replicated objects: one owned ReplicaSet,
// created with generateName, scaled to spec.replicas; status from it.
type replicator struct {
	reconciles int
	conflicts  int
}

func (*replicator) Name() string { return "replicator" }

func (*replicator) Watches() []sim.Watch {
	return []sim.Watch{sim.For(&Replicated{}), sim.Owns(&appsv1.ReplicaSet{})}
}

func (c *replicator) Reconcile(ctx *sim.Context, req sim.Request) (sim.ReconcileResult, error) {
	c.reconciles++
	cl := ctx.Client()
	var r Replicated
	if err := cl.Get(req.NamespacedName, &r); err != nil {
		if apierrors.IsNotFound(err) {
			return sim.ReconcileResult{}, nil
		}
		return sim.ReconcileResult{}, err
	}
	var rss appsv1.ReplicaSetList
	if err := cl.List(&rss, sim.InNamespace(r.Namespace), sim.MatchingLabels(map[string]string{"replicated": r.Name})); err != nil {
		return sim.ReconcileResult{}, err
	}
	if len(rss.Items) == 0 {
		labels := map[string]string{"replicated": r.Name}
		tmpl := *r.Spec.Template.DeepCopy()
		tmpl.Labels = labels
		rs := &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{GenerateName: r.Name + "-", Namespace: r.Namespace, Labels: labels,
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(&r, replicatedGV.WithKind("Replicated"))}},
			Spec: appsv1.ReplicaSetSpec{Replicas: &r.Spec.Replicas, Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tmpl},
		}
		if err := cl.Create(rs); err != nil {
			return sim.ReconcileResult{}, err
		}
		ctx.Recorder().Eventf(&r, corev1.EventTypeNormal, "Created", "created replica set %s", rs.Name)
		return sim.ReconcileResult{}, nil
	}
	rs := &rss.Items[0]
	if *rs.Spec.Replicas != r.Spec.Replicas {
		rs.Spec.Replicas = &r.Spec.Replicas
		if err := cl.Update(rs); err != nil {
			return sim.ReconcileResult{}, err
		}
	}
	if r.Status.ReadyReplicas != rs.Status.ReadyReplicas || r.Status.ObservedGeneration != r.Generation {
		r.Status.ReadyReplicas = rs.Status.ReadyReplicas
		r.Status.ObservedGeneration = r.Generation
		if err := cl.Status().Update(&r); err != nil {
			if apierrors.IsConflict(err) {
				c.conflicts++
			}
			return sim.ReconcileResult{}, err
		}
	}
	return sim.ReconcileResult{}, nil
}

const replicatedScenario = `name: replicated
seed: 3
until: 2m
cluster:
  deploymentController: false
objects:
- apiVersion: test.deploymath.dev/v1
  kind: Replicated
  metadata: {name: web}
  spec:
    replicas: 3
    template:
      spec:
        containers: [{name: web, image: web:1}]
`

func runReplicated(t *testing.T, src string, o sim.Options) (*sim.Sim, *sim.Result) {
	t.Helper()
	sc, err := sim.ParseScenario([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(sc, o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	return s, res
}

func TestHostedController(t *testing.T) {
	ctrl := &replicator{}
	s, res := runReplicated(t, replicatedScenario, sim.Options{Scheme: testScheme(t), Controllers: []sim.Controller{ctrl}, Writes: true})
	r := s.APIReader()
	var got Replicated
	if err := r.Get(types.NamespacedName{Namespace: "default", Name: "web"}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Status.ReadyReplicas != 3 || got.Status.ObservedGeneration != 1 || got.Generation != 1 {
		t.Errorf("status %+v generation %d, want 3 ready, observed 1, generation 1 (a status write keeps it)", got.Status, got.Generation)
	}
	var rss appsv1.ReplicaSetList
	if err := r.List(&rss); err != nil {
		t.Fatal(err)
	}
	if len(rss.Items) != 1 || !strings.HasPrefix(rss.Items[0].Name, "web-") || len(rss.Items[0].Name) != len("web-")+5 {
		t.Fatalf("replica sets %v, want one named web-XXXXX (generateName)", names(rss.Items))
	}
	var pods corev1.PodList
	if err := r.List(&pods, sim.MatchingLabels(map[string]string{"replicated": "web"})); err != nil {
		t.Fatal(err)
	}
	ready := 0
	for _, p := range pods.Items {
		if metav1.GetControllerOf(&p).Name != rss.Items[0].Name {
			t.Errorf("pod %s: controller %v", p.Name, p.OwnerReferences)
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				ready++
			}
		}
	}
	if ready != 3 {
		t.Errorf("%d ready pods, want 3", ready)
	}
	if res.Stats.Reconciles == 0 || ctrl.reconciles != res.Stats.Reconciles {
		t.Errorf("reconciles: %d counted, %d made", res.Stats.Reconciles, ctrl.reconciles)
	}
	var creates, statuses int
	for _, w := range res.Writes {
		if w.By == "replicator" && w.Kind == "ReplicaSet" && w.Verb == "create" {
			creates++
		}
		if w.By == "replicator" && w.Kind == "Replicated" && w.Verb == "status" {
			statuses++
		}
	}
	if creates != 1 || statuses == 0 {
		t.Errorf("write log: %d creates of replica sets, %d status writes by the replicator", creates, statuses)
	}
	found := false
	for _, e := range res.Events {
		if e.Object == "replicated/web" && e.Reason == "Created" {
			found = true
		}
	}
	if !found {
		t.Errorf("no Created event on replicated/web in %v", res.Events)
	}
}

func names(rss []appsv1.ReplicaSet) []string {
	var out []string
	for _, rs := range rss {
		out = append(out, rs.Name)
	}
	return out
}

// errController runs one function at its first reconcile.
type errController struct {
	fn   func(ctx *sim.Context) error
	err  error
	done bool
}

func (*errController) Name() string         { return "probe" }
func (*errController) Watches() []sim.Watch { return []sim.Watch{sim.For(&Replicated{})} }
func (c *errController) Reconcile(ctx *sim.Context, req sim.Request) (sim.ReconcileResult, error) {
	if !c.done {
		c.done = true
		c.err = c.fn(ctx)
	}
	return sim.ReconcileResult{}, nil
}

func probe(t *testing.T, fn func(ctx *sim.Context) error) error {
	t.Helper()
	c := &errController{fn: fn}
	runReplicated(t, replicatedScenario, sim.Options{Scheme: testScheme(t), Controllers: []sim.Controller{c}})
	if !c.done {
		t.Fatal("the probe never ran")
	}
	return c.err
}

func TestClientSemantics(t *testing.T) {
	key := types.NamespacedName{Namespace: "default", Name: "web"}
	t.Run("update needs the stored resourceVersion", func(t *testing.T) {
		err := probe(t, func(ctx *sim.Context) error {
			var r Replicated
			if err := ctx.Client().Get(key, &r); err != nil {
				return err
			}
			stale := r.DeepCopyObject().(*Replicated)
			r.Spec.Replicas = 5
			if err := ctx.Client().Update(&r); err != nil {
				return fmt.Errorf("first update: %w", err)
			}
			if r.Generation != 2 {
				return fmt.Errorf("generation %d after a spec change, want 2", r.Generation)
			}
			stale.Spec.Replicas = 6
			if err := ctx.Client().Update(stale); !apierrors.IsConflict(err) {
				return fmt.Errorf("stale update: %v, want a conflict", err)
			}
			stale.ResourceVersion = ""
			if err := ctx.Client().Update(stale); !apierrors.IsInvalid(err) {
				return fmt.Errorf("update without resourceVersion: %v, want invalid (custom kinds)", err)
			}
			r.Labels = map[string]string{"a": "b"}
			if err := ctx.Client().Update(&r); err != nil || r.Generation != 2 {
				return fmt.Errorf("metadata-only update: %v, generation %d, want 2", err, r.Generation)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	t.Run("patches", func(t *testing.T) {
		err := probe(t, func(ctx *sim.Context) error {
			var r Replicated
			if err := ctx.Client().Get(key, &r); err != nil {
				return err
			}
			orig := r.DeepCopyObject().(*Replicated)
			r.Spec.Replicas = 7
			r.Annotations = map[string]string{"x": "y"}
			if err := ctx.Client().Patch(&r, sim.MergeFrom(orig)); err != nil {
				return err
			}
			if r.Spec.Replicas != 7 || r.Annotations["x"] != "y" || r.Generation != 2 {
				return fmt.Errorf("after the merge patch: replicas %d, annotations %v, generation %d", r.Spec.Replicas, r.Annotations, r.Generation)
			}
			if err := ctx.Client().Patch(&r, sim.StrategicMergeFrom(orig)); !isCode(err, 415) {
				return fmt.Errorf("strategic merge patch of a custom kind: %v, want 415", err)
			}
			st := r.DeepCopyObject().(*Replicated)
			r.Status.ReadyReplicas = 9
			if err := ctx.Client().Status().Patch(&r, sim.MergeFrom(st)); err != nil || r.Status.ReadyReplicas != 9 || r.Generation != 2 {
				return fmt.Errorf("status patch: %v, status %+v, generation %d", err, r.Status, r.Generation)
			}
			r.Status.ReadyReplicas = 1
			r.Spec.Replicas = 1
			if err := ctx.Client().Update(&r); err != nil || r.Status.ReadyReplicas != 9 {
				return fmt.Errorf("an update of the main resource changed the status: %v, %+v", err, r.Status)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		err := probe(t, func(ctx *sim.Context) error {
			var pods corev1.PodList
			if err := ctx.Client().List(&pods, sim.MatchingFields("spec.nodeName=n1")); !apierrors.IsBadRequest(err) {
				return fmt.Errorf("field selector: %v", err)
			}
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
			if err := ctx.Client().Create(pod); !apierrors.IsMethodNotSupported(err) || !strings.Contains(err.Error(), "not modelled") {
				return fmt.Errorf("create pod: %v", err)
			}
			huge := int32(2_000_000)
			labels := map[string]string{"a": "b"}
			rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "huge"}, Spec: appsv1.ReplicaSetSpec{Replicas: &huge,
				Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}}}
			if err := ctx.Client().Create(rs); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "sim.MaxReplicas") {
				return fmt.Errorf("a replica set beyond the simulator's limit: %v", err)
			}
			rs.Spec.Replicas, rs.Spec.Selector = nil, nil
			if err := ctx.Client().Create(rs); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.selector: Required value") {
				return fmt.Errorf("a replica set without a selector: %v", err)
			}
			if err := ctx.Client().Create(&Replicated{ObjectMeta: metav1.ObjectMeta{Name: "web"}}); !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("create existing: %v", err)
			}
			if err := ctx.Client().Get(types.NamespacedName{Namespace: "default", Name: "nope"}, &Replicated{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("get missing: %v", err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	t.Run("finalizers and garbage collection", func(t *testing.T) {
		c := &replicator{}
		var phase int
		del := &scriptController{steps: []func(ctx *sim.Context) error{
			func(ctx *sim.Context) error { // wait for the replica set's pods
				var pods corev1.PodList
				if err := ctx.APIReader().List(&pods); err != nil {
					return err
				}
				if len(pods.Items) < 3 {
					return errRetry
				}
				var r Replicated
				if err := ctx.Client().Get(key, &r); err != nil {
					return err
				}
				r.Finalizers = []string{"test/keep"}
				return ctx.Client().Update(&r)
			},
			func(ctx *sim.Context) error {
				var r Replicated
				if err := ctx.Client().Get(key, &r); err != nil {
					return err
				}
				gen := r.Generation
				if err := ctx.Client().Delete(&r); err != nil {
					return err
				}
				if err := ctx.APIReader().Get(key, &r); err != nil {
					return fmt.Errorf("an object with a finalizer is gone at once: %w", err)
				}
				if r.DeletionTimestamp == nil || r.Generation != gen+1 {
					return fmt.Errorf("deletion started: deletionTimestamp %v, generation %d (was %d)", r.DeletionTimestamp, r.Generation, gen)
				}
				r.Finalizers = append(r.Finalizers, "test/more")
				if err := ctx.Client().Update(&r); !apierrors.IsForbidden(err) {
					return fmt.Errorf("a finalizer added while deleting: %v", err)
				}
				r.Finalizers = nil
				if err := ctx.Client().Update(&r); err != nil {
					return err
				}
				if err := ctx.APIReader().Get(key, &r); !apierrors.IsNotFound(err) {
					return fmt.Errorf("after the last finalizer: %v", err)
				}
				var rss appsv1.ReplicaSetList
				if err := ctx.APIReader().List(&rss); err != nil || len(rss.Items) != 0 {
					return fmt.Errorf("the garbage collector left %d replica sets (%v)", len(rss.Items), err)
				}
				phase = 2
				return nil
			},
		}}
		runReplicated(t, replicatedScenario, sim.Options{Scheme: testScheme(t), Controllers: []sim.Controller{c, del}})
		if del.err != nil {
			t.Fatal(del.err)
		}
		if phase != 2 {
			t.Fatalf("the script stopped at step %d", del.step)
		}
	})
}

func isCode(err error, code int32) bool {
	var se *apierrors.StatusError
	return errors.As(err, &se) && se.ErrStatus.Code == code
}

var errRetry = errors.New("not yet")

// scriptController runs its steps in turn, one per reconcile of any
// Replicated (requeued every second), a step returning errRetry again.
type scriptController struct {
	steps []func(ctx *sim.Context) error
	step  int
	err   error
}

func (*scriptController) Name() string         { return "script" }
func (*scriptController) Watches() []sim.Watch { return []sim.Watch{sim.For(&Replicated{})} }
func (c *scriptController) Reconcile(ctx *sim.Context, req sim.Request) (sim.ReconcileResult, error) {
	if c.err != nil || c.step >= len(c.steps) {
		return sim.ReconcileResult{}, nil
	}
	switch err := c.steps[c.step](ctx); {
	case errors.Is(err, errRetry):
	case err != nil:
		c.err = fmt.Errorf("step %d: %w", c.step, err)
		return sim.ReconcileResult{}, nil
	default:
		c.step++
	}
	return sim.ReconcileResult{RequeueAfter: 1e9}, nil
}
