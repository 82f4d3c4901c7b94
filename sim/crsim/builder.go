package crsim

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Builder builds a controller for the simulator as controller-runtime's
// builder builds one for a manager: the same methods, with the same
// meaning, so that
//
//	ctrl.NewControllerManagedBy(mgr).For(&v1.BlueGreen{}).Owns(&appsv1.ReplicaSet{}).Complete(r)
//
// becomes, in a test,
//
//	crsim.NewControllerManagedBy(mgr).For(&v1.BlueGreen{}).Owns(&appsv1.ReplicaSet{}).Complete(r)
//
// with mgr a [Manager]. The watches map changes to requests with
// controller-runtime's own event handlers (handler.EnqueueRequestForObject
// for For, handler.EnqueueRequestForOwner for Owns, yours for Watches)
// and predicates, called as controller-runtime's sources call them.
type Builder struct {
	mgr         *Manager
	name        string
	forObj      client.Object
	forPreds    []predicate.Predicate
	owns        []ownsInput
	watches     []watchesInput
	globalPreds []predicate.Predicate
	opts        controller.Options
	err         error
}

type ownsInput struct {
	obj        client.Object
	preds      []predicate.Predicate
	everyOwner bool
}

type watchesInput struct {
	obj     client.Object
	handler handler.EventHandler
	preds   []predicate.Predicate
}

// NewControllerManagedBy returns a builder of a controller of mgr
// (ctrl.NewControllerManagedBy).
func NewControllerManagedBy(mgr *Manager) *Builder { return &Builder{mgr: mgr} }

// For names the kind the controller reconciles: a change of an object of
// that kind queues its own request (builder.For). Once only.
func (b *Builder) For(obj client.Object, opts ...ForOption) *Builder {
	if b.forObj != nil {
		b.fail(errors.New("For(...) should only be called once, could not assign multiple objects for reconciliation"))
		return b
	}
	b.forObj = obj
	for _, o := range opts {
		o.applyToFor(b)
	}
	return b
}

// Owns watches a kind the controller creates: a change of one queues the
// request of its controller owner of the For kind (builder.Owns; with
// [MatchEveryOwner], of every owner of that kind).
func (b *Builder) Owns(obj client.Object, opts ...OwnsOption) *Builder {
	in := ownsInput{obj: obj}
	for _, o := range opts {
		o.applyToOwns(&in)
	}
	b.owns = append(b.owns, in)
	return b
}

// Watches watches a kind with an event handler of yours, typically
// handler.EnqueueRequestsFromMapFunc (builder.Watches). Calls of the
// handler's queue add the request at once: AddAfter's delay and
// AddRateLimited's back-off are not kept (the simulator's watches queue
// at the change).
func (b *Builder) Watches(obj client.Object, h handler.EventHandler, opts ...WatchesOption) *Builder {
	in := watchesInput{obj: obj, handler: h}
	for _, o := range opts {
		o.applyToWatches(&in)
	}
	b.watches = append(b.watches, in)
	return b
}

// WithEventFilter adds a predicate that every watch's events must pass
// (builder.WithEventFilter).
func (b *Builder) WithEventFilter(p predicate.Predicate) *Builder {
	b.globalPreds = append(b.globalPreds, p)
	return b
}

// Named names the controller (builder.Named); the default is the For
// kind in lower case. The name is the controller's in the simulator's
// trace, write log and events.
func (b *Builder) Named(name string) *Builder {
	b.name = name
	return b
}

// WithOptions sets the controller's options (builder.WithOptions). The
// simulator reconciles one request at a time on its virtual clock and
// keeps its own work queue, so only Reconciler, RecoverPanic and
// SkipNameValidation have an effect; MaxConcurrentReconciles,
// CacheSyncTimeout, EnableWarmup, NeedLeaderElection and
// ReconciliationTimeout are accepted and ignored; a RateLimiter, a
// NewQueue or a LogConstructor is refused at Complete (the simulator's
// queue is client-go's with controller-runtime's 5ms–1000s back-off).
func (b *Builder) WithOptions(o controller.Options) *Builder {
	b.opts = o
	return b
}

// Complete builds the controller and adds it to the manager
// (builder.Complete).
func (b *Builder) Complete(r reconcile.Reconciler) error {
	_, err := b.Build(r)
	return err
}

