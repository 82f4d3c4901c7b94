package differential

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/deploymath/deploymath/rollout"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/apps"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
)

// server is the API server as far as one Deployment's sync can tell: it
// stores Deployments, ReplicaSets and Pods as JSON (so times have the
// second precision a real server gives them), checks resourceVersion and UID
// preconditions, runs the real apps registry strategies of v1.37.1
// (PrepareForCreate/PrepareForUpdate: status subresource, generation rules)
// and their validation, and logs every write with its outcome.
//
// Both sides of the differential test write through a server: the real
// controller through a fake clientset whose reactor is [server.react], the
// plan through the same calls made by [applyPlan].
type server struct {
	objs map[string][]byte // "deployments/ns/name" → JSON
	rv   int64
	// created is the creationTimestamp given to created ReplicaSets.
	created metav1.Time
	// now is the instant the last plan applied to it was made at.
	now time.Time
	log []write
}

// write is one request that changes state, as the server saw it.
type write struct {
	Verb, Resource, Subresource, Name string
	// Body is the request object (as JSON, without resourceVersion; see the
	// package doc) or the patch.
	Body string
	// Precondition is the resourceVersion the request was conditional on
	// ("" for none).
	Precondition string
	// Outcome is "ok" or the reason the server refused the request.
	Outcome string
}

func (w write) String() string {
	s := w.Verb + " " + w.Resource
	if w.Subresource != "" {
		s += "/" + w.Subresource
	}
	return fmt.Sprintf("%s %s → %s\n    %s", s, w.Name, w.Outcome, w.Body)
}

func newServer() *server { return &server{objs: map[string][]byte{}} }

func (s *server) clone() *server {
	c := &server{objs: make(map[string][]byte, len(s.objs)), rv: s.rv, created: s.created}
	for k, v := range s.objs {
		c.objs[k] = v
	}
	return c
}

func key(resource, ns, name string) string { return resource + "/" + ns + "/" + name }

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// put stores obj as it is (the test's initial state), without a log entry.
func (s *server) put(resource string, obj metav1.Object, v any) {
	s.objs[key(resource, obj.GetNamespace(), obj.GetName())] = mustJSON(v)
}

func (s *server) nextRV() string {
	s.rv++
	return strconv.FormatInt(s.rv, 10)
}

// deployments, replicaSets and pods decode the stored objects, sorted by
// key, as new objects (what an informer would hand out).
func (s *server) deployments() []*appsv1.Deployment {
	return decodeAll[appsv1.Deployment](s, "deployments/")
}

func (s *server) replicaSets() []*appsv1.ReplicaSet {
	return decodeAll[appsv1.ReplicaSet](s, "replicasets/")
}

func (s *server) pods() []*corev1.Pod { return decodeAll[corev1.Pod](s, "pods/") }

func decodeAll[T any](s *server, prefix string) []*T {
	var keys []string
	for k := range s.objs {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	out := make([]*T, 0, len(keys))
	for _, k := range keys {
		v := new(T)
		if err := json.Unmarshal(s.objs[k], v); err != nil {
			panic(err)
		}
		out = append(out, v)
	}
	return out
}

// state is the stored objects as one string, for comparing two servers.
func (s *server) state() string { return s.render(false) }

// render is state, optionally without resourceVersions (for comparing with
// rollout.Apply, which numbers versions per object, not cluster-wide).
func (s *server) render(noVersions bool) string {
	var keys []string
	for k := range s.objs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		if strings.HasPrefix(k, "pods/") {
			continue // never written
		}
		v := s.objs[k]
		if noVersions {
			v = withoutVersion(v)
		}
		fmt.Fprintf(&b, "%s\n  %s\n", k, v)
	}
	return b.String()
}

// clientset returns a fake clientset whose deployments and replicasets are
// served by s.
func (s *server) clientset() *fake.Clientset {
	c := fake.NewClientset()
	c.PrependReactor("*", "*", s.react)
	return c
}

