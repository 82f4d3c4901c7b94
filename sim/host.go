package sim

import (
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"
	"time"

	"github.com/deploymath/deploymath/sim/internal/cluster"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// The host of controllers: the [Controller]s added with
// [Options].Controllers, their watches and their work-queue keys. The
// built-in Deployment controller, ReplicaSet controller and restart
// controller run on the same work queue and event queue (their informer
// handlers are the engine's fast paths, see deployment.go and cluster.go).

// hosted is a controller added to the run.
type hosted struct {
	ctrl Controller
	name string
	// num is the controller number of its work-queue keys.
	num cluster.Controller
	// forKind is the kind of its For watch (the owner kind of Owns).
	forKind *kindInfo
	ctx     Context
	// requeuer makes the requeues of a built-in (nil: controller-runtime's
	// rules, see Controller).
	requeuer selfRequeuer
	// panicked is the panic of its last reconcile, which ends the run.
	panicked error
	// tickAt is the time of its pending tick (Ticker), -1 for none.
	tickAt time.Duration
}

// watcher is one watch of a hosted controller, kept by its kind.
type watcher struct {
	h    *hosted
	w    Watch
	kind *kindInfo
}

// firstHosted is the controller number of the first hosted controller's
// keys (after the built-in ones).
const firstHosted = cluster.ReplicaSetController + 1

// maxHosted is the number of controllers a run can host.
const maxHosted = 255 - int(firstHosted)

// host is the run's hosted controllers.
type host struct {
	ctrls []*hosted
	// watched says a hosted controller watches the built-in kind;
	// observe says the engine tells the host of its changes (it is
	// watched, or read through a delayed view: see informerview.go).
	watched, observe [numBuiltinKinds]bool
}

// addControllers registers the controllers of o with the run: names
// unique, watches of kinds of the run's scheme, an Owns only beside a For.
func (s *Sim) addControllers(ctrls []Controller) error {
	if len(ctrls) > maxHosted {
		return fmt.Errorf("Options.Controllers: %d controllers, the most a run hosts is %d", len(ctrls), maxHosted)
	}
	names := map[string]bool{BuiltinDeploymentController: true, writerRestart: true, writerReplicaSet: true, writerGC: true, writerUser: true}
	if s.opts.genericBuiltins {
		var builtins []Controller
		if !s.noDeploymentController {
			builtins = append(builtins, &deploymentController{s: s})
			delete(names, BuiltinDeploymentController)
		}
		if s.restart != nil {
			builtins = append(builtins, &restartController{s: s})
			delete(names, BuiltinRestartController)
		}
		ctrls = append(builtins, ctrls...)
	}
	for i, c := range ctrls {
		field := fmt.Sprintf("Options.Controllers[%d]", i)
		if c == nil {
			return fmt.Errorf("%s: must not be nil", field)
		}
		name := c.Name()
		if name == "" || strings.ContainsAny(name, " \t\n/") {
			return fmt.Errorf("%s: name %q: want a non-empty name without spaces or slashes", field, name)
		}
		if names[name] {
			return fmt.Errorf("%s: name %q: taken (by a built-in controller or another controller)", field, name)
		}
		names[name] = true
		h := &hosted{ctrl: c, name: name, num: firstHosted + cluster.Controller(i), tickAt: -1}
		h.ctx = Context{s: s, h: h}
		switch b := c.(type) {
		case *deploymentController:
			h.requeuer = b
			s.generic = h
		case *restartController:
			b.h = h
			s.genericRestart = h
		}
		var ws []watcher
		for j, w := range c.Watches() {
			wf := fmt.Sprintf("%s (%s).Watches()[%d]", field, name, j)
			if w.Object == nil {
				return fmt.Errorf("%s: Object must be set", wf)
			}
			ki, err := s.kinds.of(w.Object)
			if err != nil {
				return fmt.Errorf("%s: %w", wf, err)
			}
			if w.Map == nil && !w.owns {
				if h.forKind != nil {
					return fmt.Errorf("%s: a second For (%s): a controller reconciles one kind; use Watches for others", wf, ki.gvk.Kind)
				}
				h.forKind = ki
			}
			ws = append(ws, watcher{h: h, w: w, kind: ki})
		}
		for j, w := range ws {
			if w.w.owns && h.forKind == nil {
				return fmt.Errorf("%s (%s).Watches()[%d]: Owns(%s) needs a For watch: its keys are the owners of that kind", field, name, j, w.kind.gvk.Kind)
			}
			w.kind.watchers = append(w.kind.watchers, w)
			if w.kind.builtin != kindCustom {
				s.host.watched[w.kind.builtin] = true
			}
		}
		s.host.ctrls = append(s.host.ctrls, h)
	}
	s.host.observe = s.host.watched
	if len(s.host.ctrls) > 0 && s.delayed() {
		s.hostCache = &hostCache{objs: map[*kindInfo]map[string]Object{}}
		for k := range s.host.observe {
			s.host.observe[k] = true
		}
	}
	s.observeCluster()
	return nil
}

// changed tells the hosted controllers watching ki of a change of an
// object of that kind (old nil: created; cur nil: deleted). The objects
// are the stored ones: watchers must not modify them.
func (s *Sim) changed(ki *kindInfo, old, cur Object) {
	if len(ki.watchers) == 0 {
		return
	}
	ch := Change{Old: old, New: cur}
	for _, w := range ki.watchers {
		if (w.h == s.generic && !s.deliveringToGeneric(ki)) || w.h == s.genericRestart {
			continue // handed over where the fast path notifies (toGeneric, observeRestart)
		}
		for _, r := range w.requests(ch) {
			s.notify(queueKey{Ctrl: w.h.num, Name: r.Namespace + "/" + r.Name})
		}
	}
}

// requests returns the keys a change queues for the watch.
func (w *watcher) requests(ch Change) []Request {
	switch {
	case w.w.Map != nil:
		return w.w.Map(ch)
	case w.w.owns:
		var out []Request
		for _, o := range [2]Object{ch.Old, ch.New} {
			if o == nil {
				continue
			}
			ref := metav1.GetControllerOfNoCopy(o)
			if ref == nil || ref.Kind != w.h.forKind.gvk.Kind || groupOf(ref.APIVersion) != w.h.forKind.gvk.Group {
				continue
			}
			r := Request{types.NamespacedName{Namespace: o.GetNamespace(), Name: ref.Name}}
			if len(out) == 0 || out[0] != r {
				out = append(out, r)
			}
		}
		return out
	}
	return []Request{RequestFor(ch.Object())}
}

// groupOf is the group of an apiVersion ("apps/v1" → "apps", "v1" → "").
func groupOf(apiVersion string) string {
	g, _, ok := strings.Cut(apiVersion, "/")
	if !ok {
		return ""
	}
	return g
}

// reconcile is one reconcile of a hosted controller for a work-queue
// item, and the requeue its outcome asks for.
func (s *Sim) reconcile(it *wqItem) {
	h := s.host.ctrls[int(it.Key.Ctrl-firstHosted)]
	ns, name, _ := strings.Cut(it.Key.Name, "/")
	req := Request{types.NamespacedName{Namespace: ns, Name: name}}
	s.stats.Reconciles++
	s.writer = h.name
	res, err := h.call(req)
	s.writer = ""
	if p := h.panicked; p != nil {
		s.failed = fmt.Errorf("t=%s: controller %s panicked reconciling %s: %w", s.now, h.name, req, p)
		return
	}
	if h.requeuer != nil {
		h.requeuer.requeue(it, res, err)
		return
	}
	switch {
	case err != nil && errors.Is(err, ErrTerminal):
		s.note("%s: reconcile %s failed (terminal, not retried): %v", h.name, req, err)
	case err != nil:
		s.note("%s: reconcile %s failed: %v", h.name, req, err)
		s.addAfterItem(it, it.Backoff())
	case res.RequeueAfter > 0:
		it.Forget()
		s.addAfterItem(it, res.RequeueAfter)
	case res.Requeue:
		s.addAfterItem(it, it.Backoff())
	default:
		it.Forget()
	}
}

// panicError is a panic of a controller with its stack.
type panicError struct {
	value any
	stack []byte
}

func (p *panicError) Error() string { return fmt.Sprintf("%v\n%s", p.value, p.stack) }

// call runs the controller's Reconcile; a panic is kept in h.panicked.
func (h *hosted) call(req Request) (res ReconcileResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			h.panicked = &panicError{value: v, stack: debug.Stack()}
		}
	}()
	return h.ctrl.Reconcile(&h.ctx, req)
}

