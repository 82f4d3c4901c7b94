package rollout

import (
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// controllerKind is the GroupVersionKind upstream puts in owner references.
var controllerKind = appsv1.SchemeGroupVersion.WithKind("Deployment")

// claimReplicaSets returns the ReplicaSets the Deployment controls, adopting
// orphans that match its selector and releasing owned ones that no longer
// match (upstream's ReplicaSetControllerRefManager). The result keeps the
// snapshot's order and objects (upstream keeps its cache objects too).
func (p *planner) claimReplicaSets() ([]*appsv1.ReplicaSet, error) {
	d := p.d
	claimed := p.w.claimedList()
	var errs []error
	for _, rs := range p.w.snap.ReplicaSets {
		if rs.Namespace != d.Namespace {
			continue
		}
		ok, err := p.claim(rs)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			claimed = append(claimed, rs)
		}
	}
	p.w.claimed = claimed
	return claimed, errors.Join(errs...)
}

func (p *planner) claim(rs *appsv1.ReplicaSet) (bool, error) {
	d := p.d
	ref := metav1.GetControllerOfNoCopy(rs)
	if ref != nil && ref.UID != d.UID {
		return false, nil // another controller's: no need to match it
	}
	// Validate has checked the selector.
	matches := p.sel.matches(rs.Labels)
	if ref != nil {
		if matches {
			return true, nil
		}
		if d.DeletionTimestamp != nil {
			return false, nil
		}
		p.w.patchRS(rs, func(c *appsv1.ReplicaSet) {
			kept := c.OwnerReferences[:0:0]
			for _, r := range c.OwnerReferences {
				if r.UID != d.UID {
					kept = append(kept, r)
				}
			}
			c.OwnerReferences = kept
		}, func(c *appsv1.ReplicaSet) Action {
			return ReleaseReplicaSet{
				ReplicaSet: c,
				Patch:      []byte(fmt.Sprintf(`{"metadata":{"uid":%q,"ownerReferences":[{"$patch":"delete","uid":%q}]}}`, rs.UID, d.UID)),
				Why:        fmt.Sprintf("its labels %s no longer match the selector %s", labels.Set(rs.Labels), selectorString(d.Spec.Selector)),
			}
		})
		return false, nil
	}
	if d.DeletionTimestamp != nil || !matches || rs.DeletionTimestamp != nil {
		return false, nil
	}
	p.w.patchRS(rs, func(c *appsv1.ReplicaSet) {
		c.OwnerReferences = append(c.OwnerReferences[:len(c.OwnerReferences):len(c.OwnerReferences)], *metav1.NewControllerRef(d, controllerKind))
	}, func(c *appsv1.ReplicaSet) Action {
		return AdoptReplicaSet{
			ReplicaSet: c,
			Patch: []byte(fmt.Sprintf(`{"metadata":{"ownerReferences":[{"apiVersion":%q,"kind":%q,"name":%q,"uid":%q,"controller":true,"blockOwnerDeletion":true}],"uid":%q}}`,
				controllerKind.GroupVersion().String(), controllerKind.Kind, d.Name, d.UID, rs.UID)),
			Why: fmt.Sprintf("orphan whose labels %s match the selector %s", labels.Set(rs.Labels), selectorString(d.Spec.Selector)),
		}
	})
	return true, nil
}

// selectorString renders a selector for explanations (only when claiming
// writes something, so its cost does not matter).
func selectorString(sel *metav1.LabelSelector) string {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return "<invalid>"
	}
	return s.String()
}
