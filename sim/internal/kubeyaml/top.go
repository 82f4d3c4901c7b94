package kubeyaml

import (
	"strings"
)

// Top is what [ConvertObject] reads of a top-level mapping for its
// caller, so that the caller need not decode the JSON again to find what
// kind of object it is: the string values of apiVersion, kind,
// metadata.name and metadata.namespace, and which of metadata (a
// mapping) and items it has. Odd says one of those keys has another kind
// of value, or is spelled in another case (which encoding/json would
// match): read them from the JSON instead.
type Top struct {
	APIVersion, Kind, Name, Namespace string
	Metadata, Items                   bool
	Odd                               bool
}

// capture returns where to record the value of key, a key of a mapping
// at p.depth, in p.top (nil: nowhere), and marks p.top Odd for a key
// spelled in another case.
func (p *parser) capture(key string) *string {
	t := p.top
	if t == nil || p.depth > 2 || p.depth == 2 && p.under != "metadata" {
		return nil
	}
	var want []string
	if p.depth == 1 {
		want = []string{"apiVersion", "kind", "metadata", "items"}
	} else {
		want = []string{"name", "namespace"}
	}
	for _, w := range want {
		if key == w {
			switch key {
			case "apiVersion":
				return &t.APIVersion
			case "kind":
				return &t.Kind
			case "name":
				return &t.Name
			case "namespace":
				return &t.Namespace
			}
			return nil
		}
		if strings.EqualFold(key, w) {
			t.Odd = true
		}
	}
	return nil
}

// record notes in p.top the value just written at out[from:] for key
// (whose capture is at).
func (p *parser) record(key string, at *string, from int) {
	t := p.top
	if t == nil || p.depth != 1 && at == nil {
		return
	}
	v := p.out[from:]
	switch {
	case p.depth == 1 && key == "items":
		t.Items = true
	case p.depth == 1 && key == "metadata":
		switch {
		case len(v) > 0 && v[0] == '{':
			t.Metadata = true
		case string(v) != "null":
			t.Odd = true
		}
	case at == nil:
	case len(v) >= 2 && v[0] == '"' && !strings.ContainsRune(string(v), '\\'):
		*at = string(v[1 : len(v)-1])
	case string(v) != "null":
		t.Odd = true
	}
}
