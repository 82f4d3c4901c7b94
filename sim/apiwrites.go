package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/rollout/defaulting"
	"github.com/deploymath/deploymath/sim/internal/apiserver"
	"github.com/deploymath/deploymath/sim/internal/apivalidation"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The writes of hosted controllers, as the API server takes them (see
// [Client]): each kind's rules, then the same watchers as every other
// write of that kind (the cluster model, the informers, the write log,
// the restart controller, the hosted controllers' watches).

// writeVerb is a write of the client.
type writeVerb uint8

const (
	verbCreate writeVerb = iota
	verbUpdate
	verbStatus
)

func (v writeVerb) String() string {
	return [...]string{"create", "update", "status"}[v]
}

// write makes a write of the client and fills obj with what was stored.
func (c *simClient) write(obj Object, verb writeVerb) error {
	ki, err := c.s.kinds.of(obj)
	if err != nil {
		return err
	}
	if verb != verbCreate {
		if err := c.s.injectConflict(c.h, verb.String(), ki, obj.GetName()); err != nil {
			return err
		}
	}
	stored, err := c.s.writeObject(ki, obj, verb)
	if err != nil {
		return err
	}
	c.s.checkUser()
	return copyInto(obj, stored)
}

// writeObject writes obj (not modified) as verb and returns the stored
// object.
func (s *Sim) writeObject(ki *kindInfo, obj Object, verb writeVerb) (Object, error) {
	obj = obj.DeepCopyObject().(Object)
	if !ki.clusterScoped && obj.GetNamespace() == "" {
		obj.SetNamespace(metaDefault)
	}
	if verb == verbCreate {
		if err := s.nameForCreate(ki, obj); err != nil {
			return nil, err
		}
	} else if obj.GetName() == "" {
		return nil, invalid(ki, obj, field.Required(field.NewPath("metadata", "name"), "name is required"))
	}
	switch ki.builtin {
	case kindDeployment:
		return s.writeDeployment(ki, obj.(*appsv1.Deployment), verb)
	case kindReplicaSet:
		return s.writeReplicaSet(ki, obj.(*appsv1.ReplicaSet), verb)
	case kindConfigMap, kindSecret:
		return s.writeConfig(ki, obj, verb)
	case kindPod:
		return nil, notModelled(ki, obj.GetName(), verb.String()+" of pods: the simulator's pods are its ReplicaSets' (create or scale a ReplicaSet; a pod can be deleted)")
	case kindNode:
		return nil, notModelled(ki, obj.GetName(), verb.String()+" of nodes: nodes are the scenario's (cluster.nodes, Node objects) and its steps'")
	}
	return s.writeCustom(ki, obj, verb)
}

// nameForCreate gives obj a name from its generateName when it has none:
// five characters of the API server's alphabet, drawn again while the
// name is taken (as the API server retries since RetryGenerateName).
func (s *Sim) nameForCreate(ki *kindInfo, obj Object) error {
	if obj.GetName() != "" {
		return nil
	}
	prefix := obj.GetGenerateName()
	if prefix == "" {
		return invalid(ki, obj, field.Required(field.NewPath("metadata", "name"), "name or generateName is required"))
	}
	if len(prefix) > 58 {
		prefix = prefix[:58]
	}
	for range 8 {
		name := prefix + randomSuffix(s.rng.Uint64())
		if s.stored(ki, obj.GetNamespace(), name) == nil {
			obj.SetName(name)
			return nil
		}
	}
	return apierrors.NewAlreadyExists(ki.resource, prefix)
}

// randomSuffix is five characters of the API server's generateName
// alphabet (consonants and digits without look-alikes) from r.
func randomSuffix(r uint64) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	var b [5]byte
	for i := range b {
		b[i] = alphabet[r%uint64(len(alphabet))]
		r /= uint64(len(alphabet))
	}
	return string(b[:])
}

