package sim

import (
	"errors"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Deletes of the client, and the garbage collector that follows them:
// preconditions, finalizers (on custom kinds), then the dependents of the
// deleted object (those whose owner references name it).

// writerGC names the garbage collector's writes in the write log.
const writerGC = "garbage-collector"

// deleteObject deletes the object of kind ki, namespace and name.
func (s *Sim) deleteObject(ki *kindInfo, namespace, name string, o DeleteOptions) error {
	if !ki.clusterScoped && namespace == "" {
		namespace = metaDefault
	}
	old := s.stored(ki, namespace, name)
	if old == nil {
		return apierrors.NewNotFound(ki.resource, name)
	}
	if p := o.Preconditions; p != nil {
		if p.UID != nil && *p.UID != old.GetUID() {
			return apierrors.NewConflict(ki.resource, name, preconditionFailed("UID", string(*p.UID), string(old.GetUID())))
		}
		if p.ResourceVersion != nil && *p.ResourceVersion != old.GetResourceVersion() {
			return apierrors.NewConflict(ki.resource, name, preconditionFailed("ResourceVersion", *p.ResourceVersion, old.GetResourceVersion()))
		}
	}
	orphan := false
	if p := o.PropagationPolicy; p != nil {
		switch *p {
		case metav1.DeletePropagationBackground:
		case metav1.DeletePropagationOrphan:
			if ki.builtin == kindReplicaSet {
				return notModelled(ki, name, "orphaning the pods of a replicaset: the simulator's pods are its ReplicaSets'")
			}
			orphan = true
		case metav1.DeletePropagationForeground:
			return notModelled(ki, name, "foreground deletion: use Background (the default) or Orphan")
		default:
			return apierrors.NewBadRequest(fmt.Sprintf("propagationPolicy %q: want Background, Orphan or Foreground", *p))
		}
	}
	switch ki.builtin {
	case kindPod:
		s.c.DeletePod(s.c.Pod(name))
		return nil
	case kindNode:
		return notModelled(ki, name, "deleting nodes: use the scenario's deleteNode step")
	case kindCustom:
		if len(old.GetFinalizers()) > 0 {
			if old.GetDeletionTimestamp() == nil {
				cur := old.DeepCopyObject().(Object)
				now := s.stamp()
				zero := int64(0)
				cur.SetDeletionTimestamp(&now)
				cur.SetDeletionGracePeriodSeconds(&zero)
				cur.SetGeneration(old.GetGeneration() + 1)
				cur.SetResourceVersion(s.st.NextRV())
				ki.objects.Put(ki.key(namespace, name), cur)
				s.logObjectWrite(ki, "update", cur)
				s.hostChanged(ki, old, cur)
			}
			return nil
		}
	}
	if err := s.removeObject(ki, old); err != nil {
		return err
	}
	s.collectGarbage(old.GetUID(), orphan)
	return nil
}

// removeObject removes the stored old of kind ki, with what its watchers
// see (the garbage collector is the caller's).
func (s *Sim) removeObject(ki *kindInfo, old Object) error {
	key := ki.key(old.GetNamespace(), old.GetName())
	switch ki.builtin {
	case kindDeployment:
		s.deleteDeployment(old.(*appsv1.Deployment))
	case kindReplicaSet:
		if err := s.deleteReplicaSet(old.GetNamespace(), old.GetName(), old.GetUID()); err != nil {
			return statusError(ki, old.GetName(), err)
		}
	case kindConfigMap:
		delete(s.st.ConfigMaps, key)
		s.logObjectWrite(ki, "delete", old)
		s.forgetRestart(old)
		s.hostChanged(ki, old, nil)
	case kindSecret:
		delete(s.st.Secrets, key)
		s.logObjectWrite(ki, "delete", old)
		s.forgetRestart(old)
		s.hostChanged(ki, old, nil)
	case kindCustom:
		ki.objects.Delete(key)
		s.logObjectWrite(ki, "delete", old)
		s.hostChanged(ki, old, nil)
	default:
		return notModelled(ki, old.GetName(), "deleting this kind")
	}
	return nil
}

// deleteDeployment removes the stored Deployment d: its watchers see the
// delete (the Deployment controller's informer queues it, and its sync
// finds nothing), then the garbage collector takes its ReplicaSets.
func (s *Sim) deleteDeployment(d *appsv1.Deployment) {
	key := objKey(d.Namespace, d.Name)
	delete(s.st.Deployments, key)
	if i, ok := slices.BinarySearch(s.st.DeploymentKeys, key); ok {
		s.st.DeploymentKeys = slices.Delete(s.st.DeploymentKeys, i, i+1)
	}
	it := s.wq.Item(queueKey{Ctrl: ctrlDeployment, Name: key})
	it.X.Dep, it.X.CondsOwner = nil, nil
	s.logDeploymentWrite("delete", d)
	s.informDeploymentGone(key)
	s.toDeploymentController(kindDeployment, d, nil, key)
	s.forgetRestart(d)
	s.hostChanged(s.kinds.builtin[kindDeployment], d, nil)
}

// collectGarbage is the garbage collector after the object of UID owner
// was deleted: each dependent (an object with an owner reference to it)
// whose other owners are gone too is deleted (background propagation,
// recursively), and loses its reference to owner otherwise; with orphan,
// every dependent loses the reference and stays. The collector acts at
// once, where a real one takes a moment.
func (s *Sim) collectGarbage(owner types.UID, orphan bool) {
	if owner == "" {
		return
	}
	prev := s.writer
	s.writer = writerGC
	defer func() { s.writer = prev }()
	for _, ki := range s.kinds.all() {
		if ki.builtin == kindPod || ki.builtin == kindNode {
			continue // pods are their ReplicaSets' (deleted with them); nodes have no owners
		}
		for _, o := range s.storedAll(ki) {
			refs := o.GetOwnerReferences()
			i := slices.IndexFunc(refs, func(r metav1.OwnerReference) bool { return r.UID == owner })
			if i < 0 {
				continue
			}
			if !orphan && !s.anyOwnerExists(o.GetNamespace(), refs, owner) {
				if err := s.deleteObject(ki, o.GetNamespace(), o.GetName(), DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
					s.note("garbage collector: delete %s %s: %v", ki.resource, objectKey(o), err)
				}
				continue
			}
			cur := o.DeepCopyObject().(Object)
			cur.SetOwnerReferences(slices.Delete(slices.Clone(refs), i, i+1))
			cur.SetResourceVersion("")
			if _, err := s.writeObject(ki, cur, verbUpdate); err != nil {
				var se *apierrors.StatusError
				if !errors.As(err, &se) || se.ErrStatus.Code != 405 {
					s.note("garbage collector: remove owner of %s %s: %v", ki.resource, objectKey(o), err)
				}
			}
		}
	}
}

// anyOwnerExists reports whether an owner of refs other than gone is
// stored (an owner of a kind the run does not know counts as existing).
func (s *Sim) anyOwnerExists(namespace string, refs []metav1.OwnerReference, gone types.UID) bool {
	for _, r := range refs {
		if r.UID == gone {
			continue
		}
		gv, err := schema.ParseGroupVersion(r.APIVersion)
		if err != nil {
			return true
		}
		ki, err := s.kinds.byKind(gv.WithKind(r.Kind))
		if err != nil {
			return true
		}
		if o := s.stored(ki, namespace, r.Name); o != nil && o.GetUID() == r.UID {
			return true
		}
	}
	return false
}

// preconditionFailed is the API server's reason of a delete whose
// precondition on field does not hold.
type preconditionError struct{ field, want, got string }

func preconditionFailed(field, want, got string) error { return preconditionError{field, want, got} }

func (e preconditionError) Error() string {
	return "Precondition failed: " + e.field + " in precondition: " + e.want + ", " + e.field + " in object meta: " + e.got
}