var (
	gvrDeployments = appsv1.SchemeGroupVersion.WithResource("deployments")
	gvrReplicaSets = appsv1.SchemeGroupVersion.WithResource("replicasets")
)

func (s *server) react(action clienttesting.Action) (bool, runtime.Object, error) {
	res := action.GetResource()
	if res != gvrDeployments && res != gvrReplicaSets {
		return false, nil, nil
	}
	ns := action.GetNamespace()
	switch action.GetVerb() {
	case "get":
		a := action.(clienttesting.GetAction)
		b, ok := s.objs[key(res.Resource, ns, a.GetName())]
		if !ok {
			return true, nil, apierrors.NewNotFound(res.GroupResource(), a.GetName())
		}
		return true, decode(res, b), nil
	case "create":
		obj, err := s.create(res, ns, action.(clienttesting.CreateAction).GetObject())
		return true, obj, err
	case "update":
		obj, err := s.update(res, ns, action.GetSubresource(), action.(clienttesting.UpdateAction).GetObject())
		return true, obj, err
	case "patch":
		obj, err := s.patch(res, ns, action.(clienttesting.PatchAction))
		return true, obj, err
	case "delete":
		err := s.delete(res, ns, action.(clienttesting.DeleteAction))
		return true, nil, err
	}
	return true, nil, fmt.Errorf("differential server: unsupported %s %s", action.GetVerb(), res.Resource)
}

func decode(res schema.GroupVersionResource, b []byte) runtime.Object {
	var obj runtime.Object = &appsv1.Deployment{}
	if res == gvrReplicaSets {
		obj = &appsv1.ReplicaSet{}
	}
	if err := json.Unmarshal(b, obj); err != nil {
		panic(err)
	}
	return obj
}

// body renders a request object for the log: JSON without the metadata
// the server ignores in a write (resourceVersion, compared by outcome, and
// generation, which the server sets itself).
func body(obj runtime.Object) string {
	m, ok := obj.(metav1.Object)
	if !ok {
		return string(mustJSON(obj))
	}
	rv, gen := m.GetResourceVersion(), m.GetGeneration()
	m.SetResourceVersion("")
	m.SetGeneration(0)
	b := mustJSON(obj)
	m.SetResourceVersion(rv)
	m.SetGeneration(gen)
	return string(b)
}

func (s *server) logWrite(verb string, res schema.GroupVersionResource, sub, name, b, pre string, err error) {
	out := "ok"
	if err != nil {
		out = outcome(err)
	}
	s.log = append(s.log, write{Verb: verb, Resource: res.Resource, Subresource: sub, Name: name, Body: b, Precondition: pre, Outcome: out})
}

// outcome names a refusal by its reason (Conflict, Invalid, ...) and, for
// invalid objects, the fields.
func outcome(err error) string {
	if se, ok := err.(apierrors.APIStatus); ok {
		st := se.Status()
		out := string(st.Reason)
		if st.Details != nil {
			for _, c := range st.Details.Causes {
				out += " " + c.Field
			}
		}
		return out
	}
	return err.Error()
}

// toInternal converts an apps/v1 Deployment or ReplicaSet to the internal
// apps type the registry strategies work on; toExternal converts back.
func toInternal(in runtime.Object) runtime.Object {
	switch in.(type) {
	case *appsv1.Deployment:
		return convert(in, &apps.Deployment{})
	case *appsv1.ReplicaSet:
		return convert(in, &apps.ReplicaSet{})
	}
	panic(fmt.Sprintf("toInternal: %T", in))
}

func toExternal(in runtime.Object) runtime.Object {
	switch in.(type) {
	case *apps.Deployment:
		return convert(in, &appsv1.Deployment{})
	case *apps.ReplicaSet:
		return convert(in, &appsv1.ReplicaSet{})
	}
	panic(fmt.Sprintf("toExternal: %T", in))
}

