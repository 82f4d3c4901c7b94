package kubeyaml

import (
	"strings"
)

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
