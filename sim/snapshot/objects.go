package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/deploymath/deploymath/sim/internal/apivalidation"
	"github.com/deploymath/deploymath/sim/internal/kubeyaml"
	"github.com/deploymath/deploymath/sim/internal/yamlline"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsjson "sigs.k8s.io/json"
)

// builder collects the objects of one input.
type builder struct {
	file string
	opts Options
	snap *Snapshot
	// lines are the input's lines when it is YAML (nil for JSON): an
	// error names the line of the field at fault when it can be found.
	lines []string
}

// header is what is read of every object before its kind is known.
type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Metadata is nil when the object has none.
	Metadata *struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Items json.RawMessage `json:"items"`
}

// headerOf fills h from top, what kubeyaml read of an object's top-level
// fields; false when it cannot (top is nil or Odd).
func headerOf(top *kubeyaml.Top, h *header) bool {
	if top == nil || top.Odd {
		return false
	}
	*h = header{APIVersion: top.APIVersion, Kind: top.Kind}
	if top.Metadata {
		h.Metadata = &struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		}{top.Name, top.Namespace}
	}
	if top.Items {
		// Only whether there are items is read of an item (a List in a
		// List is refused).
		h.Items = json.RawMessage("[]")
	}
	return true
}

// readHeader is json.Unmarshal(raw, h), with the same result and the same
// success, for raw, a List's item: it decodes only the members a header
// holds, found by their keys (matched as json.Unmarshal matches them,
// ignoring case; a later key wins), instead of the whole object. The
// item's JSON is valid (read from a valid List, or converted from YAML);
// anything that is not a plain object, and keys with escapes or other
// than ASCII letters, are left to json.Unmarshal.
func readHeader(raw []byte, h *header) error {
	var buf [8][4]int
	ms, ok := members(raw, buf[:0])
	if !ok {
		return json.Unmarshal(raw, h)
	}
	*h = header{}
	var errs error
	for _, m := range ms {
		key := raw[m[0]+1 : m[1]-1]
		if !asciiLetters(key) {
			return json.Unmarshal(raw, h)
		}
		v := raw[m[2]:m[3]]
		var to any
		switch {
		case bytes.EqualFold(key, []byte("apiVersion")):
			if plainString(v, &h.APIVersion) {
				continue
			}
			to = &h.APIVersion
		case bytes.EqualFold(key, []byte("kind")):
			if plainString(v, &h.Kind) {
				continue
			}
			to = &h.Kind
		case bytes.EqualFold(key, []byte("metadata")):
			if readMetadata(v, h) {
				continue
			}
			to = &h.Metadata
		case bytes.EqualFold(key, []byte("items")):
			to = &h.Items
		default:
			continue
		}
		if err := json.Unmarshal(v, to); err != nil && errs == nil {
			errs = err
		}
	}
	return errs
}

// readMetadata is json.Unmarshal(v, &h.Metadata) for v, a metadata
// object whose name and namespace, if it has them, are plain strings:
// only those members are decoded (the others, labels, annotations,
// managed fields, are not read). False, with h unchanged, for anything
// else, left to json.Unmarshal.
func readMetadata(v []byte, h *header) bool {
	var buf [8][4]int
	ms, ok := members(v, buf[:0])
	if !ok {
		return false
	}
	var name, namespace *string
	var nameV, namespaceV string
	for _, m := range ms {
		key := v[m[0]+1 : m[1]-1]
		if !asciiLetters(key) {
			return false
		}
		var to *string
		switch {
		case bytes.EqualFold(key, []byte("name")):
			name, to = &nameV, &nameV
		case bytes.EqualFold(key, []byte("namespace")):
			namespace, to = &namespaceV, &namespaceV
		default:
			continue
		}
		if !plainString(v[m[2]:m[3]], to) {
			return false // null, another type, escapes: json.Unmarshal's
		}
	}
	if h.Metadata == nil {
		h.Metadata = &struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		}{}
	}
	if name != nil {
		h.Metadata.Name = *name
	}
	if namespace != nil {
		h.Metadata.Namespace = *namespace
	}
	return true
}

