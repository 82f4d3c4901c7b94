package rollout

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"pgregory.net/rapid"
)

var selectorWords = []string{"app", "web", "tier", "x", "", "a.b", "k8s.io/app", "Bad Key", "-x", "v1", "a_b", "example.com/tier", "UP/x"}

func genSelector(t *rapid.T) *metav1.LabelSelector {
	sel := &metav1.LabelSelector{}
	if rapid.Bool().Draw(t, "nil") {
		return nil
	}
	n := rapid.IntRange(0, 6).Draw(t, "matchLabels")
	for i := 0; i < n; i++ {
		if sel.MatchLabels == nil {
			sel.MatchLabels = map[string]string{}
		}
		sel.MatchLabels[rapid.SampledFrom(selectorWords).Draw(t, "key")] = rapid.SampledFrom(selectorWords).Draw(t, "value")
	}
	m := rapid.IntRange(0, 3).Draw(t, "expressions")
	ops := []metav1.LabelSelectorOperator{"In", "NotIn", "Exists", "DoesNotExist", "Bogus"}
	for i := 0; i < m; i++ {
		r := metav1.LabelSelectorRequirement{Key: rapid.SampledFrom(selectorWords).Draw(t, "exprKey"), Operator: rapid.SampledFrom(ops).Draw(t, "op")}
		for j := rapid.IntRange(0, 2).Draw(t, "values"); j > 0; j-- {
			r.Values = append(r.Values, rapid.SampledFrom(selectorWords).Draw(t, "exprValue"))
		}
		sel.MatchExpressions = append(sel.MatchExpressions, r)
	}
	return sel
}

// The hand-written matcher agrees with apimachinery on every valid selector,
// and the fast validity check never accepts a selector apimachinery refuses.
func TestPropertySelectorMatchesApimachinery(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sel := genSelector(t)
		lbls := map[string]string{}
		for i := rapid.IntRange(0, 4).Draw(t, "labels"); i > 0; i-- {
			lbls[rapid.SampledFrom(selectorWords).Draw(t, "labelKey")] = rapid.SampledFrom(selectorWords).Draw(t, "labelValue")
		}
		var sp selectorPairs
		sp.init(sel)
		ref, err := metav1.LabelSelectorAsSelector(sel)
		if sp.simple() && err != nil {
			t.Fatalf("simple() accepts %+v, apimachinery refuses: %v", sel, err)
		}
		if err != nil {
			return
		}
		if got, want := sp.matches(lbls), ref.Matches(labels.Set(lbls)); got != want {
			t.Fatalf("selector %+v on %v: got %v, apimachinery %v", sel, lbls, got, want)
		}
	})
}
