package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/deploymath/deploymath/sim/internal/inputlimit"
)

// errUnchecked is returned by the reading of a document found by jsonList
// when one of its items turns out not to be valid JSON: the input is then
// read again as any other (Parse), for the error that names its line.
var errUnchecked = errors.New("snapshot: an item of the List is not valid JSON")

// jsonList is jsonDocuments for the input kubectl prints for a whole
// cluster (kubectl get -A -o json): one JSON object, a List of at least
// parallelItems items. The other path checks the whole input, serially,
// before splitting it (inputlimit.Nesting, json.Valid, then the split,
// four passes over every byte); here one pass over the brackets and
// strings splits it and measures how deep its items nest, and whether
// each item is valid JSON is left to the reading of the items on every
// core (decodeItems, where the decoder checks it anyway): the document is
// marked unchecked. Everything but the items (the List's other members,
// its punctuation) is checked here. The result, when the items are
// valid, is the document jsonDocuments gives; ok is false, and the input
// is read by the other path, for anything else (several values, a key
// with an escape, an "items" key of another case, a List nested too
// deep, fewer items).
func jsonList(data []byte) (d document, ok bool) {
	off := skipBlank(data, 0)
	if off >= len(data) || data[off] != '{' {
		return document{}, false
	}
	var items [][2]int
	itemsFrom, itemsTo := -1, -1 // the items array's offsets
	deepest := 0                 // how deep the items nest, their own brackets included
	i := skipBlank(data, off+1)
	end := -1
	for end < 0 {
		if i >= len(data) || data[i] != '"' {
			return document{}, false
		}
		ke := stringEnd(data, i)
		if ke < 0 {
			return document{}, false
		}
		key := data[i+1 : ke-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			return document{}, false
		}
		colon := skipBlank(data, ke)
		if colon >= len(data) || data[colon] != ':' {
			return document{}, false
		}
		vs := skipBlank(data, colon+1)
		if vs >= len(data) {
			return document{}, false
		}
		var ve int
		switch {
		case string(key) == "items":
			if itemsFrom >= 0 || data[vs] != '[' {
				return document{}, false
			}
			if ve, deepest, items = elementsDepth(data, vs); ve < 0 {
				return document{}, false
			}
			itemsFrom, itemsTo = vs, ve
		case bytes.EqualFold(key, []byte("items")):
			return document{}, false // json.Unmarshal would read it as items
		default:
			if ve = valueEnd(data, vs); ve < 0 {
				return document{}, false
			}
		}
		i = skipBlank(data, ve)
		switch {
		case i < len(data) && data[i] == ',':
			i = skipBlank(data, i+1)
		case i < len(data) && data[i] == '}':
			end = i + 1
		default:
			return document{}, false
		}
	}
	if skipBlank(data, end) != len(data) || itemsFrom < 0 || len(items) < parallelItems || 2+deepest > inputlimit.MaxNesting {
		return document{}, false
	}
	rest := make([]byte, 0, end-off-(itemsTo-itemsFrom)+len("null"))
	rest = append(append(append(rest, data[off:itemsFrom]...), "null"...), data[itemsTo:end]...)
	var h struct {
		Kind string `json:"kind"`
	}
	if !json.Valid(rest) || json.Unmarshal(rest, &h) != nil || !(h.Kind == "List" || strings.HasSuffix(h.Kind, "List")) {
		return document{}, false
	}
	if line, _ := inputlimit.Nesting(rest); line > 0 {
		return document{}, false
	}
	lines := &lineCounter{data: data}
	d = document{json: rest, line: lines.at(int64(off)), items: make([][]byte, len(items)), itemLines: make([]int, len(items)), unchecked: true}
	for k, e := range items {
		d.itemLines[k] = lines.at(int64(e[0]))
		d.items[k] = data[e[0]:e[1]:e[1]]
	}
	d.lastLine = lines.at(int64(end))
	return d, true
}

// elementsDepth returns, for the JSON array that starts at data[at], the
// offset just past it, its elements' offsets and how deep they nest (their
// own brackets included: 1 for an array of flat objects). It reads only
// brackets, strings and the commas between elements; end is -1 when the
// array is not one as a valid one is written (a comma missing or
// doubled, the input ending first).
func elementsDepth(data []byte, at int) (end, deepest int, out [][2]int) {
	i := skipBlank(data, at+1)
	if i < len(data) && data[i] == ']' {
		return i + 1, 0, out
	}
	for i < len(data) {
		e, depth := valueEndDepth(data, i)
		if e < 0 {
			return -1, 0, nil
		}
		deepest = max(deepest, depth)
		out = append(out, [2]int{i, e})
		i = skipBlank(data, e)
		switch {
		case i < len(data) && data[i] == ',':
			i = skipBlank(data, i+1)
		case i < len(data) && data[i] == ']':
			return i + 1, deepest, out
		default:
			return -1, 0, nil
		}
	}
	return -1, 0, nil
}
