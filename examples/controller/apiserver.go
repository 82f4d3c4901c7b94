package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"sync"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/clock"

	"github.com/deploymath/deploymath/rollout"
)

// fakeAPIServer makes client-go's fake clientset behave like an API server
// in the ways a controller relies on. The fake clientset alone stores
// objects as they are sent: no UIDs, no creationTimestamp, no generation, no
// resourceVersion in the objects, no optimistic concurrency, and an update
// of the status subresource overwrites the spec. fakeAPIServer is a reactor
// placed in front of the fake's object tracker that, for create, update,
// patch and delete:
//
//   - round-trips every written object through JSON, so times have second
//     precision as the real API serializes them;
//   - assigns a UID, creationTimestamp (from its clock), generation 1 and a
//     numeric resourceVersion on create, and refuses a create of an
//     existing name with AlreadyExists;
//   - refuses an update or patch whose resourceVersion (when not empty) or
//     UID is not the stored one with a 409 Conflict, like the real server;
//   - keeps the stored status on an update of the main resource and the
//     stored spec and labels on an update of the status subresource (as the
//     apps/v1 status strategy, metadata.annotations come from the request);
//   - bumps metadata.generation when the spec changes and resourceVersion on
//     every write (one counter for all objects, like etcd's revision);
//   - applies the API server's defaults to Deployments ([rollout.Default]);
//   - checks the UID and resourceVersion preconditions of a delete, and
//     deletes pods gracefully: a pod deleted without gracePeriodSeconds=0
//     only gets a deletionTimestamp, the (fake) kubelet removes it later.
//
// Gets, lists and watches go to the fake's tracker unchanged, so informers
// work as usual. OnChange, when set, is called after every successful write
// with the stored object before and after (nil for a create or a delete); a
// test uses it to feed informer caches synchronously. It runs while the
// fake clientset is locked: it must not call the clientset.
type fakeAPIServer struct {
	tracker k8stesting.ObjectTracker
	clock   clock.PassiveClock

	mu       sync.Mutex
	version  int64
	uids     int64
	OnChange func(old, cur runtime.Object)
}

// newFakeClientset returns a fake clientset with a fakeAPIServer in front
// of its tracker.
func newFakeClientset(clk clock.PassiveClock) (*fake.Clientset, *fakeAPIServer) {
	cs := fake.NewSimpleClientset()
	s := &fakeAPIServer{tracker: cs.Tracker(), clock: clk}
	cs.PrependReactor("*", "*", s.react)
	return cs, s
}

func (s *fakeAPIServer) react(action k8stesting.Action) (bool, runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch a := action.(type) {
	case k8stesting.CreateActionImpl:
		if a.GetSubresource() != "" {
			return false, nil, nil
		}
		obj, err := s.create(a.GetResource(), a.GetNamespace(), a.GetObject())
		return true, obj, err
	case k8stesting.UpdateActionImpl:
		obj, err := s.update(a.GetResource(), a.GetNamespace(), a.GetSubresource(), a.GetObject())
		return true, obj, err
	case k8stesting.PatchActionImpl:
		obj, err := s.patch(a)
		return true, obj, err
	case k8stesting.DeleteActionImpl:
		return true, nil, s.delete(a)
	}
	return false, nil, nil
}

func (s *fakeAPIServer) nextVersion() string {
	s.version++
	return strconv.FormatInt(s.version, 10)
}

func (s *fakeAPIServer) now() metav1.Time {
	return metav1.NewTime(s.clock.Now()).Rfc3339Copy()
}

