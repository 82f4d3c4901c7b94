package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/deploymath/deploymath/sim"
)

// kubelet stands in for the scheduler and the kubelets: a small,
// deterministic driver. Every pod is bound (pods/binding) to the
// schedulable nodes in turn as soon as it is seen; Startup later its status
// says Running with its containers started but not ready; Readiness after
// that it is Ready (condition Ready=True, every container ready). A pod
// given a deletionTimestamp is deleted with grace period 0 Termination
// later, at once if its containers never started (as the simulator's
// kubelet does).
//
// Nodes: each is created, reported Ready, and its Lease in kube-node-lease
// renewed every Heartbeat, as a kubelet does, so that the node lifecycle
// controller sees it healthy and removes the not-ready taint the API
// server puts on a new node. A node is schedulable unless it failed, was
// deleted or carries a NoSchedule taint (what the scheduler would see).
// The node steps:
//
//   - failNode: the kubelet reports the node Ready=False and its running
//     pods not ready (the simulator: the pods lose readiness at once); the
//     node lifecycle controller taints it not-ready and the taint eviction
//     controller evicts its pods after their toleration. Their deletion
//     completes as usual (the kubelet still runs).
//   - recoverNode of a failed node: Ready=True again; every pod left on it
//     starts over (Pending, running after Startup, ready after Readiness).
//   - unreachableNode: a last Lease renewal, then nothing: no heartbeat, no
//     pod status, no deletion, so the node lifecycle controller marks it
//     Ready=Unknown after its grace period, taints it and marks its pods
//     not ready, and evicted pods stay Terminating.
//   - recoverNode of an unreachable node: heartbeats again, deletions
//     complete, pods marked not ready by the node controller are ready at
//     once, the others carry on.
//   - deleteNode: the Node object is deleted; pod GC force-deletes its
//     pods after its quarantine.
//
// Failures are the scenario's failure rules (probability 1 only): a pod
// that one matches with mode crashloop or never-ready runs but never
// becomes ready (the Deployment and ReplicaSet controllers look only at
// readiness; a crash loop's restarts are not reported); with
// image-pull-error it stays Pending.
//
// Node capacities are not played: every schedulable node takes any number
// of pods.
type kubelet struct {
	Nodes                           []string
	Startup, Readiness, Termination time.Duration
	Failures                        []sim.FailureRule
	// Grid, when set, moves every transition to the next multiple of Grid
	// since the driver started: pods the ReplicaSet controller created in
	// one sync (milliseconds apart) then start, become ready and go at the
	// same moment, as they do in the simulator, whose pods created at one
	// instant with fixed delays change at one instant.
	Grid time.Duration
	// Heartbeat is how often each reporting node's Lease is renewed
	// (default 1s).
	Heartbeat time.Duration
	origin    time.Time
	// logf, when set (setLog), logs what the node lifecycle, taint
	// eviction and pod GC controllers did: a node's Ready condition and
	// taints when they change, a pod deleted on a node that failed or does
	// not report, a pod removed from a deleted node.
	logf func(format string, args ...any)

	client     kubernetes.Interface
	ctx        context.Context
	nodeLister corelisters.NodeLister

	wg          sync.WaitGroup // the writes under way
	mu          sync.Mutex
	seen        map[types.UID]*podStage
	nodes       map[string]*nodeStage
	next        int                       // where the search for the next pod's node starts
	unscheduled map[types.UID]*corev1.Pod // pods no node could take
	errs        []error                   // failed writes, reported by check
	timers      []*time.Timer
}

// podStage is what the driver has already done for a pod.
type podStage struct {
	bound, started, running, ready, deleting bool
	node                                     string
	pod                                      *corev1.Pod // the latest version seen
}

// nodeStage is a node's state as the driver plays it. gen changes with
// every failure and recovery: a pod timer set before one does nothing.
type nodeStage struct {
	failed, unreachable, deleted bool
	gen                          int
}

// reporting says whether the node's kubelet reaches the API server.
func (n *nodeStage) reporting() bool { return !n.unreachable && !n.deleted }

