package rollout

import (
	appsv1 "k8s.io/api/apps/v1"
)

// The planner never changes an object in place once it is shared: it
// replaces fields (a new annotations map, a new conditions slice, a new
// replicas pointer) instead of writing into them. So the copies it makes
// before changing an object can be shallow, and they are: the pod template,
// labels, owner references, selector and the rest stay shared with the
// snapshot's objects, and a created ReplicaSet's pod template shares
// everything but its labels with the Deployment's template. Objects in a
// Result may therefore share unchanged parts with the snapshot's objects
// and must be treated as read-only, like objects from an informer cache.
// The property tests check that no input is ever modified.

// cloneRS copies rs for changing by replacement.
func cloneRS(rs *appsv1.ReplicaSet) *appsv1.ReplicaSet {
	out := *rs
	return &out
}

// cloneDeployment copies d for changing by replacement.
func cloneDeployment(d *appsv1.Deployment) *appsv1.Deployment {
	out := *d
	return &out
}
