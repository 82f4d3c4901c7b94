package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
	// unchecked is true when whether each item is valid JSON is left to
	// the reading of the items (see jsonList).
	unchecked bool
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
		if yamlline.LeadingBlank(lines[start:end]) == end-start {
			return nil // blank lines and comments only
		}
		first := start + 1 + yamlline.LeadingBlank(lines[start:end])
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
				return yamlError(err, start, last, lines)
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
// line (last, 1-based), else a line was broken, or re-indented with a tab
// (kubectl prints none; lines are the whole input's).
func yamlError(err error, offset, last int, lines []string) error {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if m := yamlLine.FindStringSubmatchIndex(msg); m != nil {
		n, _ := strconv.Atoi(msg[m[2]:m[3]])
		line, text := n+offset, msg[m[1]:]
		hint := ""
		switch {
		case strings.Contains(text, "already set in map"):
		case line >= 1 && line <= len(lines) && tabIndented(lines[line-1]):
			hint = ": a tab in the indentation: YAML indents with spaces, and kubectl prints none, so the paste was re-indented: indent with spaces"
		case line >= last && !strings.Contains(text, "mapping values are not allowed"):
			// (a second ": " on a line is never where a cut leaves off)
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

// tabIndented reports whether line's indentation holds a tab.
func tabIndented(line string) bool {
	return strings.Contains(line[:len(line)-len(strings.TrimLeft(line, " \t"))], "\t")
}
