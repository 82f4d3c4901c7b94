package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/deploymath/deploymath/sim/internal/kubeyaml"
	"github.com/deploymath/deploymath/sim/internal/yamlline"
	"sigs.k8s.io/yaml"
)

// document is one top-level value of the input, as JSON, with the line
// where it starts and, for a List, the lines where its items start (nil
// when they could not be found).
type document struct {
	json []byte
	line int
	// lastLine is the document's last line with content (0 when unknown).
	lastLine  int
	itemLines []int
	// items, when not nil, are the List's items converted one by one
	// (json then holds the rest of the List, items null).
	items [][]byte
	// tops are, for each item (or, with one entry, for the document),
	// what kubeyaml read of its top-level fields; nil when not read so.
	tops []*kubeyaml.Top
}

// yamlDocuments splits YAML input (its lines, each with its newline) at its "---" lines and converts each
// document to JSON. Empty documents are dropped.
func yamlDocuments(lines []string) ([]document, error) {
	var docs []document
	start := 0 // index of the first line of the current document
	flush := func(end int) error {
		if leadingBlank(lines[start:end]) == end-start {
			return nil // blank lines and comments only
		}
		first := start + 1 + leadingBlank(lines[start:end])
		last := end - trailingBlank(lines[start:end])
		if d, ok := splitList(lines[start:end], start); ok {
			d.line, d.lastLine = first, last
			docs = append(docs, d)
			return nil
		}
		var top kubeyaml.Top
		tops := []*kubeyaml.Top{&top}
		js, err := kubeyaml.ConvertObject(nil, lines[start:end], 0, &top)
		if err != nil {
			tops = nil
			if js, err = yaml.YAMLToJSONStrict([]byte(strings.Join(lines[start:end], ""))); err != nil {
				if line, v := yamlline.NonJSONNumber(lines[start:end]); line > 0 && strings.Contains(err.Error(), "unsupported value") {
					return fmt.Errorf("line %d: %s is not a number JSON, and so an object, can hold", start+line, v)
				}
				return yamlError(err, start, last)
			}
		}
		if bytes.Equal(bytes.TrimSpace(js), []byte("null")) {
			return nil
		}
		itemLines := yamlItemLines(lines[start:end], start)
		if js = bytes.TrimSpace(js); len(js) > 0 && js[0] == '[' {
			itemLines = sequenceLines(lines[start:end], start)
		}
		docs = append(docs, document{json: js, line: first, lastLine: last, itemLines: itemLines, tops: tops})
		return nil
	}
	for i, l := range lines {
		t := strings.TrimRight(l, " \t\r\n")
		if t == "---" || strings.HasPrefix(t, "--- ") || strings.HasPrefix(t, "---\t") || t == "..." {
			if err := flush(i); err != nil {
				return nil, err
			}
			start = i + 1
		}
	}
	if err := flush(len(lines)); err != nil {
		return nil, err
	}
	return docs, nil
}

// leadingBlank counts the blank and comment lines before a document's
// first content line.
func leadingBlank(lines []string) int {
	n := 0
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		n++
	}
	return n
}

// trailingBlank counts the blank and comment lines after a document's
// last content line.
func trailingBlank(lines []string) int {
	n := 0
	for i := len(lines) - 1; i >= 0; i-- {
		t := strings.TrimSpace(lines[i])
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		n++
	}
	return n
}

// sequenceLines finds the lines where the entries of a top-level block
// sequence start ("- " at the first entry's indentation); offset is the
// document's first line (0-based).
func sequenceLines(lines []string, offset int) []int {
	var out []int
	indent := -1
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if !strings.HasPrefix(t, "-") || strings.HasPrefix(t, "---") {
			continue
		}
		if ind := len(l) - len(t); indent < 0 || ind == indent {
			indent = ind
			out = append(out, offset+i+1)
		}
	}
	return out
}

