package main

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// scheduler runs fn after d on the cluster's clock. The cluster model is not
// safe for concurrent use: the scheduler must run fn, and its owner must call
// the model's methods, one at a time.
type scheduler interface {
	After(d time.Duration, fn func())
	Now() time.Time
}

// podTiming is how long pods take: from creation to running, from running
// to ready, and from deletion to gone.
type podTiming struct {
	Startup, Readiness, Termination time.Duration
}

// cluster stands in for the ReplicaSet controller, the garbage collector
// and the kubelets of a fake cluster, just enough for a rollout to make
// progress: a ReplicaSet sync creates or deletes pods to match
// spec.replicas and writes its status; pods start, become ready and
// available (minReadySeconds after ready) and terminate after fixed delays.
// Everything goes through the API (the fake clientset), so the Deployment
// controller sees it through its informers. Pods are bound at once (no
// nodes, no scheduling failures) and never crash.
type cluster struct {
	client kubernetes.Interface
	sched  scheduler
	timing podTiming
	// notify queues a ReplicaSet sync (key namespace/name), as the pod
	// informer of the ReplicaSet controller would after a pod change.
	notify func(key string)

	// failures makes the pods of a template with a container image listed
	// here fail: "image-pull-error" (never start: Pending), "never-ready"
	// or "crashloop" (run but never become ready).
	failures map[string]string

	seq  int
	pods map[string]*podState // by namespace/name
}

// failureOf returns the failure mode of pods of template t ("" if healthy).
func (c *cluster) failureOf(t *corev1.PodTemplateSpec) string {
	for _, ctr := range t.Spec.Containers {
		if mode, ok := c.failures[ctr.Image]; ok {
			return mode
		}
	}
	return ""
}

type podState struct {
	ns, name string
	rsUID    types.UID
	rsKey    string
	created  time.Time
	running  bool
	ready    bool
	readyAt  time.Time
	deleted  bool
	// wake is when an availability re-check is scheduled.
	wake time.Time
}

func newCluster(client kubernetes.Interface, sched scheduler, timing podTiming) *cluster {
	return &cluster{client: client, sched: sched, timing: timing, pods: map[string]*podState{}, notify: func(string) {}}
}

// podsOf returns the pods of the ReplicaSet with uid, oldest first.
func (c *cluster) podsOf(uid types.UID) []*podState {
	var out []*podState
	for _, p := range c.pods {
		if p.rsUID == uid {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *podState) int {
		if d := a.created.Compare(b.created); d != 0 {
			return d
		}
		return strings.Compare(a.name, b.name)
	})
	return out
}

// SyncReplicaSet is one sync of the ReplicaSet controller for key.
func (c *cluster) SyncReplicaSet(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	rs, err := c.client.AppsV1().ReplicaSets(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		// The garbage collector deletes the pods of a deleted ReplicaSet.
		for _, p := range c.pods {
			if p.rsKey == key && !p.deleted {
				if err := c.deletePod(ctx, p); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err != nil {
		return err
	}
	for _, p := range c.pods {
		if p.rsKey == key && p.rsUID != rs.UID && !p.deleted {
			if err := c.deletePod(ctx, p); err != nil {
				return err
			}
		}
	}
	pods := c.podsOf(rs.UID)
	var active []*podState
	for _, p := range pods {
		if !p.deleted {
			active = append(active, p)
		}
	}
	want := int(ptrOr(rs.Spec.Replicas, 1))
	switch diff := len(active) - want; {
	case diff < 0:
		for range -diff {
			if err := c.createPod(ctx, rs); err != nil {
				return err
			}
		}
	case diff > 0:
		for _, p := range victims(active, diff) {
			if err := c.deletePod(ctx, p); err != nil {
				return err
			}
		}
	}
	return c.writeStatus(ctx, rs)
}

// victims picks n pods to delete: not running, then not ready, then the
// most recently ready, then the newest (a simplified upstream ranking).
func victims(active []*podState, n int) []*podState {
	sorted := slices.Clone(active)
	slices.SortStableFunc(sorted, func(a, b *podState) int {
		switch {
		case a.running != b.running:
			return boolCmp(!a.running, !b.running)
		case a.ready != b.ready:
			return boolCmp(!a.ready, !b.ready)
		case !a.readyAt.Equal(b.readyAt):
			return b.readyAt.Compare(a.readyAt)
		case !a.created.Equal(b.created):
			return b.created.Compare(a.created)
		}
		return strings.Compare(b.name, a.name)
	})
	return sorted[:n]
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

func ptrOr(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

func (c *cluster) createPod(ctx context.Context, rs *appsv1.ReplicaSet) error {
	c.seq++
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       rs.Namespace,
			Name:            fmt.Sprintf("%s-%05d", rs.Name, c.seq),
			Labels:          rs.Spec.Template.Labels,
			Annotations:     rs.Spec.Template.Annotations,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))},
		},
		Spec:   *rs.Spec.Template.Spec.DeepCopy(),
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
	if _, err := c.client.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return err
	}
	key := pod.Namespace + "/" + pod.Name
	p := &podState{ns: pod.Namespace, name: pod.Name, rsUID: rs.UID, rsKey: rs.Namespace + "/" + rs.Name, created: c.sched.Now()}
	c.pods[key] = p
	mode := c.failureOf(&rs.Spec.Template)
	if mode == "image-pull-error" {
		return nil // ErrImagePull: stays Pending
	}
	c.sched.After(c.timing.Startup, func() {
		if p.deleted {
			return
		}
		p.running = true
		c.setPodStatus(ctx, p)
		if mode != "" {
			return // runs, never ready
		}
		c.sched.After(c.timing.Readiness, func() {
			if p.deleted {
				return
			}
			p.ready = true
			p.readyAt = c.sched.Now()
			c.setPodStatus(ctx, p)
		})
	})
	return nil
}