// plainString is json.Unmarshal(v, to) for v, a JSON string without
// escapes: it sets *to to its text. False, with *to unchanged, for
// anything else.
func plainString(v []byte, to *string) bool {
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 {
		return false
	}
	*to = string(v[1 : len(v)-1])
	return true
}

// asciiLetters reports whether key holds only ASCII letters.
func asciiLetters(key []byte) bool {
	for _, c := range key {
		if c < 'A' || c > 'z' || c > 'Z' && c < 'a' {
			return false
		}
	}
	return true
}

func (h *header) name() string {
	if h.Metadata == nil {
		return ""
	}
	return h.Metadata.Name
}

func (h *header) namespace() string {
	if h.Metadata == nil {
		return ""
	}
	return h.Metadata.Namespace
}

// kinds are the kinds read, with the apiVersion each must have.
var kinds = map[string]string{
	"Deployment": "apps/v1",
	"ReplicaSet": "apps/v1",
	"Pod":        "v1",
	"ConfigMap":  "v1",
	"Secret":     "v1",
	"Node":       "v1",
	// ResourceQuota: its hard limit on pods stops ReplicaSets creating
	// pods (kubectl get deploy,rs,pods,resourcequota -o yaml).
	"ResourceQuota": "v1",
}

func (b *builder) document(d document) error {
	src := Source{b.file, d.line}
	var h header
	if err := json.Unmarshal(d.json, &h); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field == "" && te.Value == "array" {
			// A sequence of objects: read as a List's items.
			var items []json.RawMessage
			if json.Unmarshal(d.json, &items) != nil {
				return errorAt(src, nil, errNotObject)
			}
			raw := make([][]byte, len(items))
			for i := range items {
				raw[i] = items[i]
			}
			return b.listItems(src, &header{APIVersion: "v1", Kind: "List"}, raw, d.itemLines, nil, false)
		}
		if errors.As(err, &te) && te.Field == "" {
			return errorAt(src, nil, errNotObject)
		}
		return errorAt(src, nil, fieldError(err))
	}
	if h.Kind == "" && h.Items != nil && h.APIVersion != "" {
		return errorAt(src, nil, truncatedList(d.lastLine))
	}
	if d.items != nil && (h.Kind == "List" || strings.HasSuffix(h.Kind, "List")) {
		return b.listItems(src, &h, d.items, d.itemLines, d.tops, d.unchecked)
	}
	if h.Kind == "List" || strings.HasSuffix(h.Kind, "List") && h.Items != nil {
		return b.list(src, &h, d.itemLines)
	}
	return b.object(src, d.json, &h, "", "", nil)
}

// list reads the items of a List (kind List, or a typed list such as
// DeploymentList whose items may omit apiVersion and kind).
func (b *builder) list(src Source, h *header, itemLines []int) error {
	var items []json.RawMessage
	if err := json.Unmarshal(h.Items, &items); err != nil {
		return errorAt(src, &Ref{Kind: h.Kind, Name: h.name()}, errors.New("items: want a list of objects"))
	}
	raw := make([][]byte, len(items))
	for i := range items {
		raw[i] = items[i]
	}
	return b.listItems(src, h, raw, itemLines, nil, false)
}

