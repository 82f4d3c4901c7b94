package kubeyaml

import (
	"strings"
)

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
