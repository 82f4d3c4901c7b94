package sim

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Controller is a controller that a run hosts beside (or instead of) the
// built-in ones: a reconciler over work-queue keys, as client-go and
// controller-runtime controllers are. Add it with [Options].Controllers.
//
// The run calls Watches once, when it starts, and Reconcile for each key
// its work queue hands out, at a virtual instant, never concurrently.
// Reconcile reads and writes through its [Context]: reads come from the
// informer view (the scenario's cluster.informerDelay applies), writes go
// to the simulated API server with its semantics (see [Client]).
//
// Keys are queued as client-go's rate-limited work queue queues them: a
// key already queued is not queued twice, a delayed add keeps the earliest
// time, failures back off 5ms·2^n up to 1000s. What Reconcile returns
// decides the requeue, as controller-runtime decides it:
//
//   - an error: the key is requeued rate-limited (unless the error wraps
//     [ErrTerminal]: then it is only noted in the trace);
//   - RequeueAfter > 0: the failures are forgotten and the key is queued
//     again after that delay;
//   - Requeue: the key is requeued rate-limited;
//   - otherwise the failures are forgotten.
//
// A controller that keeps queueing the same key at one instant without
// settling stops the run with an error, as the built-in ones do.
type Controller interface {
	// Name names the controller in the trace, the write log and errors
	// ("canary"); unique in a run. The built-in ones are "deployment"
	// and "restart".
	Name() string
	// Watches declares the kinds the controller watches and how a change
	// of an object maps to its keys.
	Watches() []Watch
	// Reconcile brings the object of req towards its desired state.
	Reconcile(ctx *Context, req Request) (ReconcileResult, error)
}

// Ticker is a [Controller] that also acts at times it asks for, as a
// controller with a ticker goroutine does (a periodic check of what waits):
// Tick runs at each time asked for with [Context.TickAt], at that virtual
// instant, with the same context as Reconcile.
type Ticker interface {
	Controller
	Tick(ctx *Context)
}

// Request is a work-queue key: the namespace and name of the object a
// controller reconciles (controller-runtime's reconcile.Request).
type Request struct {
	types.NamespacedName
}

// ReconcileResult is what a reconcile asks of the work queue
// (controller-runtime's reconcile.Result; see [Controller]).
type ReconcileResult struct {
	// RequeueAfter queues the key again after this delay, if nothing
	// queues it earlier.
	RequeueAfter time.Duration
	// Requeue queues the key again rate-limited.
	Requeue bool
}

// ErrTerminal marks a reconcile error that retrying cannot fix
// (controller-runtime's reconcile.TerminalError): wrap it (fmt.Errorf("...:
// %w", sim.ErrTerminal)) and the key is not requeued.
var ErrTerminal = fmt.Errorf("terminal error")

// Object is a Kubernetes object: a typed API object of a built-in kind
// (*appsv1.Deployment, *corev1.Pod, …) or of a kind of your own registered
// with [Options].Scheme (controller-runtime's client.Object is the same
// interface).
type Object interface {
	metav1.Object
	runtime.Object
}

// ObjectList is a typed list of objects (*appsv1.ReplicaSetList,
// *CanaryList, …).
type ObjectList interface {
	metav1.ListInterface
	runtime.Object
}

// Change is one change of a watched object, as an informer's event
// handler sees it: Old is nil when the object was created, New is nil
// when it was deleted.
type Change struct {
	Old, New Object
}

// Object is the changed object: New, or Old for a deletion.
func (c Change) Object() Object {
	if c.New != nil {
		return c.New
	}
	return c.Old
}

// Watch declares one kind a controller watches and how a change maps to
// its keys. Build it with [For], [Owns] or [Watches].
type Watch struct {
	// Object is a value of the watched kind (&appsv1.ReplicaSet{},
	// &Canary{}); only its type matters.
	Object Object
	// Map maps a change to the keys to queue. Nil: the keys of [For] or
	// [Owns].
	Map func(Change) []Request

	owns bool // Owns: the controller owner of the reconciled kind
}

// For watches the kind a controller reconciles: a change of an object
// queues the object's own key (controller-runtime's builder.For).
func For(obj Object) Watch { return Watch{Object: obj} }

// Owns watches objects a controller creates: a change of one queues the
// key of its controller owner (the owner reference with controller: true)
// when that owner is of the kind of the controller's [For] watch
// (controller-runtime's builder.Owns). For an update both the old and the
// new object's owner are queued.
func Owns(obj Object) Watch { return Watch{Object: obj, owns: true} }

// Watches watches obj's kind and queues the keys fn returns for each
// change (controller-runtime's builder.Watches with
// handler.EnqueueRequestsFromMapFunc; fn sees the old object too).
func Watches(obj Object, fn func(Change) []Request) Watch {
	return Watch{Object: obj, Map: fn}
}

// RequestFor returns the key of obj.
func RequestFor(obj metav1.Object) Request {
	return Request{types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}}
}

// gvkOf returns the kind of obj in scheme.
func gvkOf(scheme *runtime.Scheme, obj runtime.Object) (schema.GroupVersionKind, error) {
	gvks, _, err := scheme.ObjectKinds(obj)
	if err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("%T: not a kind of the run's scheme: register it in Options.Scheme (%v)", obj, err)
	}
	return gvks[0], nil
}
