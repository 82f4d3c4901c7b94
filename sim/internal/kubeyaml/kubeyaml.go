// Package kubeyaml converts to JSON, quickly, the YAML kubectl prints
// (`kubectl get -o yaml`): block mappings and sequences, one-line plain
// and quoted scalars, empty flow collections ({} and []), literal block
// scalars (| and |-), comment lines. It gives up, with [ErrUnsupported],
// on anything else (anchors, aliases, tags, flow collections with
// content, folded and multi-line scalars, comments after a value, tabs,
// duplicate keys, scalars that resolve to floats or to YAML 1.1's other
// booleans) and on anything that is not valid YAML, so that the caller
// converts that input with sigs.k8s.io/yaml, which words the errors.
//
// For what it converts, the JSON decodes to what sigs.k8s.io/yaml's
// YAMLToJSONStrict gives (checked by a fuzz test against it): plain
// scalars resolve as go-yaml v2 resolves them (null, true and false,
// decimal integers, strings), keys in document order. It is several
// times faster than parsing the YAML into a tree and marshalling that
// (the dumps deploysim explain reads are mostly this YAML).
package kubeyaml

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrUnsupported says the input holds YAML this package does not
// convert.
var ErrUnsupported = errors.New("kubeyaml: YAML outside what kubectl prints")

// Convert appends to dst the JSON of the block node that starts on
// lines[0] at column col (0 for a document; after "- " for an item of a
// List as kubectl prints it) and spans lines, which hold nothing else
// but blank and comment lines. A line may end with "\n".
func Convert(dst []byte, lines []string, col int) ([]byte, error) {
	return ConvertObject(dst, lines, col, nil)
}

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

// ConvertObject is [Convert], filling top (when not nil) from the
// top-level mapping.
func ConvertObject(dst []byte, lines []string, col int, top *Top) ([]byte, error) {
	own := make([]string, len(lines))
	for i, l := range lines {
		l = trimEOL(l)
		if !printable(l) || marker(l) {
			return dst, ErrUnsupported
		}
		own[i] = l
	}
	p := parser{lines: own, out: dst, lastEOL: len(lines) > 0 && strings.HasSuffix(lines[len(lines)-1], "\n"), top: top}
	p.skipBlank()
	if p.li >= len(own) {
		return dst, ErrUnsupported // an empty document: null, which the caller handles
	}
	if p.li > 0 || col == 0 {
		col = indentOf(own[p.li])
	} else if col >= len(own[0]) || own[0][col] == ' ' {
		return dst, ErrUnsupported
	}
	if err := p.node(col); err != nil {
		return dst, err
	}
	p.skipBlank()
	if p.li < len(lines) {
		return dst, ErrUnsupported // text after the node
	}
	return p.out, nil
}

