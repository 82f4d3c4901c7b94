package kubeyaml

import (
	"strings"
)

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

// indicator reports whether a plain scalar may not start with c.
func indicator(c byte) bool {
	return strings.IndexByte("-?:,[]{}#&*!|>'\"%@`", c) >= 0
}
