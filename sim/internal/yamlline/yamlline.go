// Package yamlline finds where a field is written in a YAML document:
// the line of a field path such as "spec.template.spec.containers[0].image"
// or "steps[2].setImage.image", so that an error about a field can name
// its line. It reads the text's indentation (block style, with flow-style
// values ending the search), not a parse tree: the decoders that report
// field paths (sigs.k8s.io/yaml through JSON) keep no positions. It also
// reads the text's encoding as kubectl does (FromUTF16) and finds its
// first byte that is not UTF-8 (InvalidUTF8) or is a control character
// (ControlChar).
package yamlline

import (
	"encoding/binary"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

var segment = regexp.MustCompile(`^([^\[]*)((?:\[\d+\])*)$`)

// Find returns the 1-based line of path ("spec.template.spec.
// containers[0].image") in the YAML lines of an object that starts at
// line start (1-based), as written in block style; 0 when not even its
// first key is found, else the line of the deepest part of path found. It
// follows the path key by key and entry by entry; a list without an index
// in path (the JSON decoder's type errors give none) is searched entry by
// entry. A value written in flow style ({...}, [...]) ends the search on
// its line.
func Find(lines []string, start int, path string) int {
	if start < 1 || start > len(lines) || path == "" {
		return 0
	}
	segs, ok := parsePath(path)
	if !ok {
		return 0
	}
	ind, _ := entry(lines[start-1])
	return walk(lines, start-1, ind, segs, 0)
}

// parsePath splits a field path into its keys and indices; false when a
// part is not a key with indices.
func parsePath(path string) ([]pathSeg, bool) {
	var segs []pathSeg
	for _, part := range strings.Split(path, ".") {
		m := segment.FindStringSubmatch(part)
		if m == nil {
			return nil, false
		}
		sg := pathSeg{key: m[1]}
		for _, ix := range strings.Split(strings.Trim(m[2], "[]"), "][") {
			if ix == "" {
				continue
			}
			n, err := strconv.Atoi(ix)
			if err != nil {
				return nil, false
			}
			sg.index = append(sg.index, n)
		}
		segs = append(segs, sg)
	}
	return segs, true
}

type pathSeg struct {
	key   string
	index []int
}

// walk follows segs from line pos, whose keys are at indentation indent;
// depth bounds the recursion into lists without an index.
func walk(lines []string, pos, indent int, segs []pathSeg, depth int) int {
	sg := segs[0]
	at := findKey(lines, pos, indent, sg.key)
	if at < 0 {
		return 0
	}
	found := at + 1
	if flowValue(lines[at], sg.key) {
		return found
	}
	pos = at
	seqIndent := -1
	for _, n := range sg.index {
		e, si := findEntry(lines, pos, n)
		if e < 0 {
			return found
		}
		pos, seqIndent, found = e, si, e+1
		if t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[pos]), "-")); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
			return found
		}
	}
	rest := segs[1:]
	if len(rest) == 0 {
		return found
	}
	if seqIndent >= 0 {
		return max(found, walk(lines, pos, seqIndent+2, rest, depth))
	}
	if e, si := findEntry(lines, pos, 0); e >= 0 && depth < 8 {
		// A list with no index in the path: the first entry that holds
		// the rest.
		for n := 0; e >= 0; n++ {
			if r := walk(lines, e, si+2, rest, depth+1); r > 0 {
				return r
			}
			e, si = findEntry(lines, pos, n+1)
		}
		return found
	}
	child := childIndent(lines, pos)
	if child < 0 {
		return found
	}
	return max(found, walk(lines, pos, child, rest, depth))
}

// entry is a line's indentation and its text, a "- " entry's key counted
// at the indentation after the dash.
func entry(l string) (int, string) {
	t := strings.TrimLeft(l, " ")
	ind := len(l) - len(t)
	for strings.HasPrefix(t, "- ") {
		t = strings.TrimLeft(t[1:], " ")
		ind = len(l) - len(t)
	}
	return ind, strings.TrimRight(t, "\r\n")
}

func blank(l string) bool {
	t := strings.TrimSpace(l)
	return t == "" || strings.HasPrefix(t, "#")
}