// printable reports whether l is valid UTF-8 of characters YAML allows
// (and no tab: indentation by tabs is not valid, and tabs elsewhere are
// left to go-yaml).
func printable(l string) bool {
	for i := 0; i < len(l); {
		c := l[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(l[i:])
		// C1 controls, the line breaks of YAML 1.1 (NEL, LS, PS) and
		// byte-order marks are left to go-yaml.
		if r == utf8.RuneError && n <= 1 || r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0xfffe || r == 0xffff {
			return false
		}
		i += n
	}
	return true
}

// marker reports whether l is a document marker ("---", "...").
func marker(l string) bool {
	return (strings.HasPrefix(l, "---") || strings.HasPrefix(l, "...")) && (len(l) == 3 || l[3] == ' ')
}

// trimEOL drops the line feed l ends with (a carriage return stays, for
// printable to refuse: CRLF input is left to go-yaml).
func trimEOL(l string) string {
	return strings.TrimSuffix(l, "\n")
}

type parser struct {
	lines []string
	li    int // the current line
	out   []byte
	// lastEOL says the last line ends with a line break.
	lastEOL bool
	// top, when not nil, is filled from the top-level mapping; depth is
	// the nesting of the mapping or sequence being converted (1: the
	// top), under the top-level key whose value is being converted.
	top   *Top
	depth int
	under string
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

func indentOf(l string) int {
	n := 0
	for n < len(l) && l[n] == ' ' {
		n++
	}
	return n
}

// blank reports whether l holds nothing but spaces and a comment.
func blank(l string) bool {
	i := indentOf(l)
	return i == len(l) || l[i] == '#'
}

func (p *parser) skipBlank() {
	for p.li < len(p.lines) && blank(p.lines[p.li]) {
		p.li++
	}
}

// seqEntry reports whether text (a line from a column on) starts a block
// sequence entry.
func seqEntry(text string) bool {
	return len(text) > 0 && text[0] == '-' && (len(text) == 1 || text[1] == ' ')
}

// node converts the block node whose text starts on the current line at
// column col: a sequence, a mapping, or a scalar alone on its line.
func (p *parser) node(col int) error {
	text := p.lines[p.li][col:]
	if text == "" {
		return ErrUnsupported
	}
	if seqEntry(text) {
		return p.sequence(col)
	}
	if _, _, ok, err := splitKey(text); err != nil {
		return err
	} else if ok {
		return p.mapping(col)
	}
	// A scalar on a line of its own (a document that is one scalar).
	return p.scalar(text, col)
}

// mapping converts the block mapping whose first key starts on the
// current line at column col; its other keys are the lines indented col.
func (p *parser) mapping(col int) error {
	p.depth++
	defer func() { p.depth-- }()
	p.out = append(p.out, '{')
	var keys []string
	for first := true; ; first = false {
		line := p.lines[p.li]
		key, rest, ok, err := splitKey(line[col:])
		if err != nil || !ok {
			return ErrUnsupported
		}
		if !first && indentOf(line) != col {
			return ErrUnsupported
		}
		for _, k := range keys {
			if k == key {
				return ErrUnsupported // a duplicate key: go-yaml's error
			}
		}
		keys = append(keys, key)
		if !first {
			p.out = append(p.out, ',')
		}
		p.out = appendString(p.out, key)
		p.out = append(p.out, ':')
		at, from := p.capture(key), len(p.out)
		if p.depth == 1 {
			p.under = key
		}
		if err := p.value(rest, col, true); err != nil {
			return err
		}
		p.record(key, at, from)
		p.skipBlank()
		if p.li >= len(p.lines) {
			break
		}
		next := p.lines[p.li]
		ind := indentOf(next)
		if ind < col {
			break
		}
		if ind > col || seqEntry(next[ind:]) {
			return ErrUnsupported // not valid: go-yaml's error
		}
	}
	p.out = append(p.out, '}')
	return nil
}

// sequence converts the block sequence whose first entry starts on the
// current line at column col; its other entries are the lines "- "
// indented col.
func (p *parser) sequence(col int) error {
	p.depth++
	defer func() { p.depth-- }()
	p.out = append(p.out, '[')
	for first := true; ; first = false {
		line := p.lines[p.li]
		if indentOf(line) != col && !first || !seqEntry(line[col:]) {
			return ErrUnsupported
		}
		if !first {
			p.out = append(p.out, ',')
		}
		at := col + 1
		for at < len(line) && line[at] == ' ' {
			at++
		}
		rest := line[at:]
		switch {
		case rest == "" || rest[0] == '#':
			if err := p.value("", col, false); err != nil {
				return err
			}
		case seqEntry(rest):
			return ErrUnsupported // "- - x"
		default:
			_, _, isKey, err := splitKey(rest)
			if err != nil {
				return err
			}
			if isKey {
				if err := p.mapping(at); err != nil {
					return err
				}
			} else if err := p.scalar(rest, col); err != nil {
				return err
			}
		}
		p.skipBlank()
		if p.li >= len(p.lines) {
			break
		}
		next := p.lines[p.li]
		ind := indentOf(next)
		if ind < col || ind == col && !seqEntry(next[ind:]) {
			break // the parent mapping's next key, at col, or less
		}
		if ind > col {
			return ErrUnsupported
		}
	}
	p.out = append(p.out, ']')
	return nil
}

// value converts the value of a mapping key (inMap) or sequence entry at
// column col: rest is what follows "key:" or "-" on its line. An empty
// rest means the value is on the lines below, indented deeper (or, for a
// mapping's value, a sequence at col), or null.
func (p *parser) value(rest string, col int, inMap bool) error {
	rest = strings.TrimLeft(rest, " ")
	if rest != "" && rest[0] != '#' {
		if rest[0] == '|' {
			return p.blockScalar(rest, col)
		}
		return p.scalar(rest, col)
	}
	if rest != "" {
		return ErrUnsupported // "key: # comment"
	}
	p.li++
	p.skipBlank()
	if p.li < len(p.lines) {
		next := p.lines[p.li]
		ind := indentOf(next)
		if ind > col || inMap && ind == col && seqEntry(next[ind:]) {
			return p.node(ind)
		}
	}
	p.out = append(p.out, "null"...)
	return nil
}

// blockScalar converts a literal block scalar ("|" or "|-", header) whose
// parent is at column col; its content is the lines below indented
// deeper than col.
func (p *parser) blockScalar(header string, col int) error {
	chomp := strings.TrimRight(header[1:], " ")
	if chomp != "" && chomp != "-" {
		return ErrUnsupported // |+, indentation indicators, comments
	}
	var b strings.Builder
	indent, first := -1, 0
	p.li++
	end := p.li
	for i := p.li; i < len(p.lines); i++ {
		l := p.lines[i]
		if strings.TrimLeft(l, " ") == "" {
			continue
		}
		ind := indentOf(l)
		if ind <= col {
			break
		}
		if indent < 0 {
			indent, first = ind, i
		}
		if ind < indent {
			return ErrUnsupported
		}
		end = i + 1
	}
	if indent < 0 {
		return ErrUnsupported // empty block scalar
	}
	for i := p.li; i < len(p.lines); i++ {
		l := p.lines[i]
		if strings.TrimLeft(l, " ") != "" {
			if indentOf(l) <= col {
				break
			}
			continue
		}
		if len(l) > indent {
			return ErrUnsupported // spaces beyond the indentation on an empty line: left to go-yaml
		}
	}
	for i := p.li; i < end; i++ {
		l := p.lines[i]
		if i < first && len(l) > indent {
			return ErrUnsupported // a leading empty line longer than the indentation: invalid
		}
		if len(l) > indent {
			b.WriteString(l[indent:])
		} else if strings.TrimLeft(l, " ") != "" {
			return ErrUnsupported
		}
		if i < end-1 || chomp == "" && (i < len(p.lines)-1 || p.lastEOL) {
			b.WriteByte('\n')
		}
	}
	p.li = end
	p.out = appendString(p.out, b.String())
	return nil
}

// scalar converts a scalar that starts with text (the rest of the
// current line) and may go on, folded, on the lines below indented
// deeper than col (its node's column), as go-yaml's emitter folds long
// plain and single-quoted scalars; it moves to the line after it.
func (p *parser) scalar(text string, col int) error {
	text = strings.TrimRight(text, " ")
	if text == "" || text[0] == ' ' {
		return ErrUnsupported
	}
	more := p.continuation(col)
	p.li += 1 + len(more)
	switch text[0] {
	case '"':
		s, ok := doubleQuoted(text)
		if !ok || len(more) > 0 {
			return ErrUnsupported
		}
		p.out = appendString(p.out, s)
		return nil
	case '\'':
		if len(more) == 0 {
			s, ok := singleQuoted(text)
			if !ok {
				return ErrUnsupported
			}
			p.out = appendString(p.out, s)
			return nil
		}
		whole := text + "\n" + strings.Join(more, "\n")
		if quotedEnd(whole) != len(strings.TrimRight(whole, " ")) {
			return ErrUnsupported // not closed, or closed before the end
		}
		inner := fold(append([]string{text[1:]}, more...))
		inner = strings.TrimRight(inner, " ")
		p.out = appendString(p.out, strings.ReplaceAll(inner[:len(inner)-1], "''", "'"))
		return nil
	case '{', '[':
		if (text == "{}" || text == "[]") && len(more) == 0 {
			p.out = append(p.out, text...)
			return nil
		}
		return ErrUnsupported
	}
	if len(more) > 0 {
		// Each line of a plain scalar is one a single-line one could be
		// (no ": ", no comment, no colon at its end).
		for _, l := range append([]string{text}, more...) {
			t := strings.Trim(l, " ")
			if strings.HasPrefix(t, "#") || strings.HasSuffix(t, ":") || strings.Contains(t, ": ") || strings.Contains(t, " #") {
				return ErrUnsupported
			}
		}
		text = strings.TrimRight(fold(append([]string{text}, more...)), " ")
	}
	out, ok := appendPlain(p.out, text)
	if !ok {
		return ErrUnsupported
	}
	p.out = out
	return nil
}

// continuation returns the lines after the current one that continue a
// scalar whose node is at column col: up to the first line indented col
// or less (blank lines within count; trailing ones do not).
func (p *parser) continuation(col int) []string {
	end := p.li + 1
	for i := p.li + 1; i < len(p.lines); i++ {
		l := p.lines[i]
		if strings.TrimLeft(l, " ") == "" {
			continue
		}
		if indentOf(l) <= col {
			break
		}
		end = i + 1
	}
	return p.lines[p.li+1 : end]
}

// fold joins the lines of a multi-line flow scalar as YAML folds them:
// each line stripped of the spaces around it (the first line only of
// those after it, the last only of those before it), each line break a
// space or, when empty lines follow it, one newline per empty line.
func fold(lines []string) string {
	var b strings.Builder
	empty := 0
	for i, l := range lines {
		t := l
		if i > 0 {
			t = strings.TrimLeft(t, " ")
		}
		if i < len(lines)-1 {
			t = strings.TrimRight(t, " ")
		}
		if t == "" && i > 0 && i < len(lines)-1 {
			empty++
			continue
		}
		if i > 0 {
			if empty > 0 {
				b.WriteString(strings.Repeat("\n", empty))
			} else {
				b.WriteByte(' ')
			}
		}
		empty = 0
		b.WriteString(t)
	}
	return b.String()
}

// splitKey splits text into a mapping key and the rest after its colon,
// when text starts with a key ("name: web", "f:metadata:", "'a b': c");
// ok is false for a scalar. A key this package does not read is an
// error.
func splitKey(text string) (key, rest string, ok bool, err error) {
	if text == "" {
		return "", "", false, nil
	}
	if i := strings.IndexByte(text, ':'); i >= 1000 || i < 0 && len(text) >= 1000 {
		// YAML bounds an implicit key to 1024 characters: leave long
		// lines to go-yaml.
		return "", "", false, ErrUnsupported
	}
	if text[0] == '"' || text[0] == '\'' {
		end := quotedEnd(text)
		if end < 0 {
			return "", "", false, ErrUnsupported
		}
		after := text[end:]
		if after == ":" || strings.HasPrefix(after, ": ") {
			var s string
			var good bool
			if text[0] == '"' {
				s, good = doubleQuoted(text[:end])
			} else {
				s, good = singleQuoted(text[:end])
			}
			if !good {
				return "", "", false, ErrUnsupported
			}
			return s, after[1:], true, nil
		}
		return "", "", false, nil
	}
	i := strings.Index(text, ": ")
	if strings.HasSuffix(text, ":") && (i < 0 || i > len(text)-1) {
		i = len(text) - 1
	}
	if i < 0 {
		return "", "", false, nil
	}
	if h := strings.Index(text, " #"); h >= 0 && h < i {
		return "", "", false, ErrUnsupported // a comment before the colon
	}
	key = text[:i]
	if key == "" || strings.HasSuffix(key, " ") || indicator(key[0]) {
		return "", "", false, ErrUnsupported
	}
	if kind, good := resolvePlain(key); !good || kind != plainString {
		return "", "", false, ErrUnsupported // a key that is not a string
	}
	return key, text[i+1:], true, nil
}

// quotedEnd is the offset after the closing quote of the quoted scalar
// text starts with; -1 when it does not close on the line.
func quotedEnd(text string) int {
	q := text[0]
	for i := 1; i < len(text); i++ {
		switch {
		case q == '"' && text[i] == '\\':
			i++
		case text[i] == q && q == '\'' && i+1 < len(text) && text[i+1] == '\'':
			i++
		case text[i] == q:
			return i + 1
		}
	}
	return -1
}

// indicator reports whether a plain scalar may not start with c.
func indicator(c byte) bool {
	return strings.IndexByte("-?:,[]{}#&*!|>'\"%@`", c) >= 0
}

// doubleQuoted decodes text, a whole double-quoted scalar, with the
// escapes JSON has; false for others.
func doubleQuoted(text string) (string, bool) {
	if len(text) < 2 || text[len(text)-1] != '"' || quotedEnd(text) != len(text) {
		return "", false
	}
	body := text[1 : len(text)-1]
	if !strings.Contains(body, `\`) {
		return body, true
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(body) {
			return "", false
		}
		switch body[i] {
		case '"', '\\':
			b.WriteByte(body[i])
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+4 >= len(body) {
				return "", false
			}
			n, err := strconv.ParseUint(body[i+1:i+5], 16, 16)
			if err != nil || n >= 0xD800 && n < 0xE000 {
				return "", false
			}
			b.WriteRune(rune(n))
			i += 4
		default:
			return "", false
		}
	}
	return b.String(), true
}

// singleQuoted decodes text, a whole single-quoted scalar.
func singleQuoted(text string) (string, bool) {
	if len(text) < 2 || text[len(text)-1] != '\'' || quotedEnd(text) != len(text) {
		return "", false
	}
	return strings.ReplaceAll(text[1:len(text)-1], "''", "'"), true
}

var (
	otherBools = map[string]bool{"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "True": true, "TRUE": true,
		"on": true, "On": true, "ON": true, "n": true, "N": true, "no": true, "No": true, "NO": true, "False": true, "FALSE": true,
		"off": true, "Off": true, "OFF": true, "Null": true, "NULL": true, "<<": true,
		".nan": true, ".NaN": true, ".NAN": true, ".inf": true, ".Inf": true, ".INF": true,
		"+.inf": true, "+.Inf": true, "+.INF": true, "-.inf": true, "-.Inf": true, "-.INF": true}
)

// The kinds of plain scalar resolvePlain tells apart.
const (
	plainNull = iota
	plainBool
	plainInt
	plainString
)

// resolvePlain tells what the plain scalar s resolves to as go-yaml v2
// resolves it: null, a boolean (true, false), a decimal integer or a
// string; false for what it resolves otherwise (floats, other integer
// forms, YAML 1.1's other booleans) and for text a plain scalar cannot
// hold.
func resolvePlain(s string) (int, bool) {
	switch s {
	case "", "~", "null":
		return plainNull, true
	case "true", "false":
		return plainBool, true
	case "0":
		return plainInt, true
	}
	if len(s) <= 5 && otherBools[s] || indicator(s[0]) && s[0] != '-' || strings.Contains(s, " #") || strings.Contains(s, ": ") || s[len(s)-1] == ':' {
		return 0, false
	}
	if s[0] == '-' && (len(s) == 1 || s[1] == ' ' || s[1] == '\n') {
		return 0, false
	}
	switch c := s[0]; {
	case c == '.':
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return 0, false
		}
	case c == '+' || c == '-' || c >= '0' && c <= '9':
		if simpleDecimal(s) {
			return plainInt, true
		}
		if numeric(s) {
			return 0, false
		}
	}
	return plainString, true
}

// yamlFloat reports whether s is a float as go-yaml v2 writes one:
// [-+]? (.digits | digits (.digits?)?) ([eE] [-+]? digits)?.
func yamlFloat(s string) bool {
	digits := func(i int) int {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i
	}
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if i < len(s) && s[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return false
		}
		i = j
	} else {
		j := digits(i)
		if j == i {
			return false
		}
		i = j
		if i < len(s) && s[i] == '.' {
			i = digits(i + 1)
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(s)
}

// simpleDecimal reports whether s is a decimal integer without leading
// zeros that fits in an int64 (at most 18 digits): go-yaml gives it as
// written.
func simpleDecimal(s string) bool {
	d := s
	if d[0] == '-' {
		d = d[1:]
	}
	return len(d) > 0 && len(d) <= 18 && d[0] != '0' && isDigits(d)
}

// appendPlain appends the JSON of the plain scalar s; false when
// resolvePlain refuses it.
func appendPlain(dst []byte, s string) ([]byte, bool) {
	kind, ok := resolvePlain(s)
	switch {
	case !ok:
		return dst, false
	case kind == plainNull:
		return append(dst, "null"...), true
	case kind == plainString:
		return appendString(dst, s), true
	}
	return append(dst, s...), true
}

// numeric reports whether go-yaml v2 resolves s, which starts with a
// sign or a digit, to something other than a string: a timestamp, an
// integer in any base, a float.
func numeric(s string) bool {
	if len(s) >= 5 && s[4] == '-' && isDigits(s[:4]) {
		return true // maybe a timestamp: leave it to go-yaml
	}
	plain := strings.ReplaceAll(s, "_", "")
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return true
	}
	if yamlFloat(plain) {
		return true
	}
	if b, ok := strings.CutPrefix(plain, "0b"); ok {
		_, err := strconv.ParseInt(b, 2, 64)
		_, uerr := strconv.ParseUint(b, 2, 64)
		return err == nil || uerr == nil
	}
	if b, ok := strings.CutPrefix(plain, "-0b"); ok {
		_, err := strconv.ParseInt("-"+b, 2, 64)
		return err == nil
	}
	return false
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// appendString appends s as a JSON string.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
