package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim/snapshot"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// selectorIndex finds, for a Deployment's selector, the ReplicaSets of
// other controllers and the other Deployments' templates it matches,
// through the label pairs and keys each carries: a selector is checked
// against the objects that have one of its pairs, not against the whole
// namespace, so that explaining n Deployments costs about n.
type selectorIndex struct {
	namespaces map[string]*labelIndex
}

// labelIndex lists a namespace's controlled ReplicaSets and Deployments
// by each label pair ("app=web") and key ("app") of their labels (the
// Deployments' template labels).
type labelIndex struct {
	rss         map[string][]*appsv1.ReplicaSet
	deployments map[string][]*appsv1.Deployment
	allRSs      []*appsv1.ReplicaSet
	allDeps     []*appsv1.Deployment
}

func newSelectorIndex(s *snapshot.Snapshot) *selectorIndex {
	sx := &selectorIndex{namespaces: map[string]*labelIndex{}}
	ns := func(name string) *labelIndex {
		x := sx.namespaces[name]
		if x == nil {
			x = &labelIndex{rss: map[string][]*appsv1.ReplicaSet{}, deployments: map[string][]*appsv1.Deployment{}}
			sx.namespaces[name] = x
		}
		return x
	}
	for _, rs := range s.ReplicaSets {
		if metav1.GetControllerOfNoCopy(rs) == nil {
			continue
		}
		x := ns(rs.Namespace)
		x.allRSs = append(x.allRSs, rs)
		for k, v := range rs.Labels {
			x.rss[k] = append(x.rss[k], rs)
			x.rss[k+"="+v] = append(x.rss[k+"="+v], rs)
		}
	}
	for _, d := range s.Deployments {
		x := ns(d.Namespace)
		x.allDeps = append(x.allDeps, d)
		for k, v := range d.Spec.Template.Labels {
			x.deployments[k] = append(x.deployments[k], d)
			x.deployments[k+"="+v] = append(x.deployments[k+"="+v], d)
		}
	}
	return sx
}

// candidates returns the entries of postings that may match sel: those
// listed under its rarest requirement (a pair of matchLabels, the values
// of an In, the key of an Exists), or all when it has none of these.
func candidates[T any](postings map[string][]T, all []T, sel *metav1.LabelSelector) []T {
	best, found := all, false
	consider := func(list []T) {
		if !found || len(list) < len(best) {
			best, found = list, true
		}
	}
	for k, v := range sel.MatchLabels {
		consider(postings[k+"="+v])
	}
	for _, e := range sel.MatchExpressions {
		switch e.Operator {
		case metav1.LabelSelectorOpIn:
			var union []T
			for _, v := range e.Values {
				union = append(union, postings[e.Key+"="+v]...)
			}
			consider(union)
		case metav1.LabelSelectorOpExists:
			consider(postings[e.Key])
		}
	}
	return best
}

// blockers finds orphans the Deployment adopts and ReplicaSets and
// Deployments its selector shares with another Deployment.
func (sx *selectorIndex) blockers(ro *snapshot.Rollout, res *rollout.Result) []Blocker {
	d := ro.Deployment
	var bs []Blocker
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil
	}
	selText := metav1.FormatLabelSelector(d.Spec.Selector)
	if res != nil {
		var adopted []string
		for _, a := range res.Actions {
			if a, ok := a.(rollout.AdoptReplicaSet); ok {
				adopted = append(adopted, a.ReplicaSet.Name)
			}
		}
		if len(adopted) > 0 {
			bs = append(bs, Blocker{Reason: AdoptsReplicaSets, Count: len(adopted), Examples: first(adopted),
				Message: fmt.Sprintf("the selector %s matches %d replica sets that no controller owns: the controller adopts them and counts their pods as its own (%s)", selText, len(adopted), strings.Join(adopted, ", "))})
		}
	}
	x := sx.namespaces[d.Namespace]
	if x == nil {
		return bs
	}
	var shared []string
	seen := map[*appsv1.ReplicaSet]bool{}
	for _, rs := range candidates(x.rss, x.allRSs, d.Spec.Selector) {
		ref := metav1.GetControllerOfNoCopy(rs)
		if seen[rs] || snapshot.OwnedBy(d, ref) || !sel.Matches(labels.Set(rs.Labels)) {
			continue
		}
		seen[rs] = true
		shared = append(shared, fmt.Sprintf("%s (controlled by %s %s)", rs.Name, ref.Kind, ref.Name))
	}
	seenDep := map[*appsv1.Deployment]bool{}
	for _, o := range candidates(x.deployments, x.allDeps, d.Spec.Selector) {
		if o == d || seenDep[o] || !sel.Matches(labels.Set(o.Spec.Template.Labels)) {
			continue
		}
		seenDep[o] = true
		shared = append(shared, fmt.Sprintf("the pods of Deployment %s (template labels %s)", o.Name, labels.Set(o.Spec.Template.Labels)))
	}
	if len(shared) > 0 {
		slices.Sort(shared)
		bs = append(bs, Blocker{Reason: SelectorOverlap, Count: len(shared), Message: fmt.Sprintf("the selector %s also matches %s: the Deployment controller keeps to the ReplicaSets it owns, but overlapping selectors are unsupported: Services, PodDisruptionBudgets and `kubectl get pods -l` see the pods of both", selText, strings.Join(shared, ", "))})
	}
	return bs
}