// listItems reads the items of a List; tops, when not nil, hold what
// kubeyaml read of each item's top-level fields (nil for an item it did
// not convert). A large List's items are decoded on every core first
// (decodeItems); then, one by one in order, checked and added, so that
// the result and the first error are those of a reading in order.
// unchecked says the items are not known to be valid JSON (see jsonList):
// decodeItems checks them, and listItems returns errUnchecked, having
// added nothing, when one is not.
func (b *builder) listItems(src Source, h *header, items [][]byte, itemLines []int, tops []*kubeyaml.Top, unchecked bool) error {
	if len(itemLines) != len(items) {
		itemLines = nil
	}
	var kind, version string
	if h.Kind != "List" {
		kind, version = strings.TrimSuffix(h.Kind, "List"), h.APIVersion
	}
	srcOf := func(i int) Source {
		isrc := src
		if itemLines != nil {
			isrc.Line = itemLines[i]
		}
		return isrc
	}
	// Decoding adds nothing, so that it can come before the List's own
	// check, after which the input is known to be valid JSON.
	heads, pre, valid := b.decodeItems(items, tops, kind, version, srcOf, unchecked)
	if !valid {
		return errUnchecked
	}
	if h.Kind == "List" && h.APIVersion != "v1" {
		return errorAt(src, nil, fmt.Errorf("apiVersion: List of apiVersion %q: want v1", h.APIVersion))
	}
	for i, raw := range items {
		isrc := srcOf(i)
		var ih header
		switch {
		case heads != nil && heads[i].ok:
			ih = heads[i].h
		case i < len(tops) && headerOf(tops[i], &ih):
		default:
			if err := readHeader(raw, &ih); err != nil {
				return errorAt(isrc, nil, fmt.Errorf("items[%d]: %w", i, errNotObject))
			}
		}
		if ih.Kind == "List" || strings.HasSuffix(ih.Kind, "List") && ih.Items != nil {
			return errorAt(isrc, nil, fmt.Errorf("items[%d]: a %s inside a List is not supported", i, ih.Kind))
		}
		var d *decoded
		if pre != nil {
			d = pre[i]
		}
		if err := b.object(isrc, raw, &ih, kind, version, d); err != nil {
			return err
		}
	}
	return nil
}

// object reads one object. kind and version are a typed list's, for items
// that omit theirs; pre, when not nil, is the object decoded already
// (from raw, for ref: see listItems).
func (b *builder) object(src Source, raw []byte, h *header, kind, version string, pre *decoded) error {
	if h.Kind == "" {
		h.Kind = kind
	}
	if h.APIVersion == "" && h.Kind == kind {
		h.APIVersion = version
	}
	ref := Ref{Kind: h.Kind, Namespace: h.namespace(), Name: h.name()}
	if h.Kind == "" {
		if h.APIVersion == "" {
			if what := fragment(raw); what != "" {
				return errorAt(src, nil, errors.New(what))
			}
		}
		return errorAt(src, nil, errors.New("kind: required value (want Deployment, ReplicaSet, Pod, ConfigMap, Secret, Node, ResourceQuota or a List of them)"))
	}
	want, ok := kinds[h.Kind]
	if !ok {
		b.snap.Ignored[h.Kind]++
		return nil
	}
	if h.Kind == "Node" {
		if ref.Namespace != "" {
			return errorAt(src, &ref, errors.New("metadata.namespace: a Node has no namespace"))
		}
	} else if ref.Namespace == "" {
		ref.Namespace = b.opts.Namespace
		if ref.Namespace == "" {
			ref.Namespace = metav1.NamespaceDefault
		}
	}
	var note string
	if h.APIVersion != want {
		switch kinds, old := oldVersions[h.APIVersion]; {
		case old && kinds[h.Kind]:
			if h.Metadata == nil {
				return errorAt(src, nil, withoutMetadata(h.Kind))
			}
			conv, n, err := convert(raw, h.Kind, h.APIVersion)
			if err != nil {
				return b.fieldErrorAt(src, ref, err)
			}
			raw, note, h.APIVersion = conv, n, want
		case old && want == "apps/v1":
			return errorAt(src, &ref, fmt.Errorf("apiVersion: %s has no %s: want %s", h.APIVersion, h.Kind, want))
		}
	}
	if h.APIVersion != want {
		if h.APIVersion == "" {
			return errorAt(src, &ref, fmt.Errorf("apiVersion: required value (want %s)", want))
		}
		return errorAt(src, &ref, fmt.Errorf("apiVersion: unsupported value %q for %s: want %s", h.APIVersion, h.Kind, want))
	}
	if h.Metadata == nil {
		return errorAt(src, nil, withoutMetadata(h.Kind))
	}
	if h.name() == "" {
		return errorAt(src, &ref, errors.New("metadata.name: required value"))
	}
	if h.Kind != "Node" && b.opts.Namespace != "" && ref.Namespace != b.opts.Namespace {
		b.snap.OtherNamespaces++
		return nil
	}
	if prev, dup := b.snap.sources[ref]; dup {
		return errorAt(src, &ref, fmt.Errorf("given twice (first at line %d)", prev.Line))
	}
	if note != "" {
		b.note(src, ref, note)
	}
	d := pre
	if d == nil || note != "" {
		d = decodeObject(raw, src, ref)
	}
	if d.err != nil {
		return b.fieldErrorAt(src, ref, d.err)
	}
	b.add(d)
	b.snap.sources[ref] = src
	return nil
}

