package sim

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/deploymath/deploymath/sim/internal/apiserver"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The kinds a run stores: the built-in ones the simulator models
// (Deployments, ReplicaSets, pods, ConfigMaps, Secrets, nodes), each with
// a store of its own, and the kinds of its users' controllers, registered
// as Go types with [Options].Scheme and stored by the API server as
// custom resources are (a generic store per kind).

// ErrUnregisteredKind is the error of an object (or a watch) of a kind
// the run's scheme ([Options].Scheme) does not have: a custom kind whose
// controller is not hosted. deploymath's command runs the built-in
// controllers only, so it refuses such objects.
var ErrUnregisteredKind = errors.New("not registered")

// builtinKind names the kinds the simulator models itself.
type builtinKind uint8

const (
	kindCustom builtinKind = iota
	kindDeployment
	kindReplicaSet
	kindPod
	kindConfigMap
	kindSecret
	kindNode
	numBuiltinKinds
)

// kindInfo is one kind of the run.
type kindInfo struct {
	gvk schema.GroupVersionKind
	// resource names the kind in the API server's errors
	// ("replicasets.apps", "canaries.example.com").
	resource schema.GroupResource
	builtin  builtinKind
	// clusterScoped kinds have no namespace (nodes).
	clusterScoped bool
	// status says a custom kind has a status subresource (its Go type has
	// a Status field, as kubebuilder's +kubebuilder:subresource:status
	// types do): writes of the main resource keep the status, status
	// writes keep everything else, and the generation moves only with
	// changes outside metadata and status.
	status bool
	// objects stores a custom kind's objects.
	objects *apiserver.Objects
	// watchers are the hosted controllers' watches of the kind, in the
	// order the controllers were added.
	watchers []watcher
}

// kinds is the run's table of kinds.
type kinds struct {
	scheme  *runtime.Scheme
	byGK    map[schema.GroupKind]*kindInfo
	builtin [numBuiltinKinds]*kindInfo
}

// newKinds returns the table of a run whose scheme is scheme (nil: the
// built-in kinds only). The built-in kinds are added to the scheme (it is
// idempotent: clientgoscheme adds the same types).
func newKinds(scheme *runtime.Scheme) (*kinds, error) {
	if scheme == nil {
		scheme = runtime.NewScheme()
	}
	if err := appsv1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("scheme: %w", err)
	}
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("scheme: %w", err)
	}
	k := &kinds{scheme: scheme, byGK: map[schema.GroupKind]*kindInfo{}}
	for _, b := range []struct {
		kind    builtinKind
		gvk     schema.GroupVersionKind
		cluster bool
	}{
		{kindDeployment, appsv1.SchemeGroupVersion.WithKind("Deployment"), false},
		{kindReplicaSet, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"), false},
		{kindPod, corev1.SchemeGroupVersion.WithKind("Pod"), false},
		{kindConfigMap, corev1.SchemeGroupVersion.WithKind("ConfigMap"), false},
		{kindSecret, corev1.SchemeGroupVersion.WithKind("Secret"), false},
		{kindNode, corev1.SchemeGroupVersion.WithKind("Node"), true},
	} {
		ki := &kindInfo{gvk: b.gvk, resource: resourceOf(b.gvk), builtin: b.kind, clusterScoped: b.cluster}
		k.builtin[b.kind] = ki
		k.byGK[b.gvk.GroupKind()] = ki
	}
	return k, nil
}

// resourceOf is the resource of a kind as the API server names it in
// errors: the lower-case plural (as a CRD's default RESTMapper guesses it)
// and the group.
func resourceOf(gvk schema.GroupVersionKind) schema.GroupResource {
	plural, _ := meta.UnsafeGuessKindToResource(gvk)
	return plural.GroupResource()
}

// of returns the kind of obj: a built-in kind, or a kind of the scheme,
// which is then a custom kind of the run from its first use.
func (k *kinds) of(obj runtime.Object) (*kindInfo, error) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return nil, fmt.Errorf("object: must not be nil")
	}
	gvk, err := gvkOf(k.scheme, obj)
	if err != nil {
		return nil, err
	}
	return k.byKind(gvk)
}

// byKind returns the kind of gvk (registered with the scheme).
func (k *kinds) byKind(gvk schema.GroupVersionKind) (*kindInfo, error) {
	if ki := k.byGK[gvk.GroupKind()]; ki != nil {
		return ki, nil
	}
	if !k.scheme.Recognizes(gvk) {
		return nil, fmt.Errorf("apiVersion %q kind %q: %w: add its Go type to Options.Scheme", gvk.GroupVersion(), gvk.Kind, ErrUnregisteredKind)
	}
	proto, err := k.scheme.New(gvk)
	if err != nil {
		return nil, fmt.Errorf("apiVersion %q kind %q: %w", gvk.GroupVersion(), gvk.Kind, err)
	}
	if _, ok := proto.(Object); !ok {
		return nil, fmt.Errorf("apiVersion %q kind %q: %T has no object metadata", gvk.GroupVersion(), gvk.Kind, proto)
	}
	ki := &kindInfo{gvk: gvk, resource: resourceOf(gvk), objects: apiserver.NewObjects(), status: hasStatusField(proto)}
	k.byGK[gvk.GroupKind()] = ki
	return ki, nil
}

// ofList returns the kind of the items of list (a typed list whose kind is
// the item's kind with "List" appended).
func (k *kinds) ofList(list runtime.Object) (*kindInfo, error) {
	if list == nil || reflect.ValueOf(list).IsNil() {
		return nil, fmt.Errorf("list: must not be nil")
	}
	gvk, err := gvkOf(k.scheme, list)
	if err != nil {
		return nil, err
	}
	item, ok := strings.CutSuffix(gvk.Kind, "List")
	if !ok {
		return nil, fmt.Errorf("%T: not a list kind (%s)", list, gvk.Kind)
	}
	return k.byKind(gvk.GroupVersion().WithKind(item))
}

// hasStatusField reports whether obj's Go type has a Status field.
func hasStatusField(obj runtime.Object) bool {
	t := reflect.TypeOf(obj)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	_, ok := t.FieldByName("Status")
	return ok
}

// key is the store key of a namespace and name in this kind.
func (ki *kindInfo) key(namespace, name string) string {
	if ki.clusterScoped {
		return name
	}
	return namespace + "/" + name
}

// newObject returns a new, empty object of the kind.
func (k *kinds) newObject(ki *kindInfo) (Object, error) {
	o, err := k.scheme.New(ki.gvk)
	if err != nil {
		return nil, err
	}
	obj, ok := o.(Object)
	if !ok {
		return nil, fmt.Errorf("%T has no object metadata", o)
	}
	return obj, nil
}

// all returns the kinds of the run: the built-in ones, then the custom
// ones in group and kind order.
func (k *kinds) all() []*kindInfo {
	out := slices.Clone(k.builtin[kindDeployment:])
	var custom []*kindInfo
	for _, ki := range k.byGK {
		if ki.builtin == kindCustom {
			custom = append(custom, ki)
		}
	}
	slices.SortFunc(custom, func(a, b *kindInfo) int {
		return cmp.Or(strings.Compare(a.gvk.Group, b.gvk.Group), strings.Compare(a.gvk.Kind, b.gvk.Kind))
	})
	return append(out, custom...)
}
