package sim

import (
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// Client is a hosted controller's client ([Context].Client): reads from
// its informer view, writes to the simulated API server. It has the API
// server's semantics for every kind of the run:
//
//   - Get and List return deep copies (List in name order; options
//     [InNamespace], [MatchingLabels], [MatchingSelector]; field
//     selectors are refused);
//   - Create stores a new object: namespace "default" when unset, a name
//     drawn from metadata.generateName when the name is unset (five
//     characters of the API server's alphabet, drawn again on a clash),
//     a new UID and resourceVersion, generation 1, the creation time; it
//     fails with AlreadyExists;
//   - Update replaces metadata and spec with optimistic concurrency: a
//     resourceVersion that is not the stored one is a Conflict (an empty
//     one is allowed for the built-in kinds and refused for custom kinds,
//     as for custom resources); the status is kept where the kind has a
//     status subresource;
//   - Status().Update and Status().Patch write the status subresource;
//   - Patch applies a JSON merge patch (any kind) or a strategic merge
//     patch (built-in kinds; a custom kind answers 415, as for custom
//     resources) to the stored object and writes the result;
//   - Delete checks the preconditions (UID, resourceVersion); an object
//     with finalizers gets a deletionTimestamp (and a new generation) and
//     stays until an update removes the last finalizer; the garbage
//     collector then deletes its dependents (objects whose owner
//     references all name deleted objects; background propagation, or
//     orphan: their owner reference is removed).
//
// Generations follow the API server: a Deployment's moves when its spec
// or annotations change, a ReplicaSet's when its spec changes, a custom
// kind's when anything outside metadata and status changes (with a status
// subresource; outside metadata without one), and when a deletion of an
// object with finalizers starts. Errors are the API server's
// (*apierrors.StatusError: use apierrors.IsConflict, IsNotFound, …).
// Writes fill obj with the stored object, as a real client decodes the
// response.
//
// What the simulator does not model is refused with an error that says
// so: pods are created by ReplicaSets (a controller cannot create, update
// or patch a pod, only delete one), nodes are the scenario's, and the
// status of ReplicaSets is their controller's; server-side apply, JSON
// patch and foreground deletion are not implemented.
type Client interface {
	Reader
	// Create stores obj as a new object.
	Create(obj Object) error
	// Update writes obj's metadata and spec (the main resource).
	Update(obj Object) error
	// Patch applies patch to the stored object of obj's kind, namespace
	// and name.
	Patch(obj Object, patch Patch) error
	// Delete deletes the stored object of obj's kind, namespace and name.
	Delete(obj Object, opts ...DeleteOption) error
	// Status writes the status subresource.
	Status() StatusWriter
}

// Reader reads objects.
type Reader interface {
	// Get fills obj with the object of key, of obj's kind.
	Get(key types.NamespacedName, obj Object) error
	// List fills list with the objects of its item kind.
	List(list ObjectList, opts ...ListOption) error
}

// StatusWriter writes the status subresource.
type StatusWriter interface {
	// Update writes obj's status.
	Update(obj Object) error
	// Patch applies patch to the stored object's status.
	Patch(obj Object, patch Patch) error
}

// ListOptions select the objects of a List.
type ListOptions struct {
	// Namespace limits the list to a namespace ("": all).
	Namespace string
	// LabelSelector limits it to the objects whose labels match (nil:
	// all).
	LabelSelector labels.Selector
	// FieldSelector is refused: the simulator has no field indexes.
	FieldSelector string
}

// ListOption sets a [ListOptions] field.
type ListOption func(*ListOptions)

// InNamespace lists the objects of one namespace.
func InNamespace(ns string) ListOption { return func(o *ListOptions) { o.Namespace = ns } }

// MatchingLabels lists the objects whose labels include every label of m.
func MatchingLabels(m map[string]string) ListOption {
	return func(o *ListOptions) { o.LabelSelector = labels.SelectorFromSet(m) }
}

// MatchingSelector lists the objects whose labels match sel.
func MatchingSelector(sel labels.Selector) ListOption {
	return func(o *ListOptions) { o.LabelSelector = sel }
}

// MatchingFields asks for a field selector, which the simulator refuses
// (List fails): filter in the controller instead.
func MatchingFields(sel string) ListOption { return func(o *ListOptions) { o.FieldSelector = sel } }

// DeleteOptions are the options of a Delete.
type DeleteOptions struct {
	// Preconditions must hold for the delete to happen (UID,
	// resourceVersion).
	Preconditions *metav1.Preconditions
	// PropagationPolicy is Background (the default) or Orphan; Foreground
	// is refused.
	PropagationPolicy *metav1.DeletionPropagation
}

// DeleteOption sets a [DeleteOptions] field.
type DeleteOption func(*DeleteOptions)

// WithPreconditions makes a delete conditional on the stored object's UID
// and resourceVersion (each when not empty).
func WithPreconditions(uid types.UID, resourceVersion string) DeleteOption {
	return func(o *DeleteOptions) {
		p := &metav1.Preconditions{}
		if uid != "" {
			p.UID = &uid
		}
		if resourceVersion != "" {
			p.ResourceVersion = &resourceVersion
		}
		o.Preconditions = p
	}
}

// WithPropagation sets the propagation policy of a delete.
func WithPropagation(p metav1.DeletionPropagation) DeleteOption {
	return func(o *DeleteOptions) { o.PropagationPolicy = &p }
}

// Patch is a patch of one of the API server's patch types.
type Patch interface {
	// Type is the patch type (types.MergePatchType,
	// types.StrategicMergePatchType, …).
	Type() types.PatchType
	// Data returns the patch's body for obj.
	Data(obj Object) ([]byte, error)
}

// MergeFrom returns a JSON merge patch (RFC 7386) that turns original into
// the object it is applied with (controller-runtime's client.MergeFrom):
//
//	orig := canary.DeepCopy()
//	canary.Spec.Paused = true
//	err := c.Patch(canary, sim.MergeFrom(orig))
func MergeFrom(original Object) Patch { return fromPatch{types.MergePatchType, original} }

// StrategicMergeFrom is [MergeFrom] as a strategic merge patch (built-in
// kinds only: lists merged by their keys, as kubectl does).
func StrategicMergeFrom(original Object) Patch {
	return fromPatch{types.StrategicMergePatchType, original}
}

// RawPatch is a patch of type t with the body data.
func RawPatch(t types.PatchType, data []byte) Patch { return rawPatch{t, data} }

type fromPatch struct {
	t        types.PatchType
	original Object
}

func (p fromPatch) Type() types.PatchType { return p.t }

func (p fromPatch) Data(obj Object) ([]byte, error) {
	if p.original == nil || obj == nil {
		return nil, fmt.Errorf("patch: original and object must not be nil")
	}
	before, err := json.Marshal(p.original)
	if err != nil {
		return nil, err
	}
	after, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	if p.t == types.StrategicMergePatchType {
		return strategicpatch.CreateTwoWayMergePatch(before, after, obj)
	}
	return createMergePatch(before, after)
}

type rawPatch struct {
	t    types.PatchType
	data []byte
}

func (p rawPatch) Type() types.PatchType               { return p.t }
func (p rawPatch) Data(Object) ([]byte, error)         { return p.data, nil }
func (c *simClient) Status() StatusWriter              { return statusClient{c} }
func (s statusClient) Update(obj Object) error         { return s.c.write(obj, verbStatus) }
func (s statusClient) Patch(obj Object, p Patch) error { return s.c.patch(obj, p, true) }

// simClient is the client of a hosted controller; direct reads bypass
// the informer view.
type simClient struct {
	s      *Sim
	h      *hosted
	direct bool
}

type statusClient struct{ c *simClient }

// Get implements [Reader].
func (c *simClient) Get(key types.NamespacedName, obj Object) error {
	ki, err := c.s.kinds.of(obj)
	if err != nil {
		return err
	}
	stored := c.s.read(ki, key.Namespace, key.Name, c.direct)
	if stored == nil {
		return apierrors.NewNotFound(ki.resource, key.Name)
	}
	return copyInto(obj, stored)
}

// List implements [Reader].
func (c *simClient) List(list ObjectList, opts ...ListOption) error {
	ki, err := c.s.kinds.ofList(list)
	if err != nil {
		return err
	}
	var o ListOptions
	for _, f := range opts {
		f(&o)
	}
	if o.FieldSelector != "" {
		return apierrors.NewBadRequest(fmt.Sprintf("field selector %q: the simulator's client has no field selectors (no field indexes): list and filter in the controller", o.FieldSelector))
	}
	return fillList(list, c.s.readAll(ki, o.Namespace, o.LabelSelector, c.direct))
}

// Create implements [Client].
func (c *simClient) Create(obj Object) error { return c.write(obj, verbCreate) }

// Update implements [Client].
func (c *simClient) Update(obj Object) error { return c.write(obj, verbUpdate) }

// Patch implements [Client].
func (c *simClient) Patch(obj Object, p Patch) error { return c.patch(obj, p, false) }

// Delete implements [Client].
func (c *simClient) Delete(obj Object, opts ...DeleteOption) error {
	var o DeleteOptions
	for _, f := range opts {
		f(&o)
	}
	ki, err := c.s.kinds.of(obj)
	if err != nil {
		return err
	}
	if o.Preconditions != nil {
		if err := c.s.injectConflict(c.h, "delete", ki, obj.GetName()); err != nil {
			return err
		}
	}
	if err := c.s.deleteObject(ki, obj.GetNamespace(), obj.GetName(), o); err != nil {
		return err
	}
	c.s.checkUser()
	return nil
}
