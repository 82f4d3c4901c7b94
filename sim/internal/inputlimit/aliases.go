package inputlimit

import (
	"bytes"
	"math"
)

// Expanded returns the size of YAML text data once every alias (*name) is
// replaced by the text of the node its anchor (&name) marks, the aliases
// inside that node expanded too: about the size of what a decoder makes
// of it, which a few kilobytes of nested aliases can make gigabytes ("a
// billion laughs"). It reads the text without decoding it, in one pass:
// an anchored node ends where the YAML layout ends it (a line indented no
// deeper than its parent, the bracket that closes a flow collection, the
// end of a scalar). Quoted scalars, block scalars and comments are
// skipped; an alias whose anchor is not defined expands to nothing. For
// input without aliases (JSON included) it is len(data). The result is
// capped at MaxInt64.
func Expanded(data []byte) int64 {
	if bytes.IndexByte(data, '*') < 0 {
		return int64(len(data))
	}
	s := aliasScanner{data: data, anchors: map[string]*anchor{}}
	s.scan()
	return sat(int64(len(data)), s.extra)
}

// sat is a+b capped at MaxInt64 (both non-negative).
func sat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// anchorKind says how an anchored node ends.
type anchorKind int

const (
	// blockNode ends before the first line indented at most indent (a
	// line "- ..." at indent continues it when seq is set: a block
	// sequence that is a mapping's value may sit at the key's indent).
	blockNode anchorKind = iota
	// flowNode ends at the bracket that brings the flow depth back to
	// depth.
	flowNode
	// scalarNode ends with its scalar.
	scalarNode
)

// anchor is an anchored node: open while the scan is inside it, then its
// expanded size.
type anchor struct {
	kind   anchorKind
	indent int
	seq    bool
	depth  int
	// start is the offset where the node's text starts; extraAtStart the
	// scan's extra then: the aliases inside it add extra - extraAtStart.
	start        int
	extraAtStart int64
	closed       bool
	size         int64
}

// aliasScanner walks YAML text as its layout goes: indentation, flow
// brackets, quoted and block scalars, comments and plain scalars, enough
// to find anchors, aliases and the ends of anchored nodes.
type aliasScanner struct {
	data    []byte
	anchors map[string]*anchor
	open    []*anchor
	// extra is the sum, over the aliases scanned so far, of the size each
	// adds (its anchor's expanded size, less the alias itself).
	extra int64

	depth int // flow depth
	// blockIndent >= 0: the lines indented deeper than it are a block
	// scalar's content.
	blockIndent int
	// quote is the quote character of a quoted scalar continued on the
	// next line, 0 when none.
	quote byte
	// nodeStart says the next token starts a node (where an anchor,
	// an alias, a tag or a scalar may begin); parent and seq are what a
	// block node starting there is nested in (see anchor).
	nodeStart bool
	parent    int
	seq       bool
}

func (s *aliasScanner) scan() {
	s.blockIndent = -1
	data := s.data
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += pos
		}
		s.line(pos, end)
		pos = end + 1
	}
	s.closeAll(len(data))
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// line scans data[from:to], one line without its newline.
func (s *aliasScanner) line(from, to int) {
	data := s.data
	i := from
	for i < to && data[i] == ' ' {
		i++
	}
	indent := i - from
	blank := i == to || isSpace(data[i]) && onlySpace(data[i:to]) || data[i] == '#'
	if s.blockIndent >= 0 {
		if blank || indent > s.blockIndent {
			return
		}
		s.blockIndent = -1
	}
	if s.quote != 0 {
		i = s.quoted(from, to, s.quote)
		if s.quote != 0 {
			return
		}
	} else if s.depth == 0 {
		if blank {
			return
		}
		if indent == 0 && (hasMarker(data[from:to], "---") || hasMarker(data[from:to], "...")) {
			// A new document: its anchors are its own.
			s.closeAll(from)
			clear(s.anchors)
			s.depth = 0
			i = from + 3
			s.nodeStart, s.parent, s.seq = true, -1, false
		} else {
			s.closeBlocks(from, indent, data[i] == '-' && (i+1 == to || isSpace(data[i+1])))
			s.nodeStart, s.parent, s.seq = true, indent-1, false
		}
	}
	s.tokens(i, to)
	if s.depth == 0 && s.quote == 0 {
		// A plain scalar, and the scalar anchors on it, end with the
		// line (multi-line plain scalars are not followed).
		s.endScalar(to)
	}
}