// findKey finds the line of key at indentation indent from line pos on,
// before the mapping ends; -1 when it is not there.
func findKey(lines []string, pos, indent int, key string) int {
	for i := pos; i < len(lines); i++ {
		if blank(lines[i]) {
			continue
		}
		if t := strings.TrimSpace(lines[i]); t == "---" || t == "..." {
			return -1
		}
		ind, t := entry(lines[i])
		raw := len(lines[i]) - len(strings.TrimLeft(lines[i], " "))
		if i > pos && raw < indent && !(raw == indent-2 && strings.HasPrefix(strings.TrimLeft(lines[i], " "), "-")) {
			return -1 // the mapping ended
		}
		if i > pos && raw == indent-2 && strings.HasPrefix(strings.TrimLeft(lines[i], " "), "-") {
			return -1 // the next entry of the enclosing sequence
		}
		if ind == indent && (strings.HasPrefix(t, key+":") || strings.HasPrefix(t, `"`+key+`":`)) {
			return i
		}
	}
	return -1
}

// flowValue reports whether key's value on line l is written in flow
// style or inline (the path goes no deeper in the text).
func flowValue(l, key string) bool {
	_, t := entry(l)
	_, v, _ := strings.Cut(t, ":")
	v = strings.TrimSpace(v)
	return v != "" && !strings.HasPrefix(v, "#") && v != "|" && v != ">" && !strings.HasPrefix(v, "|") && !strings.HasPrefix(v, ">")
}

// childIndent is the indentation of the first line after pos, or -1 when
// there is none deeper.
func childIndent(lines []string, pos int) int {
	base, _ := entry(lines[pos])
	for i := pos + 1; i < len(lines); i++ {
		if blank(lines[i]) {
			continue
		}
		raw := len(lines[i]) - len(strings.TrimLeft(lines[i], " "))
		if raw <= base && !strings.HasPrefix(strings.TrimLeft(lines[i], " "), "-") {
			return -1
		}
		ind, _ := entry(lines[i])
		return ind
	}
	return -1
}

// findEntry finds the n-th entry (from 0) of the sequence that is the
// value of the key on line pos: its line and the indentation of its dash.
func findEntry(lines []string, pos, n int) (int, int) {
	keyInd, _ := entry(lines[pos])
	seqIndent, count := -1, 0
	for i := pos + 1; i < len(lines); i++ {
		if blank(lines[i]) {
			continue
		}
		t := strings.TrimLeft(lines[i], " ")
		raw := len(lines[i]) - len(t)
		if seqIndent < 0 {
			if !strings.HasPrefix(t, "-") || raw < keyInd {
				return -1, 0
			}
			seqIndent = raw
		}
		if raw < seqIndent || raw == seqIndent && !strings.HasPrefix(t, "-") {
			return -1, 0
		}
		if raw == seqIndent {
			if count == n {
				return i, seqIndent
			}
			count++
		}
	}
	return -1, 0
}

// Seq is a sequence under one key of a document, located once: its
// key's line and its entries' lines, so that the lines of many entries'
// fields are found without reading the text before each entry again
// (Find reads it from the object's start: once per entry of a scenario
// of thousands of steps made reading the scenario quadratic).
type Seq struct {
	lines   []string
	at      int   // the key's line (0-based), -1 when not found
	flow    bool  // the key's value is on its line (flow style)
	entries []int // the entries' lines (0-based)
	indent  int   // the column of the entries' dashes
}

// FindSeq locates the sequence that is the value of key (one key, without
// dots or indices) in the object of lines that starts at line start
// (1-based), as Find does for the path key[0]: [Seq.Line] then answers
// Find's question for every entry.
func FindSeq(lines []string, start int, key string) *Seq {
	s := &Seq{lines: lines, at: -1}
	if start < 1 || start > len(lines) || key == "" || strings.ContainsAny(key, ".[") {
		return s
	}
	ind, _ := entry(lines[start-1])
	if s.at = findKey(lines, start-1, ind, key); s.at < 0 {
		return s
	}
	if s.flow = flowValue(lines[s.at], key); s.flow {
		return s
	}
	// findEntry's walk over the sequence, once for all entries
	keyInd, _ := entry(lines[s.at])
	s.indent = -1
	for i := s.at + 1; i < len(lines); i++ {
		if blank(lines[i]) {
			continue
		}
		t := strings.TrimLeft(lines[i], " ")
		raw := len(lines[i]) - len(t)
		if s.indent < 0 {
			if !strings.HasPrefix(t, "-") || raw < keyInd {
				break
			}
			s.indent = raw
		}
		if raw < s.indent || raw == s.indent && !strings.HasPrefix(t, "-") {
			break
		}
		if raw == s.indent {
			s.entries = append(s.entries, i)
		}
	}
	return s
}