// Build builds the controller, adds it to the manager and returns it
// (builder.Build).
func (b *Builder) Build(r reconcile.Reconciler) (*Controller, error) {
	if b.err != nil {
		return nil, b.err
	}
	if b.mgr == nil {
		return nil, errors.New("must provide a non-nil Manager")
	}
	if b.opts.Reconciler != nil && r != nil {
		return nil, errors.New("reconciler was set via WithOptions() and via Build() or Complete()")
	}
	if r == nil {
		r = b.opts.Reconciler
	}
	if r == nil {
		return nil, errors.New("must provide a non-nil Reconciler")
	}
	switch {
	case b.opts.RateLimiter != nil, b.opts.NewQueue != nil:
		return nil, errors.New("WithOptions: a RateLimiter or NewQueue is not modelled: the simulator keeps the work queue (client-go's, with controller-runtime's 5ms to 1000s back-off)")
	case b.opts.LogConstructor != nil:
		return nil, errors.New("WithOptions: a LogConstructor is not supported: give the Manager a Logger")
	}
	if len(b.owns) > 0 && b.forObj == nil {
		return nil, errors.New("Owns() can only be used together with For()")
	}
	if b.forObj == nil && len(b.watches) == 0 {
		return nil, errors.New("there are no watches configured, controller will never get triggered. Use For(), Owns() or Watches() to set them up")
	}
	c := &Controller{m: b.mgr, r: r, recoverPanic: b.opts.RecoverPanic == nil || *b.opts.RecoverPanic}
	name := b.name
	if b.forObj != nil {
		gvk, err := apiutil.GVKForObject(b.forObj, b.mgr.scheme)
		if err != nil {
			return nil, err
		}
		c.kind = gvk
		if name == "" {
			name = strings.ToLower(gvk.Kind)
		}
	}
	if name == "" {
		return nil, errors.New("one of For() or Named() must be called")
	}
	if b.opts.SkipNameValidation == nil || !*b.opts.SkipNameValidation {
		if !validName.MatchString(name) {
			return nil, fmt.Errorf("controller name %q is invalid: want lower-case letters, digits, '-', '_' or '.', starting and ending with a letter or digit", name)
		}
		if b.mgr.names[name] {
			return nil, fmt.Errorf("controller with name %s already exists. Controller names must be unique to avoid multiple controllers reporting the same metric. This validation can be disabled via the SkipNameValidation option", name)
		}
	}
	c.name = name
	if b.forObj != nil {
		c.watches = append(c.watches, watch{obj: b.forObj, handler: &handler.EnqueueRequestForObject{}, preds: join(b.globalPreds, b.forPreds)})
	}
	for _, o := range b.owns {
		var opts []handler.OwnerOption
		if !o.everyOwner {
			opts = append(opts, handler.OnlyControllerOwner())
		}
		h := handler.EnqueueRequestForOwner(b.mgr.scheme, b.mgr.mapper, b.forObj, opts...)
		c.watches = append(c.watches, watch{obj: o.obj, handler: h, preds: join(b.globalPreds, o.preds)})
	}
	for _, w := range b.watches {
		if w.handler == nil {
			return nil, fmt.Errorf("Watches(%T): the event handler must not be nil", w.obj)
		}
		c.watches = append(c.watches, watch{obj: w.obj, handler: w.handler, preds: join(b.globalPreds, w.preds)})
	}
	for _, w := range c.watches {
		if w.obj == nil {
			return nil, errors.New("a watched object must not be nil")
		}
		if err := typed(w.obj); err != nil {
			return nil, err
		}
		if _, err := apiutil.GVKForObject(w.obj, b.mgr.scheme); err != nil {
			return nil, err
		}
	}
	b.mgr.names[name] = true
	b.mgr.ctrls = append(b.mgr.ctrls, c)
	return c, nil
}

// validName is the name controller-runtime accepts by default (a
// Kubernetes qualified name's characters).
var validName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$`)

func (b *Builder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

func join(a, b []predicate.Predicate) []predicate.Predicate {
	return append(append([]predicate.Predicate(nil), a...), b...)
}

// ForOption is an option of For: [WithPredicates].
type ForOption interface{ applyToFor(*Builder) }

// OwnsOption is an option of Owns: [WithPredicates], [MatchEveryOwner].
type OwnsOption interface{ applyToOwns(*ownsInput) }

// WatchesOption is an option of Watches: [WithPredicates].
type WatchesOption interface{ applyToWatches(*watchesInput) }

// Predicates are the predicates of one watch (builder.Predicates).
type Predicates struct{ preds []predicate.Predicate }

// WithPredicates filters a watch's events (builder.WithPredicates): an
// event reaches the handler when every predicate passes it.
func WithPredicates(ps ...predicate.Predicate) Predicates { return Predicates{preds: ps} }

func (p Predicates) applyToFor(b *Builder)           { b.forPreds = p.preds }
func (p Predicates) applyToOwns(in *ownsInput)       { in.preds = p.preds }
func (p Predicates) applyToWatches(in *watchesInput) { in.preds = p.preds }

type matchEveryOwner struct{}

// MatchEveryOwner makes Owns queue every owner of the For kind, not only
// the controller owner (builder.MatchEveryOwner).
var MatchEveryOwner OwnsOption = matchEveryOwner{}

func (matchEveryOwner) applyToOwns(in *ownsInput) { in.everyOwner = true }