// setPodStatus writes p's phase and Ready condition (the kubelet's status
// update) and queues its ReplicaSet.
func (c *cluster) setPodStatus(ctx context.Context, p *podState) {
	pods := c.client.CoreV1().Pods(p.ns)
	pod, err := pods.Get(ctx, p.name, metav1.GetOptions{})
	if err == nil {
		pod.Status.Phase = corev1.PodRunning
		if p.ready {
			pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(p.readyAt)}}
		}
		_, err = pods.UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	}
	if err != nil && !apierrors.IsNotFound(err) {
		fmt.Printf("kubelet: status of pod %s: %v\n", p.name, err)
	}
	c.notify(p.rsKey)
}

// deletePod deletes p gracefully; a pod that never ran goes at once.
func (c *cluster) deletePod(ctx context.Context, p *podState) error {
	pods := c.client.CoreV1().Pods(p.ns)
	p.deleted = true
	p.ready = false
	if !p.running || c.timing.Termination == 0 {
		c.remove(ctx, p)
		return nil
	}
	if err := pods.Delete(ctx, p.name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	c.notify(p.rsKey)
	c.sched.After(c.timing.Termination, func() { c.remove(ctx, p) })
	return nil
}

// remove deletes p's object for good (its containers exited).
func (c *cluster) remove(ctx context.Context, p *podState) {
	zero := int64(0)
	err := c.client.CoreV1().Pods(p.ns).Delete(ctx, p.name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	if err != nil && !apierrors.IsNotFound(err) {
		fmt.Printf("kubelet: delete pod %s: %v\n", p.name, err)
	}
	delete(c.pods, p.ns+"/"+p.name)
	c.notify(p.rsKey)
}

// writeStatus writes rs's status from its pods when it changed, and
// schedules a re-check when a ready pod becomes available later.
func (c *cluster) writeStatus(ctx context.Context, rs *appsv1.ReplicaSet) error {
	now := c.sched.Now()
	minReady := time.Duration(rs.Spec.MinReadySeconds) * time.Second
	var st appsv1.ReplicaSetStatus
	var terminating int32
	for _, p := range c.podsOf(rs.UID) {
		if p.deleted {
			terminating++
			continue
		}
		st.Replicas++
		if !p.ready {
			continue
		}
		st.ReadyReplicas++
		if due := p.readyAt.Add(minReady); !now.Before(due) {
			st.AvailableReplicas++
		} else if !p.wake.Equal(due) {
			p.wake = due
			key := p.rsKey
			c.sched.After(due.Sub(now), func() { c.notify(key) })
		}
	}
	st.FullyLabeledReplicas = st.Replicas
	st.TerminatingReplicas = &terminating
	st.ObservedGeneration = rs.Generation
	st.Conditions = rs.Status.Conditions
	if reflect.DeepEqual(rs.Status, st) {
		return nil
	}
	out := rs.DeepCopy()
	out.Status = st
	_, err := c.client.AppsV1().ReplicaSets(rs.Namespace).UpdateStatus(ctx, out, metav1.UpdateOptions{})
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		// Someone (the Deployment controller) wrote it meanwhile: the
		// informer will queue it again.
		return nil
	}
	return err
}