// Line is Find(lines, start, path) for the path of entry i of the
// sequence followed by rest ("setImage.container"; "" for the entry
// itself), where lines, start and the key are FindSeq's.
func (s *Seq) Line(i int, rest string) int {
	var segs []pathSeg
	if rest != "" {
		var ok bool
		if segs, ok = parsePath(rest); !ok {
			return 0
		}
	}
	if s.at < 0 {
		return 0
	}
	found := s.at + 1
	if s.flow || i < 0 || i >= len(s.entries) {
		return found
	}
	e := s.entries[i]
	found = e + 1
	if t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s.lines[e]), "-")); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		return found
	}
	if len(segs) == 0 {
		return found
	}
	return max(found, walk(s.lines, e, s.indent+2, segs, 0))
}

// lineShape is what PathAt reads of a line: the columns of its "- "
// entries, the column of what follows them and, when that is a key
// ("name:", "name: value"), the key.
type lineShape struct {
	dashes []int
	col    int
	key    string
}

func shapeOf(l string) (lineShape, bool) {
	var s lineShape
	i := 0
	for {
		for i < len(l) && l[i] == ' ' {
			i++
		}
		if i < len(l) && l[i] == '-' && (i+1 == len(l) || l[i+1] == ' ' || l[i+1] == '\n' || l[i+1] == '\r') {
			s.dashes = append(s.dashes, i)
			i++
			continue
		}
		break
	}
	rest := strings.TrimRight(l[i:], "\r\n")
	if rest == "" && len(s.dashes) == 0 || strings.HasPrefix(rest, "#") {
		return s, false
	}
	s.col = i
	if k, _, ok := strings.Cut(rest, ":"); ok && k != "" && !strings.ContainsAny(k, " {[\"'") {
		s.key = k
	} else if strings.HasPrefix(rest, `"`) {
		if end := strings.Index(rest[1:], `":`); end >= 0 {
			s.key = rest[1 : end+1]
		}
	}
	return s, true
}

// PathAt returns the field path of what line (1-based) of YAML lines
// holds, written in block style: "steps[2].setImage.image" for the line
// of that key, "steps[2]" for an entry's line without a key; the inverse
// of Find, for errors that know a line but not a field. "" when the line
// holds none (blank, a comment, beyond the text).
func PathAt(lines []string, line int) string {
	t := line - 1
	if t < 0 || t >= len(lines) {
		return ""
	}
	sh, ok := shapeOf(lines[t])
	if !ok {
		return ""
	}
	var segs []string // innermost first
	if sh.key != "" {
		segs = append(segs, sh.key)
	}
	c, i := sh.col, t
	for {
		// The entries begun on line i: from the innermost out.
		for j := len(sh.dashes) - 1; j >= 0; j-- {
			dc := sh.dashes[j]
			// The entry's index: the entries of its sequence above it
			// (lines whose first "- " is at dc), up to the line the
			// sequence is the value of.
			idx := 0
			for k := i - 1; k >= 0; k-- {
				s, ok := shapeOf(lines[k])
				if !ok {
					continue
				}
				if len(s.dashes) > 0 && s.dashes[0] == dc {
					idx++
				} else if len(s.dashes) > 0 && s.dashes[0] < dc || len(s.dashes) == 0 && s.col <= dc {
					break
				}
			}
			segs = append(segs, "["+strconv.Itoa(idx)+"]")
			c = dc + 1 // the sequence's key is at dc (a compact sequence) or less
		}
		// The line above that holds column c: the key of the mapping or
		// sequence at c (at less than c), or the first line of the entry
		// whose mapping holds c (its key at c, after a "- ").
		k := i - 1
		for ; k >= 0; k-- {
			s, ok := shapeOf(lines[k])
			if !ok {
				continue
			}
			if s.key != "" && s.col < c {
				segs = append(segs, s.key)
				c = s.col
				break
			}
			if len(s.dashes) > 0 && s.col == c {
				break // its key is a sibling: only its entries count
			}
		}
		if k < 0 {
			break
		}
		sh, _ = shapeOf(lines[k])
		i = k
	}
	var b strings.Builder
	for j := len(segs) - 1; j >= 0; j-- {
		if b.Len() > 0 && !strings.HasPrefix(segs[j], "[") {
			b.WriteByte('.')
		}
		b.WriteString(segs[j])
	}
	return b.String()
}

