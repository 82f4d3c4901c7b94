package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/deploymath/deploymath/sim/internal/yamlline"
)

// getState is what to run instead of pasting parts of objects.
const getState = "kubectl get deploy,rs,pods -o yaml > state.yaml (-n NAMESPACE, or -A) and give that file"

// statusFields are the fields of a Deployment's or ReplicaSet's status:
// top-level keys of a status copied without its "status:" line.
var statusFields = map[string]bool{
	"observedGeneration": true, "replicas": true, "updatedReplicas": true, "readyReplicas": true,
	"availableReplicas": true, "unavailableReplicas": true, "terminatingReplicas": true,
	"fullyLabeledReplicas": true, "conditions": true, "collisionCount": true,
}

// objectPart reports whether k is a top-level field of an object that a
// paste of that part alone starts with.
func objectPart(k string) bool { return k == "status" || k == "spec" || k == "metadata" }

// fragment says what a document without kind and apiVersion is, when it
// is a part of an object (a status: block, a status's fields, a spec or
// metadata), and what to run instead; "" when it is none of these.
func fragment(raw []byte) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil || len(top) == 0 {
		return ""
	}
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	switch {
	case !slices.ContainsFunc(keys, func(k string) bool { return !objectPart(k) }):
		what := "a " + strings.Join(keys, ": and ") + ": block"
		if len(keys) > 1 {
			what = "the " + strings.Join(keys, ":, ") + ": blocks"
		}
		return fmt.Sprintf("%s without the object it belongs to (no apiVersion, kind or metadata.name): explain and a run read whole objects, with their status: %s", what, getState)
	case !slices.ContainsFunc(keys, func(k string) bool { return !statusFields[k] }):
		return fmt.Sprintf("the fields of a status (%s) without the object they belong to: explain and a run read whole objects, with their status: %s", strings.Join(keys, ", "), getState)
	}
	return ""
}

// withoutMetadata is the error of an object of kind without metadata, as
// left by a copy of the part of a dump below its metadata.
func withoutMetadata(kind string) error {
	return fmt.Errorf("metadata: required value: a %s without its metadata (name, namespace, labels, owner references) looks cut out of a dump: %s", kind, getState)
}

// truncatedList is the error of a List that has items but no kind: kubectl
// prints kind: List and metadata after the items, so a paste cut short
// loses them.
func truncatedList(lastLine int) error {
	at := ""
	if lastLine > 0 {
		at = fmt.Sprintf(" (it ends at line %d)", lastLine)
	}
	return fmt.Errorf("kind: required value: a List with items but no kind: List after them, where kubectl prints it: the paste looks truncated%s; give the whole output of %s", at, getState)
}

// KubectlText reports whether data is kubectl's output without whole
// objects: the text of kubectl describe, the table kubectl get prints
// without -o, the lines of kubectl rollout status, or a part of an object
// (a first document whose top-level fields are only status:, spec: or
// metadata:, or a status's fields); or a paste with what YAML cannot hold
// around it (a Markdown code fence, the command line first, what kubectl
// wrote to standard error). Parse refuses such input with an error that
// says what it is and what to do instead; a program that tells Kubernetes
// objects from input of its own (deploysim's scenarios, which have none of
// these fields) sends it to Parse. It reads the first document's top-level
// lines and the first bytes of the others (a flow document is decoded when
// it is no larger than 64 KiB).
func KubectlText(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return len(t) <= 64<<10 && fragment(t) != ""
	}
	lines := strings.SplitAfter(string(data), "\n")
	if _, msg := notObjects(lines); msg != "" {
		return true
	}
	return fragmentKeys(lines)
}

// notObjects recognises the text of kubectl describe, the table of
// kubectl get and the lines of kubectl rollout status by their first line
// with content, and what a paste carries around the objects that YAML
// cannot hold: the command line that printed them, a Markdown code fence
// (from an issue or a chat), what kubectl wrote to standard error (a
// warning, an error, a klog line) mixed in. It returns the line (1-based)
// and what the input is, with what to do instead ("" for any other
// input).
func notObjects(lines []string) (int, string) {
	first := yamlline.LeadingBlank(lines)
	if first < len(lines) {
		if msg := headKind(strings.TrimRight(strings.TrimPrefix(lines[first], "\ufeff"), " \t\r\n"), lines[first+1:]); msg != "" {
			return first + 1, msg
		}
	}
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "```"):
			return i + 1, fmt.Sprintf("a Markdown code fence (%s): give only the text between the fences", strings.TrimRight(l, " \t\r\n"))
		case stderrLine.MatchString(l):
			return i + 1, fmt.Sprintf("a message kubectl wrote to standard error (%s) among its output: save standard output alone (> state.yaml, without 2>&1)", clip(strings.TrimRight(l, " \t\r\n"), 60))
		}
	}
	return 0, ""
}