// writeDeployment is a write of a Deployment: defaulted and validated as
// the API server does, then the engine's Deployment writes.
func (s *Sim) writeDeployment(ki *kindInfo, d *appsv1.Deployment, verb writeVerb) (Object, error) {
	key := objKey(d.Namespace, d.Name)
	if verb == verbStatus {
		if err := s.updateDeploymentStatus(d); err != nil {
			return nil, statusError(ki, d.Name, err)
		}
		return s.st.Deployments[key], nil
	}
	dd := rollout.Default(d)
	if err := rollout.Validate(dd); err != nil {
		return nil, apierrors.NewInvalid(ki.gvk.GroupKind(), d.Name, field.ErrorList{field.Invalid(field.NewPath("spec"), nil, err.Error())})
	}
	if errs := apivalidation.PodTemplate(&dd.Spec.Template, "spec.template"); len(errs) > 0 {
		fe := field.Invalid(field.NewPath(errs[0].Field), nil, errs[0].Detail)
		if errs[0].Detail == "Required value" {
			fe = field.Required(field.NewPath(errs[0].Field), "")
		}
		return nil, apierrors.NewInvalid(ki.gvk.GroupKind(), d.Name, field.ErrorList{fe})
	}
	if n := replicas(dd); n > MaxReplicas {
		return nil, tooManyReplicas(ki, d.Name, n)
	}
	var err error
	if verb == verbCreate {
		err = s.createDeployment(dd)
	} else {
		err = s.updateDeployment(dd)
	}
	if err != nil {
		return nil, statusError(ki, d.Name, err)
	}
	return s.st.Deployments[key], nil
}

// writeReplicaSet is a write of a ReplicaSet: replicas defaulted to 1 and
// the pod template defaulted as the API server does, the selector
// required, matching the template's labels and immutable.
func (s *Sim) writeReplicaSet(ki *kindInfo, rs *appsv1.ReplicaSet, verb writeVerb) (Object, error) {
	key := objKey(rs.Namespace, rs.Name)
	if verb == verbStatus {
		return nil, notModelled(ki, rs.Name, "a status write of a replicaset: its status is the simulator's ReplicaSet controller's")
	}
	if rs.Spec.Replicas == nil {
		one := int32(1)
		rs.Spec.Replicas = &one
	}
	rs.Spec.Template = *defaulting.PodTemplate(&rs.Spec.Template)
	if errs := validReplicaSetSpec(rs); len(errs) > 0 {
		return nil, apierrors.NewInvalid(ki.gvk.GroupKind(), rs.Name, errs)
	}
	if n := *rs.Spec.Replicas; n > MaxReplicas {
		return nil, tooManyReplicas(ki, rs.Name, n)
	}
	var err error
	if verb == verbCreate {
		err = s.createReplicaSet(rs)
	} else {
		if old := s.st.ReplicaSet(key); old != nil && !equality.Semantic.DeepEqual(old.Spec.Selector, rs.Spec.Selector) {
			return nil, apierrors.NewInvalid(ki.gvk.GroupKind(), rs.Name, field.ErrorList{field.Invalid(field.NewPath("spec", "selector"), rs.Spec.Selector, "field is immutable")})
		}
		err = s.updateReplicaSet(rs, true)
	}
	if err != nil {
		return nil, statusError(ki, rs.Name, err)
	}
	return s.st.ReplicaSet(key), nil
}

// validReplicaSetSpec is the part of apps/v1 ReplicaSet validation the
// simulator relies on: replicas not negative, a selector that is valid,
// not empty and matches the template's labels.
func validReplicaSetSpec(rs *appsv1.ReplicaSet) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if *rs.Spec.Replicas < 0 {
		errs = append(errs, field.Invalid(spec.Child("replicas"), *rs.Spec.Replicas, "must be greater than or equal to 0"))
	}
	if rs.Spec.Selector == nil {
		return append(errs, field.Required(spec.Child("selector"), ""))
	}
	sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	switch {
	case err != nil:
		errs = append(errs, field.Invalid(spec.Child("selector"), rs.Spec.Selector, err.Error()))
	case sel.Empty():
		errs = append(errs, field.Invalid(spec.Child("selector"), rs.Spec.Selector, "empty selector is invalid for deployment"))
	case !sel.Matches(labels.Set(rs.Spec.Template.Labels)):
		errs = append(errs, field.Invalid(spec.Child("template", "metadata", "labels"), rs.Spec.Template.Labels, "`selector` does not match template `labels`"))
	}
	return errs
}