// LeadingBlank counts the blank and comment lines before the first line
// of lines with content.
func LeadingBlank(lines []string) int {
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

// FromUTF16 returns data as UTF-8 when it starts with a UTF-16 byte order
// mark, little- or big-endian (what PowerShell's > writes), as kubectl
// reads a file (a BOM chooses the encoding, UTF-8 otherwise); any other
// data is returned as it is. data is not modified. An odd number of bytes
// after the mark is an error: the text was cut inside a character.
// Unpaired surrogates become U+FFFD, as kubectl's decoder makes them.
func FromUTF16(data []byte) ([]byte, error) {
	var order binary.ByteOrder
	switch {
	case len(data) >= 2 && data[0] == 0xff && data[1] == 0xfe:
		order = binary.LittleEndian
	case len(data) >= 2 && data[0] == 0xfe && data[1] == 0xff:
		order = binary.BigEndian
	default:
		return data, nil
	}
	body := data[2:]
	if len(body)%2 != 0 {
		return nil, fmt.Errorf("UTF-16 text (its byte order mark) cut inside a character: %d bytes after the mark", len(body))
	}
	units := make([]uint16, len(body)/2)
	for i := range units {
		units[i] = order.Uint16(body[2*i:])
	}
	out := make([]byte, 0, len(units)+len(units)/8)
	for _, r := range utf16.Decode(units) {
		out = utf8.AppendRune(out, r)
	}
	return out, nil
}

// InvalidUTF8 returns the line and column (1-based, in bytes) of the
// first byte of data that is not valid UTF-8, and the byte; line 0 when
// data is valid.
func InvalidUTF8(data []byte) (line, col int, b byte) {
	if utf8.Valid(data) {
		return 0, 0, 0
	}
	line, start := 1, 0
	for i := 0; i < len(data); {
		if data[i] == '\n' {
			line, start = line+1, i+1
		}
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return line, i - start + 1, data[i]
		}
		i += n
	}
	return 0, 0, 0
}

// ControlChar returns the line and column (1-based, in bytes) of the
// first control character of data that neither YAML nor JSON text holds
// unescaped (a C0 control other than tab, line feed and carriage return),
// and the byte; line 0 when there is none. kubectl prints none: they come
// from a terminal (the escape sequences of colors) or a copy of binary
// data. (DEL is not one: JSON holds it unescaped.)
func ControlChar(data []byte) (line, col int, b byte) {
	line, start := 1, 0
	for i, c := range data {
		switch {
		case c == '\n':
			line, start = line+1, i+1
		case c < 0x20 && c != '\t' && c != '\r':
			return line, i - start + 1, c
		}
	}
	return 0, 0, 0
}

// ControlCharError is what an error says of the control character b at
// column col (see ControlChar).
func ControlCharError(b byte, col int) string {
	if b == 0x1b {
		return fmt.Sprintf("a terminal escape sequence (ESC, 0x1b) at column %d, such as the colors kubecolor or yq -C add: kubectl prints none; save its output without colors", col)
	}
	return fmt.Sprintf("control character 0x%02x at column %d: YAML text holds none, and kubectl prints none", b, col)
}

// nonJSON are YAML's floats that JSON has no number for.
var nonJSON = regexp.MustCompile(`(?:^|[\s:\-\[{,])([-+]?\.(?:nan|NaN|NAN|inf|Inf|INF))\s*(?:$|[,\]}#])`)

// NonJSONNumber returns the first line (1-based) of lines that holds a
// YAML float JSON cannot (.nan, .inf, -.inf) as a plain value, and that
// value; 0 when there is none.
func NonJSONNumber(lines []string) (int, string) {
	for i, l := range lines {
		if !strings.Contains(l, ".") {
			continue
		}
		if m := nonJSON.FindStringSubmatch(strings.TrimRight(l, "\r\n")); m != nil {
			return i + 1, m[1]
		}
	}
	return 0, ""
}