// convert converts in into out with the API server's scheme and returns
// out; the test generates only objects that convert.
func convert(in, out runtime.Object) runtime.Object {
	if err := legacyscheme.Scheme.Convert(in, out, nil); err != nil {
		panic(err)
	}
	return out
}

func invalid(res schema.GroupVersionResource, name string, errs field.ErrorList) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: res.Group, Kind: map[string]string{"deployments": "Deployment", "replicasets": "ReplicaSet"}[res.Resource]}, name, errs)
}

func (s *server) create(res schema.GroupVersionResource, ns string, obj runtime.Object) (runtime.Object, error) {
	m := obj.(metav1.Object)
	name := m.GetName()
	k := key(res.Resource, ns, name)
	var err error
	defer func() { s.logWrite("create", res, "", name, body(obj), "", err) }()
	if res != gvrReplicaSets {
		err = fmt.Errorf("differential server: create of %s is not expected", res.Resource)
		return nil, err
	}
	if _, ok := s.objs[k]; ok {
		err = apierrors.NewAlreadyExists(res.GroupResource(), name)
		return nil, err
	}
	in := toInternal(obj.DeepCopyObject()).(*apps.ReplicaSet)
	ctx := context.Background()
	replicaset.Strategy.PrepareForCreate(ctx, in)
	in.UID = types.UID(ns + "/" + name) // as rollout.Apply does

	in.CreationTimestamp = s.created
	in.Namespace = ns
	if errs := replicaset.Strategy.Validate(ctx, in); len(errs) > 0 {
		err = invalid(res, name, errs)
		return nil, err
	}
	in.ResourceVersion = s.nextRV()
	out := toExternal(in)
	s.objs[k] = mustJSON(out)
	return decode(res, s.objs[k]), nil
}

