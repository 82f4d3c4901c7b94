// Package apirules holds the v1.37 API server's write rules that both
// rollout.Apply (a plan applied to a snapshot) and the simulator's API
// server model apply, so that they are written once: when a write bumps
// metadata.generation, and the message of an optimistic-concurrency
// conflict.
package apirules

import (
	"fmt"
	"unsafe"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// DeploymentGenerationBumps reports whether writing cur over old bumps the
// Deployment's generation: the apps registry bumps it when the spec or the
// annotations change (annotations are copied to ReplicaSets). A nil and a
// non-nil Deployment differ; two nils do not.
func DeploymentGenerationBumps(old, cur *appsv1.Deployment) bool {
	if old == nil || cur == nil {
		return old != cur
	}
	return !equality.Semantic.DeepEqual(&old.Spec, &cur.Spec) || !equality.Semantic.DeepEqual(old.Annotations, cur.Annotations)
}

// ReplicaSetGenerationBumps reports whether writing a ReplicaSet with spec
// cur over one with spec old bumps its generation: the spec changed. The
// Deployment controller's writes (a new size, annotations) leave the
// selector and the template the very same memory; then the sizes and
// minReadySeconds decide, without reflection (the same answer, since equal
// memory is equal). Anything else is compared semantically. A nil and a
// non-nil spec differ; two nils do not.
func ReplicaSetGenerationBumps(old, cur *appsv1.ReplicaSetSpec) bool {
	if old == nil || cur == nil {
		return old != cur
	}
	if old.Selector == cur.Selector && sameTemplateMemory(&old.Template, &cur.Template) {
		return old.MinReadySeconds != cur.MinReadySeconds || !int32PtrEqual(old.Replicas, cur.Replicas)
	}
	return !equality.Semantic.DeepEqual(old, cur)
}

// sameTemplateMemory reports whether two templates are the same bytes,
// which makes them equal (every pointer, slice and map is the same one).
func sameTemplateMemory(a, b *corev1.PodTemplateSpec) bool {
	n := unsafe.Sizeof(*a)
	return unsafe.String((*byte)(unsafe.Pointer(a)), n) == unsafe.String((*byte)(unsafe.Pointer(b)), n)
}

func int32PtrEqual(a, b *int32) bool {
	return a == b || (a != nil && b != nil && *a == *b)
}

// ConflictMessage is the API server's message for a write whose
// resourceVersion is not the stored one (409 Conflict), resource as
// "deployments.apps".
func ConflictMessage(resource, name string) string {
	return fmt.Sprintf("Operation cannot be fulfilled on %s %q: the object has been modified; please apply your changes to the latest version and try again", resource, name)
}
