package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// jsonDocuments splits JSON input into its top-level values (kubectl
// prints one; several may follow each other) and finds the lines of
// their items, in one pass over the input: each value is checked with
// json.Valid, then split by its brackets and strings alone. A List's
// items are kept as slices of the input (the document's json then holds
// the rest of the List, items null), so that each is decoded once, when
// its object is. Input that is not a sequence of valid JSON objects and
// arrays is read by jsonDocumentsDecoded, for the error a decoder gives.
func jsonDocuments(data []byte) ([]document, error) {
	var docs []document
	lines := &lineCounter{data: data}
	for off := skipBlank(data, 0); off < len(data); off = skipBlank(data, off) {
		if c := data[off]; c != '{' && c != '[' {
			return jsonDocumentsDecoded(data)
		}
		end := valueEnd(data, off)
		if end < 0 || !json.Valid(data[off:end]) {
			return jsonDocumentsDecoded(data)
		}
		docs = append(docs, splitDocument(data[off:end:end], off, end, lines))
		off = end
	}
	return docs, nil
}

// jsonDocumentsDecoded is jsonDocuments for any input: its values are
// read by encoding/json's decoder, and the first that does not decode is
// the error, naming its line.
func jsonDocumentsDecoded(data []byte) ([]document, error) {
	var docs []document
	lines := &lineCounter{data: data}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		off := skipSpace(data, dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			return docs, nil
		} else if err != nil {
			return nil, jsonError(data, off, err)
		}
		docs = append(docs, splitDocument(raw, int(off), int(dec.InputOffset()), lines))
	}
}

// splitDocument is the document of raw, a valid JSON value found at
// offsets off to end of the input lines counts.
func splitDocument(raw []byte, off, end int, lines *lineCounter) document {
	d := document{json: raw, line: lines.at(int64(off))}
	switch raw[0] {
	case '[':
		for _, e := range elements(raw, 0) {
			d.itemLines = append(d.itemLines, lines.at(int64(off+e[0])))
		}
	case '{':
		d.itemLines, d.items, d.json = listItems(raw, off, lines)
	}
	d.lastLine = lines.at(int64(end))
	return d
}

// listItems finds the entries of the top-level "items" array of obj, a
// valid JSON object that starts at offset base of the input, and their
// lines. When obj is a List (its kind "List" or a typed list's) whose
// items are an array, it returns them as slices of obj and, as rest, obj
// with items null; else items is nil and rest is obj, read whole by the
// caller as before (a key that only differs from "items" by case, which
// json.Unmarshal would read as items, or two of them, included).
func listItems(obj []byte, base int, lines *lineCounter) (itemLines []int, items [][]byte, rest []byte) {
	var span [2]int // of the items array
	found := false
	ms, _ := members(obj, nil)
	for _, m := range ms {
		key := obj[m[0]:m[1]]
		var k string
		if json.Unmarshal(key, &k) != nil || !strings.EqualFold(k, "items") {
			continue
		}
		if found || k != "items" {
			return nil, nil, obj
		}
		found, span = true, [2]int{m[2], m[3]}
	}
	if !found || obj[span[0]] != '[' {
		return nil, nil, obj
	}
	for _, e := range elements(obj, span[0]) {
		itemLines = append(itemLines, lines.at(int64(base+e[0])))
		items = append(items, obj[e[0]:e[1]:e[1]])
	}
	rest = make([]byte, 0, len(obj)-(span[1]-span[0])+len("null"))
	rest = append(append(append(rest, obj[:span[0]]...), "null"...), obj[span[1]:]...)
	var h struct {
		Kind string `json:"kind"`
	}
	if json.Unmarshal(rest, &h) != nil || !(h.Kind == "List" || strings.HasSuffix(h.Kind, "List")) {
		return itemLines, nil, obj
	}
	if items == nil {
		items = [][]byte{}
	}
	return itemLines, items, rest
}

