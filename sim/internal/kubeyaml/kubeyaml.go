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
//
// By file: kubeyaml.go (Convert, ConvertObject and the checks of the
// input's lines), parser.go (block mappings and sequences), top.go (what
// a top-level mapping tells the caller: [Top]), key.go (mapping keys),
// scalar.go (one-line and folded scalars), quoted.go (double- and
// single-quoted scalars), blockscalar.go (literal block scalars),
// resolve.go (what a plain scalar resolves to, and JSON strings).
package kubeyaml

import (
	"errors"
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
