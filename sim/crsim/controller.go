package crsim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/deploymath/deploymath/sim"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Controller is a controller-runtime reconciler as a [sim.Controller]
// (built by a [Builder]; pass it in [sim.Options].Controllers, or use
// [Manager.Controllers]).
//
// Each change of a watched object is turned into the event an informer's
// handler gives controller-runtime's source (a create when the object is
// new, including the first list when the run starts; an update; a
// delete), filtered by the watch's predicates and given to its event
// handler, whose queue adds become the requests the simulator queues.
// The handlers get deep copies of the stored objects. A create event's
// IsInInitialList is always false; a handler's AddAfter and
// AddRateLimited queue at once (see [Builder.Watches]).
//
// Reconcile calls the reconciler with a context that carries the
// manager's logger (log.FromContext) with the values controller-runtime
// adds (controller, controllerGroup, controllerKind, the object,
// namespace, name, and a reconcileID that counts the reconciles), and turns its outcome into the
// simulator's, as controller-runtime's controller turns it into work
// queue calls:
//
//   - an error: requeued rate-limited (5ms·2^n, at most 1000s); a
//     reconcile.TerminalError is not requeued; Result is then ignored;
//   - Result.RequeueAfter > 0: the failures are forgotten and the request
//     is queued again after that delay (virtual time);
//   - Result.Requeue: requeued rate-limited;
//   - otherwise the failures are forgotten.
//
// A panic of the reconciler is recovered into an error (requeued), as
// controller-runtime does by default; with RecoverPanic false in
// WithOptions it ends the run with the panic. Result.Priority is ignored.
type Controller struct {
	m            *Manager
	r            reconcile.Reconciler
	name         string
	kind         schema.GroupVersionKind // of For; empty without
	watches      []watch
	recoverPanic bool
	ctx          *sim.Context
	// reconciles counts the reconciles, for their reconcileID (a
	// counter, not a random UUID, so that logs repeat run after run).
	reconciles int
}

// watch is one watch: a kind, its event handler and predicates.
type watch struct {
	obj     client.Object
	handler handler.EventHandler
	preds   []predicate.Predicate
}

var (
	_ sim.Controller = (*Controller)(nil)
	_ sim.Starter    = (*Controller)(nil)
)

// Name implements [sim.Controller].
func (c *Controller) Name() string { return c.name }

// Watches implements [sim.Controller].
func (c *Controller) Watches() []sim.Watch {
	out := make([]sim.Watch, len(c.watches))
	for i := range c.watches {
		w := &c.watches[i]
		out[i] = sim.Watches(w.obj, func(ch sim.Change) []sim.Request { return c.requests(w, ch) })
	}
	return out
}

// Start implements [sim.Starter]: the manager's client acts in this run
// from now on.
func (c *Controller) Start(ctx *sim.Context) {
	c.ctx = ctx
	c.m.cur = ctx
}

// requests maps a change through the watch's predicates and handler, as
// controller-runtime's source does, and returns the requests its handler
// added to the queue.
func (c *Controller) requests(w *watch, ch sim.Change) []sim.Request {
	if c.ctx != nil {
		defer c.m.enter(c.ctx)()
	}
	q := &recordingQueue{}
	ctx, cancel := context.WithCancel(logf.IntoContext(context.Background(), c.m.log.WithValues("controller", c.name)))
	defer cancel()
	switch {
	case ch.Old == nil && ch.New != nil:
		e := event.CreateEvent{Object: copyOf(ch.New)}
		for _, p := range w.preds {
			if !p.Create(e) {
				return nil
			}
		}
		w.handler.Create(ctx, e, q)
	case ch.Old != nil && ch.New != nil:
		e := event.UpdateEvent{ObjectOld: copyOf(ch.Old), ObjectNew: copyOf(ch.New)}
		for _, p := range w.preds {
			if !p.Update(e) {
				return nil
			}
		}
		w.handler.Update(ctx, e, q)
	case ch.Old != nil:
		e := event.DeleteEvent{Object: copyOf(ch.Old)}
		for _, p := range w.preds {
			if !p.Delete(e) {
				return nil
			}
		}
		w.handler.Delete(ctx, e, q)
	}
	return q.reqs
}

// copyOf is a deep copy of a stored object for a handler.
func copyOf(o sim.Object) client.Object { return o.DeepCopyObject().(client.Object) }

// Reconcile implements [sim.Controller].
func (c *Controller) Reconcile(sctx *sim.Context, req sim.Request) (sim.ReconcileResult, error) {
	if c.ctx == nil {
		c.ctx = sctx
	}
	defer c.m.enter(sctx)()
	log := c.m.log.WithValues("controller", c.name)
	if c.kind.Kind != "" {
		log = log.WithValues("controllerGroup", c.kind.Group, "controllerKind", c.kind.Kind, c.kind.Kind, klog.KRef(req.Namespace, req.Name))
	}
	c.reconciles++
	log = log.WithValues("namespace", req.Namespace, "name", req.Name, "reconcileID", types.UID(fmt.Sprintf("%s-%d", c.name, c.reconciles)))
	ctx := logf.IntoContext(context.Background(), log)
	res, err := c.call(ctx, reconcile.Request{NamespacedName: req.NamespacedName})
	switch {
	case err != nil && errors.Is(err, reconcile.TerminalError(nil)):
		return sim.ReconcileResult{}, fmt.Errorf("%w (%w)", err, sim.ErrTerminal)
	case err != nil:
		log.Error(err, "Reconciler error")
		return sim.ReconcileResult{}, err
	case res.RequeueAfter > 0:
		return sim.ReconcileResult{RequeueAfter: res.RequeueAfter}, nil
	case res.Requeue: //lint:ignore SA1019 controller-runtime still honours Requeue, so the simulator does
		return sim.ReconcileResult{Requeue: true}, nil
	}
	return sim.ReconcileResult{}, nil
}

// call runs the reconciler; a panic becomes an error when recoverPanic.
func (c *Controller) call(ctx context.Context, req reconcile.Request) (res reconcile.Result, err error) {
	if c.recoverPanic {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v [recovered]", r)
			}
		}()
	}
	return c.r.Reconcile(ctx, req)
}

// recordingQueue is the queue an event handler adds to: it keeps the
// requests, in order, without repeats.
type recordingQueue struct {
	reqs []sim.Request
}

var _ workqueue.TypedRateLimitingInterface[reconcile.Request] = (*recordingQueue)(nil)

func (q *recordingQueue) Add(item reconcile.Request) {
	r := sim.Request{NamespacedName: item.NamespacedName}
	for _, x := range q.reqs {
		if x == r {
			return
		}
	}
	q.reqs = append(q.reqs, r)
}

func (q *recordingQueue) AddAfter(item reconcile.Request, _ time.Duration) { q.Add(item) }
func (q *recordingQueue) AddRateLimited(item reconcile.Request)            { q.Add(item) }
func (q *recordingQueue) Len() int                                         { return len(q.reqs) }
func (q *recordingQueue) Get() (reconcile.Request, bool)                   { return reconcile.Request{}, true }
func (q *recordingQueue) Done(reconcile.Request)                           {}
func (q *recordingQueue) ShutDown()                                        {}
func (q *recordingQueue) ShutDownWithDrain()                               {}
func (q *recordingQueue) ShuttingDown() bool                               { return false }
func (q *recordingQueue) Forget(reconcile.Request)                         {}
func (q *recordingQueue) NumRequeues(reconcile.Request) int                { return 0 }
