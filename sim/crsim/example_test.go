package crsim_test

import (
	"context"
	"fmt"
	"strconv"

	"github.com/deploymath/deploymath/sim"
	"github.com/deploymath/deploymath/sim/crsim"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// sizer is a controller-runtime reconciler: it keeps a ReplicaSet of the
// size a ConfigMap's data["replicas"] says, owned by the ConfigMap.
type sizer struct {
	client.Client
	Recorder record.EventRecorder
}

func (r *sizer) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cm corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &cm); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	n, err := strconv.Atoi(cm.Data["replicas"])
	if err != nil {
		return reconcile.Result{}, reconcile.TerminalError(fmt.Errorf("data.replicas: %w", err))
	}
	size := int32(n)
	var rs appsv1.ReplicaSet
	err = r.Get(ctx, req.NamespacedName, &rs)
	if client.IgnoreNotFound(err) != nil {
		return reconcile.Result{}, err
	}
	if err != nil { // not found: create it
		labels := map[string]string{"app": cm.Name}
		rs = appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: cm.Name, Namespace: cm.Namespace,
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(&cm, corev1.SchemeGroupVersion.WithKind("ConfigMap"))}},
			Spec: appsv1.ReplicaSetSpec{Replicas: &size, Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:1"}}}}},
		}
		return reconcile.Result{}, r.Create(ctx, &rs)
	}
	if *rs.Spec.Replicas != size {
		orig := rs.DeepCopy()
		rs.Spec.Replicas = &size
		if err := r.Patch(ctx, &rs, client.MergeFrom(orig)); err != nil {
			return reconcile.Result{}, err
		}
		r.Recorder.Eventf(&cm, corev1.EventTypeNormal, "Resized", "replica set %s resized to %d", rs.Name, size)
	}
	return reconcile.Result{}, nil
}

const sizerScenario = `name: sizer
until: 1m
objects:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: web}
  data: {replicas: "2"}
steps:
- at: 20s
  editConfigMap: {name: web, data: {replicas: "4"}}
`

// A reconciler set up as for a controller-runtime manager
// (ctrl.NewControllerManagedBy(mgr).For(...).Owns(...).Complete(r)) runs
// in the simulator with a crsim.Manager in place of the manager.
func ExampleNewControllerManagedBy() {
	mgr, err := crsim.NewManager(crsim.Options{})
	if err != nil {
		panic(err)
	}
	r := &sizer{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorderFor("sizer")}
	err = crsim.NewControllerManagedBy(mgr).Named("sizer").For(&corev1.ConfigMap{}).Owns(&appsv1.ReplicaSet{}).Complete(r)
	if err != nil {
		panic(err)
	}

	sc, err := sim.ParseScenario([]byte(sizerScenario))
	if err != nil {
		panic(err)
	}
	s, err := sim.New(sc, mgr.SimOptions(sim.Options{}))
	if err != nil {
		panic(err)
	}
	res, err := s.Run()
	if err != nil {
		panic(err)
	}
	var rs appsv1.ReplicaSet
	if err := s.APIReader().Get(types.NamespacedName{Namespace: "default", Name: "web"}, &rs); err != nil {
		panic(err)
	}
	fmt.Printf("replica set %s: %d replicas, %d ready\n", rs.Name, *rs.Spec.Replicas, rs.Status.ReadyReplicas)
	for _, e := range res.Events {
		fmt.Printf("event at %s: %s %s: %s\n", e.FirstSeen, e.Object, e.Reason, e.Message)
	}
	// Output:
	// replica set web: 4 replicas, 4 ready
	// event at 20s: configmap/web Resized: replica set web resized to 4
}
