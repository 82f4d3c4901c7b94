package rollout

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// labelPair is one entry of a selector's matchLabels.
type labelPair struct{ key, value string }

// selectorPairs is a selector with its matchLabels copied into a list, once
// per plan: a plan matches the selector against several label sets (the
// template's, each ReplicaSet's), and walking a short list is much cheaper
// than iterating the map each time.
type selectorPairs struct {
	sel  *metav1.LabelSelector
	n    int          // pairs in buf
	buf  [4]labelPair // the pairs, when there are at most 4
	more []labelPair  // all the pairs, when there are more
}

// init fills sp from sel. (No field of sp points into sp: the planner that
// holds it stays on the stack.)
func (sp *selectorPairs) init(sel *metav1.LabelSelector) {
	*sp = selectorPairs{sel: sel}
	if sel == nil {
		return
	}
	if len(sel.MatchLabels) > len(sp.buf) {
		sp.more = make([]labelPair, 0, len(sel.MatchLabels))
	}
	for k, v := range sel.MatchLabels {
		if sp.more != nil {
			sp.more = append(sp.more, labelPair{k, v})
		} else {
			sp.buf[sp.n] = labelPair{k, v}
			sp.n++
		}
	}
}

// list returns the pairs.
func (sp *selectorPairs) list() []labelPair {
	if sp.more != nil {
		return sp.more
	}
	return sp.buf[:sp.n]
}

// matches reports whether a valid selector selects the labels, exactly as
// metav1.LabelSelectorAsSelector(sel).Matches(labels.Set(l)) does, without
// building a labels.Selector (which validates every key with regular
// expressions and dominated the cost of a plan). A nil selector selects
// nothing, an empty one everything.
func (sp *selectorPairs) matches(l map[string]string) bool {
	if sp.sel == nil {
		return false
	}
	for _, p := range sp.list() {
		if got, ok := l[p.key]; !ok || got != p.value {
			return false
		}
	}
	return expressionsMatch(sp.sel, l)
}

// simple reports whether the selector is certainly valid: every key and
// value is a plain label name (alphanumerics, '-', '_', '.', starting and
// ending alphanumeric, at most 63 characters), optionally with a simple
// DNS prefix for keys, and operators are known with the right number of
// values. When it returns false, the caller asks apimachinery, which knows
// every rule and words the error.
func (sp *selectorPairs) simple() bool {
	if sp.sel == nil {
		return false
	}
	for _, p := range sp.list() {
		if !simpleKey(p.key) || (p.value != "" && !simpleName(p.value)) {
			return false
		}
	}
	return expressionsSimple(sp.sel)
}

// expressionsMatch is the matchExpressions half of matches.
func expressionsMatch(sel *metav1.LabelSelector, l map[string]string) bool {
	for _, r := range sel.MatchExpressions {
		v, ok := l[r.Key]
		switch r.Operator {
		case metav1.LabelSelectorOpIn:
			if !ok || !slices.Contains(r.Values, v) {
				return false
			}
		case metav1.LabelSelectorOpNotIn:
			if ok && slices.Contains(r.Values, v) {
				return false
			}
		case metav1.LabelSelectorOpExists:
			if !ok {
				return false
			}
		case metav1.LabelSelectorOpDoesNotExist:
			if ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// expressionsSimple is the matchExpressions half of simple.
func expressionsSimple(sel *metav1.LabelSelector) bool {
	for _, r := range sel.MatchExpressions {
		if !simpleKey(r.Key) {
			return false
		}
		switch r.Operator {
		case metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn:
			if len(r.Values) == 0 {
				return false
			}
		case metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist:
			if len(r.Values) != 0 {
				return false
			}
		default:
			return false
		}
		for _, v := range r.Values {
			if v != "" && !simpleName(v) {
				return false
			}
		}
	}
	return true
}

func simpleKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if k[i] == '/' {
			return simplePrefix(k[:i]) && simpleName(k[i+1:])
		}
	}
	return simpleName(k)
}

// simpleName: [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, at most 63 bytes.
func simpleName(s string) bool {
	if len(s) == 0 || len(s) > 63 || !alnum(s[0]) || !alnum(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !alnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// simplePrefix: lower-case DNS labels joined by dots, at most 253 bytes.
func simplePrefix(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			c := s[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
			continue
		}
		label := s[start:i]
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		start = i + 1
	}
	return true
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
