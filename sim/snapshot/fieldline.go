package snapshot

import (
	"regexp"
	"strings"
)

// fieldPath finds the field path an error message names: `unknown field
// "spec.x"`, `duplicate field "spec.x"`, or a message starting with
// "spec.x: ". "" when it names none.
func fieldPath(msg string) string {
	if m := quotedField.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	if p, _, ok := strings.Cut(msg, ": "); ok && fieldLike.MatchString(p) {
		return p
	}
	return ""
}

var (
	quotedField = regexp.MustCompile(`(?:unknown|duplicate) field "([^"]+)"`)
	fieldLike   = regexp.MustCompile(`^[a-zA-Z]+(?:\[\d+\])?(?:\.[a-zA-Z0-9_./-]+(?:\[\d+\])?)*$`)
)
