package sim_test

import (
	"fmt"

	"github.com/deploymath/deploymath/sim"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Scaler is a custom kind of the example: a size for the ReplicaSet named
// in spec, and the ready pods in status.
type Scaler struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		ReplicaSet string `json:"replicaSet"`
		Replicas   int32  `json:"replicas"`
	} `json:"spec"`
	Status struct {
		ReadyReplicas int32 `json:"readyReplicas,omitempty"`
	} `json:"status,omitempty"`
}

func (s *Scaler) DeepCopyObject() runtime.Object {
	c := *s
	s.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

// ScalerList is the list kind of Scaler.
type ScalerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Scaler `json:"items"`
}

func (l *ScalerList) DeepCopyObject() runtime.Object {
	c := *l
	c.Items = make([]Scaler, len(l.Items))
	for i := range l.Items {
		c.Items[i] = *l.Items[i].DeepCopyObject().(*Scaler)
	}
	return &c
}

// scalerController sizes the ReplicaSet a Scaler names and reports its
// ready pods. A change of the Scaler, or of a ReplicaSet (any, mapped to
// the Scalers that name it), queues the Scaler.
type scalerController struct{}

func (scalerController) Name() string { return "scaler" }

func (scalerController) Watches() []sim.Watch {
	return []sim.Watch{
		sim.For(&Scaler{}),
		sim.Watches(&appsv1.ReplicaSet{}, func(ch sim.Change) []sim.Request {
			// a real controller would keep an index; the example asks the
			// ReplicaSet's namespace for a Scaler of the same name
			return []sim.Request{sim.RequestFor(ch.Object())}
		}),
	}
}

func (scalerController) Reconcile(ctx *sim.Context, req sim.Request) (sim.ReconcileResult, error) {
	c := ctx.Client()
	var sc Scaler
	if err := c.Get(req.NamespacedName, &sc); err != nil {
		if apierrors.IsNotFound(err) {
			return sim.ReconcileResult{}, nil
		}
		return sim.ReconcileResult{}, err
	}
	var rs appsv1.ReplicaSet
	if err := c.Get(types.NamespacedName{Namespace: sc.Namespace, Name: sc.Spec.ReplicaSet}, &rs); err != nil {
		return sim.ReconcileResult{}, err
	}
	if *rs.Spec.Replicas != sc.Spec.Replicas {
		orig := rs.DeepCopy()
		rs.Spec.Replicas = &sc.Spec.Replicas
		if err := c.Patch(&rs, sim.MergeFrom(orig)); err != nil {
			return sim.ReconcileResult{}, err // a conflict is retried rate-limited
		}
		ctx.Recorder().Eventf(&sc, "Normal", "Scaled", "scaled %s to %d", rs.Name, sc.Spec.Replicas)
	}
	if sc.Status.ReadyReplicas != rs.Status.ReadyReplicas {
		sc.Status.ReadyReplicas = rs.Status.ReadyReplicas
		if err := c.Status().Update(&sc); err != nil {
			return sim.ReconcileResult{}, err
		}
	}
	return sim.ReconcileResult{}, nil
}

// Test a controller of your own on the simulated cluster: its custom kind
// registered in a scheme, its objects and a ReplicaSet of its own in the
// scenario, an invariant checked throughout, the cluster read at the end.
func ExampleOptions_controllers() {
	gv := schema.GroupVersion{Group: "example.com", Version: "v1"}
	scheme := runtime.NewScheme()
	scheme.AddKnownTypes(gv, &Scaler{}, &ScalerList{})
	metav1.AddToGroupVersion(scheme, gv)

	sc, err := sim.ParseScenario([]byte(`
name: scaler
seed: 1
until: 2m
cluster:
  deploymentController: false
  writeConflicts: 0.2
objects:
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata: {name: web}
  spec:
    replicas: 1
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: web, image: web:1}]
- apiVersion: example.com/v1
  kind: Scaler
  metadata: {name: web}
  spec: {replicaSet: web, replicas: 4}
steps:
- at: 1m
  apply:
    apiVersion: example.com/v1
    kind: Scaler
    metadata: {name: web}
    spec: {replicaSet: web, replicas: 2}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	atMost4 := sim.Invariant{Name: "at most 4 pods", Check: func(r sim.Reader) error {
		var rs appsv1.ReplicaSet
		if err := r.Get(types.NamespacedName{Namespace: "default", Name: "web"}, &rs); err != nil {
			return err
		}
		if rs.Status.Replicas > 4 {
			return fmt.Errorf("%d pods", rs.Status.Replicas)
		}
		return nil
	}}
	s, err := sim.New(sc, sim.Options{Scheme: scheme, Controllers: []sim.Controller{scalerController{}},
		Invariants: []sim.Invariant{atMost4}})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := s.Run()
	if err != nil {
		fmt.Println(err)
		return
	}
	var got Scaler
	if err := s.APIReader().Get(types.NamespacedName{Namespace: "default", Name: "web"}, &got); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("generation %d, ready %d, violations %d\n", got.Generation, got.Status.ReadyReplicas, len(res.Violations))
	for _, e := range res.Events {
		fmt.Printf("%s %s: %s\n", e.Object, e.Reason, e.Message)
	}
	// Output:
	// generation 2, ready 2, violations 0
	// scaler/web Scaled: scaled web to 4
	// scaler/web Scaled: scaled web to 2
}
