package diagnose

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/sim/snapshot"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
)

// TestSelectorIndex checks the overlaps the index finds against a scan of
// every ReplicaSet and Deployment of the namespace, with selectors of
// every operator over a few labels.
func TestSelectorIndex(t *testing.T) {
	keys, values := []string{"app", "track"}, []string{"a", "b"}
	drawLabels := func(t *rapid.T, label string) map[string]string {
		m := map[string]string{}
		for _, k := range keys {
			if rapid.Bool().Draw(t, label+" has "+k) {
				m[k] = rapid.SampledFrom(values).Draw(t, label+" "+k)
			}
		}
		return m
	}
	rapid.Check(t, func(t *rapid.T) {
		s := &snapshot.Snapshot{}
		for i := range rapid.IntRange(1, 4).Draw(t, "deployments") {
			d := deployment(fmt.Sprintf("d%d", i), 1, "x:1")
			d.UID = types.UID("uid-" + d.Name)
			d.Namespace = rapid.SampledFrom([]string{"ns", "other"}).Draw(t, "namespace")
			d.Spec.Template.Labels = drawLabels(t, "template")
			d.Spec.Selector = &metav1.LabelSelector{MatchLabels: drawLabels(t, "selector")}
			for range rapid.IntRange(0, 2).Draw(t, "expressions") {
				e := metav1.LabelSelectorRequirement{Key: rapid.SampledFrom(keys).Draw(t, "key"),
					Operator: rapid.SampledFrom([]metav1.LabelSelectorOperator{metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn, metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist}).Draw(t, "operator")}
				if e.Operator == metav1.LabelSelectorOpIn || e.Operator == metav1.LabelSelectorOpNotIn {
					e.Values = rapid.SliceOfNDistinct(rapid.SampledFrom(values), 1, 2, rapid.ID[string]).Draw(t, "values")
				}
				d.Spec.Selector.MatchExpressions = append(d.Spec.Selector.MatchExpressions, e)
			}
			s.Deployments = append(s.Deployments, d)
		}
		for i := range rapid.IntRange(0, 6).Draw(t, "replicaSets") {
			owner := s.Deployments[rapid.IntRange(0, len(s.Deployments)-1).Draw(t, "owner")]
			rs := replicaSet(owner, 1, 1)
			rs.Name, rs.UID = fmt.Sprintf("rs%d", i), "uid-rs"
			rs.Labels = drawLabels(t, "rs")
			if rapid.Bool().Draw(t, "orphan") {
				rs.OwnerReferences = nil
			}
			s.ReplicaSets = append(s.ReplicaSets, rs)
		}
		sx := newSelectorIndex(s)
		for _, ro := range s.Rollouts() {
			got := sx.blockers(&ro, nil)
			want := scanOverlaps(s, &ro)
			if len(got) != len(want) || len(got) > 0 && (got[0].Count != want[0].Count || !strings.Contains(got[0].Message, want[0].Message)) {
				t.Fatalf("%s: got %v, want %v", ro.Deployment.Name, got, want)
			}
		}
	})
}

// scanOverlaps is the selector overlap of ro found by a scan of its
// namespace, the index's reference.
func scanOverlaps(s *snapshot.Snapshot, ro *snapshot.Rollout) []Blocker {
	d := ro.Deployment
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil
	}
	var shared []string
	for _, rs := range ro.NamespaceReplicaSets {
		ref := metav1.GetControllerOfNoCopy(rs)
		if ref == nil || snapshot.OwnedBy(d, ref) || !sel.Matches(labels.Set(rs.Labels)) {
			continue
		}
		shared = append(shared, fmt.Sprintf("%s (controlled by %s %s)", rs.Name, ref.Kind, ref.Name))
	}
	for _, o := range s.Deployments {
		if o == d || o.Namespace != d.Namespace || !sel.Matches(labels.Set(o.Spec.Template.Labels)) {
			continue
		}
		shared = append(shared, fmt.Sprintf("the pods of Deployment %s (template labels %s)", o.Name, labels.Set(o.Spec.Template.Labels)))
	}
	if len(shared) == 0 {
		return nil
	}
	slices.Sort(shared)
	return []Blocker{{Reason: SelectorOverlap, Count: len(shared), Message: strings.Join(shared, ", ")}}
}