var yamlLine = regexp.MustCompile(`^(?:yaml: )?(?:unmarshal errors:\s*)?line (\d+): `)

// yamlError turns the YAML parser's error into one with the line in the
// whole input (the parser counts from the document's first line, offset
// 0-based), and says what a syntax error in kubectl's output, which is
// valid YAML, means: the paste was cut short when the error is at its last
// line (last, 1-based), else a line was broken.
func yamlError(err error, offset, last int) error {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if m := yamlLine.FindStringSubmatchIndex(msg); m != nil {
		n, _ := strconv.Atoi(msg[m[2]:m[3]])
		line, text := n+offset, msg[m[1]:]
		hint := ""
		switch {
		case strings.Contains(text, "already set in map"):
		case line >= last:
			hint = ": the input ends there: if it is a paste of kubectl's output, it looks truncated"
		default:
			hint = ": if this is a paste of kubectl's output, which is valid YAML, this line looks broken (cut, wrapped or re-indented)"
		}
		return fmt.Errorf("line %d: %s%s", line, text, hint)
	}
	if offset > 0 {
		return fmt.Errorf("document starting at line %d: %s", offset+1, msg)
	}
	return errors.New(msg)
}

// yamlItemLines finds, in a document as kubectl prints a List, the lines
// where the entries of its top-level "items" sequence start: each "- " at
// the indentation of the first entry, until the next top-level key. The
// lines are absolute (offset is the document's first line, 0-based).
func yamlItemLines(lines []string, offset int) []int {
	var out []int
	inItems, indent := false, -1
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		ind := len(l) - len(t)
		body := strings.TrimSpace(t)
		if body == "" || strings.HasPrefix(body, "#") {
			continue
		}
		if ind == 0 && !strings.HasPrefix(body, "-") {
			inItems = body == "items:"
			indent = -1
			continue
		}
		if !inItems || !strings.HasPrefix(body, "-") {
			continue
		}
		if indent < 0 {
			indent = ind
		}
		if ind == indent {
			out = append(out, offset+i+1)
		}
	}
	return out
}

// splitList converts a List as kubectl prints it (a top-level "items:"
// whose entries start at one indentation) item by item: converting a
// large List whole builds a tree of the whole document and takes several
// times the memory. It gives up (false) on anything else, and whenever a
// piece does not convert, so that the whole document is converted and its
// error reported as the YAML parser words it.
func splitList(lines []string, offset int) (document, bool) {
	itemLines := yamlItemLines(lines, offset)
	if len(itemLines) < 2 {
		return document{}, false
	}
	// The items block runs from the first entry to the next top-level key.
	from := itemLines[0] - 1 - offset
	to := len(lines)
	for i := from + 1; i < len(lines); i++ {
		l := lines[i]
		if body := strings.TrimSpace(l); body != "" && !strings.HasPrefix(body, "#") && l[0] != ' ' && l[0] != '-' {
			to = i
			break
		}
	}
	header := strings.Join(lines[:from], "") + strings.Join(lines[to:], "")
	hj, err := yaml.YAMLToJSONStrict([]byte(header))
	if err != nil {
		return document{}, false
	}
	var probe struct {
		Items json.RawMessage `json:"items"`
	}
	if json.Unmarshal(hj, &probe) != nil || !bytes.Equal(bytes.TrimSpace(probe.Items), []byte("null")) {
		return document{}, false
	}
	d := document{json: hj, itemLines: itemLines, items: make([][]byte, len(itemLines)), tops: make([]*kubeyaml.Top, len(itemLines))}
	item := func(k int) []string {
		end := to
		if k+1 < len(itemLines) {
			end = itemLines[k+1] - 1 - offset
		}
		return lines[itemLines[k]-1-offset : end]
	}
	// Each item as kubeyaml converts it (on every core for a large List),
	// then the others as go-yaml does.
	convertItem := func(k int) {
		item := item(k)
		first := item[0]
		col := len(first) - len(strings.TrimLeft(first, " ")) + 1
		for col < len(first) && first[col] == ' ' {
			col++
		}
		top := &kubeyaml.Top{}
		if js, err := kubeyaml.ConvertObject(nil, item, col, top); err == nil {
			d.items[k], d.tops[k] = js, top
		}
	}
	if len(itemLines) >= parallelItems {
		parallel(len(itemLines), convertItem)
	} else {
		for k := range itemLines {
			convertItem(k)
		}
	}
	for k := range itemLines {
		if d.items[k] != nil {
			continue
		}
		item := item(k)
		firstLine := item[0]
		ind := len(firstLine) - len(strings.TrimLeft(firstLine, " "))
		var b strings.Builder
		b.WriteString(strings.Repeat(" ", ind) + " " + strings.TrimPrefix(firstLine[ind:], "-"))
		for _, l := range item[1:] {
			b.WriteString(l)
		}
		ij, err := yaml.YAMLToJSONStrict([]byte(b.String()))
		if err != nil {
			return document{}, false
		}
		d.items[k] = ij
	}
	return d, true
}

