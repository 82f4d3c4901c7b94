package sim

import (
	"fmt"

	"github.com/deploymath/deploymath/restart"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
)

// The built-in restart controller as a [Ticker] of the host: its informer
// handlers feed every change of a ConfigMap, a Secret or a Deployment to
// its engine (package restart) and ask for a tick when a change waits; a
// tick releases the due changes and writes each decision as a merge patch
// through the client. The engine runs it on a fast path of its own
// (restart.go); a run with Options.genericBuiltins uses this instead, and
// TestBuiltinsThroughHost compares the two.

// BuiltinRestartController is the name of the built-in restart
// controller (cluster.restart): the writer of its writes in the write log.
const BuiltinRestartController = writerRestart

// restartController is the built-in restart controller as a hosted
// controller, on the run's restart engine (s.restart).
type restartController struct {
	s *Sim
	h *hosted
}

func (*restartController) Name() string { return BuiltinRestartController }

// Watches observe the kinds the restart engine tracks; they queue no key:
// the controller acts on its ticks.
func (c *restartController) Watches() []Watch {
	return []Watch{
		Watches(&corev1.ConfigMap{}, c.observe),
		Watches(&corev1.Secret{}, c.observe),
		Watches(&appsv1.Deployment{}, c.observe),
	}
}

// observe feeds a change to the engine, as the controller's informer
// handlers do, and asks for a tick when a change waits.
func (c *restartController) observe(ch Change) []Request {
	s, r := c.s, c.s.restart
	var err error
	if ch.New != nil {
		err = r.eng.Observe(ch.New, s.wall())
	} else {
		err = r.eng.Forget(ch.Old)
	}
	if err != nil {
		s.note("restart controller: %v", err)
	}
	c.schedule()
	return nil
}

// schedule asks for a tick at the first moment a waiting change is due,
// on the grid of a ticker started at time 0 (every CheckInterval).
func (c *restartController) schedule() {
	if d, ok := c.s.nextRestartTick(); ok {
		c.h.ctx.TickAt(Epoch.Add(d))
	}
}

// Reconcile is never called: no watch queues a key.
func (*restartController) Reconcile(*Context, Request) (ReconcileResult, error) {
	return ReconcileResult{}, nil
}

// Tick releases the due changes and writes each decision.
func (c *restartController) Tick(ctx *Context) {
	for _, dec := range c.s.releaseRestarts() {
		c.apply(ctx, dec)
	}
	c.schedule()
}

// apply writes one decision as a merge patch (no resourceVersion) of the
// workload.
func (c *restartController) apply(ctx *Context, dec restart.Decision) {
	s := c.s
	fail := func(why string) {
		s.note("restart controller: patch of %s failed: %s", dec.Key(), why)
		s.restart.eng.PatchFailed(dec, s.wall())
	}
	if dec.Kind != restart.KindDeployment {
		fail("the simulator stores Deployments only")
		return
	}
	var old appsv1.Deployment
	if err := ctx.APIReader().Get(types.NamespacedName{Namespace: dec.Namespace, Name: dec.Name}, &old); err != nil {
		if apierrors.IsNotFound(err) {
			fail(fmt.Sprintf("deployments.apps %q not found", dec.Name))
		} else {
			fail(err.Error())
		}
		return
	}
	s.restarted(dec)
	if s.checks != nil {
		s.checks.restartDecision(&old, dec)
	}
	d := old.DeepCopy()
	if err := ctx.Client().Patch(d, RawPatch(types.MergePatchType, dec.Patch.JSON())); err != nil {
		fail(err.Error())
	}
}