func (s *fakeAPIServer) create(gvr schema.GroupVersionResource, ns string, in runtime.Object) (runtime.Object, error) {
	obj, err := roundTrip(in)
	if err != nil {
		return nil, err
	}
	obj = defaulted(obj)
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	if m.GetNamespace() == "" {
		m.SetNamespace(ns)
	}
	if _, err := s.tracker.Get(gvr, ns, m.GetName()); err == nil {
		return nil, apierrors.NewAlreadyExists(gvr.GroupResource(), m.GetName())
	}
	s.uids++
	m.SetUID(types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", s.uids)))
	m.SetCreationTimestamp(s.now())
	m.SetDeletionTimestamp(nil)
	if _, ok := specOf(obj); ok {
		m.SetGeneration(1)
	}
	m.SetResourceVersion(s.nextVersion())
	if err := s.tracker.Create(gvr, obj, ns); err != nil {
		return nil, err
	}
	s.changed(nil, obj)
	return obj.DeepCopyObject(), nil
}

func (s *fakeAPIServer) update(gvr schema.GroupVersionResource, ns, sub string, in runtime.Object) (runtime.Object, error) {
	if sub != "" && sub != "status" {
		return nil, apierrors.NewMethodNotSupported(gvr.GroupResource(), "update of "+sub)
	}
	m, err := meta.Accessor(in)
	if err != nil {
		return nil, err
	}
	stored, err := s.tracker.Get(gvr, ns, m.GetName())
	if err != nil {
		return nil, err
	}
	obj, err := roundTrip(in)
	if err != nil {
		return nil, err
	}
	return s.write(gvr, ns, sub, stored, obj)
}

func (s *fakeAPIServer) patch(a k8stesting.PatchActionImpl) (runtime.Object, error) {
	gvr, ns, sub := a.GetResource(), a.GetNamespace(), a.GetSubresource()
	if sub != "" && sub != "status" {
		return nil, apierrors.NewMethodNotSupported(gvr.GroupResource(), "patch of "+sub)
	}
	stored, err := s.tracker.Get(gvr, ns, a.GetName())
	if err != nil {
		return nil, err
	}
	old, err := json.Marshal(stored)
	if err != nil {
		return nil, err
	}
	var patched []byte
	switch a.GetPatchType() {
	case types.StrategicMergePatchType:
		patched, err = strategicpatch.StrategicMergePatch(old, a.GetPatch(), stored)
	case types.MergePatchType:
		patched, err = jsonpatch.MergePatch(old, a.GetPatch())
	case types.JSONPatchType:
		var p jsonpatch.Patch
		if p, err = jsonpatch.DecodePatch(a.GetPatch()); err == nil {
			patched, err = p.Apply(old)
		}
	default:
		return nil, apierrors.NewBadRequest("unsupported patch type " + string(a.GetPatchType()))
	}
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	obj := newLike(stored)
	if err := json.Unmarshal(patched, obj); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	// A patch without a resourceVersion applies to the stored version; a
	// patch that sets one (or a UID) makes it a precondition.
	m, _ := meta.Accessor(obj)
	sm, _ := meta.Accessor(stored)
	if m.GetResourceVersion() == sm.GetResourceVersion() {
		m.SetResourceVersion("")
	}
	return s.write(gvr, ns, sub, stored, obj)
}

// write stores obj (a fresh object the caller owns) over stored.
func (s *fakeAPIServer) write(gvr schema.GroupVersionResource, ns, sub string, stored, obj runtime.Object) (runtime.Object, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	sm, err := meta.Accessor(stored)
	if err != nil {
		return nil, err
	}
	if m.GetUID() != "" && m.GetUID() != sm.GetUID() {
		return nil, apierrors.NewConflict(gvr.GroupResource(), sm.GetName(),
			//lint:ignore ST1005 the API server's message, verbatim
			fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", m.GetUID(), sm.GetUID()))
	}
	if rv := m.GetResourceVersion(); rv != "" && rv != sm.GetResourceVersion() {
		return nil, apierrors.NewConflict(gvr.GroupResource(), sm.GetName(),
			errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	}
	if sub == "status" {
		// The status strategies keep everything but the status; apps/v1
		// lets metadata.annotations through.
		out := stored.DeepCopyObject()
		if err := copyField(out, obj, "Status"); err != nil {
			return nil, err
		}
		om, _ := meta.Accessor(out)
		om.SetAnnotations(m.GetAnnotations())
		obj, m = out, om
	} else {
		obj = defaulted(obj)
		m, _ = meta.Accessor(obj)
		if err := copyField(obj, stored, "Status"); err != nil {
			return nil, err
		}
		m.SetGeneration(sm.GetGeneration())
		oldSpec, hasSpec := specOf(stored)
		newSpec, _ := specOf(obj)
		// Spec changes bump the generation; for Deployments so do
		// annotation changes (the apps registry copies them to ReplicaSets).
		_, isDeployment := obj.(*appsv1.Deployment)
		if hasSpec && !equality.Semantic.DeepEqual(oldSpec, newSpec) ||
			isDeployment && !equality.Semantic.DeepEqual(sm.GetAnnotations(), m.GetAnnotations()) {
			m.SetGeneration(sm.GetGeneration() + 1)
		}
	}
	m.SetUID(sm.GetUID())
	m.SetCreationTimestamp(sm.GetCreationTimestamp())
	m.SetDeletionTimestamp(sm.GetDeletionTimestamp())
	m.SetResourceVersion(s.nextVersion())
	if err := s.tracker.Update(gvr, obj, ns); err != nil {
		return nil, err
	}
	s.changed(stored, obj)
	return obj.DeepCopyObject(), nil
}

func (s *fakeAPIServer) delete(a k8stesting.DeleteActionImpl) error {
	gvr, ns, name := a.GetResource(), a.GetNamespace(), a.GetName()
	stored, err := s.tracker.Get(gvr, ns, name)
	if err != nil {
		return err
	}
	sm, err := meta.Accessor(stored)
	if err != nil {
		return err
	}
	if p := a.DeleteOptions.Preconditions; p != nil {
		if p.UID != nil && *p.UID != sm.GetUID() {
			return apierrors.NewConflict(gvr.GroupResource(), name,
				//lint:ignore ST1005 the API server's message, verbatim
				fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, sm.GetUID()))
		}
		if p.ResourceVersion != nil && *p.ResourceVersion != sm.GetResourceVersion() {
			return apierrors.NewConflict(gvr.GroupResource(), name,
				//lint:ignore ST1005 the API server's message, verbatim
				fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, sm.GetResourceVersion()))
		}
	}
	immediate := a.DeleteOptions.GracePeriodSeconds != nil && *a.DeleteOptions.GracePeriodSeconds == 0
	if pod, ok := stored.(*corev1.Pod); ok && !immediate {
		if pod.DeletionTimestamp != nil {
			return nil // already terminating
		}
		out := pod.DeepCopy()
		now := s.now()
		out.DeletionTimestamp = &now
		out.ResourceVersion = s.nextVersion()
		if err := s.tracker.Update(gvr, out, ns); err != nil {
			return err
		}
		s.changed(stored, out)
		return nil
	}
	if err := s.tracker.Delete(gvr, ns, name); err != nil {
		return err
	}
	s.changed(stored, nil)
	return nil
}

func (s *fakeAPIServer) changed(old, cur runtime.Object) {
	if s.OnChange == nil {
		return
	}
	var o, c runtime.Object
	if old != nil {
		o = old.DeepCopyObject()
	}
	if cur != nil {
		c = cur.DeepCopyObject()
	}
	s.OnChange(o, c)
}

// defaulted applies the API server's defaults of the types that need them.
func defaulted(obj runtime.Object) runtime.Object {
	if d, ok := obj.(*appsv1.Deployment); ok {
		return rollout.Default(d)
	}
	return obj
}

// roundTrip returns a copy of obj as it comes back from the API: through
// JSON, so times have second precision.
func roundTrip(obj runtime.Object) (runtime.Object, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	out := newLike(obj)
	if err := json.Unmarshal(b, out); err != nil {
		return nil, err
	}
	out.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return out, nil
}

// newLike returns a new zero object of obj's type.
func newLike(obj runtime.Object) runtime.Object {
	return reflect.New(reflect.TypeOf(obj).Elem()).Interface().(runtime.Object)
}

// specOf returns the Spec field of a typed object, if it has one.
func specOf(obj runtime.Object) (any, bool) {
	v := reflect.ValueOf(obj).Elem().FieldByName("Spec")
	if !v.IsValid() {
		return nil, false
	}
	return v.Interface(), true
}

// copyField sets dst's field name (Status) to a deep copy of src's.
func copyField(dst, src runtime.Object, name string) error {
	d := reflect.ValueOf(dst).Elem().FieldByName(name)
	sv := reflect.ValueOf(src).Elem().FieldByName(name)
	if !d.IsValid() || !sv.IsValid() {
		return nil
	}
	b, err := json.Marshal(sv.Interface())
	if err != nil {
		return err
	}
	fresh := reflect.New(d.Type())
	if err := json.Unmarshal(b, fresh.Interface()); err != nil {
		return err
	}
	d.Set(fresh.Elem())
	return nil
}
