package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"sync"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/clock"
)

// fakeServer gives client-go's fake clientset the metadata an API server
// maintains, which the restart engine relies on to skip repeated
// observations: a UID and creationTimestamp on create, and a new numeric
// resourceVersion on every create, update and merge patch (one counter for
// all objects). Writes are unconditional (the restart controller only sends
// merge patches); see examples/controller for a fuller fake API server with
// optimistic concurrency.
//
// OnChange, when set, is called after every successful write with the
// stored object before and after (nil for a create or a delete), while the
// fake clientset is locked: it must not call the clientset. Tests use it to
// play the informers synchronously. FailPatches, when positive, makes that
// many next patches fail with a server timeout.
type fakeServer struct {
	tracker k8stesting.ObjectTracker
	clock   clock.PassiveClock

	mu          sync.Mutex
	version     int64
	uids        int64
	OnChange    func(old, cur runtime.Object)
	FailPatches int
}

func newFakeClientset(clk clock.PassiveClock) (*fake.Clientset, *fakeServer) {
	cs := fake.NewSimpleClientset()
	s := &fakeServer{tracker: cs.Tracker(), clock: clk}
	cs.PrependReactor("*", "*", s.react)
	return cs, s
}

func (s *fakeServer) react(action k8stesting.Action) (bool, runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	gvr, ns := action.GetResource(), action.GetNamespace()
	switch a := action.(type) {
	case k8stesting.CreateActionImpl:
		obj := a.GetObject().DeepCopyObject()
		m, err := meta.Accessor(obj)
		if err != nil {
			return true, nil, err
		}
		s.uids++
		m.SetUID(types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", s.uids)))
		m.SetCreationTimestamp(metav1.NewTime(s.clock.Now()).Rfc3339Copy())
		s.version++
		m.SetResourceVersion(strconv.FormatInt(s.version, 10))
		if err := s.tracker.Create(gvr, obj, ns); err != nil {
			return true, nil, err
		}
		s.changed(nil, obj)
		return true, obj.DeepCopyObject(), nil
	case k8stesting.UpdateActionImpl:
		obj := a.GetObject().DeepCopyObject()
		m, err := meta.Accessor(obj)
		if err != nil {
			return true, nil, err
		}
		stored, err := s.tracker.Get(gvr, ns, m.GetName())
		if err != nil {
			return true, nil, err
		}
		return true, obj, s.store(gvr, stored, obj)
	case k8stesting.PatchActionImpl:
		if a.GetPatchType() != types.MergePatchType {
			return false, nil, nil
		}
		if s.FailPatches > 0 {
			s.FailPatches--
			return true, nil, apierrors.NewServerTimeout(gvr.GroupResource(), "patch", 1)
		}
		stored, err := s.tracker.Get(gvr, ns, a.GetName())
		if err != nil {
			return true, nil, err
		}
		old, err := json.Marshal(stored)
		if err != nil {
			return true, nil, err
		}
		patched, err := jsonpatch.MergePatch(old, a.GetPatch())
		if err != nil {
			return true, nil, apierrors.NewBadRequest(err.Error())
		}
		obj := reflect.New(reflect.TypeOf(stored).Elem()).Interface().(runtime.Object)
		if err := json.Unmarshal(patched, obj); err != nil {
			return true, nil, apierrors.NewBadRequest(err.Error())
		}
		return true, obj, s.store(gvr, stored, obj)
	case k8stesting.DeleteActionImpl:
		stored, err := s.tracker.Get(gvr, ns, a.GetName())
		if err != nil {
			return true, nil, err
		}
		if err := s.tracker.Delete(gvr, ns, a.GetName()); err != nil {
			return true, nil, err
		}
		s.changed(stored, nil)
		return true, nil, nil
	}
	return false, nil, nil
}

// store writes obj over stored with a new resourceVersion.
func (s *fakeServer) store(gvr schema.GroupVersionResource, stored, obj runtime.Object) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	sm, err := meta.Accessor(stored)
	if err != nil {
		return err
	}
	m.SetUID(sm.GetUID())
	m.SetCreationTimestamp(sm.GetCreationTimestamp())
	s.version++
	m.SetResourceVersion(strconv.FormatInt(s.version, 10))
	if err := s.tracker.Update(gvr, obj, m.GetNamespace()); err != nil {
		return err
	}
	s.changed(stored, obj)
	return nil
}

func (s *fakeServer) changed(old, cur runtime.Object) {
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