func (s *server) update(res schema.GroupVersionResource, ns, sub string, obj runtime.Object) (runtime.Object, error) {
	m := obj.(metav1.Object)
	name := m.GetName()
	var err error
	defer func() { s.logWrite("update", res, sub, name, body(obj), m.GetResourceVersion(), err) }()
	k := key(res.Resource, ns, name)
	stored, ok := s.objs[k]
	if !ok {
		err = apierrors.NewNotFound(res.GroupResource(), name)
		return nil, err
	}
	old := decode(res, stored)
	oldMeta := old.(metav1.Object)
	if rv := m.GetResourceVersion(); rv != "" && rv != oldMeta.GetResourceVersion() {
		err = apierrors.NewConflict(res.GroupResource(), name, fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
		return nil, err
	}
	var out runtime.Object
	out, err = s.store(res, sub, obj.DeepCopyObject(), old)
	return out, err
}

// store runs the registry's update path (rest.BeforeUpdate as far as it
// matters here) on newObj over old and stores the result.
func (s *server) store(res schema.GroupVersionResource, sub string, newObj, old runtime.Object) (runtime.Object, error) {
	ctx := context.Background()
	in, oldIn := toInternal(newObj), toInternal(old)
	newMeta, oldMeta := in.(metav1.Object), oldIn.(metav1.Object)
	name := oldMeta.GetName()
	newMeta.SetGeneration(oldMeta.GetGeneration())
	if newMeta.GetResourceVersion() == "" {
		// An unconditional update (both strategies allow them) is validated
		// with the stored version.
		newMeta.SetResourceVersion(oldMeta.GetResourceVersion())
	}
	switch {
	case res == gvrDeployments && sub == "status":
		deployment.StatusStrategy.PrepareForUpdate(ctx, in, oldIn)
	case res == gvrDeployments && sub == "":
		deployment.Strategy.PrepareForUpdate(ctx, in, oldIn)
	case res == gvrReplicaSets && sub == "status":
		replicaset.StatusStrategy.PrepareForUpdate(ctx, in, oldIn)
	case res == gvrReplicaSets && sub == "":
		replicaset.Strategy.PrepareForUpdate(ctx, in, oldIn)
	}
	if newMeta.GetUID() == "" {
		newMeta.SetUID(oldMeta.GetUID())
	}
	if uid := newMeta.GetUID(); uid != oldMeta.GetUID() {
		return nil, apierrors.NewConflict(res.GroupResource(), name, fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", uid, oldMeta.GetUID()))
	}
	newMeta.SetCreationTimestamp(oldMeta.GetCreationTimestamp())
	var errs field.ErrorList
	switch {
	case res == gvrDeployments && sub == "status":
		errs = deployment.StatusStrategy.ValidateUpdate(ctx, in, oldIn)
	case res == gvrDeployments && sub == "":
		errs = deployment.Strategy.ValidateUpdate(ctx, in, oldIn)
	case res == gvrReplicaSets && sub == "status":
		errs = replicaset.StatusStrategy.ValidateUpdate(ctx, in, oldIn)
	case res == gvrReplicaSets && sub == "":
		errs = replicaset.Strategy.ValidateUpdate(ctx, in, oldIn)
	}
	if len(errs) > 0 {
		return nil, invalid(res, name, errs)
	}
	newMeta.SetResourceVersion(s.nextRV())
	out := toExternal(in)
	k := key(res.Resource, oldMeta.GetNamespace(), name)
	s.objs[k] = mustJSON(out)
	return decode(res, s.objs[k]), nil
}

func (s *server) patch(res schema.GroupVersionResource, ns string, a clienttesting.PatchAction) (runtime.Object, error) {
	name := a.GetName()
	var err error
	defer func() { s.logWrite("patch", res, a.GetSubresource(), name, string(a.GetPatch()), "", err) }()
	if a.GetPatchType() != types.StrategicMergePatchType || res != gvrReplicaSets {
		err = fmt.Errorf("differential server: unexpected %s patch of %s", a.GetPatchType(), res.Resource)
		return nil, err
	}
	stored, ok := s.objs[key(res.Resource, ns, name)]
	if !ok {
		err = apierrors.NewNotFound(res.GroupResource(), name)
		return nil, err
	}
	var patched []byte
	patched, err = strategicpatch.StrategicMergePatch(stored, a.GetPatch(), &appsv1.ReplicaSet{})
	if err != nil {
		return nil, err
	}
	newObj := decode(res, patched)
	var out runtime.Object
	out, err = s.store(res, a.GetSubresource(), newObj, decode(res, stored))
	return out, err
}

func (s *server) delete(res schema.GroupVersionResource, ns string, a clienttesting.DeleteAction) error {
	name := a.GetName()
	pre := ""
	opts := a.GetDeleteOptions()
	if opts.Preconditions != nil && opts.Preconditions.UID != nil {
		pre = "uid=" + string(*opts.Preconditions.UID)
	}
	var err error
	defer func() { s.logWrite("delete", res, "", name, "", pre, err) }()
	k := key(res.Resource, ns, name)
	stored, ok := s.objs[k]
	if !ok {
		err = apierrors.NewNotFound(res.GroupResource(), name)
		return err
	}
	if opts.Preconditions != nil && opts.Preconditions.UID != nil {
		if uid := decode(res, stored).(metav1.Object).GetUID(); uid != *opts.Preconditions.UID {
			err = apierrors.NewConflict(res.GroupResource(), name, fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *opts.Preconditions.UID, uid))
			return err
		}
	}
	s.nextRV()
	delete(s.objs, k)
	return nil
}

// withoutVersion drops metadata.resourceVersion from a stored object.
func withoutVersion(b []byte) []byte {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "resourceVersion")
	}
	return mustJSON(m)
}

// snapshotState renders a rollout snapshot as render(true) renders a
// server holding the same objects.
func snapshotState(s rollout.Snapshot) string {
	srv := newServer()
	srv.put("deployments", s.Deployment, s.Deployment)
	for _, rs := range s.ReplicaSets {
		srv.put("replicasets", rs, rs)
	}
	return srv.render(true)
}