// writeConfig is a write of a ConfigMap or a Secret (no status
// subresource; stringData merged into data).
func (s *Sim) writeConfig(ki *kindInfo, obj Object, verb writeVerb) (Object, error) {
	key := objKey(obj.GetNamespace(), obj.GetName())
	old := s.stored(ki, obj.GetNamespace(), obj.GetName())
	switch {
	case verb == verbStatus:
		return nil, apierrors.NewNotFound(ki.resource, obj.GetName()+"/status")
	case verb == verbCreate && old != nil:
		return nil, apierrors.NewAlreadyExists(ki.resource, obj.GetName())
	case verb == verbUpdate && old == nil:
		return nil, apierrors.NewNotFound(ki.resource, obj.GetName())
	case verb == verbUpdate && stalePreconditions(obj, old):
		return nil, apierrors.NewConflict(ki.resource, obj.GetName(), errors.New(conflictTail))
	}
	var oldMeta *metav1.ObjectMeta
	if old != nil {
		oldMeta = metaOf(old)
	}
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		s.stampApplied(&o.ObjectMeta, oldMeta)
		s.st.ConfigMaps[key] = o
	case *corev1.Secret:
		o = storedSecret(o)
		obj = o
		s.stampApplied(&o.ObjectMeta, oldMeta)
		s.st.Secrets[key] = o
	}
	s.logObjectWrite(ki, verb.String(), obj)
	s.observeRestart(obj)
	s.hostChanged(ki, old, obj)
	return obj, nil
}

// writeCustom is a write of an object of a custom kind, with the rules of
// a custom resource: a create drops the status when the kind has a status
// subresource; an update needs the stored resourceVersion, keeps the
// status (with a status subresource), bumps the generation when anything
// outside metadata changed, adds no finalizer to an object being deleted
// and deletes it once its last finalizer is gone; a status write changes
// the status only.
func (s *Sim) writeCustom(ki *kindInfo, obj Object, verb writeVerb) (Object, error) {
	key := ki.key(obj.GetNamespace(), obj.GetName())
	old, _ := ki.objects.Get(key).(Object)
	setTypeMeta(obj, ki)
	switch verb {
	case verbCreate:
		if old != nil {
			return nil, apierrors.NewAlreadyExists(ki.resource, obj.GetName())
		}
		if ki.status {
			setStatus(obj, nil)
		}
		uid := s.st.NextUID()
		obj.SetUID(uid)
		obj.SetResourceVersion(s.st.NextRV())
		obj.SetGeneration(1)
		obj.SetCreationTimestamp(s.stamp())
		obj.SetDeletionTimestamp(nil)
		obj.SetDeletionGracePeriodSeconds(nil)
		ki.objects.Put(key, obj)
		s.logObjectWrite(ki, "create", obj)
		s.hostChanged(ki, nil, obj)
		return obj, nil
	case verbStatus:
		if !ki.status {
			return nil, apierrors.NewNotFound(ki.resource, obj.GetName()+"/status")
		}
	}
	if old == nil {
		return nil, apierrors.NewNotFound(ki.resource, obj.GetName())
	}
	if obj.GetResourceVersion() == "" {
		return nil, invalid(ki, obj, field.Invalid(field.NewPath("metadata", "resourceVersion"), "", "must be specified for an update"))
	}
	if stalePreconditions(obj, old) {
		return nil, apierrors.NewConflict(ki.resource, obj.GetName(), errors.New(conflictTail))
	}
	var cur Object
	if verb == verbStatus {
		cur = old.DeepCopyObject().(Object)
		setStatus(cur, obj)
	} else {
		cur = obj
		keepIdentity(cur, old)
		if ki.status {
			setStatus(cur, old)
		}
		if old.GetDeletionTimestamp() != nil {
			for _, f := range cur.GetFinalizers() {
				if !slices.Contains(old.GetFinalizers(), f) {
					return nil, apierrors.NewForbidden(ki.resource, obj.GetName(), fmt.Errorf("no new finalizers can be added if the object is being deleted, found new finalizers %q", f))
				}
			}
		}
		if changedOutsideMetadata(cur, old) {
			cur.SetGeneration(old.GetGeneration() + 1)
		}
	}
	cur.SetResourceVersion(s.st.NextRV())
	if cur.GetDeletionTimestamp() != nil && len(cur.GetFinalizers()) == 0 {
		// the last finalizer is gone: the deletion completes
		if err := s.removeObject(ki, old); err != nil {
			return nil, err
		}
		s.collectGarbage(old.GetUID(), false)
		return cur, nil
	}
	ki.objects.Put(key, cur)
	s.logObjectWrite(ki, verb.String(), cur)
	s.hostChanged(ki, old, cur)
	return cur, nil
}

