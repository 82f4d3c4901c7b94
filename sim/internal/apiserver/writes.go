package apiserver

import (
	"github.com/deploymath/deploymath/internal/apirules"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The writes of Deployments and ReplicaSets, as the API server accepts or
// refuses them: existence, resourceVersion and UID preconditions, what a
// write may change, resourceVersions and generations. Each returns what
// it stored; the caller tells the watchers (informers, logs, metrics).
// Defaulting is the caller's (rollout.Default), done before the write.

// namespaced is ns, or "default" when empty (the namespace of a request
// without one).
func namespaced(ns string) string {
	if ns == "" {
		return metav1.NamespaceDefault
	}
	return ns
}

// CreateReplicaSet stores a copy of obj (namespace "default" when unset)
// with a new UID and resourceVersion, generation 1, creation time now and
// an empty status, under a record made by newRecord, which it returns.
func (s *Store[R]) CreateReplicaSet(obj *appsv1.ReplicaSet, now metav1.Time, newRecord func(key string, rs *appsv1.ReplicaSet) R) (R, error) {
	var zero R
	c := *obj
	rs := &c
	rs.Namespace = namespaced(rs.Namespace)
	key := rs.Namespace + "/" + rs.Name
	if s.ReplicaSet(key) != nil {
		return zero, AlreadyExists("replicasets.apps", rs.Name)
	}
	rs.UID = s.NextUID()
	rs.ResourceVersion = s.NextRV()
	rs.Generation = 1
	rs.CreationTimestamp = now
	rs.Status = appsv1.ReplicaSetStatus{}
	r := newRecord(key, rs)
	s.Index(rs.Namespace, r)
	s.ReplicaSets[key] = r
	return r, nil
}

// writableReplicaSet returns the record of the stored ReplicaSet that a
// write of obj replaces, after the API server's checks: it exists, and
// obj's resourceVersion and UID (when set) are the stored ones.
func (s *Store[R]) writableReplicaSet(obj *appsv1.ReplicaSet) (R, string, error) {
	var zero R
	ns := namespaced(obj.Namespace)
	r, ok := s.ReplicaSets[s.Key(ns, obj.Name)]
	if !ok {
		return zero, ns, NotFound("replicasets.apps", obj.Name)
	}
	if stale(obj, r.Object()) {
		return zero, ns, Conflict("replicasets.apps", obj.Name)
	}
	return r, ns, nil
}

// stale reports whether a write of obj fails its preconditions on the
// stored old: a resourceVersion or a UID, when set, that is not old's.
func stale(obj, old *appsv1.ReplicaSet) bool {
	return (obj.ResourceVersion != "" && obj.ResourceVersion != old.ResourceVersion) || (obj.UID != "" && obj.UID != old.UID)
}

// UpdateReplicaSet writes the metadata and spec of a ReplicaSet (the main
// resource; status is kept), with optimistic concurrency on a non-empty
// resourceVersion or UID. owned says obj may be stored as it is (it was
// allocated for the write); otherwise a copy is. It returns the record and
// the object the write replaced.
func (s *Store[R]) UpdateReplicaSet(obj *appsv1.ReplicaSet, owned bool) (R, *appsv1.ReplicaSet, error) {
	r, ns, err := s.writableReplicaSet(obj)
	if err != nil {
		return r, nil, err
	}
	old := r.Object()
	rs := obj
	if !owned {
		c := *obj
		rs = &c
	}
	keepStored(rs, old, ns, apirules.ReplicaSetGenerationBumps(&old.Spec, &rs.Spec))
	rs.ResourceVersion = s.NextRV()
	r.SetObject(rs)
	return r, old, nil
}

// ScaleReplicaSetInPlace is UpdateReplicaSet(obj, false) for a write that
// changes nothing but spec.replicas and annotations (a plan's scale),
// made by copying obj into the stored object instead of storing a new one:
// only for callers that keep no stored ReplicaSet across a write. It
// reports false, having done nothing, when no ReplicaSet of obj's name is
// stored or obj changes the owner references (not the same array as the
// stored ones: a plan's copy shares it); the caller then updates (which
// answers NotFound for the first).
func (s *Store[R]) ScaleReplicaSetInPlace(obj *appsv1.ReplicaSet) (R, bool, error) {
	var zero R
	r, ok := s.ReplicaSets[s.Key(namespaced(obj.Namespace), obj.Name)]
	if !ok {
		return zero, false, nil
	}
	return s.ScaleRecordInPlace(r, obj)
}

// ScaleRecordInPlace is ScaleReplicaSetInPlace for a caller that has the
// record r stored under obj's namespace and name at hand: the same write
// without the look-up by key.
func (s *Store[R]) ScaleRecordInPlace(r R, obj *appsv1.ReplicaSet) (R, bool, error) {
	var zero R
	if !sameOwners(obj, r.Object()) {
		return zero, false, nil
	}
	ns := namespaced(obj.Namespace)
	old := r.Object()
	if stale(obj, old) {
		return zero, true, Conflict("replicasets.apps", obj.Name)
	}
	bump := apirules.ReplicaSetGenerationBumps(&old.Spec, &obj.Spec)
	kept := *old
	*old = *obj
	keepStored(old, &kept, ns, bump)
	old.ResourceVersion = s.NextRV()
	return r, true, nil
}

// sameOwners reports whether a and b have the same owner references (the
// same array).
func sameOwners(a, b *appsv1.ReplicaSet) bool {
	x, y := a.OwnerReferences, b.OwnerReferences
	return len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
}

// keepStored applies to rs, about to replace stored in namespace ns, what
// an update cannot change (namespace, UID, creation and deletion times,
// status) and the generation, bumped when bump. It only reads stored,
// which may then live on the caller's stack (the generation check hands
// its arguments to an interface, which would move it to the heap: decide
// bump first).
func keepStored(rs, stored *appsv1.ReplicaSet, ns string, bump bool) {
	rs.Namespace = ns
	rs.UID = stored.UID
	rs.CreationTimestamp = stored.CreationTimestamp
	rs.DeletionTimestamp = stored.DeletionTimestamp
	rs.Status = stored.Status
	rs.Generation = stored.Generation
	if bump {
		rs.Generation++
	}
}

// DeleteReplicaSet deletes a ReplicaSet with a UID precondition (when uid
// is set) and returns its record; its object is the deleted one.
func (s *Store[R]) DeleteReplicaSet(namespace, name string, uid types.UID) (R, error) {
	var zero R
	namespace = namespaced(namespace)
	key := namespace + "/" + name
	r, ok := s.ReplicaSets[key]
	if !ok {
		return zero, NotFound("replicasets.apps", name)
	}
	if uid != "" && uid != r.Object().UID {
		return zero, Conflict("replicasets.apps", name)
	}
	s.Unindex(namespace, key)
	delete(s.ReplicaSets, key)
	return r, nil
}

// CreateDeployment stores d (already defaulted, and the caller's to
// keep) as a new Deployment with a new UID and resourceVersion,
// generation 1, creation time now and an empty status. It returns its key.
func (s *Store[R]) CreateDeployment(d *appsv1.Deployment, now metav1.Time) (string, error) {
	key := d.Namespace + "/" + d.Name
	if _, ok := s.Deployments[key]; ok {
		return "", AlreadyExists("deployments.apps", d.Name)
	}
	d.UID = s.NextUID()
	d.ResourceVersion = s.NextRV()
	d.Generation = 1
	d.CreationTimestamp = now
	d.Status = appsv1.DeploymentStatus{}
	s.Deployments[key] = d
	s.AddDeploymentKey(key)
	return key, nil
}

// WritableDeployment returns the stored Deployment that a write of obj
// replaces, and its key, after the API server's checks: it exists, and
// obj's resourceVersion (when set) is the stored one.
func (s *Store[R]) WritableDeployment(obj *appsv1.Deployment) (*appsv1.Deployment, string, error) {
	key := s.Key(obj.Namespace, obj.Name)
	old := s.Deployments[key]
	if old == nil {
		return nil, "", NotFound("deployments.apps", obj.Name)
	}
	if obj.ResourceVersion != "" && obj.ResourceVersion != old.ResourceVersion {
		return nil, "", Conflict("deployments.apps", obj.Name)
	}
	return old, key, nil
}

// ReplaceDeployment stores d (already defaulted, and the caller's to
// keep) in place of old: a write of metadata and spec. Status, UID and
// creation time stay old's; the generation is old's, bumped when the spec
// or the annotations changed (the apps registry's rule). It returns d's
// key.
func (s *Store[R]) ReplaceDeployment(old, d *appsv1.Deployment) string {
	d.ResourceVersion = s.NextRV()
	d.Status = old.Status
	d.UID = old.UID
	d.CreationTimestamp = old.CreationTimestamp
	d.Generation = old.Generation
	if apirules.DeploymentGenerationBumps(old, d) {
		d.Generation++
	}
	key := d.Namespace + "/" + d.Name
	s.Deployments[key] = d
	return key
}

// WriteDeploymentStatus is a write of the status subresource of the stored
// Deployment stored, in place: status (with the conditions conds, which
// the caller prepared for it) and, as the apps registry does,
// metadata.annotations from obj; the rest of obj is ignored.
func (s *Store[R]) WriteDeploymentStatus(stored, obj *appsv1.Deployment, conds []appsv1.DeploymentCondition) {
	stored.Status = obj.Status
	stored.Annotations = obj.Annotations
	stored.Status.Conditions = conds
	stored.ResourceVersion = s.NextRV()
}