// configChanged tells the host of a change of a ConfigMap or a Secret
// (old nil: created; cur nil: deleted).
func (s *Sim) configChanged(old, cur Object) {
	old, cur = orNil(old), orNil(cur)
	o := cur
	if o == nil {
		o = old
	}
	k := kindConfigMap
	if _, ok := o.(*corev1.Secret); ok {
		k = kindSecret
	}
	if s.hostObserves(k) {
		s.hostChanged(s.kinds.builtin[k], old, cur)
	}
}

// orNil is o, or nil when o holds a nil pointer.
func orNil(o Object) Object {
	if o == nil || reflect.ValueOf(o).IsNil() {
		return nil
	}
	return o
}

// observeCluster has the cluster model tell the host of the changes of
// pods and nodes, rendered as API objects, when the host observes them.
// The last rendering of each is kept, so that a change has its old
// object.
func (s *Sim) observeCluster() {
	if s.hostObserves(kindPod) {
		last := map[*cluster.Pod]*corev1.Pod{}
		ki := s.kinds.builtin[kindPod]
		s.c.OnPod = func(p *cluster.Pod) {
			old := last[p]
			if p.Gone() {
				delete(last, p)
				if old == nil {
					old = podAPIObject(p)
				}
				if s.generic != nil {
					s.toGeneric(kindPod, old, nil)
				}
				s.hostChanged(ki, old, nil)
				return
			}
			cur := podAPIObject(p)
			last[p] = cur
			if s.generic != nil {
				s.toGeneric(kindPod, old, cur)
			}
			s.hostChanged(ki, orNil(old), cur)
		}
	}
	if s.hostObserves(kindNode) {
		last := map[*cluster.Node]*corev1.Node{}
		ki := s.kinds.builtin[kindNode]
		s.c.OnNode = func(n *cluster.Node) {
			old := last[n]
			if n.Deleted {
				delete(last, n)
				if old == nil {
					old = nodeAPIObject(n)
				}
				s.hostChanged(ki, old, nil)
				return
			}
			cur := nodeAPIObject(n)
			last[n] = cur
			s.hostChanged(ki, orNil(old), cur)
		}
	}
}