// keepIdentity gives cur what an update cannot change of old: UID,
// creation and deletion times, generation (the caller bumps it).
func keepIdentity(cur, old Object) {
	cur.SetUID(old.GetUID())
	cur.SetCreationTimestamp(old.GetCreationTimestamp())
	cur.SetDeletionTimestamp(old.GetDeletionTimestamp())
	cur.SetDeletionGracePeriodSeconds(old.GetDeletionGracePeriodSeconds())
	cur.SetGeneration(old.GetGeneration())
}

// changedOutsideMetadata reports whether a and b differ anywhere but in
// metadata (and their type meta).
func changedOutsideMetadata(a, b Object) bool {
	ua, err1 := runtime.DefaultUnstructuredConverter.ToUnstructured(a)
	ub, err2 := runtime.DefaultUnstructuredConverter.ToUnstructured(b)
	if err1 != nil || err2 != nil {
		return !equality.Semantic.DeepEqual(a, b)
	}
	for _, k := range []string{"metadata", "apiVersion", "kind"} {
		delete(ua, k)
		delete(ub, k)
	}
	return !equality.Semantic.DeepEqual(ua, ub)
}

// setStatus sets the Status field of obj to from's (the zero value when
// from is nil).
func setStatus(obj, from Object) {
	v := reflect.ValueOf(obj).Elem().FieldByName("Status")
	if !v.IsValid() || !v.CanSet() {
		return
	}
	if from == nil {
		v.Set(reflect.Zero(v.Type()))
		return
	}
	fv := reflect.ValueOf(from).Elem().FieldByName("Status")
	if fv.IsValid() && fv.Type() == v.Type() {
		v.Set(fv)
	}
}

// setTypeMeta sets obj's apiVersion and kind to ki's, as the API server
// returns custom resources.
func setTypeMeta(obj Object, ki *kindInfo) {
	obj.GetObjectKind().SetGroupVersionKind(ki.gvk)
}

// stalePreconditions reports whether obj's resourceVersion or UID, when
// set, is not the stored old's.
func stalePreconditions(obj, old Object) bool {
	return (obj.GetResourceVersion() != "" && obj.GetResourceVersion() != old.GetResourceVersion()) ||
		(obj.GetUID() != "" && obj.GetUID() != old.GetUID())
}

// conflictTail is the API server's reason of a stale write.
const conflictTail = "the object has been modified; please apply your changes to the latest version and try again"

// metaOf returns the ObjectMeta of a built-in object.
func metaOf(o Object) *metav1.ObjectMeta {
	switch o := o.(type) {
	case *corev1.ConfigMap:
		return &o.ObjectMeta
	case *corev1.Secret:
		return &o.ObjectMeta
	}
	return nil
}

