package main

import (
	"context"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/rollout/clientgo"
)

// maxRetries is how often a Deployment is retried after failed syncs before
// it is dropped from the queue (upstream's value).
const maxRetries = 15

// Controller is a Deployment controller in the usual client-go shape:
// informers for Deployments, ReplicaSets and Pods feed a rate-limited work
// queue of namespace/name keys; workers sync one Deployment at a time. A
// sync reads the informer caches, asks rollout.Plan what upstream's
// controller would do, and performs the plan with rollout.Execute and the
// client-go writer of the rollout/clientgo module.
// All decisions are deploymath's; this file is only I/O.
type Controller struct {
	writer rollout.Writer
	clock  clock.PassiveClock

	dLister   appslisters.DeploymentLister
	rsLister  appslisters.ReplicaSetLister
	podLister corelisters.PodLister
	synced    []cache.InformerSynced

	queue workqueue.TypedRateLimitingInterface[string]
	// enqueue is how event handlers queue a key: queue.Add, or a test's
	// synchronous stand-in.
	enqueue func(key string)
}

// NewController wires a controller to the informers. The recorder records
// the plans' events on the Deployments; clk is the time given to the plans.
func NewController(client kubernetes.Interface, dInformer appsinformers.DeploymentInformer,
	rsInformer appsinformers.ReplicaSetInformer, podInformer coreinformers.PodInformer,
	recorder record.EventRecorder, clk clock.PassiveClock) (*Controller, error) {
	c := &Controller{
		writer:    clientgo.NewWriter(client, recorder),
		clock:     clk,
		dLister:   dInformer.Lister(),
		rsLister:  rsInformer.Lister(),
		podLister: podInformer.Lister(),
		synced:    []cache.InformerSynced{dInformer.Informer().HasSynced, rsInformer.Informer().HasSynced, podInformer.Informer().HasSynced},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "deployment"}),
	}
	c.enqueue = c.queue.Add
	if _, err := dInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.addDeployment,
		UpdateFunc: c.updateDeployment,
		DeleteFunc: c.deleteDeployment,
	}); err != nil {
		return nil, err
	}
	if _, err := rsInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.addReplicaSet,
		UpdateFunc: c.updateReplicaSet,
		DeleteFunc: c.deleteReplicaSet,
	}); err != nil {
		return nil, err
	}
	if _, err := podInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: c.deletePod,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run waits for the caches, starts workers and blocks until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	logger := klog.FromContext(ctx)
	logger.Info("Starting deployment controller", "workers", workers)
	defer logger.Info("Shutting down deployment controller")
	if !cache.WaitForNamedCacheSync("deployment", ctx.Done(), c.synced...) {
		return
	}
	for range workers {
		go wait.UntilWithContext(ctx, c.worker, time.Second)
	}
	<-ctx.Done()
}

func (c *Controller) worker(ctx context.Context) {
	for c.processNextWorkItem(ctx) {
	}
}

func (c *Controller) processNextWorkItem(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	res, err := c.sync(ctx, key)
	c.handleResult(ctx, key, res, err)
	return true
}

// handleResult requeues key as upstream's handleErr and the plan say: after
// an error through the rate limiter (dropping the key after maxRetries),
// otherwise Forget, then the plan's requeue.
func (c *Controller) handleResult(ctx context.Context, key string, res *rollout.Result, err error) {
	logger := klog.FromContext(ctx)
	if err != nil {
		if c.queue.NumRequeues(key) < maxRetries {
			logger.V(2).Info("Error syncing deployment", "deployment", key, "err", err)
			c.queue.AddRateLimited(key)
			return
		}
		utilruntime.HandleErrorWithContext(ctx, err, "Dropping deployment out of the queue", "deployment", key)
		c.queue.Forget(key)
		return
	}
	c.queue.Forget(key)
	if res == nil {
		return
	}
	if res.Requeue.RateLimited {
		c.queue.AddRateLimited(key)
	}
	if res.Requeue.After > 0 {
		c.queue.AddAfter(key, res.Requeue.After)
	}
}

// sync is one sync of the Deployment key: snapshot from the caches, plan,
// writes, events. It returns the plan (nil when the Deployment is gone or
// invalid) and the first error, after which nothing else was written.
func (c *Controller) sync(ctx context.Context, key string) (*rollout.Result, error) {
	logger := klog.FromContext(ctx)
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Invalid key", "key", key)
		return nil, nil
	}
	d, err := c.dLister.Deployments(ns).Get(name)
	if apierrors.IsNotFound(err) {
		logger.V(2).Info("Deployment has been deleted", "deployment", key)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rsList, err := c.rsLister.ReplicaSets(ns).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var pods []*corev1.Pod
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		// Only Recreate looks at pods (it waits for old ones to stop).
		if pods, err = c.podLister.Pods(ns).List(labels.Everything()); err != nil {
			return nil, err
		}
	}
	snap := rollout.Snapshot{Deployment: d, ReplicaSets: rsList, Pods: pods, Now: c.clock.Now()}
	res, err := rollout.Plan(snap)
	if err != nil {
		// Invalid input does not get better by retrying: report and drop.
		utilruntime.HandleErrorWithContext(ctx, err, "Cannot plan deployment", "deployment", key)
		return nil, nil
	}
	if logger.V(4).Enabled() {
		logger.V(4).Info("Planned sync", "deployment", key, "plan", res.Explain())
	}
	// The writes in order, each event once the writes before it succeeded;
	// a refused create finishes as upstream's does (ReplicaSetCreateError).
	// An error, or rollout.ErrStopped for a plan that ends early, is retried
	// with rate limiting.
	return res, rollout.Execute(ctx, c.writer, snap, res)
}

