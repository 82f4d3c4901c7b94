package simtest_test

import (
	"fmt"

	"github.com/deploymath/deploymath/sim"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Pool is the custom kind of these tests and of the package's example:
// spec.replicas pods of a template, kept by one ReplicaSet.
type Pool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              PoolSpec   `json:"spec"`
	Status            PoolStatus `json:"status,omitempty"`
}

// PoolSpec is the desired pool.
type PoolSpec struct {
	Replicas int32                  `json:"replicas"`
	Template corev1.PodTemplateSpec `json:"template"`
}

// PoolStatus is what the controller saw.
type PoolStatus struct {
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`
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

func newPool(name string, replicas int32, image string) *Pool {
	return &Pool{
		TypeMeta:   metav1.TypeMeta{APIVersion: poolGV.String(), Kind: "Pool"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: PoolSpec{Replicas: replicas, Template: corev1.PodTemplateSpec{
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}}}},
	}
}

// poolController keeps one ReplicaSet per Pool. With remember set it has
// a bug: it remembers in memory that it created the ReplicaSet instead of
// listing it, so a restarted instance creates a second one.
type poolController struct {
	remember bool
	created  map[string]bool
}

func (*poolController) Name() string { return "pool" }

func (*poolController) Watches() []sim.Watch {
	return []sim.Watch{sim.For(&Pool{}), sim.Owns(&appsv1.ReplicaSet{})}
}

func (c *poolController) Restart() sim.Controller { return &poolController{remember: c.remember} }

func (c *poolController) Reconcile(ctx *sim.Context, req sim.Request) (sim.ReconcileResult, error) {
	cl := ctx.Client()
	var p Pool
	if err := cl.Get(req.NamespacedName, &p); err != nil {
		if apierrors.IsNotFound(err) {
			return sim.ReconcileResult{}, nil
		}
		return sim.ReconcileResult{}, err
	}
	labels := map[string]string{"pool": p.Name}
	tmpl := *p.Spec.Template.DeepCopy()
	tmpl.Labels = labels
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name + "-pods", Namespace: p.Namespace, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(&p, poolGV.WithKind("Pool"))}},
		Spec: appsv1.ReplicaSetSpec{Replicas: &p.Spec.Replicas, Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tmpl},
	}
	if c.remember {
		// The bug: what was created is remembered, not read.
		if c.created == nil {
			c.created = map[string]bool{}
		}
		if !c.created[p.Name] {
			rs.Name, rs.GenerateName = "", p.Name+"-"
			if err := cl.Create(rs); err != nil {
				return sim.ReconcileResult{}, err
			}
			c.created[p.Name] = true
			return sim.ReconcileResult{}, nil
		}
		var rss appsv1.ReplicaSetList
		if err := cl.List(&rss, sim.InNamespace(p.Namespace), sim.MatchingLabels(labels)); err != nil {
			return sim.ReconcileResult{}, err
		}
		for i := range rss.Items {
			if cur := &rss.Items[i]; *cur.Spec.Replicas != p.Spec.Replicas {
				cur.Spec.Replicas = &p.Spec.Replicas
				if err := cl.Update(cur); err != nil {
					return sim.ReconcileResult{}, err
				}
			}
		}
		return sim.ReconcileResult{}, nil
	}
	var cur appsv1.ReplicaSet
	switch err := cl.Get(sim.RequestFor(rs).NamespacedName, &cur); {
	case apierrors.IsNotFound(err):
		if err := cl.Create(rs); err != nil && !apierrors.IsAlreadyExists(err) {
			return sim.ReconcileResult{}, err
		}
		return sim.ReconcileResult{}, nil
	case err != nil:
		return sim.ReconcileResult{}, err
	}
	if *cur.Spec.Replicas != p.Spec.Replicas {
		cur.Spec.Replicas = &p.Spec.Replicas
		if err := cl.Update(&cur); err != nil {
			return sim.ReconcileResult{}, err
		}
	}
	return sim.ReconcileResult{}, nil
}

// onePerPool is the pools' invariant: at most one ReplicaSet per pool.
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

// poolsReady is the pools' convergence: every pool's ReplicaSet runs
// spec.replicas available pods.
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
