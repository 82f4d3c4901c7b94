package crsim

import (
	"context"
	"fmt"
	"reflect"

	"github.com/deploymath/deploymath/sim"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// simClient is the manager's client.Client: each call goes to the
// [sim.Client] (or, direct, the [sim.Reader] of the API server) of the
// controller the manager is acting for.
//
// What it does, by method (the API server's semantics are [sim.Client]'s):
//
//   - Get, List: from the informer view, as a manager's cached client
//     reads (the API server with GetAPIReader); List takes InNamespace,
//     MatchingLabels, MatchingLabelsSelector, HasLabels and Limit (the
//     first Limit objects, with "continue-not-supported" as the continue
//     token when there are more, as controller-runtime's cache answers);
//     field selectors and Continue are refused;
//   - Create, Update, Patch (client.MergeFrom, MergeFromWithOptions with
//     MergeFromWithOptimisticLock, StrategicMergeFrom, RawPatch of those
//     types, client.Merge), Delete (Preconditions, PropagationPolicy
//     Background or Orphan), DeleteAllOf (the objects the API server holds
//     that match the options, deleted one by one), Status() and
//     SubResource("status") (Update, Patch, and Get, which reads the
//     object from the API server);
//   - refused with a clear error (a *apierrors.StatusError, 405 Method
//     Not Allowed, for what the simulator does not model): server-side
//     apply (Apply, client.Apply patches), JSON patches, dry runs, grace
//     periods, foreground deletion, Raw options, subresources other than
//     status, unstructured and metadata-only objects. FieldManager and
//     FieldValidation are accepted and have no effect (the simulator keeps
//     no managed fields; typed objects have no unknown fields).
type simClient struct {
	m      *Manager
	direct bool
}

var _ client.Client = (*simClient)(nil)

// reader returns the reader of the current run.
func (c *simClient) reader(ctx context.Context) (sim.Reader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sc, err := c.m.context()
	if err != nil {
		return nil, err
	}
	if c.direct {
		return sc.APIReader(), nil
	}
	return sc.Client(), nil
}

// writer returns the client of the current run.
func (c *simClient) writer(ctx context.Context) (sim.Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sc, err := c.m.context()
	if err != nil {
		return nil, err
	}
	return sc.Client(), nil
}

// Get implements client.Reader.
func (c *simClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := typed(obj); err != nil {
		return err
	}
	o := (&client.GetOptions{}).ApplyOptions(opts)
	if o.Raw != nil {
		return refused("Get", obj, "raw GetOptions (resourceVersion semantics of a read are not modelled)")
	}
	r, err := c.reader(ctx)
	if err != nil {
		return err
	}
	if err := r.Get(key, obj); err != nil {
		return err
	}
	c.setKind(obj)
	return nil
}

// List implements client.Reader.
func (c *simClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if err := typed(list); err != nil {
		return err
	}
	o := (&client.ListOptions{}).ApplyOptions(opts)
	switch {
	case o.Raw != nil:
		return refused("List", list, "raw ListOptions")
	case o.Continue != "":
		return refused("List", list, "continue tokens: the simulator's lists are whole (list without Limit)")
	case o.FieldSelector != nil && !o.FieldSelector.Empty():
		return apierrors.NewBadRequest(fmt.Sprintf("field selector %q: the simulator has no field indexes: list and filter in the controller", o.FieldSelector))
	}
	r, err := c.reader(ctx)
	if err != nil {
		return err
	}
	var so []sim.ListOption
	if o.Namespace != "" {
		so = append(so, sim.InNamespace(o.Namespace))
	}
	if o.LabelSelector != nil {
		so = append(so, sim.MatchingSelector(o.LabelSelector))
	}
	if err := r.List(list, so...); err != nil {
		return err
	}
	if o.Limit > 0 {
		items, err := meta.ExtractList(list)
		if err != nil {
			return err
		}
		if int64(len(items)) > o.Limit {
			if err := meta.SetList(list, items[:o.Limit]); err != nil {
				return err
			}
			list.SetContinue("continue-not-supported")
		}
	}
	return nil
}

// Create implements client.Writer.
func (c *simClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if err := typed(obj); err != nil {
		return err
	}
	o := (&client.CreateOptions{}).ApplyOptions(opts)
	if err := writeOptions("Create", obj, o.DryRun, o.Raw != nil); err != nil {
		return err
	}
	w, err := c.writer(ctx)
	if err != nil {
		return err
	}
	return w.Create(obj)
}

// Update implements client.Writer.
func (c *simClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	if err := typed(obj); err != nil {
		return err
	}
	o := (&client.UpdateOptions{}).ApplyOptions(opts)
	if err := writeOptions("Update", obj, o.DryRun, o.Raw != nil); err != nil {
		return err
	}
	w, err := c.writer(ctx)
	if err != nil {
		return err
	}
	return w.Update(obj)
}

// Patch implements client.Writer.
func (c *simClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	if err := typed(obj); err != nil {
		return err
	}
	o := (&client.PatchOptions{}).ApplyOptions(opts)
	if err := writeOptions("Patch", obj, o.DryRun, o.Raw != nil); err != nil {
		return err
	}
	if o.Force != nil {
		return refused("Patch", obj, "Force (an option of server-side apply, which the simulator does not model)")
	}
	if patch == nil {
		return fmt.Errorf("patch: must not be nil")
	}
	w, err := c.writer(ctx)
	if err != nil {
		return err
	}
	return w.Patch(obj, simPatch{patch})
}

// Apply implements client.Writer: server-side apply is refused.
func (c *simClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	return refused("Apply", nil, "server-side apply: use Update, or Patch with client.MergeFrom")
}

// Delete implements client.Writer.
func (c *simClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	if err := typed(obj); err != nil {
		return err
	}
	o := (&client.DeleteOptions{}).ApplyOptions(opts)
	so, err := deleteOptions(obj, o)
	if err != nil {
		return err
	}
	w, err := c.writer(ctx)
	if err != nil {
		return err
	}
	return w.Delete(obj, so...)
}

// DeleteAllOf implements client.Writer: the objects of obj's kind that
// the API server holds and the list options select are deleted one by
// one, as the API server's delete-collection does.
func (c *simClient) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	if err := typed(obj); err != nil {
		return err
	}
	o := (&client.DeleteAllOfOptions{}).ApplyOptions(opts)
	so, err := deleteOptions(obj, &o.DeleteOptions)
	if err != nil {
		return err
	}
	gvk, err := apiutil.GVKForObject(obj, c.m.scheme)
	if err != nil {
		return err
	}
	lo, err := c.m.scheme.New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err != nil {
		return fmt.Errorf("DeleteAllOf %s: no list kind in the scheme: %w", gvk.Kind, err)
	}
	list, ok := lo.(client.ObjectList)
	if !ok {
		return fmt.Errorf("DeleteAllOf %s: %T is not a list", gvk.Kind, lo)
	}
	if err := (&simClient{m: c.m, direct: true}).List(ctx, list, &o.ListOptions); err != nil {
		return err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	w, err := c.writer(ctx)
	if err != nil {
		return err
	}
	for _, it := range items {
		item, ok := it.(client.Object)
		if !ok {
			return fmt.Errorf("DeleteAllOf %s: %T is not an object", gvk.Kind, it)
		}
		if err := w.Delete(item, so...); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// Status implements client.StatusClient.
func (c *simClient) Status() client.SubResourceWriter { return subResourceClient{c: c, name: "status"} }

// SubResource implements client.SubResourceClientConstructor; only
// "status" is modelled.
func (c *simClient) SubResource(name string) client.SubResourceClient {
	return subResourceClient{c: c, name: name}
}

// Scheme implements client.Client.
func (c *simClient) Scheme() *runtime.Scheme { return c.m.scheme }

// RESTMapper implements client.Client.
func (c *simClient) RESTMapper() meta.RESTMapper { return c.m.mapper }

// GroupVersionKindFor implements client.Client.
func (c *simClient) GroupVersionKindFor(obj runtime.Object) (schema.GroupVersionKind, error) {
	return apiutil.GVKForObject(obj, c.m.scheme)
}

// IsObjectNamespaced implements client.Client.
func (c *simClient) IsObjectNamespaced(obj runtime.Object) (bool, error) {
	return apiutil.IsObjectNamespaced(obj, c.m.scheme, c.m.mapper)
}

// setKind sets the kind of an object read, as controller-runtime's cache
// returns typed objects with their apiVersion and kind.
func (c *simClient) setKind(obj client.Object) {
	if gvk, err := apiutil.GVKForObject(obj, c.m.scheme); err == nil {
		obj.GetObjectKind().SetGroupVersionKind(gvk)
	}
}

// subResourceClient is Status() and SubResource(name).
type subResourceClient struct {
	c    *simClient
	name string
}

func (s subResourceClient) check(verb string, obj client.Object) error {
	if s.name != "status" {
		return refused(verb, obj, fmt.Sprintf("subresource %q: only the status subresource is modelled", s.name))
	}
	return typed(obj)
}

// Get implements client.SubResourceReader: the object, read from the API
// server, into subResource (of obj's type).
func (s subResourceClient) Get(ctx context.Context, obj, subResource client.Object, opts ...client.SubResourceGetOption) error {
	if err := s.check("Get", obj); err != nil {
		return err
	}
	if err := typed(subResource); err != nil {
		return err
	}
	return (&simClient{m: s.c.m, direct: true}).Get(ctx, client.ObjectKeyFromObject(obj), subResource)
}

// Create implements client.SubResourceWriter: refused (the status has no
// create).
func (s subResourceClient) Create(ctx context.Context, obj, subResource client.Object, opts ...client.SubResourceCreateOption) error {
	return refused("Create", obj, fmt.Sprintf("create of subresource %q (evictions, tokens) is not modelled", s.name))
}

// Update implements client.SubResourceWriter.
func (s subResourceClient) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	if err := s.check("Update", obj); err != nil {
		return err
	}
	o := (&client.SubResourceUpdateOptions{}).ApplyOptions(opts)
	if err := writeOptions("Update", obj, o.DryRun, o.Raw != nil); err != nil {
		return err
	}
	if o.SubResourceBody != nil {
		return refused("Update", obj, "a SubResourceBody for the status: the object is the status's body")
	}
	w, err := s.c.writer(ctx)
	if err != nil {
		return err
	}
	return w.Status().Update(obj)
}

// Patch implements client.SubResourceWriter.
func (s subResourceClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	if err := s.check("Patch", obj); err != nil {
		return err
	}
	o := (&client.SubResourcePatchOptions{}).ApplyOptions(opts)
	if err := writeOptions("Patch", obj, o.DryRun, o.Raw != nil); err != nil {
		return err
	}
	if o.Force != nil || o.SubResourceBody != nil {
		return refused("Patch", obj, "Force or a SubResourceBody on the status")
	}
	if patch == nil {
		return fmt.Errorf("patch: must not be nil")
	}
	w, err := s.c.writer(ctx)
	if err != nil {
		return err
	}
	return w.Status().Patch(obj, simPatch{patch})
}

// Apply implements client.SubResourceWriter: refused.
func (s subResourceClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	return refused("Apply", nil, "server-side apply of a subresource: use Status().Update or Status().Patch")
}

// simPatch is a controller-runtime patch as the simulator's.
type simPatch struct{ p client.Patch }

func (p simPatch) Type() types.PatchType               { return p.p.Type() }
func (p simPatch) Data(obj sim.Object) ([]byte, error) { return p.p.Data(obj) }

// deleteOptions turns controller-runtime's delete options into the
// simulator's, refusing what it does not model.
func deleteOptions(obj client.Object, o *client.DeleteOptions) ([]sim.DeleteOption, error) {
	switch {
	case len(o.DryRun) > 0:
		return nil, refused("Delete", obj, "dry runs")
	case o.Raw != nil:
		return nil, refused("Delete", obj, "raw DeleteOptions")
	case o.GracePeriodSeconds != nil:
		return nil, refused("Delete", obj, "grace periods (a pod's termination is the simulator's pod model)")
	}
	var so []sim.DeleteOption
	if p := o.Preconditions; p != nil {
		var uid types.UID
		var rv string
		if p.UID != nil {
			uid = *p.UID
		}
		if p.ResourceVersion != nil {
			rv = *p.ResourceVersion
		}
		so = append(so, sim.WithPreconditions(uid, rv))
	}
	if o.PropagationPolicy != nil {
		so = append(so, sim.WithPropagation(*o.PropagationPolicy))
	}
	return so, nil
}

// writeOptions refuses dry runs and raw options of a write.
func writeOptions(verb string, obj client.Object, dryRun []string, raw bool) error {
	switch {
	case len(dryRun) > 0:
		return refused(verb, obj, "dry runs")
	case raw:
		return refused(verb, obj, "raw options")
	}
	return nil
}

// typed refuses the object representations the simulator does not
// store: unstructured and metadata-only objects.
func typed(obj runtime.Object) error {
	switch obj.(type) {
	case *unstructured.Unstructured, *unstructured.UnstructuredList:
		return fmt.Errorf("crsim: unstructured objects are not supported: use the kind's Go type (registered in the manager's scheme)")
	case *metav1.PartialObjectMetadata, *metav1.PartialObjectMetadataList:
		return fmt.Errorf("crsim: metadata-only objects are not supported: use the kind's Go type (registered in the manager's scheme)")
	}
	return nil
}

// refused is the error of a request the simulator does not model: the
// API server's 405 Method Not Allowed, with a message that says so.
func refused(verb string, obj runtime.Object, what string) error {
	name := ""
	if o, ok := obj.(metav1.Object); ok && !reflect.ValueOf(o).IsNil() {
		name = o.GetName()
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: 405, Reason: metav1.StatusReasonMethodNotAllowed,
		Details: &metav1.StatusDetails{Name: name},
		Message: fmt.Sprintf("%s: not modelled by the simulator: %s", verb, what),
	}}
}
