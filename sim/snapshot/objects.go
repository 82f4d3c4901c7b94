package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/rollout/defaulting"
	"github.com/deploymath/deploymath/sim/internal/yamlline"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
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
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Items json.RawMessage `json:"items"`
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

// removed are the versions of Deployment and ReplicaSet that Kubernetes
// v1.37 no longer serves, with the release that stopped serving them.
var removed = map[string]string{
	"extensions/v1beta1": "1.16",
	"apps/v1beta1":       "1.16",
	"apps/v1beta2":       "1.16",
}

func (b *builder) document(d document) error {
	src := Source{b.file, d.line}
	var h header
	if err := json.Unmarshal(d.json, &h); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field == "" {
			return errorAt(src, nil, errNotObject)
		}
		return errorAt(src, nil, fieldError(err))
	}
	if d.items != nil && (h.Kind == "List" || strings.HasSuffix(h.Kind, "List")) {
		return b.listItems(src, &h, d.items, d.itemLines)
	}
	if h.Kind == "List" || strings.HasSuffix(h.Kind, "List") && h.Items != nil {
		return b.list(src, &h, d.itemLines)
	}
	return b.object(src, d.json, &h, "", "")
}

// list reads the items of a List (kind List, or a typed list such as
// DeploymentList whose items may omit apiVersion and kind).
func (b *builder) list(src Source, h *header, itemLines []int) error {
	var items []json.RawMessage
	if err := json.Unmarshal(h.Items, &items); err != nil {
		return errorAt(src, &Ref{Kind: h.Kind, Name: h.Metadata.Name}, errors.New("items: want a list of objects"))
	}
	raw := make([][]byte, len(items))
	for i := range items {
		raw[i] = items[i]
	}
	return b.listItems(src, h, raw, itemLines)
}

// listItems reads the items of a List.
func (b *builder) listItems(src Source, h *header, items [][]byte, itemLines []int) error {
	if h.Kind == "List" && h.APIVersion != "v1" {
		return errorAt(src, nil, fmt.Errorf("apiVersion: List of apiVersion %q: want v1", h.APIVersion))
	}
	if len(itemLines) != len(items) {
		itemLines = nil
	}
	var kind, version string
	if h.Kind != "List" {
		kind, version = strings.TrimSuffix(h.Kind, "List"), h.APIVersion
	}
	for i, raw := range items {
		isrc := src
		if itemLines != nil {
			isrc.Line = itemLines[i]
		}
		var ih header
		if err := json.Unmarshal(raw, &ih); err != nil {
			return errorAt(isrc, nil, fmt.Errorf("items[%d]: %w", i, errNotObject))
		}
		if ih.Kind == "List" || strings.HasSuffix(ih.Kind, "List") && ih.Items != nil {
			return errorAt(isrc, nil, fmt.Errorf("items[%d]: a %s inside a List is not supported", i, ih.Kind))
		}
		if err := b.object(isrc, raw, &ih, kind, version); err != nil {
			return err
		}
	}
	return nil
}

