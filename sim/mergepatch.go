package sim

import (
	"encoding/json"
	"reflect"
)

// JSON merge patches (RFC 7386): the patch a client computes from an
// original and a modified object, and the API server applying one. The
// library keeps to the dependencies of k8s.io/apimachinery, which has the
// strategic merge patch but no plain JSON merge patch; the RFC's
// algorithm is a dozen lines.

// applyMergePatch applies the merge patch patch to the JSON document doc.
func applyMergePatch(doc, patch []byte) ([]byte, error) {
	var d, p any
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(patch, &p); err != nil {
		return nil, err
	}
	return json.Marshal(mergePatch(d, p))
}

// mergePatch is RFC 7386's MergePatch(Target, Patch).
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}

// createMergePatch returns the merge patch that turns the JSON document
// before into after: changed and added fields with their new values,
// removed ones as null, arrays replaced whole.
func createMergePatch(before, after []byte) ([]byte, error) {
	var b, a any
	if err := json.Unmarshal(before, &b); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(after, &a); err != nil {
		return nil, err
	}
	bm, ok1 := b.(map[string]any)
	am, ok2 := a.(map[string]any)
	if !ok1 || !ok2 {
		return json.Marshal(a)
	}
	return json.Marshal(diffObjects(bm, am))
}

// diffObjects is the merge patch from object b to object a.
func diffObjects(b, a map[string]any) map[string]any {
	out := map[string]any{}
	for k, bv := range b {
		av, ok := a[k]
		if !ok {
			out[k] = nil
			continue
		}
		bo, ok1 := bv.(map[string]any)
		ao, ok2 := av.(map[string]any)
		if ok1 && ok2 {
			if d := diffObjects(bo, ao); len(d) > 0 {
				out[k] = d
			}
			continue
		}
		if !reflect.DeepEqual(bv, av) {
			out[k] = av
		}
	}
	for k, av := range a {
		if _, ok := b[k]; !ok {
			out[k] = av
		}
	}
	return out
}