// startKubelet creates the nodes, waits until the node lifecycle
// controller has found them ready (their not-ready taint removed) and
// starts the driver; it stops when the test ends.
func startKubelet(t *testing.T, c *cluster, k *kubelet) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	k.client = kubernetes.NewForConfigOrDie(rest.AddUserAgent(c.config, "kubelet-driver"))
	k.ctx = ctx
	k.seen = map[types.UID]*podStage{}
	k.nodes = map[string]*nodeStage{}
	k.unscheduled = map[types.UID]*corev1.Pod{}
	if k.Heartbeat == 0 {
		k.Heartbeat = time.Second
	}
	k.origin = time.Now()
	for _, n := range k.Nodes {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}}
		if _, err := k.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			cancel()
			t.Fatalf("creating node %s: %v", n, err)
		}
		lease := &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: corev1.NamespaceNodeLease},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &[]string{n}[0], LeaseDurationSeconds: &[]int32{40}[0],
				RenewTime: &metav1.MicroTime{Time: time.Now()}},
		}
		if _, err := k.client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Create(ctx, lease, metav1.CreateOptions{}); err != nil {
			cancel()
			t.Fatalf("creating the lease of node %s: %v", n, err)
		}
		if err := k.postNodeReady(n, true); err != nil {
			cancel()
			t.Fatal(err)
		}
		k.nodes[n] = &nodeStage{}
	}
	factory := informers.NewSharedInformerFactory(k.client, 0)
	pods := factory.Core().V1().Pods().Informer()
	nodes := factory.Core().V1().Nodes()
	k.nodeLister = nodes.Lister()
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { k.observe(obj) },
		UpdateFunc: func(_, obj any) { k.observe(obj) },
		DeleteFunc: k.observeGone,
	}); err != nil {
		cancel()
		t.Fatal(err)
	}
	if _, err := nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: k.observeNode,
	}); err != nil {
		cancel()
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	k.wg.Go(k.heartbeats)
	t.Cleanup(func() {
		cancel()
		// Past this lock no handler or timer starts a write (they check
		// the context under it), so the wait below is for all of them.
		k.mu.Lock()
		for _, tm := range k.timers {
			tm.Stop()
		}
		k.mu.Unlock()
		k.wg.Wait()
		factory.Shutdown()
	})
	waitCtx, stop := context.WithTimeout(ctx, 30*time.Second)
	defer stop()
	if !cache.WaitForCacheSync(waitCtx.Done(), pods.HasSynced, nodes.Informer().HasSynced) {
		t.Fatal("the kubelet driver's informers did not sync in 30s")
	}
	// The API server taints a new node not-ready:NoSchedule; the node
	// lifecycle controller removes the taint once the node reports Ready.
	err := wait.PollUntilContextCancel(waitCtx, 50*time.Millisecond, true, func(context.Context) (bool, error) {
		for _, n := range k.Nodes {
			node, err := k.nodeLister.Get(n)
			if err != nil || hasNoSchedule(node) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("the node lifecycle controller did not find the nodes ready in 30s: %v", err)
	}
}

// setLog sets the log of the node controllers' actions (see logf).
func (k *kubelet) setLog(f func(format string, args ...any)) {
	k.mu.Lock()
	k.logf = f
	k.mu.Unlock()
}

// log logs through logf, if set, unless the driver stopped. k.mu is held.
func (k *kubelet) log(format string, args ...any) {
	if k.logf != nil && k.ctx.Err() == nil {
		k.logf(format, args...)
	}
}

// observeNode logs a change of a node's Ready condition or taints.
func (k *kubelet) observeNode(oldObj, obj any) {
	old, ok1 := oldObj.(*corev1.Node)
	n, ok2 := obj.(*corev1.Node)
	if !ok1 || !ok2 {
		return
	}
	if describeNode(old) == describeNode(n) {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.log("node %s: %s", n.Name, describeNode(n))
}

// describeNode is a node's Ready condition and taints.
func describeNode(n *corev1.Node) string {
	ready := "none"
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			ready = string(c.Status)
		}
	}
	var taints []string
	for _, t := range n.Spec.Taints {
		taints = append(taints, t.Key+":"+string(t.Effect))
	}
	return "Ready=" + ready + ", taints [" + strings.Join(taints, " ") + "]"
}

// observeGone logs a pod removed from a node that was deleted.
func (k *kubelet) observeGone(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if n := k.nodes[pod.Spec.NodeName]; n != nil && n.deleted {
		k.log("pod %s removed from deleted node %s", pod.Name, pod.Spec.NodeName)
	}
}

// hasNoSchedule says whether a node has a taint that keeps new pods off it.
func hasNoSchedule(n *corev1.Node) bool {
	return slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Effect == corev1.TaintEffectNoSchedule })
}

