package snapshot

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/deploymath/deploymath/sim/internal/inputlimit"
	"github.com/deploymath/deploymath/sim/internal/yamlline"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxBytes bounds the input of [Read] and [Parse], as read and with its
// YAML aliases expanded: 64 MiB, room for the dump of about 24,000 pods as
// kubectl prints them (2.7 KiB each without managedFields, twice that
// with). Larger input is refused before it is parsed, with the error
// deploysim gives wherever it reads cluster state or manifests (explain,
// a what-happens-next run, -from). A List as kubectl prints it is
// converted item by item; see sim/BENCHMARKS.md for the time and memory
// of reading dumps of that size.
const MaxBytes = inputlimit.StateMax

// Options select what [Read] keeps.
type Options struct {
	// Namespace keeps only the objects of this namespace (Nodes, which
	// have none, are always kept); "" keeps every namespace. An object
	// without a namespace is put in this one, or in "default" when it is
	// empty.
	Namespace string
}

// Snapshot is the state of a cluster as read from a dump: typed objects,
// each list sorted by namespace and name. The objects belong to the
// Snapshot; treat them as read-only (as objects from an informer cache)
// and DeepCopy before changing one.
type Snapshot struct {
	// Deployments, defaulted as the API server stores them and valid
	// ([rollout.Validate]).
	Deployments []*appsv1.Deployment
	// ReplicaSets, their templates defaulted.
	ReplicaSets []*appsv1.ReplicaSet
	// Pods, as read.
	Pods []*corev1.Pod
	// ConfigMaps, Secrets, Nodes and ResourceQuotas, as read.
	ConfigMaps     []*corev1.ConfigMap
	Secrets        []*corev1.Secret
	Nodes          []*corev1.Node
	ResourceQuotas []*corev1.ResourceQuota
	// Ignored counts the objects of other kinds that were skipped, by
	// kind ("Service": 2).
	Ignored map[string]int
	// OtherNamespaces counts the objects skipped because they are not in
	// [Options].Namespace.
	OtherNamespaces int
	// Notes say what was done to read an object as a v1.37 API server
	// holds it, each naming the input, line and object: an object of an
	// old apiVersion converted, a status made one the API server accepts.
	Notes []string

	sources map[Ref]Source
}

// Ref names an object: its kind, namespace ("" for a Node) and name.
type Ref struct {
	Kind, Namespace, Name string
}

// String renders the reference as errors do: "Deployment shop/web",
// "Node node-1".
func (r Ref) String() string {
	if r.Namespace == "" {
		return r.Kind + " " + r.Name
	}
	return r.Kind + " " + r.Namespace + "/" + r.Name
}

// Source is where an object was read: the input's name and the line where
// the object starts (1-based; 0 when unknown).
type Source struct {
	File string
	Line int
}

// String renders the source as errors do: "state.yaml: line 12".
func (s Source) String() string {
	if s.Line > 0 {
		return fmt.Sprintf("%s: line %d", s.File, s.Line)
	}
	return s.File
}

// Source returns where the object r was read; the zero Source when it is
// not in the snapshot.
func (s *Snapshot) Source(r Ref) Source { return s.sources[r] }

// ReadFile reads a snapshot from the file at path (see [Read]); a file
// larger than [MaxBytes] is refused before it is read.
func ReadFile(path string, o Options) (*Snapshot, error) {
	data, err := inputlimit.ReadFile(path, inputlimit.State)
	if err != nil {
		return nil, err
	}
	return Parse(data, path, o)
}

// Read reads a snapshot from r: YAML (one or several documents, each an
// object or a List) or JSON (one or several objects, each an object or a
// List). name names the input in errors ("<stdin>" when empty). See the
// package documentation for what is kept, defaulted and refused.
func Read(r io.Reader, name string, o Options) (*Snapshot, error) {
	if name == "" {
		name = "<stdin>"
	}
	data, err := inputlimit.Read(r, name, 0, inputlimit.State)
	if err != nil {
		return nil, err
	}
	return Parse(data, name, o)
}

