package inputlimit

// MaxNesting bounds how deep flow collections ([...] and {...}) may
// nest in an input: far deeper than any Kubernetes object or scenario,
// and far below what the decoders refuse without saying where (JSON's
// 10,000).
const MaxNesting = 1000

// Nesting returns where in data (YAML or JSON) flow collections first
// nest more than MaxNesting deep: the line and column (1-based) of the
// bracket that does; line 0 when they never do. Brackets in quoted
// strings and comments do not count.
func Nesting(data []byte) (line, col int) {
	depth, ln, start := 0, 1, 0
	var quote byte
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c == '\n' {
			ln, start = ln+1, i+1
			continue
		}
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' && (i == start || data[i-1] == ' ' || data[i-1] == '[' || data[i-1] == '{' || data[i-1] == ',' || data[i-1] == ':'):
			quote = c
		case c == '#' && (i == start || data[i-1] == ' '):
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
		case c == '[' || c == '{':
			if depth++; depth > MaxNesting {
				return ln, i - start + 1
			}
		case c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return 0, 0
}
