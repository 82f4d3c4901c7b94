package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/deploymath/deploymath/sim/internal/apivalidation"
	"github.com/deploymath/deploymath/sim/internal/cluster"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	sjson "sigs.k8s.io/json"
)

// The objects of a scenario (objects:), by kind:
//   - Deployments, ConfigMaps and Secrets are created at time 0 through
//     the API server (defaulted and validated; a Deployment's rollout
//     starts from nothing);
//   - ReplicaSets, Pods, Nodes and ResourceQuotas are stored as they are,
//     status included, as a cluster's state is ([State], with the run's
//     time 0 as its moment: an object without a creationTimestamp was
//     created at time 0): a ReplicaSet whose pods are not listed gets them
//     from its controller, a listed pod (whose controller owner reference
//     names a ReplicaSet of the scenario, by name when it has no UID) goes
//     on as its status says;
//   - objects of any other kind are a hosted controller's (a custom kind
//     registered with [Options].Scheme): decoded when the run starts and
//     stored at time 0 as they are, status included.

// kindOnly is the type meta of a manifest.
type kindOnly struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// customObject is an object of a kind the scenario format does not know:
// a custom kind, decoded by New with the run's scheme.
type customObject struct {
	path string // "objects[3]", "steps[2].apply"
	line int
	step int // the step of an apply, -1 for objects
	gvk  schema.GroupVersionKind
	raw  json.RawMessage
}

// decodeObject strictly decodes one manifest; path names it in errors.
// In objects (not in an apply step) it also takes ReplicaSets, Pods,
// Nodes and ResourceQuotas; in both, any kind outside the built-in
// groups, as a *customObject.
func decodeObject(src []byte, raw json.RawMessage, path string, objects bool) (any, error) {
	var k kindOnly
	if err := json.Unmarshal(raw, &k); err != nil {
		return nil, locate(src, raw, path, err, &kindOnly{})
	}
	var obj any
	switch {
	case k.Kind == "Deployment" && k.APIVersion == "apps/v1":
		obj = &appsv1.Deployment{}
	case k.Kind == "ConfigMap" && k.APIVersion == "v1":
		obj = &corev1.ConfigMap{}
	case k.Kind == "Secret" && k.APIVersion == "v1":
		obj = &corev1.Secret{}
	case objects && k.Kind == "ReplicaSet" && k.APIVersion == "apps/v1":
		obj = &appsv1.ReplicaSet{}
	case objects && k.Kind == "Pod" && k.APIVersion == "v1":
		obj = &corev1.Pod{}
	case objects && k.Kind == "Node" && k.APIVersion == "v1":
		obj = &corev1.Node{}
	case objects && k.Kind == "ResourceQuota" && k.APIVersion == "v1":
		obj = &corev1.ResourceQuota{}
	case k.APIVersion == "":
		return nil, withLine(src, fmt.Errorf("field %q: required", path+".apiVersion"))
	case k.Kind == "":
		return nil, withLine(src, fmt.Errorf("field %q: required", path+".kind"))
	case !builtinGroup(k.APIVersion):
		gv, err := schema.ParseGroupVersion(k.APIVersion)
		if err != nil {
			return nil, withLine(src, fmt.Errorf("field %q: %v", path+".apiVersion", err))
		}
		return &customObject{path: path, line: lineOf(src, path), step: -1, gvk: gv.WithKind(k.Kind), raw: raw}, nil
	case objects:
		return nil, withLine(src, fmt.Errorf("field %q: unsupported object apiVersion %q kind %q (want apps/v1 Deployment or ReplicaSet, v1 ConfigMap, Secret, Pod, Node or ResourceQuota, or a kind of your own registered with sim.Options.Scheme)", path+".kind", k.APIVersion, k.Kind))
	default:
		return nil, withLine(src, fmt.Errorf("field %q: unsupported object apiVersion %q kind %q (want apps/v1 Deployment, v1 ConfigMap or v1 Secret, or a kind of your own registered with sim.Options.Scheme)", path+".kind", k.APIVersion, k.Kind))
	}
	if err := decodeStrict(src, raw, path, obj); err != nil {
		return nil, err
	}
	if o, ok := obj.(metav1.Object); ok && o.GetNamespace() == "" {
		if _, node := obj.(*corev1.Node); !node {
			o.SetNamespace(metav1.NamespaceDefault)
		}
	}
	return obj, nil
}

// builtinGroup reports whether apiVersion is of a group the API server
// serves itself (the core group, apps, batch, …): a kind of it the
// scenario format does not take is refused, not taken for a custom kind.
func builtinGroup(apiVersion string) bool {
	g := groupOf(apiVersion)
	return g == "" || !strings.Contains(g, ".") || strings.HasSuffix(g, ".k8s.io")
}