// jsonDocuments splits JSON input into its top-level values (kubectl
// prints one; several may follow each other) and finds the lines of
// their items. A List's items are kept as slices of the value read (its
// json then holds the rest of the List, items null), so that they are
// not read again.
func jsonDocuments(data []byte) ([]document, error) {
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
		d := document{json: raw, line: lines.at(off)}
		if len(raw) > 0 && raw[0] == '[' {
			d.itemLines = jsonArrayLines(lines, off, raw)
		} else {
			d.itemLines, d.items, d.json = jsonListItems(lines, off, raw)
		}
		d.lastLine = lines.at(dec.InputOffset())
		docs = append(docs, d)
	}
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

// jsonListItems finds the entries of raw's top-level "items" array and
// their lines (raw starts at offset base of the input lines counts). When
// raw is a List (its kind "List" or a typed list's), it returns its items
// as slices of raw and, as rest, raw with items null; else items is nil
// and rest is raw.
func jsonListItems(lines *lineCounter, base int64, raw []byte) (itemLines []int, items [][]byte, rest []byte) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, raw
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, nil, raw
		}
		if k != "items" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil, nil, raw
			}
			continue
		}
		from := skipSpace(raw, dec.InputOffset())
		if from >= int64(len(raw)) || raw[from] == ':' {
			from = skipSpace(raw, from+1)
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return nil, nil, raw
		}
		for dec.More() {
			off := skipSpace(raw, dec.InputOffset())
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil, nil, raw
			}
			itemLines = append(itemLines, lines.at(base+off))
			items = append(items, raw[off:dec.InputOffset():dec.InputOffset()])
		}
		if _, err := dec.Token(); err != nil {
			return nil, nil, raw
		}
		to := dec.InputOffset()
		rest = make([]byte, 0, int64(len(raw))-(to-from)+4)
		rest = append(append(append(rest, raw[:from]...), "null"...), raw[to:]...)
		var h struct {
			Kind  string          `json:"kind"`
			Items json.RawMessage `json:"items"`
		}
		// (a second "items" key, which json.Unmarshal would read, is left
		// to the reading of the whole List)
		if json.Unmarshal(rest, &h) != nil || !(h.Kind == "List" || strings.HasSuffix(h.Kind, "List")) || string(h.Items) != "null" {
			return itemLines, nil, raw
		}
		if items == nil {
			items = [][]byte{}
		}
		return itemLines, items, rest
	}
	return nil, nil, raw
}

// jsonArrayLines finds the lines of the entries of raw, a JSON array that
// starts at offset base of the input lines counts.
func jsonArrayLines(lines *lineCounter, base int64, raw []byte) []int {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil
	}
	var out []int
	for dec.More() {
		off := skipSpace(raw, dec.InputOffset())
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil
		}
		out = append(out, lines.at(base+off))
	}
	return out
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