// patch applies p to the stored object of obj's kind and name and writes
// the result (status: the status subresource), then fills obj with it.
func (c *simClient) patch(obj Object, p Patch, status bool) error {
	if p == nil {
		return fmt.Errorf("patch: must not be nil")
	}
	s := c.s
	ki, err := s.kinds.of(obj)
	if err != nil {
		return err
	}
	ns := obj.GetNamespace()
	if !ki.clusterScoped && ns == "" {
		ns = metaDefault
	}
	stored := s.stored(ki, ns, obj.GetName())
	if stored == nil {
		return apierrors.NewNotFound(ki.resource, obj.GetName())
	}
	data, err := p.Data(obj)
	if err != nil {
		return err
	}
	cur, err := json.Marshal(stored)
	if err != nil {
		return err
	}
	var patched []byte
	switch p.Type() {
	case types.MergePatchType:
		patched, err = applyMergePatch(cur, data)
	case types.StrategicMergePatchType:
		if ki.builtin == kindCustom {
			return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 415, Reason: metav1.StatusReasonUnsupportedMediaType,
				Message: "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"}}
		}
		patched, err = strategicpatch.StrategicMergePatch(cur, data, stored)
	case types.ApplyPatchType:
		return notModelled(ki, obj.GetName(), "server-side apply: use Update, or a merge patch")
	default:
		return notModelled(ki, obj.GetName(), fmt.Sprintf("patch type %q: use a merge patch (MergeFrom) or a strategic merge patch", p.Type()))
	}
	if err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("%s %q: the patch does not apply: %v", ki.resource, obj.GetName(), err))
	}
	next, err := s.kinds.newObject(ki)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(patched, next); err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("%s %q: the patched object does not decode: %v", ki.resource, obj.GetName(), err))
	}
	verb := verbUpdate
	if status {
		verb = verbStatus
	}
	if err := s.injectConflict(c.h, "patch", ki, obj.GetName()); err != nil {
		return err
	}
	written, err := s.writeObject(ki, next, verb)
	if err != nil {
		return err
	}
	s.checkUser()
	return copyInto(obj, written)
}

// statusError turns an error of the engine's writes into the API server's
// status error.
func statusError(ki *kindInfo, name string, err error) error {
	var ae *apiserver.Error
	if !errors.As(err, &ae) {
		return apierrors.NewInternalError(err)
	}
	switch ae.Reason {
	case "Conflict":
		return apierrors.NewConflict(ki.resource, name, errors.New(conflictTail))
	case "NotFound":
		return apierrors.NewNotFound(ki.resource, name)
	case "AlreadyExists":
		return apierrors.NewAlreadyExists(ki.resource, name)
	case "Forbidden":
		return apierrors.NewForbidden(ki.resource, name, errors.New(ae.Msg))
	}
	return apierrors.NewBadRequest(ae.Msg)
}

// invalid is the API server's 422 for obj.
func invalid(ki *kindInfo, obj Object, errs ...*field.Error) error {
	return apierrors.NewInvalid(ki.gvk.GroupKind(), obj.GetName(), field.ErrorList(errs))
}

// notModelled refuses a request the simulator does not model, saying so.
func notModelled(ki *kindInfo, name, what string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 405,
		Reason:  metav1.StatusReasonMethodNotAllowed,
		Details: &metav1.StatusDetails{Name: name, Group: ki.resource.Group, Kind: ki.resource.Resource},
		Message: fmt.Sprintf("%s %q: not modelled by the simulator: %s", ki.resource, name, what)}}
}

// tooManyReplicas refuses a size the simulator does not model (it models
// every pod): above MaxReplicas.
func tooManyReplicas(ki *kindInfo, name string, n int32) error {
	return apierrors.NewForbidden(ki.resource, name, fmt.Errorf("spec.replicas: %d is above the simulator's limit of %d (sim.MaxReplicas)", n, MaxReplicas))
}
