package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/deploymath/deploymath/restart"
)

// Controller restarts Deployments when the ConfigMaps or Secrets they use
// change, in the usual client-go shape: informers for ConfigMaps, Secrets
// and Deployments feed every add, update and delete to a restart.Engine;
// a periodic tick releases the changes that are due and applies each
// decision as one JSON merge patch. All decisions are deploymath's; this
// file is only I/O.
//
// The engine is not safe for concurrent use; informer handlers and the tick
// take turns through mu. Patches are sent without holding it, so the
// informers' echo of a patch can be observed meanwhile.
type Controller struct {
	client kubernetes.Interface
	clock  clock.PassiveClock
	synced []cache.InformerSynced

	mu     sync.Mutex
	engine *restart.Engine
	opts   restart.Options

	// OnDecision, when set, is called after each patch with its outcome
	// (nil error: applied). The demo prints with it.
	OnDecision func(d restart.Decision, err error)
}

// NewController wires an engine with opts to the informers.
func NewController(client kubernetes.Interface, cmInformer coreinformers.ConfigMapInformer,
	secretInformer coreinformers.SecretInformer, dInformer appsinformers.DeploymentInformer,
	opts restart.Options, clk clock.PassiveClock) (*Controller, error) {
	e, err := restart.New(opts)
	if err != nil {
		return nil, err
	}
	c := &Controller{client: client, clock: clk, engine: e, opts: opts}
	handler := cache.ResourceEventHandlerFuncs{
		AddFunc:    c.observe,
		UpdateFunc: func(_, cur any) { c.observe(cur) },
		DeleteFunc: c.forget,
	}
	for _, inf := range []cache.SharedIndexInformer{cmInformer.Informer(), secretInformer.Informer(), dInformer.Informer()} {
		if _, err := inf.AddEventHandler(handler); err != nil {
			return nil, err
		}
		c.synced = append(c.synced, inf.HasSynced)
	}
	return c, nil
}

func (c *Controller) observe(obj any) {
	o, ok := obj.(runtime.Object)
	if !ok {
		return
	}
	c.mu.Lock()
	err := c.engine.Observe(o, c.clock.Now())
	c.mu.Unlock()
	if err != nil {
		utilruntime.HandleError(fmt.Errorf("observe %T: %w", obj, err))
	}
}

func (c *Controller) forget(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	o, ok := obj.(runtime.Object)
	if !ok {
		return
	}
	c.mu.Lock()
	err := c.engine.Forget(o)
	c.mu.Unlock()
	if err != nil {
		utilruntime.HandleError(fmt.Errorf("forget %T: %w", obj, err))
	}
}

// Run waits for the caches, then calls Tick every CheckInterval until ctx
// is done; at shutdown it drains the changes whose loss could miss a
// restart (restart.Engine.Drain).
func (c *Controller) Run(ctx context.Context) {
	defer utilruntime.HandleCrash()
	logger := klog.FromContext(ctx)
	logger.Info("Starting restart controller", "checkInterval", c.opts.CheckInterval, "gracePeriod", c.opts.GracePeriod)
	defer logger.Info("Shutting down restart controller")
	if !cache.WaitForNamedCacheSync("restart", ctx.Done(), c.synced...) {
		return
	}
	wait.UntilWithContext(ctx, func(ctx context.Context) { c.Tick(ctx, c.clock.Now()) }, c.opts.CheckInterval)

	drainCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	now := c.clock.Now()
	c.mu.Lock()
	batch := c.engine.Drain(now)
	c.mu.Unlock()
	c.apply(drainCtx, batch, now)
}

// Tick releases the changes due at now and applies the decisions, one
// merge patch each; a failed patch is reported back to the engine, which
// retries it later. It returns the batch. Tests call it directly with a
// fake clock's time.
func (c *Controller) Tick(ctx context.Context, now time.Time) restart.Batch {
	c.mu.Lock()
	batch := c.engine.Release(now)
	c.mu.Unlock()
	c.apply(ctx, batch, now)
	return batch
}

func (c *Controller) apply(ctx context.Context, batch restart.Batch, now time.Time) {
	logger := klog.FromContext(ctx)
	for _, d := range batch.Decisions {
		err := c.patch(ctx, d)
		if err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Patch failed", "workload", d.Key())
			c.mu.Lock()
			c.engine.PatchFailed(d, now)
			c.mu.Unlock()
		} else {
			logger.V(2).Info("Patched workload", "workload", d.Key(), "restart", d.Restart, "patch", string(d.PatchJSON))
		}
		if c.OnDecision != nil {
			c.OnDecision(d, err)
		}
	}
}

// patch sends d's JSON merge patch to its workload.
func (c *Controller) patch(ctx context.Context, d restart.Decision) error {
	var err error
	opts := metav1.PatchOptions{}
	switch d.Kind {
	case restart.KindDeployment:
		_, err = c.client.AppsV1().Deployments(d.Namespace).Patch(ctx, d.Name, types.MergePatchType, d.PatchJSON, opts)
	case restart.KindStatefulSet:
		_, err = c.client.AppsV1().StatefulSets(d.Namespace).Patch(ctx, d.Name, types.MergePatchType, d.PatchJSON, opts)
	case restart.KindDaemonSet:
		_, err = c.client.AppsV1().DaemonSets(d.Namespace).Patch(ctx, d.Name, types.MergePatchType, d.PatchJSON, opts)
	case restart.KindCronJob:
		_, err = c.client.BatchV1().CronJobs(d.Namespace).Patch(ctx, d.Name, types.MergePatchType, d.PatchJSON, opts)
	default:
		err = fmt.Errorf("unknown workload kind %q", d.Kind)
	}
	return err
}