// Parse is [Read] of data held in memory. data is not modified.
func Parse(data []byte, name string, o Options) (*Snapshot, error) {
	if name == "" {
		name = "<stdin>"
	}
	if err := inputlimit.Check(data, name, inputlimit.State); err != nil {
		return nil, err
	}
	data, err := yamlline.FromUTF16(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if line, col, c := yamlline.InvalidUTF8(data); line > 0 {
		return nil, fmt.Errorf("%s: line %d: byte 0x%02x at column %d is not UTF-8: kubectl prints UTF-8 text", name, line, c, col)
	}
	if line, col, c := yamlline.ControlChar(data); line > 0 {
		return nil, fmt.Errorf("%s: line %d: %s", name, line, yamlline.ControlCharError(c, col))
	}
	isJSON := false
	if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		isJSON = true
		if d, ok := jsonList(data); ok {
			// A whole cluster's List, its items checked as they are
			// decoded; read as any other input when one is not valid.
			b := newBuilder(name, o, len(d.items))
			if err := b.document(d); !errors.Is(err, errUnchecked) {
				if err != nil {
					return nil, err
				}
				b.snap.sort()
				return b.snap, nil
			}
		}
	}
	if line, col := inputlimit.Nesting(data); line > 0 {
		return nil, fmt.Errorf("%s: line %d: [ and { nested more than %d deep at column %d (inputlimit.MaxNesting)", name, line, inputlimit.MaxNesting, col)
	}
	b := newBuilder(name, o, 0)
	var docs []document
	if isJSON {
		docs, err = jsonDocuments(data)
	} else {
		b.lines = strings.SplitAfter(string(data), "\n")
		if line, msg := notObjects(b.lines); msg != "" {
			return nil, errorAt(Source{name, line}, nil, errors.New(msg))
		}
		docs, err = yamlDocuments(b.lines)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for _, d := range docs {
		if err := b.document(d); err != nil {
			return nil, err
		}
	}
	b.snap.sort()
	return b.snap, nil
}

// newBuilder is the builder of the input name, read with o, for about
// objects objects.
func newBuilder(name string, o Options, objects int) *builder {
	return &builder{file: name, opts: o, snap: &Snapshot{Ignored: map[string]int{}, sources: make(map[Ref]Source, objects)}}
}

func byNamespaceName[T metav1.Object](a, b T) int {
	return cmp.Or(strings.Compare(a.GetNamespace(), b.GetNamespace()), strings.Compare(a.GetName(), b.GetName()))
}

func (s *Snapshot) sort() {
	sortByNamespaceName(s.Deployments)
	sortByNamespaceName(s.ReplicaSets)
	sortByNamespaceName(s.Pods)
	sortByNamespaceName(s.ConfigMaps)
	sortByNamespaceName(s.Secrets)
	sortByNamespaceName(s.Nodes)
	sortByNamespaceName(s.ResourceQuotas)
}

// sortByNamespaceName sorts objs by namespace and name, stably; a dump
// as kubectl prints it is sorted already, which one pass finds.
func sortByNamespaceName[T metav1.Object](objs []T) {
	if !slices.IsSortedFunc(objs, byNamespaceName) {
		slices.SortStableFunc(objs, byNamespaceName)
	}
}

// Latest is the latest instant recorded in the snapshot, the best guess of
// when it was taken: the latest of every object's creationTimestamp and
// managedFields times, the Deployments', ReplicaSets', Pods' and Nodes'
// condition times (lastUpdateTime, lastTransitionTime, lastProbeTime,
// lastHeartbeatTime), the pods' startTime and their containers' started
// and finished times. A deletionTimestamp is not counted: it lies in the
// future by the grace period. The zero time when the snapshot holds none
// (bare manifests).
func (s *Snapshot) Latest() time.Time {
	var latest time.Time
	t := func(ts metav1.Time) {
		if ts.After(latest) {
			latest = ts.Time
		}
	}
	meta := func(m *metav1.ObjectMeta) {
		t(m.CreationTimestamp)
		for _, f := range m.ManagedFields {
			if f.Time != nil {
				t(*f.Time)
			}
		}
	}
	for _, d := range s.Deployments {
		meta(&d.ObjectMeta)
		for _, c := range d.Status.Conditions {
			t(c.LastUpdateTime)
			t(c.LastTransitionTime)
		}
	}
	for _, rs := range s.ReplicaSets {
		meta(&rs.ObjectMeta)
		for _, c := range rs.Status.Conditions {
			t(c.LastTransitionTime)
		}
	}
	state := func(st corev1.ContainerState) {
		if st.Running != nil {
			t(st.Running.StartedAt)
		}
		if st.Terminated != nil {
			t(st.Terminated.StartedAt)
			t(st.Terminated.FinishedAt)
		}
	}
	for _, p := range s.Pods {
		meta(&p.ObjectMeta)
		if p.Status.StartTime != nil {
			t(*p.Status.StartTime)
		}
		for _, c := range p.Status.Conditions {
			t(c.LastProbeTime)
			t(c.LastTransitionTime)
		}
		for _, list := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
			for _, c := range list {
				state(c.State)
				state(c.LastTerminationState)
			}
		}
	}
	for _, n := range s.Nodes {
		meta(&n.ObjectMeta)
		for _, c := range n.Status.Conditions {
			t(c.LastHeartbeatTime)
			t(c.LastTransitionTime)
		}
	}
	for _, c := range s.ConfigMaps {
		meta(&c.ObjectMeta)
	}
	for _, c := range s.Secrets {
		meta(&c.ObjectMeta)
	}
	for _, q := range s.ResourceQuotas {
		meta(&q.ObjectMeta)
	}
	return latest
}

// errorAt is an error of one object or document of the input.
func errorAt(src Source, ref *Ref, err error) error {
	if ref != nil && ref.Kind != "" {
		return fmt.Errorf("%s: %s: %w", src, *ref, err)
	}
	return fmt.Errorf("%s: %w", src, err)
}

var errNotObject = errors.New("not an object: want a Kubernetes object (apiVersion, kind, metadata) or a List")
