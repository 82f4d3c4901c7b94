package simtest_test

import (
	"fmt"
	"time"

	"github.com/deploymath/deploymath/sim"
	"github.com/deploymath/deploymath/sim/simtest"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
)

// Pool is a kind of your own: spec.replicas pods of a template, kept by
// one ReplicaSet.
type Pool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              PoolSpec `json:"spec"`
}

// PoolSpec is the desired pool.
type PoolSpec struct {
	Replicas int32                  `json:"replicas"`
	Template corev1.PodTemplateSpec `json:"template"`
}

func (p *Pool) DeepCopyObject() runtime.Object {
	c := *p
	p.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	p.Spec.Template.DeepCopyInto(&c.Spec.Template)
	return &c
}

// PoolList is a list of pools.
type PoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Pool `json:"items"`
}

func (l *PoolList) DeepCopyObject() runtime.Object {
	c := *l
	c.Items = make([]Pool, len(l.Items))
	for i := range l.Items {
		c.Items[i] = *l.Items[i].DeepCopyObject().(*Pool)
	}
	return &c
}

var poolGV = schema.GroupVersion{Group: "pools.example.com", Version: "v1"}

func poolScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	s.AddKnownTypes(poolGV, &Pool{}, &PoolList{})
	metav1.AddToGroupVersion(s, poolGV)
	return s
}

// poolController keeps one ReplicaSet, NAME-pods, per Pool at
// spec.replicas.
type poolController struct{}

func (poolController) Name() string { return "pool" }

func (poolController) Watches() []sim.Watch {
	return []sim.Watch{sim.For(&Pool{}), sim.Owns(&appsv1.ReplicaSet{})}
}

// Restart makes it a sim.Restartable: cases may restart it.
func (poolController) Restart() sim.Controller { return poolController{} }

func (poolController) Reconcile(ctx *sim.Context, req sim.Request) (sim.ReconcileResult, error) {
	cl := ctx.Client()
	var p Pool
	if err := cl.Get(req.NamespacedName, &p); err != nil {
		if apierrors.IsNotFound(err) {
			return sim.ReconcileResult{}, nil
		}
		return sim.ReconcileResult{}, err
	}
	want := poolReplicaSet(&p)
	var rs appsv1.ReplicaSet
	switch err := cl.Get(types.NamespacedName{Namespace: p.Namespace, Name: want.Name}, &rs); {
	case apierrors.IsNotFound(err):
		return sim.ReconcileResult{}, cl.Create(want) // AlreadyExists (a late informer): retried
	case err != nil:
		return sim.ReconcileResult{}, err
	case *rs.Spec.Replicas != p.Spec.Replicas:
		rs.Spec.Replicas = &p.Spec.Replicas
		return sim.ReconcileResult{}, cl.Update(&rs)
	}
	return sim.ReconcileResult{}, nil
}

// poolReplicaSet is the ReplicaSet of a pool.
func poolReplicaSet(p *Pool) *appsv1.ReplicaSet {
	labels := map[string]string{"pool": p.Name}
	tmpl := *p.Spec.Template.DeepCopy()
	tmpl.Labels = labels
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name + "-pods", Namespace: p.Namespace, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(p, poolGV.WithKind("Pool"))}},
		Spec: appsv1.ReplicaSetSpec{Replicas: &p.Spec.Replicas, Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tmpl},
	}
}

// drawPool draws a pool of 1 to 6 pods resized once, within 5 minutes.
func drawPool(t *rapid.T) *sim.Scenario {
	p := &Pool{
		TypeMeta:   metav1.TypeMeta{APIVersion: poolGV.String(), Kind: "Pool"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: PoolSpec{Replicas: rapid.Int32Range(1, 6).Draw(t, "replicas"), Template: corev1.PodTemplateSpec{
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "web:1"}}}}},
	}
	resized := p.DeepCopyObject().(*Pool)
	resized.Spec.Replicas = rapid.Int32Range(0, 6).Draw(t, "resized")
	at := time.Duration(rapid.IntRange(0, 300).Draw(t, "resizeAt")) * time.Second
	off := false
	return sim.NewScenario("pool").
		WithCluster(sim.Cluster{DeploymentController: &off}).
		WithObject(p).
		WithApply(at, resized)
}

// onePerPool: never two ReplicaSets for one pool.
func onePerPool() []sim.Invariant {
	return []sim.Invariant{{Name: "pool: one replica set", Check: func(r sim.Reader) error {
		var rss appsv1.ReplicaSetList
		if err := r.List(&rss); err != nil {
			return err
		}
		seen := map[string]string{}
		for _, rs := range rss.Items {
			p := rs.Labels["pool"]
			if other, ok := seen[p]; ok {
				return fmt.Errorf("pool %s has two replica sets, %s and %s", p, other, rs.Name)
			}
			seen[p] = rs.Name
		}
		return nil
	}}}
}

// poolsReady: every pool's ReplicaSet runs spec.replicas available pods.
func poolsReady(r sim.Reader) error {
	var pools PoolList
	if err := r.List(&pools); err != nil {
		return err
	}
	for _, p := range pools.Items {
		var rss appsv1.ReplicaSetList
		if err := r.List(&rss, sim.InNamespace(p.Namespace), sim.MatchingLabels(map[string]string{"pool": p.Name})); err != nil {
			return err
		}
		if len(rss.Items) == 0 {
			return fmt.Errorf("pool %s: no replica set", p.Name)
		}
		if n := rss.Items[0].Status.AvailableReplicas; n != p.Spec.Replicas {
			return fmt.Errorf("pool %s: %d of %d pods available", p.Name, n, p.Spec.Replicas)
		}
	}
	return nil
}

// poolConfig is the property test of the pool controller, with every
// fault of simtest.DefaultFaults drawn on top of drawPool.
func poolConfig() simtest.Config {
	return simtest.Config{
		Scheme:      poolScheme(),
		Controllers: func() []sim.Controller { return []sim.Controller{poolController{}} },
		Base:        drawPool,
		Invariants:  onePerPool,
		Converged:   poolsReady,
	}
}

// A property test of a controller of your own. In a test file:
//
//	func TestPool(t *testing.T) { simtest.Check(t, poolConfig()) }
//
// Here a stand-in for *testing.T records what rapid reports.
func Example() {
	t := &recorder{name: "ExamplePool"}
	simtest.Check(t, poolConfig())
	fmt.Println("failed:", t.Failed())
	// Output:
	// failed: false
}