func onlySpace(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// hasMarker reports whether line is the document marker m ("---", "..."),
// alone or followed by a space.
func hasMarker(line []byte, m string) bool {
	return bytes.HasPrefix(line, []byte(m)) && (len(line) == len(m) || isSpace(line[len(m)]))
}

// tokens scans data[i:to] outside quoted scalars that started before.
func (s *aliasScanner) tokens(i, to int) {
	data := s.data
	keyCol := -1 // column where the current plain or quoted scalar started
	lineStart := i
	for lineStart > 0 && data[lineStart-1] != '\n' {
		lineStart--
	}
	for i < to {
		c := data[i]
		if isSpace(c) {
			i++
			continue
		}
		col := i - lineStart
		if c == '#' && (i == lineStart || isSpace(data[i-1])) {
			return
		}
		if s.nodeStart {
			switch {
			case c == '&':
				name, j := s.name(i + 1)
				for j < to && isSpace(data[j]) {
					j++
				}
				s.openAnchor(name, j, to)
				i = j
				continue
			case c == '*':
				name, j := s.name(i + 1)
				s.alias(name, j-i, i)
				s.nodeStart, keyCol = false, col
				i = j
				continue
			case c == '!':
				for i < to && !isSpace(data[i]) {
					i++
				}
				continue
			case (c == '-' || c == '?' || c == ':') && s.depth == 0 && (i+1 == to || isSpace(data[i+1])):
				s.parent, s.seq = col, false
				i++
				continue
			case (c == '|' || c == '>') && s.depth == 0:
				// A block scalar: its content is the lines deeper than
				// its parent.
				s.blockIndent = s.parent
				return
			case c == '\'' || c == '"':
				keyCol = col
				s.nodeStart = false
				i = s.quoted(i+1, to, c)
				if s.quote != 0 {
					return
				}
				continue
			case c == '[' || c == '{':
				s.depth++
				i++
				continue
			}
		}
		switch {
		case c == ']' || c == '}':
			s.endScalar(i)
			if s.depth > 0 {
				s.depth--
			}
			s.closeFlows(i + 1)
			s.nodeStart = false
			i++
		case c == ',' && s.depth > 0:
			s.endScalar(i)
			s.nodeStart = true
			i++
		case c == ':' && (i+1 == to || isSpace(data[i+1]) || s.depth > 0 && isFlowChar(data[i+1])):
			s.endScalar(i)
			s.nodeStart = true
			if s.depth == 0 {
				if keyCol < 0 {
					keyCol = col
				}
				s.parent, s.seq = keyCol, true
			}
			keyCol = -1
			i++
		default:
			if s.nodeStart {
				s.nodeStart, keyCol = false, col
			}
			i++
		}
	}
}

func isFlowChar(c byte) bool { return c == ',' || c == '[' || c == ']' || c == '{' || c == '}' }

// name reads an anchor's or alias's name from i: up to a space or a flow
// indicator.
func (s *aliasScanner) name(i int) (string, int) {
	j := i
	for j < len(s.data) && s.data[j] != '\n' && !isSpace(s.data[j]) && !isFlowChar(s.data[j]) {
		j++
	}
	return string(s.data[i:j]), j
}

// quoted scans a quoted scalar from i (after its opening quote q) to its
// closing quote on this line, returning the offset after it; when the
// line ends first, s.quote keeps q for the next lines.
func (s *aliasScanner) quoted(i, to int, q byte) int {
	data := s.data
	for i < to {
		switch {
		case q == '"' && data[i] == '\\':
			i += 2
			continue
		case data[i] == q && q == '\'' && i+1 < to && data[i+1] == '\'':
			i += 2
			continue
		case data[i] == q:
			s.quote = 0
			s.nodeStart = false
			s.endScalar(i + 1)
			return i + 1
		}
		i++
	}
	s.quote = q
	return to
}

// openAnchor opens the anchor name whose node starts at offset at (after
// the anchor and its spaces), on a line that ends at to.
func (s *aliasScanner) openAnchor(name string, at, to int) {
	a := &anchor{start: at, extraAtStart: s.extra, indent: s.parent, seq: s.seq, depth: s.depth}
	c := byte('#') // nothing more on the line
	if at < to {
		c = s.data[at]
	}
	switch {
	case c == '[' || c == '{':
		a.kind = flowNode
	case s.depth > 0:
		a.kind = scalarNode
	case c == '#' || c == '|' || c == '>':
		// The node is on the lines that follow (a block scalar's
		// content too).
		a.kind = blockNode
	default:
		a.kind = scalarNode
	}
	s.anchors[name] = a
	s.open = append(s.open, a)
}

// alias adds what the alias of name, n bytes long at offset at, expands to.
func (s *aliasScanner) alias(name string, n, at int) {
	a := s.anchors[name]
	if a == nil {
		return
	}
	size := a.size
	if !a.closed {
		// An alias inside its own anchor's node (which decoders refuse):
		// the node so far.
		size = sat(int64(at-a.start), s.extra-a.extraAtStart)
	}
	s.extra = sat(s.extra, max(size-int64(n), 0))
}

func (s *aliasScanner) close(a *anchor, end int) {
	a.closed = true
	a.size = sat(int64(max(end-a.start, 0)), s.extra-a.extraAtStart)
}

// closeBlocks closes, at offset at, the block nodes a line indented
// indent ends (seqEntry: the line is a block sequence entry).
func (s *aliasScanner) closeBlocks(at, indent int, seqEntry bool) {
	for len(s.open) > 0 {
		a := s.open[len(s.open)-1]
		if a.kind == blockNode && a.depth == 0 && (indent > a.indent || indent == a.indent && a.seq && seqEntry) {
			return
		}
		if a.kind == flowNode && a.depth < s.depth {
			return
		}
		s.close(a, at)
		s.open = s.open[:len(s.open)-1]
	}
}

// closeFlows closes, at offset at (after a closing bracket), the flow
// nodes whose collection ended.
func (s *aliasScanner) closeFlows(at int) {
	for len(s.open) > 0 {
		a := s.open[len(s.open)-1]
		if a.kind == flowNode && a.depth < s.depth || a.kind == blockNode && a.depth <= s.depth {
			return
		}
		s.close(a, at)
		s.open = s.open[:len(s.open)-1]
	}
}

// endScalar closes, at offset at, the scalar anchors of the current
// flow depth: their scalar has ended.
func (s *aliasScanner) endScalar(at int) {
	for len(s.open) > 0 {
		a := s.open[len(s.open)-1]
		if a.kind != scalarNode || a.depth != s.depth || at < a.start {
			return
		}
		s.close(a, at)
		s.open = s.open[:len(s.open)-1]
	}
}

func (s *aliasScanner) closeAll(at int) {
	for i := len(s.open) - 1; i >= 0; i-- {
		s.close(s.open[i], at)
	}
	s.open = s.open[:0]
}
