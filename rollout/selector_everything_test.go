package rollout

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// selectsEverything must agree with upstream's reflect.DeepEqual against an
// empty selector, including on empty but non-nil maps and slices, which
// DeepEqual tells apart from nil.
func TestSelectsEverythingMatchesDeepEqual(t *testing.T) {
	everything := &metav1.LabelSelector{}
	for name, sel := range map[string]*metav1.LabelSelector{
		"nil":                    nil,
		"empty":                  {},
		"empty labels map":       {MatchLabels: map[string]string{}},
		"empty expressions":      {MatchExpressions: []metav1.LabelSelectorRequirement{}},
		"labels":                 {MatchLabels: map[string]string{"app": "web"}},
		"expression":             {MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpExists}}},
		"empty map, expressions": {MatchLabels: map[string]string{}, MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpExists}}},
	} {
		want := reflect.DeepEqual(sel, everything)
		if got := selectsEverything(sel); got != want {
			t.Errorf("%s: selectsEverything = %v, reflect.DeepEqual = %v", name, got, want)
		}
	}
}