// APIReader reads the run's API server: the stored objects of every kind
// (for tests and invariants, during the run or after it).
func (s *Sim) APIReader() Reader { return &simClient{s: s, direct: true} }

// toDeploymentController is the Deployment controller's informer
// handler for a change of the built-in kind k: on the fast path, the key
// of the Deployment (key) is queued; with the generic built-in, the
// change goes to its watches.
func (s *Sim) toDeploymentController(k builtinKind, old, cur Object, key string) {
	if s.generic != nil {
		s.toGeneric(k, old, cur)
		return
	}
	s.notifyDeployment(key)
}

// toGeneric hands a change of the built-in kind k to the watches of the
// generic built-in Deployment controller, where the fast path notifies
// it; with an informer delay its view's deliveries do (changed).
func (s *Sim) toGeneric(k builtinKind, old, cur Object) {
	if s.delayed() {
		return
	}
	s.dispatchTo(s.generic, s.kinds.builtin[k], orNil(old), orNil(cur))
}

// dispatchTo queues the keys the watches of h on ki map a change to.
func (s *Sim) dispatchTo(h *hosted, ki *kindInfo, old, cur Object) {
	ch := Change{Old: old, New: cur}
	for _, w := range ki.watchers {
		if w.h != h {
			continue
		}
		for _, r := range w.requests(ch) {
			s.notify(queueKey{Ctrl: h.num, Name: r.Namespace + "/" + r.Name})
		}
	}
}

// tick runs the pending tick of the hosted controller of number n, due at
// at (a tick superseded by an earlier one does nothing).
func (s *Sim) tick(n uint32, at time.Duration) {
	h := s.host.ctrls[n]
	t, ok := h.ctrl.(Ticker)
	if !ok || h.tickAt != at {
		return
	}
	h.tickAt = -1
	s.writer = h.name
	defer func() {
		s.writer = ""
		if v := recover(); v != nil {
			s.failed = fmt.Errorf("t=%s: controller %s panicked in its tick: %w", s.now, h.name, &panicError{value: v, stack: debug.Stack()})
		}
	}()
	t.Tick(&h.ctx)
}

// kindOfBuiltin returns the kind of obj, one of the built-in kinds.
func (s *Sim) kindOfBuiltin(obj runtime.Object) *kindInfo {
	switch obj.(type) {
	case *appsv1.Deployment:
		return s.kinds.builtin[kindDeployment]
	case *corev1.ConfigMap:
		return s.kinds.builtin[kindConfigMap]
	case *corev1.Secret:
		return s.kinds.builtin[kindSecret]
	case *appsv1.ReplicaSet:
		return s.kinds.builtin[kindReplicaSet]
	}
	ki, _ := s.kinds.of(obj)
	return ki
}
