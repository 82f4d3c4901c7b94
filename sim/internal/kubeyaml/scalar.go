package kubeyaml

import (
	"strings"
)

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
