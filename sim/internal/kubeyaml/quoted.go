package kubeyaml

import (
	"strconv"
	"strings"
)

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