// heartbeats renews the Lease of every reporting node every Heartbeat.
func (k *kubelet) heartbeats() {
	tick := time.NewTicker(k.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-k.ctx.Done():
			return
		case <-tick.C:
		}
		k.mu.Lock()
		var names []string
		for _, n := range k.Nodes {
			if k.nodes[n].reporting() {
				names = append(names, n)
			}
		}
		k.mu.Unlock()
		for _, n := range names {
			if err := k.renewLease(n); err != nil && k.ctx.Err() == nil {
				k.mu.Lock()
				// A node made unreachable or deleted meanwhile is no error.
				if k.nodes[n].reporting() {
					k.errs = append(k.errs, err)
				}
				k.mu.Unlock()
			}
		}
	}
}

func (k *kubelet) renewLease(node string) error {
	ctx, cancel := context.WithTimeout(k.ctx, 10*time.Second)
	defer cancel()
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"renewTime": metav1.NewMicroTime(time.Now())}})
	if err != nil {
		return err
	}
	_, err = k.client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("renewing the lease of node %s: %w", node, err)
	}
	return nil
}

// postNodeReady reports the node's Ready condition, as its kubelet does.
func (k *kubelet) postNodeReady(node string, ready bool) error {
	ctx, cancel := context.WithTimeout(k.ctx, 10*time.Second)
	defer cancel()
	now := metav1.Now()
	cond := corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
		Message: "kubelet is posting ready status", LastHeartbeatTime: now, LastTransitionTime: now}
	if !ready {
		cond.Status, cond.Reason, cond.Message = corev1.ConditionFalse, "KubeletNotReady", "container runtime is down"
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": []corev1.NodeCondition{cond}}})
	if err != nil {
		return err
	}
	_, err = k.client.CoreV1().Nodes().Patch(ctx, node, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	if err != nil {
		return fmt.Errorf("reporting node %s ready=%v: %w", node, ready, err)
	}
	return nil
}

// schedulable says whether a new pod may be bound to the node. k.mu is
// held.
func (k *kubelet) schedulable(name string) bool {
	n := k.nodes[name]
	if n == nil || n.failed || n.deleted {
		return false
	}
	node, err := k.nodeLister.Get(name)
	return err == nil && !hasNoSchedule(node)
}

// pickNode is the next schedulable node in turn, as the simulator's
// scheduler picks it ("" when there is none). k.mu is held.
func (k *kubelet) pickNode() string {
	for i := range len(k.Nodes) {
		j := (k.next + i) % len(k.Nodes)
		if k.schedulable(k.Nodes[j]) {
			k.next = (j + 1) % len(k.Nodes)
			return k.Nodes[j]
		}
	}
	return ""
}

// observe decides what to do with a pod the informer delivered.
func (k *kubelet) observe(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.ctx.Err() != nil {
		return
	}
	st := k.seen[pod.UID]
	if st == nil {
		st = &podStage{}
		k.seen[pod.UID] = st
	}
	st.pod = pod
	if pod.Spec.NodeName != "" {
		st.node = pod.Spec.NodeName
	}
	switch {
	case pod.DeletionTimestamp != nil:
		delete(k.unscheduled, pod.UID)
		if !st.deleting {
			st.deleting = true
			if n := k.nodes[st.node]; n != nil && (n.failed || !n.reporting()) {
				k.log("pod %s deleted on node %s (failed %v, reporting %v)", pod.Name, st.node, n.failed, n.reporting())
			}
			k.finishDeletion(st)
		}
	case pod.Spec.NodeName == "":
		if !st.bound {
			k.schedule(st)
		}
	case !st.started:
		st.started = true
		k.start(st)
	}
}

// schedule binds a pod to the next schedulable node, or keeps it for a
// node's recovery. k.mu is held.
func (k *kubelet) schedule(st *podStage) {
	pod := st.pod
	node := k.pickNode()
	if node == "" {
		k.unscheduled[pod.UID] = pod
		return
	}
	delete(k.unscheduled, pod.UID)
	st.bound = true
	k.do(func() error { return k.bind(pod, node) })
}

// finishDeletion deletes a terminating pod once its containers stopped:
// at once when they never started, Termination later otherwise; never
// while its node does not report. k.mu is held.
func (k *kubelet) finishDeletion(st *podStage) {
	pod := st.pod
	if n := k.nodes[st.node]; n != nil && !n.reporting() {
		return // Terminating until the node reports again or pod GC removes it
	}
	if !st.running {
		k.delete(pod)
		return
	}
	k.after(k.Termination, func() { k.delete(pod) })
}

// start plays a bound pod from Pending to running and ready, unless its
// node fails or stops reporting first. k.mu is held.
func (k *kubelet) start(st *podStage) {
	pod := st.pod
	mode := failureMode(k.Failures, pod)
	if mode == "image-pull-error" {
		return
	}
	n := k.nodes[st.node]
	if n == nil || n.failed || !n.reporting() {
		return
	}
	gen := n.gen
	alive := func() bool { return !st.deleting && n.gen == gen }
	k.after(k.Startup, func() {
		if !alive() {
			return
		}
		st.running = true
		k.do(func() error { return k.patchStatus(pod, corev1.PodRunning, false) })
		if mode != "" {
			return // crashloop, never-ready: never ready
		}
		k.ready(st, k.Readiness, alive)
	})
}

// ready reports a running pod ready after d, if alive still holds then.
// k.mu is held.
func (k *kubelet) ready(st *podStage, d time.Duration, alive func() bool) {
	pod := st.pod
	k.after(d, func() {
		if alive() {
			st.ready = true
			k.do(func() error { return k.patchStatus(pod, corev1.PodRunning, true) })
		}
	})
}

// podsOn lists the pods the driver has seen bound to a node. k.mu is held.
func (k *kubelet) podsOn(node string) []*podStage {
	var out []*podStage
	for _, st := range k.seen {
		if st.node == node {
			out = append(out, st)
		}
	}
	slices.SortFunc(out, func(a, b *podStage) int { return strings.Compare(a.pod.Name, b.pod.Name) })
	return out
}

// failNode is the failNode step (see kubelet).
func (k *kubelet) failNode(name string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := k.nodes[name]
	if n == nil || n.failed || !n.reporting() {
		return fmt.Errorf("failNode: node %q is unknown, failed, unreachable or deleted", name)
	}
	n.failed = true
	n.gen++
	k.do(func() error { return k.postNodeReady(name, false) })
	for _, st := range k.podsOn(name) {
		if st.running {
			st.ready = false
			pod := st.pod
			k.do(func() error { return k.patchStatus(pod, corev1.PodRunning, false) })
		}
	}
	return nil
}

// recoverNode is the recoverNode step (see kubelet).
func (k *kubelet) recoverNode(name string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := k.nodes[name]
	switch {
	case n == nil || n.deleted:
		return fmt.Errorf("recoverNode: node %q is unknown or deleted", name)
	case n.failed:
		n.failed = false
		n.gen++
		k.do(func() error { return k.postNodeReady(name, true) })
		for _, st := range k.podsOn(name) {
			if st.deleting {
				continue
			}
			// The kubelet restarts the containers.
			st.running, st.ready = false, false
			pod := st.pod
			k.do(func() error { return k.patchStatus(pod, corev1.PodPending, false) })
			k.start(st)
		}
	case n.unreachable:
		n.unreachable = false
		n.gen++
		gen := n.gen
		k.do(func() error {
			if err := k.renewLease(name); err != nil {
				return err
			}
			return k.postNodeReady(name, true)
		})
		for _, st := range k.podsOn(name) {
			alive := func() bool { return !st.deleting && n.gen == gen }
			mode := failureMode(k.Failures, st.pod)
			switch {
			case st.deleting:
				k.finishDeletion(st)
			case !st.running:
				k.start(st)
			case mode != "":
			case st.ready:
				// Its probe kept passing; the node controller had marked it
				// not ready.
				k.ready(st, 0, alive)
			default:
				k.ready(st, k.Readiness, alive)
			}
		}
	default:
		return nil
	}
	// The pods no node could take, in the order they were created.
	waiting := slices.Collect(maps.Values(k.unscheduled))
	slices.SortFunc(waiting, func(a, b *corev1.Pod) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	for _, pod := range waiting {
		k.schedule(k.seen[pod.UID])
	}
	return nil
}

// unreachableNode is the unreachableNode step (see kubelet): the node's
// last report is now.
func (k *kubelet) unreachableNode(name string) error {
	k.mu.Lock()
	n := k.nodes[name]
	if n == nil || n.failed || !n.reporting() {
		k.mu.Unlock()
		return fmt.Errorf("unreachableNode: node %q is unknown, failed, unreachable or deleted", name)
	}
	k.mu.Unlock()
	if err := k.renewLease(name); err != nil {
		return err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	n.unreachable = true
	n.gen++
	return nil
}

// deleteNode is the deleteNode step: the Node object is deleted.
func (k *kubelet) deleteNode(name string) error {
	k.mu.Lock()
	n := k.nodes[name]
	if n == nil || n.deleted {
		k.mu.Unlock()
		return fmt.Errorf("deleteNode: node %q is unknown or already deleted", name)
	}
	n.deleted = true
	n.gen++
	k.mu.Unlock()
	ctx, cancel := context.WithTimeout(k.ctx, 10*time.Second)
	defer cancel()
	return k.client.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{})
}

// failureMode is the mode of the first failure rule that matches pod
// ("" when none does): a rule matches a pod one of whose containers runs
// its image, or whose labels include all of its labels, or both when it
// names both.
func failureMode(rules []sim.FailureRule, pod *corev1.Pod) string {
	for _, r := range rules {
		if r.Image != "" && !slices.ContainsFunc(pod.Spec.Containers, func(c corev1.Container) bool { return c.Image == r.Image }) {
			continue
		}
		if len(r.Labels) > 0 && !labels.SelectorFromSet(r.Labels).Matches(labels.Set(pod.Labels)) {
			continue
		}
		if r.Image == "" && len(r.Labels) == 0 {
			continue
		}
		return r.Mode
	}
	return ""
}

// after runs f after d, unless the driver stops first. k.mu is held.
func (k *kubelet) after(d time.Duration, f func()) {
	if k.Grid > 0 {
		since := time.Since(k.origin) + d
		d += (k.Grid - since%k.Grid) % k.Grid
	}
	k.timers = append(k.timers, time.AfterFunc(d, func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		if k.ctx.Err() == nil {
			f()
		}
	}))
}

// do runs a write in its own goroutine (the informer's handler must not
// block) and keeps its error, unless the driver has stopped. k.mu is held.
func (k *kubelet) do(write func() error) {
	k.wg.Go(func() {
		if err := write(); err != nil && k.ctx.Err() == nil {
			k.mu.Lock()
			k.errs = append(k.errs, err)
			k.mu.Unlock()
		}
	})
}

func (k *kubelet) bind(pod *corev1.Pod, node string) error {
	ctx, cancel := context.WithTimeout(k.ctx, 10*time.Second)
	defer cancel()
	b := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: node},
	}
	err := k.client.CoreV1().Pods(pod.Namespace).Bind(ctx, b, metav1.CreateOptions{})
	if apierrors.IsNotFound(err) {
		return nil // deleted before it was scheduled
	}
	if err != nil {
		return fmt.Errorf("binding pod %s to %s: %w", pod.Name, node, err)
	}
	return nil
}