// headKind is what the input is when its first line with content, head,
// is the command line, a line of kubectl rollout status, the name kubectl
// describe starts with (rest: the lines after it) or the header of kubectl
// get's table, with what to do instead; "" otherwise.
func headKind(head string, rest []string) string {
	switch {
	case commandLine.MatchString(head):
		return fmt.Sprintf("the command line %q before its output: remove that line", head)
	case rolloutStatus.MatchString(head):
		return "the output of kubectl rollout status, which says how far a rollout got but not why: " + getState
	case describeName.MatchString(head):
		// kubectl describe prints Namespace (namespaced kinds) or Labels
		// (Nodes) right below the name.
		for _, l := range rest[:min(len(rest), 3)] {
			if describeField.MatchString(l) {
				return "the text of kubectl describe, which leaves out what explain and a run read (owner references, templates, each pod's state): " + getState
			}
		}
		return ""
	}
	cols := tableGap.Split(head, -1)
	if len(cols) < 2 || head[0] == ' ' {
		return ""
	}
	named := false
	for _, c := range cols {
		if !tableColumn.MatchString(c) {
			return ""
		}
		named = named || c == "NAME" || c == "NAMESPACE" || c == "LAST SEEN"
	}
	if !named {
		return ""
	}
	return fmt.Sprintf("the table kubectl get prints (columns %s), not the objects, which -o yaml prints: %s", strings.Join(cols, ", "), getState)
}

var (
	// commandLine is a shell prompt and a kubectl command, or a kubectl
	// command alone.
	commandLine  = regexp.MustCompile(`^(?:\S*[$%#>]\s*)?(?:kubectl|oc|k)\s+(?:get|describe)\b`)
	describeName = regexp.MustCompile(`^Name:\s+\S`)
	// stderrLine is what kubectl writes to standard error: a warning from
	// the API server, an error, or a klog line (E1127 22:00:01.123456 ...).
	stderrLine = regexp.MustCompile(`^(?:Warning: |Error from server|error: |[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ )`)
	// rolloutStatus is a line kubectl rollout status prints.
	rolloutStatus = regexp.MustCompile(`^(?:Waiting for (?:deployment|rollout) |deployment "[^"]*" successfully rolled out$|error: deployment "[^"]*" exceeded its progress deadline$)`)
	describeField = regexp.MustCompile(`^(Namespace|Labels|CreationTimestamp|Annotations):(\s|$)`)
	// tableGap separates kubectl's columns (two spaces at least);
	// tableColumn is a column's header, such as NAME, UP-TO-DATE,
	// LAST SEEN or CPU(cores).
	tableGap    = regexp.MustCompile(`\s{2,}|\t`)
	tableColumn = regexp.MustCompile(`^[A-Z][A-Z0-9-]*(?: [A-Z0-9-]+)*(?:\([a-z%]+\))?$`)
)

// fragmentKeys reports whether the first document of lines has top-level
// keys and all of them are those of a part of an object (see fragment).
// The top level is the first content line's indentation: the fields of a
// status copied from a dump keep theirs.
func fragmentKeys(lines []string) bool {
	n, indent, first := 0, -1, yamlline.LeadingBlank(lines)
	for i, l := range lines {
		t := strings.TrimRight(l, " \t\r\n")
		if t == "---" || strings.HasPrefix(t, "--- ") {
			if n > 0 || i > first {
				break
			}
			continue
		}
		body := strings.TrimLeft(t, " ")
		if body == "" || body[0] == '#' {
			continue
		}
		if indent < 0 {
			indent = len(t) - len(body)
		}
		if len(t)-len(body) > indent {
			continue
		}
		key, _, ok := strings.Cut(body, ":")
		if len(t)-len(body) < indent || !ok || !(objectPart(key) || statusFields[key]) {
			return false
		}
		n++
	}
	return n > 0
}

// clip shortens s to at most n bytes (at a rune boundary), with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
