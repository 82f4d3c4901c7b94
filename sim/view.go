package sim

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/deploymath/deploymath/sim/internal/cluster"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// What hosted controllers read: the stored objects of every kind (the
// store's, the cluster model's pods and nodes rendered as API objects, a
// custom kind's store), or, with cluster.informerDelay, the informer
// view (informerview.go). Reads hand out the stored objects; the client
// copies them.

// read returns the object of kind ki, namespace and name that a hosted
// controller sees (direct: the API server's), or nil.
func (s *Sim) read(ki *kindInfo, namespace, name string, direct bool) Object {
	if !ki.clusterScoped && namespace == "" {
		namespace = metaDefault
	}
	if !direct && s.hostCache != nil {
		return s.hostCache.get(ki, ki.key(namespace, name))
	}
	return s.stored(ki, namespace, name)
}

// readAll returns the objects of kind ki in namespace ("": all) whose
// labels match sel (nil: all), in key order.
func (s *Sim) readAll(ki *kindInfo, namespace string, sel labels.Selector, direct bool) []Object {
	var all []Object
	if !direct && s.hostCache != nil {
		all = s.hostCache.list(ki)
	} else {
		all = s.storedAll(ki)
	}
	out := all[:0:0]
	for _, o := range all {
		if namespace != "" && !ki.clusterScoped && o.GetNamespace() != namespace {
			continue
		}
		if sel != nil && !sel.Matches(labels.Set(o.GetLabels())) {
			continue
		}
		out = append(out, o)
	}
	return out
}

// stored returns the stored object of kind ki, or nil.
func (s *Sim) stored(ki *kindInfo, namespace, name string) Object {
	key := ki.key(namespace, name)
	switch ki.builtin {
	case kindDeployment:
		if d := s.st.Deployments[key]; d != nil {
			return d
		}
	case kindReplicaSet:
		if st := s.st.ReplicaSets[key]; st != nil {
			return st.Obj
		}
	case kindConfigMap:
		if cm := s.st.ConfigMaps[key]; cm != nil {
			return cm
		}
	case kindSecret:
		if sec := s.st.Secrets[key]; sec != nil {
			return sec
		}
	case kindPod:
		if p := s.c.Pod(name); p != nil && p.Namespace == namespace {
			return podAPIObject(p)
		}
	case kindNode:
		if n := s.c.Node(name); n != nil && !n.Deleted {
			return nodeAPIObject(n)
		}
	case kindCustom:
		if o := ki.objects.Get(key); o != nil {
			return o.(Object)
		}
	}
	return nil
}

// storedAll returns every stored object of kind ki, in key order.
func (s *Sim) storedAll(ki *kindInfo) []Object {
	var out []Object
	switch ki.builtin {
	case kindDeployment:
		for _, k := range s.st.DeploymentKeys {
			out = append(out, s.st.Deployments[k])
		}
	case kindReplicaSet:
		for _, k := range sortedKeys(s.st.ReplicaSets) {
			out = append(out, s.st.ReplicaSets[k].Obj)
		}
	case kindConfigMap:
		for _, k := range sortedKeys(s.st.ConfigMaps) {
			out = append(out, s.st.ConfigMaps[k])
		}
	case kindSecret:
		for _, k := range sortedKeys(s.st.Secrets) {
			out = append(out, s.st.Secrets[k])
		}
	case kindPod:
		pods := s.c.Pods()
		// in namespace/name order, as the other kinds
		slices.SortStableFunc(pods, func(a, b *cluster.Pod) int { return strings.Compare(a.Namespace, b.Namespace) })
		for _, p := range pods {
			out = append(out, podAPIObject(p))
		}
	case kindNode:
		for _, n := range s.c.Nodes {
			if !n.Deleted {
				out = append(out, nodeAPIObject(n))
			}
		}
		slices.SortFunc(out, func(a, b Object) int { return strings.Compare(a.GetName(), b.GetName()) })
	case kindCustom:
		for _, k := range ki.objects.Keys() {
			out = append(out, ki.objects.Get(k).(Object))
		}
	}
	return out
}

// copyInto sets dst to a deep copy of src, which must be of dst's type.
func copyInto(dst Object, src runtime.Object) error {
	dv, sv := reflect.ValueOf(dst), reflect.ValueOf(src)
	if dv.Type() != sv.Type() {
		return fmt.Errorf("%T: cannot hold a %T (the simulator's client reads typed objects only)", dst, src)
	}
	dv.Elem().Set(reflect.ValueOf(src.DeepCopyObject()).Elem())
	return nil
}

// fillList sets list's items to deep copies of objs.
func fillList(list ObjectList, objs []Object) error {
	items := make([]runtime.Object, len(objs))
	for i, o := range objs {
		items[i] = o.DeepCopyObject()
	}
	if err := meta.SetList(list, items); err != nil {
		return fmt.Errorf("%T: %w", list, err)
	}
	list.SetResourceVersion("")
	return nil
}

// objectKey is "namespace/name" of o ("name" without a namespace).
func objectKey(o metav1.Object) string {
	if o.GetNamespace() == "" {
		return o.GetName()
	}
	return o.GetNamespace() + "/" + o.GetName()
}
