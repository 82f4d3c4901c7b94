package kubeyaml

import (
	"strconv"
	"strings"
)

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
