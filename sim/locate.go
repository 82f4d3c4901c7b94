package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/deploymath/deploymath/sim/internal/inputlimit"
	"github.com/deploymath/deploymath/sim/internal/yamlline"
)

// Where in a scenario file a field is: decoding errors turned into ones
// that name the field path and its line.

var fieldRE = regexp.MustCompile(`(?:unknown field|field) "([^"]+)"`)

// withLine prefixes err with the line of the field path it names.
func withLine(src []byte, err error) error {
	m := fieldRE.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	if line := lineOf(src, m[1]); line > 0 {
		return fmt.Errorf("line %d: %w", line, err)
	}
	return err
}

// locate turns a decoding error of js (the JSON form of src; prefix is the
// field path of js within the scenario) into one naming the field and line:
// a value of the wrong type, or a value its own decoder refused. probe is a
// fresh value of the type js was decoded into.
func locate(src, js []byte, prefix string, err error, probe any) error {
	var path, msg string
	var lit *literalError
	if errors.As(err, &lit) {
		path, msg = pathOfLiteral(js, lit.lit), lit.msg
	} else {
		// The strict decoder's type errors carry no position that can be
		// read; the standard decoder reports the same first error with its
		// offset.
		var ute *json.UnmarshalTypeError
		if errors.As(json.Unmarshal(js, probe), &ute) {
			path = pathAt(js, ute.Offset)
			msg = fmt.Sprintf("cannot use %s as %s", ute.Value, ute.Type)
		}
	}
	if path == "" && msg == "" {
		if prefix != "" {
			return fmt.Errorf("%s: %w", prefix, err)
		}
		return withLine(src, err)
	}
	switch {
	case prefix != "" && path != "":
		path = prefix + "." + path
	case prefix != "":
		path = prefix
	}
	if path == "" {
		return errors.New(msg)
	}
	if line := lineOf(src, path); line > 0 {
		return fmt.Errorf("line %d: field %q: %s", line, path, msg)
	}
	return fmt.Errorf("field %q: %s", path, msg)
}

// jsonFrame is an open object or array while walking a JSON document.
type jsonFrame struct {
	array   bool
	idx     int    // array: index of the next value
	key     string // object: key of the current value
	wantKey bool   // object: the next token is a key
}

// walkJSON calls visit for every value of js (scalars, and objects and
// arrays when they open) with its field path ("steps[2].at") and its raw
// text (for objects and arrays, the opening delimiter), in document order,
// until visit returns true.
func walkJSON(js []byte, visit func(path string, raw []byte, end int64) bool) {
	dec := json.NewDecoder(bytes.NewReader(js))
	var stack []jsonFrame
	path := func() string {
		var b strings.Builder
		for _, f := range stack {
			if f.array {
				fmt.Fprintf(&b, "[%d]", f.idx)
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		}
		return b.String()
	}
	afterValue := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].array {
				stack[n-1].idx++
			} else {
				stack[n-1].wantKey = true
			}
		}
	}
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return
		}
		end := dec.InputOffset()
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			afterValue()
			continue
		}
		if n := len(stack); n > 0 && !stack[n-1].array && stack[n-1].wantKey {
			stack[n-1].key, _ = tok.(string)
			stack[n-1].wantKey = false
			continue
		}
		raw := bytes.TrimLeft(js[start:end], " \t\r\n,:")
		if visit(path(), raw, end) {
			return
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, jsonFrame{array: d == '[', wantKey: d == '{'})
			continue
		}
		afterValue()
	}
}

// pathAt returns the field path of the value of js that ends at or after
// offset off (where the JSON decoder reports a type error), "" if none.
func pathAt(js []byte, off int64) string {
	var found string
	walkJSON(js, func(path string, _ []byte, end int64) bool {
		if end >= off {
			found = path
			return true
		}
		return false
	})
	return found
}

// pathOfLiteral returns the field path of the first scalar of js whose
// text is lit, "" if none.
func pathOfLiteral(js, lit []byte) string {
	var found string
	walkJSON(js, func(path string, raw []byte, _ int64) bool {
		if bytes.Equal(raw, lit) {
			found = path
			return true
		}
		return false
	})
	return found
}

// lineOf finds the line of a field path ("steps[2].setImage.image") in
// the scenario's YAML; 0 when not found.
func lineOf(src []byte, path string) int {
	return yamlline.Find(strings.Split(string(src), "\n"), 1, path)
}

// textErrors finds what makes data no YAML text a decoder reads without
// saying where: bytes that are not UTF-8, flow collections nested deeper
// than inputlimit.MaxNesting. Each error names the line, the field and
// the column.
func textErrors(data []byte) error {
	if line, col, b := yamlline.InvalidUTF8(data); line > 0 {
		return atLine(strings.SplitAfter(string(data), "\n"), line, fmt.Sprintf("byte 0x%02x at column %d is not UTF-8: a scenario is UTF-8 text", b, col))
	}
	if line, col, c := yamlline.ControlChar(data); line > 0 {
		return atLine(strings.SplitAfter(string(data), "\n"), line, yamlline.ControlCharError(c, col))
	}
	if line, col := inputlimit.Nesting(data); line > 0 {
		return atLine(strings.SplitAfter(string(data), "\n"), line, fmt.Sprintf("[ and { nested more than %d deep at column %d (inputlimit.MaxNesting)", inputlimit.MaxNesting, col))
	}
	return nil
}

// atLine is the error msg at line of lines: `line 7: field
// "cluster.failures[0].probability": msg`, without the field when the
// line holds none.
func atLine(lines []string, line int, msg string) error {
	if p := yamlline.PathAt(lines, line); p != "" {
		return fmt.Errorf("line %d: field %q: %s", line, p, msg)
	}
	return fmt.Errorf("line %d: %s", line, msg)
}