// fieldErrorAt is err of the object ref that starts at src, at the line
// of the field it names when that can be found.
func (b *builder) fieldErrorAt(src Source, ref Ref, err error) error {
	if p := fieldPath(err.Error()); p != "" && b.lines != nil {
		if l := yamlline.Find(b.lines, src.Line, p); l > 0 {
			src.Line = l
			if mark := elided(b.lines, l); mark != "" {
				err = fmt.Errorf("%w: the paste leaves it out (%q): delete the field with its lines, or give it whole", err, mark)
			}
		}
	}
	return errorAt(src, &ref, err)
}

// elided returns the mark ("..." or "…") a paste left in place of the
// value of the field at line (1-based) of lines, on its line or alone on
// the next, "" when there is none.
func elided(lines []string, line int) string {
	isMark := func(v string) bool { return v == "..." || v == "…" }
	_, v, _ := strings.Cut(lines[line-1], ":")
	if v = strings.TrimSpace(v); isMark(v) {
		return v
	}
	if v == "" && line < len(lines) {
		if next := strings.TrimSpace(lines[line]); isMark(next) {
			return next
		}
	}
	return ""
}

// note records what was done to read the object ref that starts at src.
func (b *builder) note(src Source, ref Ref, text string) {
	b.snap.Notes = append(b.snap.Notes, fmt.Sprintf("%s: %s: %s", src, ref, text))
}

// refused renders the problems the API server's validation finds, in its
// words, with what it means here.
func refused(errs []apivalidation.Error) error {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return fmt.Errorf("%s (the API server refuses such an object)", strings.Join(msgs, "; "))
}

// raiseReady reads a status written before readyReplicas existed, whose
// ready count is below its available count (which the API server now
// refuses), with ready raised to available, and notes it.
func raiseReady(ready *int32, available int32, note func(string)) {
	if available > *ready {
		note(readyNote(*ready, available))
		*ready = available
	}
}

// readyNote says why a status's readyReplicas was raised to its
// availableReplicas.
func readyNote(ready, available int32) string {
	return fmt.Sprintf("status.readyReplicas %d is below status.availableReplicas %d, which the API server now refuses in a status write "+
		"(a status written by a Kubernetes that did not report ready replicas?): read as readyReplicas %d, as the controllers' next status writes would report it", ready, available, available)
}

// strict decodes as the API server does with strict field validation:
// case-sensitive, no unknown or duplicate fields.
func strict(raw []byte, v any) error {
	return strictAs(raw, v, fmt.Sprintf("Kubernetes v1.37's %T", v))
}

// strictAs is strict, naming what v is in errors about unknown fields.
func strictAs(raw []byte, v any, what string) error {
	errs, err := sigsjson.UnmarshalStrict(raw, v)
	if err != nil {
		return fieldError(err)
	}
	if len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		return fmt.Errorf("%s (not a field of %s; it would change the pod-template-hash)", strings.Join(msgs, "; "), what)
	}
	return nil
}

// lenient decodes case-sensitively, ignoring unknown fields.
func lenient(raw []byte, v any) error {
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw, v); err != nil {
		return fieldError(err)
	}
	return nil
}

var typeError = regexp.MustCompile(`^json: cannot unmarshal (.+) into Go struct field \w*\.(\S+) of type (\S+)$`)

// fieldError rewords the JSON decoder's type error to start with the
// field path: "spec.replicas: cannot unmarshal string into int32".
func fieldError(err error) error {
	msg := err.Error()
	if m := typeError.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s: cannot unmarshal %s into %s", m[2], m[1], m[3])
	}
	return errors.New(strings.TrimPrefix(msg, "json: "))
}

// oneLine joins the lines of a joined error with "; ".
func oneLine(err error) error {
	return errors.New(strings.ReplaceAll(err.Error(), "\n", "; "))
}