// decodeStrict decodes raw into obj, refusing unknown and duplicate
// fields; errors name the field path (under path) and its line in src.
func decodeStrict(src []byte, raw json.RawMessage, path string, obj any) error {
	strict, err := sjson.UnmarshalStrict(raw, obj)
	if err != nil {
		probe := reflect.New(reflect.TypeOf(obj).Elem()).Interface()
		return locate(src, raw, path, err, probe)
	}
	if len(strict) > 0 {
		err = strict[0]
		msg := err.Error()
		if m := fieldRE.FindStringSubmatch(msg); m != nil {
			full := path + "." + m[1]
			msg = strings.Replace(msg, `"`+m[1]+`"`, `"`+full+`"`, 1)
			return withLine(src, errors.New(msg))
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// addObject files an object of objects: (at path) that is stored rather
// than created: ReplicaSets, Pods, Nodes and ResourceQuotas into the
// scenario's state at time 0 (nodes also into names, the nodes steps may
// name), custom objects for New to decode.
func (sc *Scenario) addObject(src []byte, path string, obj any, names map[string]bool) error {
	st := sc.objState
	if st == nil {
		st = &State{Now: Epoch}
	}
	switch o := obj.(type) {
	case *appsv1.ReplicaSet:
		o = o.DeepCopy()
		if n := cluster.Replicas(o); n < 0 || n > MaxReplicas {
			return withLine(src, fmt.Errorf("field %q: %d is outside 0 to %d (sim.MaxReplicas)", path+".spec.replicas", n, MaxReplicas))
		}
		if errs := apivalidation.ReplicaSet(o); len(errs) > 0 {
			return withLine(src, fmt.Errorf("field %q: %s (the API server refuses such an object)", path+"."+errs[0].Field, errs[0].Detail))
		}
		atStart(&o.ObjectMeta)
		st.ReplicaSets = append(st.ReplicaSets, o)
	case *corev1.Pod:
		o = o.DeepCopy()
		atStart(&o.ObjectMeta)
		st.Pods = append(st.Pods, o)
	case *corev1.Node:
		if o.Name == "" {
			return withLine(src, fmt.Errorf("field %q: required", path+".metadata.name"))
		}
		if names[o.Name] {
			return withLine(src, fmt.Errorf("field %q: duplicate node %q (in cluster.nodes or objects)", path+".metadata.name", o.Name))
		}
		names[o.Name] = true
		st.Nodes = append(st.Nodes, o)
	case *corev1.ResourceQuota:
		st.ResourceQuotas = append(st.ResourceQuotas, o)
	case *customObject:
		sc.custom = append(sc.custom, o)
		return nil
	default:
		return nil
	}
	sc.objState = st
	return nil
}

// atStart gives an object of the scenario without a creation time the
// run's time 0.
func atStart(m *metav1.ObjectMeta) {
	if m.CreationTimestamp.IsZero() {
		m.CreationTimestamp = metav1.NewTime(Epoch)
	}
}

// decodeCustom decodes the scenario's objects of custom kinds with the
// run's kinds, and checks that its apply steps of custom kinds decode;
// errors name the object's place in the file.
func (s *Sim) decodeCustom() ([]Object, error) {
	var out []Object
	for _, c := range s.sc.custom {
		obj, err := s.decodeCustomObject(c)
		if err != nil {
			return nil, err
		}
		if c.step >= 0 {
			if s.stepObjs == nil {
				s.stepObjs = map[*Step]Object{}
			}
			s.stepObjs[&s.sc.Steps[c.step]] = obj
			continue
		}
		out = append(out, obj)
	}
	return out, nil
}

// decodeCustomObject decodes one manifest of a custom kind with the run's
// kinds (namespace "default" when unset).
func (s *Sim) decodeCustomObject(c *customObject) (Object, error) {
	line := c.line
	if line == 0 {
		line = lineOf(s.sc.src, c.path)
	}
	ki, err := s.kinds.byKind(c.gvk)
	if err != nil {
		return nil, fmt.Errorf("%s: field %q: %w", s.sc.where(line), c.path+".kind", err)
	}
	obj, err := s.kinds.newObject(ki)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", s.sc.where(line), c.path, err)
	}
	if err := decodeStrict(s.sc.src, c.raw, c.path, obj); err != nil {
		return nil, fmt.Errorf("%s: %w", s.sc.whereFile(), err)
	}
	if obj.GetName() == "" {
		return nil, fmt.Errorf("%s: field %q: required", s.sc.where(line), c.path+".metadata.name")
	}
	if obj.GetNamespace() == "" {
		obj.SetNamespace(metav1.NamespaceDefault)
	}
	return obj, nil
}

// loadCustom stores the scenario's custom objects at time 0 as they are
// (status included), with the identity the API server gives them.
func (s *Sim) loadCustom(objs []Object) error {
	for _, o := range objs {
		ki, err := s.kinds.of(o)
		if err != nil {
			return err
		}
		key := ki.key(o.GetNamespace(), o.GetName())
		if ki.objects.Get(key) != nil {
			return fmt.Errorf("%s %s: given twice in objects", ki.gvk.Kind, key)
		}
		o = o.DeepCopyObject().(Object)
		setTypeMeta(o, ki)
		if o.GetUID() == "" {
			o.SetUID(s.st.NextUID())
		}
		o.SetResourceVersion(s.st.NextRV())
		o.SetGeneration(max(o.GetGeneration(), 1))
		if ts := o.GetCreationTimestamp(); ts.IsZero() {
			o.SetCreationTimestamp(s.stamp())
		}
		ki.objects.Put(key, o)
		s.logObjectWrite(ki, "create", o)
	}
	return nil
}
