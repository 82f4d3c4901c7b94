package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/deploymath/deploymath/sim"
)

// kubelet stands in for the scheduler and the kubelets: a small,
// deterministic driver. Every pod is bound (pods/binding) to the nodes in
// turn as soon as it is seen; Startup later its status says Running with
// its containers started but not ready; Readiness after that it is Ready
// (condition Ready=True, every container ready). A pod given a
// deletionTimestamp is deleted with grace period 0 Termination later.
//
// Failures are the scenario's failure rules (probability 1 only): a pod
// that one matches with mode crashloop or never-ready runs but never
// becomes ready (the Deployment and ReplicaSet controllers look only at
// readiness; a crash loop's restarts are not reported); with
// image-pull-error it stays Pending.
type kubelet struct {
	Nodes                           []string
	Startup, Readiness, Termination time.Duration
	Failures                        []sim.FailureRule
	// Grid, when set, moves every transition to the next multiple of Grid
	// since the driver started: pods the ReplicaSet controller created in
	// one sync (milliseconds apart) then start, become ready and go at the
	// same moment, as they do in the simulator, whose pods created at one
	// instant with fixed delays change at one instant.
	Grid   time.Duration
	origin time.Time

	client kubernetes.Interface
	ctx    context.Context

	wg     sync.WaitGroup // the writes under way
	mu     sync.Mutex
	seen   map[types.UID]*podStage
	next   int     // the node the next pod is bound to
	errs   []error // failed writes, reported by check
	timers []*time.Timer
}

// podStage is what the driver has already done for a pod.
type podStage struct{ bound, started, deleting bool }

// startKubelet creates the nodes and starts the driver; it stops when the
// test ends.
func startKubelet(t *testing.T, c *cluster, k *kubelet) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	k.client = kubernetes.NewForConfigOrDie(rest.AddUserAgent(c.config, "kubelet-driver"))
	k.ctx = ctx
	k.seen = map[types.UID]*podStage{}
	k.origin = time.Now()
	for _, n := range k.Nodes {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}}
		if _, err := k.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			cancel()
			t.Fatalf("creating node %s: %v", n, err)
		}
	}
	factory := informers.NewSharedInformerFactory(k.client, 0)
	pods := factory.Core().V1().Pods().Informer()
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { k.observe(obj) },
		UpdateFunc: func(_, obj any) { k.observe(obj) },
	}); err != nil {
		cancel()
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
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
	if !cache.WaitForCacheSync(waitCtx.Done(), pods.HasSynced) {
		t.Fatal("the kubelet driver's pod informer did not sync in 30s")
	}
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
	switch {
	case pod.DeletionTimestamp != nil:
		if !st.deleting {
			st.deleting = true
			k.after(k.Termination, func() { k.delete(pod) })
		}
	case pod.Spec.NodeName == "":
		if !st.bound {
			st.bound = true
			node := k.Nodes[k.next%len(k.Nodes)]
			k.next++
			k.do(func() error { return k.bind(pod, node) })
		}
	case !st.started:
		st.started = true
		mode := failureMode(k.Failures, pod)
		if mode == "image-pull-error" {
			return
		}
		k.after(k.Startup, func() {
			if st.deleting {
				return
			}
			k.do(func() error { return k.patchStatus(pod, false) })
			if mode != "" {
				return // crashloop, never-ready: never ready
			}
			k.after(k.Readiness, func() {
				if !st.deleting {
					k.do(func() error { return k.patchStatus(pod, true) })
				}
			})
		})
	}
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

// patchStatus reports the pod running, and ready or not.
func (k *kubelet) patchStatus(pod *corev1.Pod, ready bool) error {
	ctx, cancel := context.WithTimeout(k.ctx, 10*time.Second)
	defer cancel()
	now := metav1.Now()
	readyStatus := corev1.ConditionFalse
	if ready {
		readyStatus = corev1.ConditionTrue
	}
	st := corev1.PodStatus{
		Phase:     corev1.PodRunning,
		StartTime: &now,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.ContainersReady, Status: readyStatus, LastTransitionTime: now},
			{Type: corev1.PodReady, Status: readyStatus, LastTransitionTime: now},
		},
	}
	for _, c := range pod.Spec.Containers {
		st.ContainerStatuses = append(st.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: c.Image, Ready: ready, Started: &[]bool{true}[0],
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		})
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
		return fmt.Errorf("reporting pod %s ready=%v: %w", pod.Name, ready, err)
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