// object reads one object. kind and version are a typed list's, for items
// that omit theirs.
func (b *builder) object(src Source, raw []byte, h *header, kind, version string) error {
	if h.Kind == "" {
		h.Kind = kind
	}
	if h.APIVersion == "" && h.Kind == kind {
		h.APIVersion = version
	}
	ref := Ref{Kind: h.Kind, Namespace: h.Metadata.Namespace, Name: h.Metadata.Name}
	if h.Kind == "" {
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
	if h.APIVersion != want {
		if since, old := removed[h.APIVersion]; old && want == "apps/v1" {
			return errorAt(src, &ref, fmt.Errorf("apiVersion: %s %s is not served since Kubernetes %s; this tool models v1.37: convert it to %s (kubectl convert, or change apiVersion and add spec.selector)", h.APIVersion, h.Kind, since, want))
		}
		if h.APIVersion == "" {
			return errorAt(src, &ref, fmt.Errorf("apiVersion: required value (want %s)", want))
		}
		return errorAt(src, &ref, fmt.Errorf("apiVersion: unsupported value %q for %s: want %s", h.APIVersion, h.Kind, want))
	}
	if h.Metadata.Name == "" {
		return errorAt(src, &ref, errors.New("metadata.name: required value"))
	}
	if h.Kind != "Node" && b.opts.Namespace != "" && ref.Namespace != b.opts.Namespace {
		b.snap.OtherNamespaces++
		return nil
	}
	if prev, dup := b.snap.sources[ref]; dup {
		return errorAt(src, &ref, fmt.Errorf("given twice (first at line %d)", prev.Line))
	}
	if err := b.decode(raw, ref); err != nil {
		if p := fieldPath(err.Error()); p != "" && b.lines != nil {
			if l := yamlline.Find(b.lines, src.Line, p); l > 0 {
				src.Line = l
			}
		}
		return errorAt(src, &ref, err)
	}
	b.snap.sources[ref] = src
	return nil
}

// decode decodes raw into the typed object of ref.Kind and adds it.
func (b *builder) decode(raw []byte, ref Ref) error {
	s := b.snap
	switch ref.Kind {
	case "Deployment":
		d := &appsv1.Deployment{}
		if err := strict(raw, d); err != nil {
			return err
		}
		d.Namespace = ref.Namespace
		d = rollout.Default(d)
		if d.Generation == 0 {
			d.Generation = 1 // never stored: the API server's create gives 1
		}
		if err := rollout.Validate(d); err != nil {
			return oneLine(err)
		}
		s.Deployments = append(s.Deployments, d)
	case "ReplicaSet":
		rs := &appsv1.ReplicaSet{}
		if err := strict(raw, rs); err != nil {
			return err
		}
		rs.Namespace = ref.Namespace
		if t := defaulting.PodTemplate(&rs.Spec.Template); t != nil {
			rs.Spec.Template = *t
		}
		if rs.Spec.Replicas == nil {
			rs.Spec.Replicas = new(int32(1)) // the apps/v1 ReplicaSet default
		}
		if *rs.Spec.Replicas < 0 {
			return fmt.Errorf("spec.replicas: invalid value %d: must be greater than or equal to 0", *rs.Spec.Replicas)
		}
		s.ReplicaSets = append(s.ReplicaSets, rs)
	case "Pod":
		p := &corev1.Pod{}
		if err := lenient(raw, p); err != nil {
			return err
		}
		p.Namespace = ref.Namespace
		s.Pods = append(s.Pods, p)
	case "ConfigMap":
		c := &corev1.ConfigMap{}
		if err := lenient(raw, c); err != nil {
			return err
		}
		c.Namespace = ref.Namespace
		s.ConfigMaps = append(s.ConfigMaps, c)
	case "Secret":
		c := &corev1.Secret{}
		if err := lenient(raw, c); err != nil {
			return err
		}
		c.Namespace = ref.Namespace
		s.Secrets = append(s.Secrets, c)
	case "Node":
		n := &corev1.Node{}
		if err := lenient(raw, n); err != nil {
			return err
		}
		s.Nodes = append(s.Nodes, n)
	case "ResourceQuota":
		q := &corev1.ResourceQuota{}
		if err := lenient(raw, q); err != nil {
			return err
		}
		q.Namespace = ref.Namespace
		s.ResourceQuotas = append(s.ResourceQuotas, q)
	}
	return nil
}

// strict decodes as the API server does with strict field validation:
// case-sensitive, no unknown or duplicate fields.
func strict(raw []byte, v any) error {
	errs, err := sigsjson.UnmarshalStrict(raw, v)
	if err != nil {
		return fieldError(err)
	}
	if len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		return fmt.Errorf("%s (not a field of Kubernetes v1.37's %T; it would change the pod-template-hash)", strings.Join(msgs, "; "), v)
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
