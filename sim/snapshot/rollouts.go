package snapshot

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Rollout is one Deployment of a snapshot with the objects its controller
// looks at. Its slices are its own; the objects are the Snapshot's
// (read-only).
type Rollout struct {
	// Deployment is the Deployment, defaulted.
	Deployment *appsv1.Deployment
	// ReplicaSets are the ReplicaSets the controller would claim: those
	// whose controller reference names the Deployment, and, unless the
	// Deployment is being deleted, orphans (no controller) its selector
	// matches and that are not being deleted. Oldest first (creation
	// time, then name).
	ReplicaSets []*appsv1.ReplicaSet
	// Pods are the pods whose controller is one of ReplicaSets, by name.
	Pods []*corev1.Pod
	// NamespaceReplicaSets and NamespacePods are every ReplicaSet and pod
	// of the Deployment's namespace: what [rollout.Snapshot] is given
	// (the planner claims and detects hash collisions itself).
	NamespaceReplicaSets []*appsv1.ReplicaSet
	NamespacePods        []*corev1.Pod
}

// Input is the [rollout.Snapshot] of a sync of the Deployment at now.
func (r *Rollout) Input(now time.Time) rollout.Snapshot {
	return rollout.Snapshot{Deployment: r.Deployment, ReplicaSets: r.NamespaceReplicaSets, Pods: r.NamespacePods, Now: now}
}

// Rollouts groups the snapshot per Deployment, in the order of
// [Snapshot].Deployments (namespace, then name).
func (s *Snapshot) Rollouts() []Rollout {
	out := make([]Rollout, 0, len(s.Deployments))
	for _, d := range s.Deployments {
		r := Rollout{Deployment: d}
		for _, rs := range s.ReplicaSets {
			if rs.Namespace != d.Namespace {
				continue
			}
			r.NamespaceReplicaSets = append(r.NamespaceReplicaSets, rs)
			if Claims(d, rs) {
				r.ReplicaSets = append(r.ReplicaSets, rs)
			}
		}
		slices.SortFunc(r.ReplicaSets, oldestFirst)
		for _, p := range s.Pods {
			if p.Namespace != d.Namespace {
				continue
			}
			r.NamespacePods = append(r.NamespacePods, p)
			ref := metav1.GetControllerOfNoCopy(p)
			if ref == nil || ref.Kind != "ReplicaSet" {
				continue
			}
			for _, rs := range r.ReplicaSets {
				if ref.Name == rs.Name && ref.UID == rs.UID {
					r.Pods = append(r.Pods, p)
					break
				}
			}
		}
		out = append(out, r)
	}
	return out
}

func oldestFirst(a, b *appsv1.ReplicaSet) int {
	return cmp.Or(a.CreationTimestamp.Compare(b.CreationTimestamp.Time), strings.Compare(a.Name, b.Name), strings.Compare(string(a.UID), string(b.UID)))
}

// Claims reports whether d's controller would count rs as its own at its
// next sync: rs is in d's namespace and either its controller reference
// names d (kind Deployment and d's UID; d's name when neither has a UID,
// as with bare manifests), or it has no controller, d's selector matches
// its labels, and neither is being deleted (the controller adopts it).
func Claims(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	if rs.Namespace != d.Namespace {
		return false
	}
	if ref := metav1.GetControllerOfNoCopy(rs); ref != nil {
		return OwnedBy(d, ref)
	}
	if d.DeletionTimestamp != nil || rs.DeletionTimestamp != nil {
		return false
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	return err == nil && !sel.Empty() && sel.Matches(labels.Set(rs.Labels))
}

// OwnedBy reports whether the controller reference ref names d.
func OwnedBy(d *appsv1.Deployment, ref *metav1.OwnerReference) bool {
	if ref.Kind != "Deployment" {
		return false
	}
	if ref.UID == "" && d.UID == "" {
		return ref.Name == d.Name
	}
	return ref.UID == d.UID
}