// members returns, for obj, a valid JSON object, each member's key (with
// its quotes) and value as offsets: key start, key end, value start,
// value end, appended to out (a caller's buffer, so that reading the
// header of every item of a large List allocates nothing). ok is false
// when obj turns out not to be an object as a valid one is written.
func members(obj []byte, out [][4]int) (_ [][4]int, ok bool) {
	if len(obj) == 0 || obj[0] != '{' {
		return nil, false
	}
	i := skipBlank(obj, 1)
	for i < len(obj) && obj[i] == '"' {
		ke := stringEnd(obj, i)
		if ke < 0 {
			return nil, false
		}
		colon := skipBlank(obj, ke)
		if colon >= len(obj) || obj[colon] != ':' {
			return nil, false
		}
		vs := skipBlank(obj, colon+1)
		if vs >= len(obj) {
			return nil, false
		}
		ve := valueEnd(obj, vs)
		if ve < 0 {
			return nil, false
		}
		out = append(out, [4]int{i, ke, vs, ve})
		i = skipBlank(obj, ve)
		if i < len(obj) && obj[i] == ',' {
			i = skipBlank(obj, i+1)
		}
	}
	return out, i < len(obj) && obj[i] == '}'
}

// elements returns the start and end offsets of the elements of the
// valid JSON array that starts at data[at].
func elements(data []byte, at int) [][2]int {
	var out [][2]int
	i := skipBlank(data, at+1)
	for i < len(data) && data[i] != ']' {
		end := valueEnd(data, i)
		out = append(out, [2]int{i, end})
		i = skipBlank(data, end)
		if i < len(data) && data[i] == ',' {
			i = skipBlank(data, i+1)
		}
	}
	return out
}

// valueEnd returns the offset just past the JSON value that starts at
// data[i], reading only its strings and brackets (the value is checked
// by json.Valid, or is part of a value that is), or -1 when the input
// ends first.
func valueEnd(data []byte, i int) int {
	end, _ := valueEndDepth(data, i)
	return end
}

// valueEndDepth is valueEnd, with how deep the value's brackets nest (0
// for a string, number or literal, 1 for a flat object).
func valueEndDepth(data []byte, i int) (end, deepest int) {
	switch data[i] {
	case '"':
		return stringEnd(data, i), 0
	case '{', '[':
	default: // a number, true, false or null
		for i < len(data) && !strings.ContainsRune(",]} \t\r\n", rune(data[i])) {
			i++
		}
		return i, 0
	}
	depth := 0
	for i < len(data) {
		switch data[i] {
		case '"':
			if i = stringEnd(data, i); i < 0 {
				return -1, deepest
			}
			continue
		case '{', '[':
			if depth++; depth > deepest {
				deepest = depth
			}
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1, deepest
			}
		}
		i++
	}
	return -1, deepest
}

// stringEnd returns the offset just past the JSON string that starts at
// data[i] (a quote), or -1 when the input ends first.
func stringEnd(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipBlank moves i past JSON white space.
func skipBlank(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// jsonError names the line of a JSON syntax error.
func jsonError(data []byte, start int64, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("line %d: invalid JSON: the input ends (at line %d) inside the value that starts here: if it is a paste of kubectl's output, it looks truncated", lineAt(data, start), lineAt(data, int64(len(data))))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("line %d: invalid JSON: %v", lineAt(data, start+se.Offset), se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("line %d: invalid JSON: %v", lineAt(data, start+te.Offset), err)
	}
	return fmt.Errorf("line %d: invalid JSON: %v", lineAt(data, start), err)
}

// skipSpace moves off past white space and a comma in data.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',':
			off++
		default:
			return off
		}
	}
	return off
}

// lineAt is the 1-based line of byte offset off in data.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// lineCounter is lineAt for offsets asked in increasing order, counting
// each byte once: it goes on from the last offset asked (and starts again
// from the input's start for an earlier one).
type lineCounter struct {
	data []byte
	off  int64
	line int
}

// at is the 1-based line of byte offset off in the input.
func (c *lineCounter) at(off int64) int {
	off = min(max(off, 0), int64(len(c.data)))
	if off < c.off || c.line == 0 {
		c.off, c.line = 0, 1
	}
	c.line += bytes.Count(c.data[c.off:off], []byte("\n"))
	c.off = off
	return c.line
}
