package rollout

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// The planner copies objects before changing them and never changes its
// input. The copies below are deep except for spec.template, which the
// planner never modifies in place (a rollback replaces the whole value):
// sharing it keeps a plan cheap, since the pod template is most of an
// object's size. Objects in a Result may therefore share their pod template
// with the snapshot's objects and must be treated as read-only, like objects
// from an informer cache.

// cloneRS copies rs, sharing spec.template.
func cloneRS(rs *appsv1.ReplicaSet) *appsv1.ReplicaSet {
	out := &appsv1.ReplicaSet{TypeMeta: rs.TypeMeta}
	rs.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	spec := rs.Spec // a shallow copy: rs is not touched
	spec.Template = corev1.PodTemplateSpec{}
	spec.DeepCopyInto(&out.Spec)
	out.Spec.Template = rs.Spec.Template
	rs.Status.DeepCopyInto(&out.Status)
	return out
}

// cloneDeployment copies d, sharing spec.template.
func cloneDeployment(d *appsv1.Deployment) *appsv1.Deployment {
	out := &appsv1.Deployment{TypeMeta: d.TypeMeta}
	d.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	spec := d.Spec // a shallow copy: d is not touched
	spec.Template = corev1.PodTemplateSpec{}
	spec.DeepCopyInto(&out.Spec)
	out.Spec.Template = d.Spec.Template
	d.Status.DeepCopyInto(&out.Status)
	return out
}