// ---- event handlers: which Deployment to sync when something changes ----

func (c *Controller) enqueueDeployment(d *appsv1.Deployment) {
	key, err := cache.MetaNamespaceKeyFunc(d)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.enqueue(key)
}

func (c *Controller) addDeployment(obj any) {
	if d, ok := obj.(*appsv1.Deployment); ok {
		c.enqueueDeployment(d)
	}
}

func (c *Controller) updateDeployment(_, cur any) { c.addDeployment(cur) }

func (c *Controller) deleteDeployment(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	c.addDeployment(obj)
}

// resolveControllerRef returns the Deployment a controller reference names,
// if it still exists with that UID.
func (c *Controller) resolveControllerRef(ns string, ref *metav1.OwnerReference) *appsv1.Deployment {
	if ref == nil || ref.Kind != "Deployment" {
		return nil
	}
	d, err := c.dLister.Deployments(ns).Get(ref.Name)
	if err != nil || d.UID != ref.UID {
		return nil
	}
	return d
}

// deploymentsSelecting returns the Deployments of rs's namespace whose
// selector selects rs: candidates to adopt an orphan.
func (c *Controller) deploymentsSelecting(rs *appsv1.ReplicaSet) []*appsv1.Deployment {
	if len(rs.Labels) == 0 {
		return nil
	}
	all, err := c.dLister.Deployments(rs.Namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	var out []*appsv1.Deployment
	for _, d := range all {
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(rs.Labels)) {
			continue
		}
		out = append(out, d)
	}
	return out
}

func (c *Controller) addReplicaSet(obj any) {
	rs, ok := obj.(*appsv1.ReplicaSet)
	if !ok {
		return
	}
	if rs.DeletionTimestamp != nil {
		c.deleteReplicaSet(rs)
		return
	}
	if ref := metav1.GetControllerOf(rs); ref != nil {
		if d := c.resolveControllerRef(rs.Namespace, ref); d != nil {
			c.enqueueDeployment(d)
		}
		return
	}
	for _, d := range c.deploymentsSelecting(rs) {
		c.enqueueDeployment(d)
	}
}

func (c *Controller) updateReplicaSet(old, cur any) {
	oldRS, ok1 := old.(*appsv1.ReplicaSet)
	curRS, ok2 := cur.(*appsv1.ReplicaSet)
	if !ok1 || !ok2 || oldRS.ResourceVersion == curRS.ResourceVersion {
		return // a periodic resync: nothing changed
	}
	curRef, oldRef := metav1.GetControllerOf(curRS), metav1.GetControllerOf(oldRS)
	refChanged := !equalRef(curRef, oldRef)
	if refChanged && oldRef != nil {
		if d := c.resolveControllerRef(oldRS.Namespace, oldRef); d != nil {
			c.enqueueDeployment(d)
		}
	}
	if curRef != nil {
		if d := c.resolveControllerRef(curRS.Namespace, curRef); d != nil {
			c.enqueueDeployment(d)
		}
		return
	}
	if refChanged || !labels.Equals(curRS.Labels, oldRS.Labels) {
		for _, d := range c.deploymentsSelecting(curRS) {
			c.enqueueDeployment(d)
		}
	}
}

func equalRef(a, b *metav1.OwnerReference) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.UID == b.UID
}

func (c *Controller) deleteReplicaSet(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	rs, ok := obj.(*appsv1.ReplicaSet)
	if !ok {
		return
	}
	if d := c.resolveControllerRef(rs.Namespace, metav1.GetControllerOf(rs)); d != nil {
		c.enqueueDeployment(d)
	}
}

// deletePod queues a Recreate Deployment once the last pod of its
// ReplicaSets is gone: that is what its rollout waits for.
func (c *Controller) deletePod(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	ref := metav1.GetControllerOf(pod)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return
	}
	rs, err := c.rsLister.ReplicaSets(pod.Namespace).Get(ref.Name)
	if err != nil || rs.UID != ref.UID {
		return
	}
	d := c.resolveControllerRef(rs.Namespace, metav1.GetControllerOf(rs))
	if d == nil || d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		return
	}
	if c.podsOf(d) == 0 {
		c.enqueueDeployment(d)
	}
}

// podsOf counts the pods whose controller is one of d's ReplicaSets.
func (c *Controller) podsOf(d *appsv1.Deployment) int {
	rsList, err := c.rsLister.ReplicaSets(d.Namespace).List(labels.Everything())
	if err != nil {
		return 0
	}
	owned := map[types.UID]bool{}
	for _, rs := range rsList {
		if ref := metav1.GetControllerOf(rs); ref != nil && ref.UID == d.UID {
			owned[rs.UID] = true
		}
	}
	pods, err := c.podLister.Pods(d.Namespace).List(labels.Everything())
	if err != nil {
		return 0
	}
	n := 0
	for _, p := range pods {
		if ref := metav1.GetControllerOf(p); ref != nil && owned[ref.UID] {
			n++
		}
	}
	return n
}
