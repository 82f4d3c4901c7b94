package snapshot

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/rollout/defaulting"
	"github.com/deploymath/deploymath/sim/internal/apivalidation"
	"github.com/deploymath/deploymath/sim/internal/kubeyaml"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// decoded is an object decoded and checked by decodeObject: the typed
// object, the notes on what was done to read it, or why it was refused.
type decoded struct {
	obj   any
	notes []string
	err   error
}

// decodeObject decodes raw, the object ref that starts at src, into the
// typed object of ref.Kind and checks it as the API server would. It
// reads nothing else, so that objects can be decoded in parallel; add
// adds the result.
func decodeObject(raw []byte, src Source, ref Ref) *decoded {
	out := &decoded{}
	note := func(text string) { out.notes = append(out.notes, fmt.Sprintf("%s: %s: %s", src, ref, text)) }
	switch ref.Kind {
	case "Deployment":
		d := &appsv1.Deployment{}
		if out.err = strict(raw, d); out.err != nil {
			return out
		}
		d.Namespace = ref.Namespace
		d = rollout.Default(d)
		if d.Generation == 0 {
			d.Generation = 1 // never stored: the API server's create gives 1
		}
		if err := rollout.Validate(d); err != nil {
			out.err = oneLine(err)
			return out
		}
		if errs := apivalidation.PodTemplate(&d.Spec.Template, "spec.template"); len(errs) > 0 {
			out.err = refused(errs)
			return out
		}
		st := &d.Status
		raiseReady(&st.ReadyReplicas, st.AvailableReplicas, note)
		if errs := apivalidation.DeploymentStatus(st); len(errs) > 0 {
			out.err = refused(errs)
			return out
		}
		out.obj = d
	case "ReplicaSet":
		rs := &appsv1.ReplicaSet{}
		if out.err = strict(raw, rs); out.err != nil {
			return out
		}
		rs.Namespace = ref.Namespace
		if t := defaulting.PodTemplate(&rs.Spec.Template); t != nil {
			rs.Spec.Template = *t
		}
		if rs.Spec.Replicas == nil {
			rs.Spec.Replicas = new(int32(1)) // the apps/v1 ReplicaSet default
		}
		if errs := apivalidation.ReplicaSet(rs); len(errs) > 0 {
			out.err = refused(errs)
			return out
		}
		st := &rs.Status
		raiseReady(&st.ReadyReplicas, st.AvailableReplicas, note)
		if errs := apivalidation.ReplicaSetStatus(st); len(errs) > 0 {
			out.err = refused(errs)
			return out
		}
		out.obj = rs
	case "Pod":
		out.obj, out.err = lenientIn[corev1.Pod](raw, ref.Namespace)
	case "ConfigMap":
		out.obj, out.err = lenientIn[corev1.ConfigMap](raw, ref.Namespace)
	case "Secret":
		out.obj, out.err = lenientIn[corev1.Secret](raw, ref.Namespace)
	case "Node":
		n := &corev1.Node{}
		out.err = lenient(raw, n)
		out.obj = n
	case "ResourceQuota":
		out.obj, out.err = lenientIn[corev1.ResourceQuota](raw, ref.Namespace)
	}
	return out
}

// lenientIn decodes raw leniently into a new object of a namespaced kind
// T, in namespace ns (the one its item was read in).
func lenientIn[T any, P interface {
	*T
	SetNamespace(string)
}](raw []byte, ns string) (P, error) {
	obj := P(new(T))
	err := lenient(raw, obj)
	obj.SetNamespace(ns)
	return obj, err
}

// add adds a decoded object, and its notes, to the snapshot.
func (b *builder) add(d *decoded) {
	s := b.snap
	s.Notes = append(s.Notes, d.notes...)
	switch o := d.obj.(type) {
	case *appsv1.Deployment:
		s.Deployments = append(s.Deployments, o)
	case *appsv1.ReplicaSet:
		s.ReplicaSets = append(s.ReplicaSets, o)
	case *corev1.Pod:
		s.Pods = append(s.Pods, o)
	case *corev1.ConfigMap:
		s.ConfigMaps = append(s.ConfigMaps, o)
	case *corev1.Secret:
		s.Secrets = append(s.Secrets, o)
	case *corev1.Node:
		s.Nodes = append(s.Nodes, o)
	case *corev1.ResourceQuota:
		s.ResourceQuotas = append(s.ResourceQuotas, o)
	}
}

// itemHeader is the header of a List's item, when it could be read.
type itemHeader struct {
	h  header
	ok bool
}

// parallelItems is the number of items from which a List's items are
// decoded in parallel.
var parallelItems = 256

// decodeItems reads, for a List of at least parallelItems items, the
// header of each item and decodes those that object would decode as they
// are (a kind read in its served version, with a name, in the namespace
// kept), on every core; nil, nil for a smaller List. kind and version are
// a typed list's; srcOf gives where item i starts. With check, it also
// checks that every item is valid JSON (the decoder checks an item it
// decodes; json.Valid the others, and those whose decoding failed): valid
// is false when one is not (always true without check).
func (b *builder) decodeItems(items [][]byte, tops []*kubeyaml.Top, kind, version string, srcOf func(int) Source, check bool) (heads []itemHeader, pre []*decoded, valid bool) {
	if len(items) < parallelItems {
		return nil, nil, true
	}
	heads = make([]itemHeader, len(items))
	pre = make([]*decoded, len(items))
	var invalid atomic.Bool
	parallel(len(items), func(i int) {
		pre[i] = b.decodeItem(items[i], &heads[i], tops, i, kind, version, srcOf)
		if check && (pre[i] == nil || pre[i].err != nil) && !json.Valid(items[i]) {
			invalid.Store(true)
		}
	})
	return heads, pre, !invalid.Load()
}

// decodeItem is decodeItems' work on item i: its header into ih, and the
// object decoded when object would decode it as it is (nil otherwise).
func (b *builder) decodeItem(item []byte, ih *itemHeader, tops []*kubeyaml.Top, i int, kind, version string, srcOf func(int) Source) *decoded {
	if i < len(tops) && headerOf(tops[i], &ih.h) {
		ih.ok = true
	} else {
		ih.ok = readHeader(item, &ih.h) == nil
	}
	if !ih.ok {
		return nil
	}
	h := ih.h // object completes its own copy
	if h.Kind == "" {
		h.Kind = kind
	}
	if h.APIVersion == "" && h.Kind == kind {
		h.APIVersion = version
	}
	want, known := kinds[h.Kind]
	if !known || h.APIVersion != want || h.Metadata == nil || h.name() == "" {
		return nil
	}
	ref := Ref{Kind: h.Kind, Namespace: h.namespace(), Name: h.name()}
	if h.Kind != "Node" && ref.Namespace == "" {
		ref.Namespace = b.opts.Namespace
		if ref.Namespace == "" {
			ref.Namespace = metav1.NamespaceDefault
		}
	}
	if h.Kind != "Node" && b.opts.Namespace != "" && ref.Namespace != b.opts.Namespace {
		return nil
	}
	return decodeObject(item, srcOf(i), ref)
}

// parallel calls f(i) for every i in [0, n), on every core, and returns
// once all have returned.
func parallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	const chunk = 64
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				from := next
				next += chunk
				mu.Unlock()
				if from >= n {
					return
				}
				for i := from; i < min(from+chunk, n); i++ {
					f(i)
				}
			}
		})
	}
	wg.Wait()
}