// patchStatus reports the pod's phase, ready or not.
func (k *kubelet) patchStatus(pod *corev1.Pod, phase corev1.PodPhase, ready bool) error {
	ctx, cancel := context.WithTimeout(k.ctx, 10*time.Second)
	defer cancel()
	now := metav1.Now()
	readyStatus := corev1.ConditionFalse
	if ready {
		readyStatus = corev1.ConditionTrue
	}
	st := corev1.PodStatus{
		Phase:     phase,
		StartTime: &now,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.ContainersReady, Status: readyStatus, LastTransitionTime: now},
			{Type: corev1.PodReady, Status: readyStatus, LastTransitionTime: now},
		},
	}
	for _, c := range pod.Spec.Containers {
		cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: c.Image, Ready: ready, Started: &[]bool{phase == corev1.PodRunning}[0]}
		if phase == corev1.PodRunning {
			cs.State.Running = &corev1.ContainerStateRunning{StartedAt: now}
		} else {
			cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}
		}
		st.ContainerStatuses = append(st.ContainerStatuses, cs)
	}
	patch, err := json.Marshal(map[string]any{"status": st})
	if err != nil {
		return err
	}
	_, err = k.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reporting pod %s %s ready=%v: %w", pod.Name, phase, ready, err)
	}
	return nil
}

// delete removes a terminating pod at once, as a kubelet does once its
// containers have stopped.
func (k *kubelet) delete(pod *corev1.Pod) {
	k.do(func() error {
		ctx, cancel := context.WithTimeout(k.ctx, 10*time.Second)
		defer cancel()
		err := k.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
			GracePeriodSeconds: new(int64),
			Preconditions:      &metav1.Preconditions{UID: &pod.UID},
		})
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("deleting pod %s: %w", pod.Name, err)
		}
		return nil
	})
}

// check fails the test on every write the driver could not make.
func (k *kubelet) check(t *testing.T) {
	t.Helper()
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, err := range k.errs {
		t.Errorf("kubelet driver: %v", err)
	}
}
