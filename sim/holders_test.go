package sim

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
)

// heldByRef is the rule holders indexes, for one ReplicaSet: rs is d's
// when its controller reference names d (by UID, or by name when neither
// has a UID), or when it has no controller and d's selector matches it,
// in d's namespace.
func heldByRef(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	if namespaceOf(rs.Namespace) != namespaceOf(d.Namespace) {
		return false
	}
	if ref := metav1.GetControllerOfNoCopy(rs); ref != nil {
		return ref.Kind == "Deployment" && (ref.UID == d.UID && d.UID != "" || ref.UID == "" && d.UID == "" && ref.Name == d.Name)
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	return err == nil && !sel.Empty() && sel.Matches(labels.Set(rs.Labels))
}

// TestHolders compares holders with heldByRef asked of every ReplicaSet,
// over drawn states of few namespaces, names, UIDs and labels, so that
// references by UID, by name, of other kinds and orphans meet.
func TestHolders(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ns := rapid.SampledFrom([]string{"", "default", "b"})
		name := rapid.SampledFrom([]string{"web", "api"})
		uid := rapid.SampledFrom([]types.UID{"", "u1", "u2"})
		app := rapid.SampledFrom([]string{"", "web", "api"})
		var rss []*appsv1.ReplicaSet
		for i := range rapid.IntRange(0, 6).Draw(t, "replicaSets") {
			rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Draw(t, "rsNamespace"), Name: fmt.Sprintf("rs-%d", i)}}
			if a := app.Draw(t, "rsApp"); a != "" {
				rs.Labels = map[string]string{"app": a}
			}
			switch rapid.IntRange(0, 3).Draw(t, "owner") {
			case 1:
				rs.OwnerReferences = []metav1.OwnerReference{{Kind: "Deployment", Name: name.Draw(t, "ownerName"), UID: uid.Draw(t, "ownerUID"), Controller: new(true)}}
			case 2:
				rs.OwnerReferences = []metav1.OwnerReference{{Kind: "Rollout", Name: name.Draw(t, "ownerName"), UID: uid.Draw(t, "ownerUID"), Controller: new(true)}}
			case 3:
				rs.OwnerReferences = []metav1.OwnerReference{{Kind: "Deployment", Name: name.Draw(t, "ownerName"), UID: uid.Draw(t, "ownerUID")}}
			}
			if rapid.IntRange(0, 9).Draw(t, "nil") == 0 {
				rs = nil
			}
			rss = append(rss, rs)
		}
		h := newHolders(rss)
		for range rapid.IntRange(1, 4).Draw(t, "deployments") {
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Draw(t, "namespace"), Name: name.Draw(t, "name"), UID: uid.Draw(t, "uid")}}
			if a := app.Draw(t, "selector"); a != "" {
				d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": a}}
			} else if rapid.Bool().Draw(t, "emptySelector") {
				d.Spec.Selector = &metav1.LabelSelector{}
			}
			want := false
			for _, rs := range rss {
				want = want || rs != nil && heldByRef(d, rs)
			}
			if got := h.holds(d); got != want {
				t.Fatalf("holds(%s/%s uid %q) = %v, want %v", d.Namespace, d.Name, d.UID, got, want)
			}
		}
	})
}
