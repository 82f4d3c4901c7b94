package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/restart"
	"github.com/deploymath/deploymath/revision"
	"github.com/deploymath/deploymath/sim"
)

// inexpressible says why a scenario cannot be run on this control plane
// ("" when it can): the kubelet driver plays only failure rules that
// always apply, and of the pod steps only delete.
func inexpressible(sc *sim.Scenario) string {
	for _, f := range sc.Cluster.Failures {
		if f.Probability != nil && *f.Probability != 1 {
			return "a failure rule with a probability: the simulator's random draws cannot be reproduced"
		}
	}
	for i, st := range sc.Steps {
		if st.Pod != nil && !st.Pod.Delete {
			return fmt.Sprintf("steps[%d].pod: only delete is played", i)
		}
	}
	return ""
}

// fixTimings makes every delay range of the scenario a single value, its
// midpoint (whole milliseconds), so that the simulator and the kubelet
// driver use the same pod timings. A range of 0s–0s is the simulator's
// default and is resolved first.
func fixTimings(sc *sim.Scenario) (startup, readiness, termination time.Duration) {
	fix := func(r *sim.Range, defMin, defMax time.Duration) time.Duration {
		lo, hi := time.Duration(r.Min), time.Duration(r.Max)
		if lo == 0 && hi == 0 {
			lo, hi = defMin, defMax
		}
		mid := ((lo + hi) / 2).Round(time.Millisecond)
		if mid == 0 {
			mid = time.Millisecond // 0s–0s would mean the default again
		}
		r.Min, r.Max = sim.Duration(mid), sim.Duration(mid)
		return mid
	}
	startup = fix(&sc.Cluster.Startup, time.Second, 3*time.Second)
	readiness = fix(&sc.Cluster.Readiness, 0, 2*time.Second)
	termination = fix(&sc.Cluster.Termination, time.Second, time.Second)
	return
}

// realRun plays a scenario's objects and steps on a running control
// plane, on a clock that follows the wall clock but jumps ahead when the
// cluster is idle.
type realRun struct {
	t   *testing.T
	c   *cluster
	sc  *sim.Scenario
	ns  string
	rec *recorder
	k   *kubelet

	start time.Time
	// skipped is how far the clock jumped ahead while idle, in
	// nanoseconds (read by the kubelet driver's log too).
	skipped atomic.Int64
	// lastConfig is when a step last touched something the restart
	// controller watches; no time is skipped while it may still act on it.
	lastConfig time.Time
	restart    *sim.RestartSpec
	names      []string // the Deployments, in the order of the objects
	// nodeSteps is set by the first node step: from then on the node
	// lifecycle, taint eviction and pod GC controllers may be counting
	// down on the wall clock, so the run's clock no longer jumps ahead.
	nodeSteps bool
}

// now is the run's clock: wall time since the start plus the time skipped.
func (r *realRun) now() time.Duration { return time.Since(r.start) + time.Duration(r.skipped.Load()) }

// idle reports whether nothing is in flight: every Deployment converged
// and the restart controller cannot still be waiting on a change.
func (r *realRun) idle(ctx context.Context) bool {
	if r.restartPending() || r.nodeSteps {
		return false
	}
	for _, n := range r.names {
		d, err := r.c.client.AppsV1().Deployments(r.ns).Get(ctx, n, metav1.GetOptions{})
		if err != nil || convergedWhy(ctx, r.c, d) != "" {
			return false
		}
	}
	return time.Since(r.rec.lastChange()) > 200*time.Millisecond
}

// restartPending reports whether the restart controller may still act on
// the last change of a config or an opt-in annotation: its grace period
// and one check interval, plus a second, have not passed since.
func (r *realRun) restartPending() bool {
	if r.restart == nil || !r.restart.Enabled {
		return false
	}
	grace, check := 5*time.Second, 500*time.Millisecond
	if r.restart.GracePeriod != nil {
		grace = time.Duration(*r.restart.GracePeriod)
	}
	if r.restart.CheckInterval != nil {
		check = time.Duration(*r.restart.CheckInterval)
	}
	return time.Since(r.lastConfig) < grace+check+time.Second
}

// waitUntil waits until the run's clock reaches at, jumping there at once
// when the cluster is idle.
func (r *realRun) waitUntil(ctx context.Context, at time.Duration) {
	for {
		v := r.now()
		if v >= at {
			return
		}
		if r.idle(ctx) {
			r.skipped.Add(int64(at - r.now()))
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(min(50*time.Millisecond, at-v)):
		}
	}
}

// create creates the scenario's objects, in order.
func (r *realRun) create(ctx context.Context) {
	r.t.Helper()
	for i, raw := range r.sc.Objects {
		if err := r.applyObject(ctx, raw); err != nil {
			r.t.Fatalf("objects[%d]: %v", i, err)
		}
	}
}

// applyObject is kubectl apply of a manifest: a Deployment is created, or
// its labels and spec replaced and its annotations merged; a ConfigMap or
// Secret is created or its labels, annotations and data replaced.
func (r *realRun) applyObject(ctx context.Context, raw json.RawMessage) error {
	var tm metav1.TypeMeta
	if err := json.Unmarshal(raw, &tm); err != nil {
		return err
	}
	switch tm.Kind {
	case "Deployment":
		d := &appsv1.Deployment{}
		if err := json.Unmarshal(raw, d); err != nil {
			return err
		}
		d.Namespace = r.ns
		_, err := r.c.client.AppsV1().Deployments(r.ns).Create(ctx, d, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return r.editDeployment(ctx, d.Name, func(cur *appsv1.Deployment) {
				cur.Labels, cur.Spec = d.Labels, d.Spec
				for k, v := range d.Annotations {
					if cur.Annotations == nil {
						cur.Annotations = map[string]string{}
					}
					cur.Annotations[k] = v
				}
			})
		}
		if err == nil && !slices.Contains(r.names, d.Name) {
			r.names = append(r.names, d.Name)
		}
		return err
	case "ConfigMap":
		cm := &corev1.ConfigMap{}
		if err := json.Unmarshal(raw, cm); err != nil {
			return err
		}
		cm.Namespace = r.ns
		r.lastConfig = time.Now()
		_, err := r.c.client.CoreV1().ConfigMaps(r.ns).Create(ctx, cm, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return retry.RetryOnConflict(retry.DefaultRetry, func() error {
				cur, err := r.c.client.CoreV1().ConfigMaps(r.ns).Get(ctx, cm.Name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				cur.Labels, cur.Annotations, cur.Data, cur.BinaryData = cm.Labels, cm.Annotations, cm.Data, cm.BinaryData
				_, err = r.c.client.CoreV1().ConfigMaps(r.ns).Update(ctx, cur, metav1.UpdateOptions{})
				return err
			})
		}
		return err
	case "Secret":
		s := &corev1.Secret{}
		if err := json.Unmarshal(raw, s); err != nil {
			return err
		}
		s.Namespace = r.ns
		r.lastConfig = time.Now()
		_, err := r.c.client.CoreV1().Secrets(r.ns).Create(ctx, s, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return retry.RetryOnConflict(retry.DefaultRetry, func() error {
				cur, err := r.c.client.CoreV1().Secrets(r.ns).Get(ctx, s.Name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				cur.Labels, cur.Annotations, cur.Data, cur.StringData = s.Labels, s.Annotations, s.Data, s.StringData
				_, err = r.c.client.CoreV1().Secrets(r.ns).Update(ctx, cur, metav1.UpdateOptions{})
				return err
			})
		}
		return err
	}
	return fmt.Errorf("kind %q: not played", tm.Kind)
}

// editDeployment reads, changes and writes a Deployment, again on a
// conflict (kubectl's patches do not conflict).
func (r *realRun) editDeployment(ctx context.Context, name string, edit func(*appsv1.Deployment)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d, err := r.c.client.AppsV1().Deployments(r.ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		edit(d)
		_, err = r.c.client.AppsV1().Deployments(r.ns).Update(ctx, d, metav1.UpdateOptions{})
		return err
	})
}

// deploymentOf is the Deployment a step acts on.
func (r *realRun) deploymentOf(st *sim.Step) string {
	if st.Deployment != "" {
		return st.Deployment
	}
	if len(r.names) > 0 {
		return r.names[0]
	}
	return ""
}

// specEdit is a step that only changes a Deployment's object (no reads of
// other objects): steps of this kind at the same instant on the same
// Deployment are one write, as the simulator applies them before any
// controller runs.
func specEdit(st *sim.Step) func(*appsv1.Deployment) {
	switch {
	case st.When != nil:
		return nil
	case st.SetImage != nil:
		return func(d *appsv1.Deployment) {
			for i := range d.Spec.Template.Spec.Containers {
				if d.Spec.Template.Spec.Containers[i].Name == st.SetImage.Container {
					d.Spec.Template.Spec.Containers[i].Image = st.SetImage.Image
				}
			}
		}
	case st.Scale != nil:
		return func(d *appsv1.Deployment) { d.Spec.Replicas = &[]int32{*st.Scale}[0] }
	case st.Pause:
		return func(d *appsv1.Deployment) { d.Spec.Paused = true }
	case st.Resume:
		return func(d *appsv1.Deployment) { d.Spec.Paused = false }
	case st.Annotate != nil:
		return func(d *appsv1.Deployment) {
			for k, v := range st.Annotate {
				if v == nil {
					delete(d.Annotations, k)
					continue
				}
				if d.Annotations == nil {
					d.Annotations = map[string]string{}
				}
				d.Annotations[k] = *v
			}
		}
	}
	return nil
}

// play runs the steps and waits for the end of the run (after the restart
// controller's grace period, when it runs): convergence with
// stopWhenConverged, otherwise a quiet period.
func (r *realRun) play(ctx context.Context) {
	r.t.Helper()
	stop := false
	steps := r.sc.Steps
	for i := 0; i < len(steps); i++ {
		st := &steps[i]
		r.waitUntil(ctx, time.Duration(st.At))
		r.t.Logf("steps[%d] at %v: run at %v (wall %v)", i, time.Duration(st.At), r.now().Round(time.Millisecond), time.Since(r.start).Round(time.Millisecond))
		if st.StopWhenConverged {
			stop = true
			continue
		}
		if edit := specEdit(st); edit != nil {
			edits := []func(*appsv1.Deployment){edit}
			name := r.deploymentOf(st)
			for i+1 < len(steps) && steps[i+1].At == st.At && r.deploymentOf(&steps[i+1]) == name && specEdit(&steps[i+1]) != nil {
				i++
				edits = append(edits, specEdit(&steps[i]))
			}
			if st.Annotate != nil {
				r.lastConfig = time.Now()
			}
			if err := r.editDeployment(ctx, name, func(d *appsv1.Deployment) {
				for _, e := range edits {
					e(d)
				}
			}); err != nil {
				r.t.Fatalf("steps[%d] at %v: %v", i, time.Duration(st.At), err)
			}
			continue
		}
		if st.When != nil {
			if !r.waitFor(ctx, st) {
				r.t.Logf("steps[%d]: its when did not hold by its timeout; not run", i)
				continue
			}
		}
		if err := r.step(ctx, st); err != nil {
			r.t.Fatalf("steps[%d] at %v: %v", i, time.Duration(st.At), err)
		}
	}
	for r.restartPending() && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
	}
	if stop {
		for _, n := range r.names {
			waitConverged(ctx, r.t, r.c, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: r.ns, Name: n}})
		}
		r.rec.waitQuiet(ctx, r.t, time.Second)
		return
	}
	// Without stopWhenConverged the run ends once nothing has changed for
	// longer than a pod takes from creation to ready and from deletion to
	// gone, plus two seconds.
	r.rec.waitQuiet(ctx, r.t, r.k.Startup+r.k.Readiness+r.k.Termination+2*time.Second)
}

// step carries out one step that is not a Deployment edit.
func (r *realRun) step(ctx context.Context, st *sim.Step) error {
	cl := r.c.client
	switch {
	case st.Apply != nil:
		return r.applyObject(ctx, st.Apply)
	case st.Undo != nil:
		name := r.deploymentOf(st)
		return retry.RetryOnConflict(retry.DefaultRetry, func() error {
			d, err := cl.AppsV1().Deployments(r.ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			rss, err := r.rec.rsLister.ReplicaSets(r.ns).List(labels.Everything())
			if err != nil {
				return err
			}
			var owned []*appsv1.ReplicaSet
			for _, rs := range rss {
				if ref := metav1.GetControllerOf(rs); ref != nil && ref.UID == d.UID {
					owned = append(owned, rs)
				}
			}
			rb, err := revision.RollbackTarget(d, owned, st.Undo.ToRevision)
			if err != nil {
				r.t.Logf("undo refused, as kubectl would: %v", err)
				return nil
			}
			if rb.AlreadyMatches {
				return nil
			}
			_, err = cl.AppsV1().Deployments(r.ns).Update(ctx, rb.Apply(d), metav1.UpdateOptions{})
			return err
		})
	case st.EditConfigMap != nil:
		r.lastConfig = time.Now()
		return retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cm, err := cl.CoreV1().ConfigMaps(r.ns).Get(ctx, st.EditConfigMap.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			cm.Data = st.EditConfigMap.Data
			_, err = cl.CoreV1().ConfigMaps(r.ns).Update(ctx, cm, metav1.UpdateOptions{})
			return err
		})
	case st.EditSecret != nil:
		r.lastConfig = time.Now()
		return retry.RetryOnConflict(retry.DefaultRetry, func() error {
			s, err := cl.CoreV1().Secrets(r.ns).Get(ctx, st.EditSecret.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			s.Data = map[string][]byte{}
			for k, v := range st.EditSecret.Data {
				s.Data[k] = []byte(v)
			}
			_, err = cl.CoreV1().Secrets(r.ns).Update(ctx, s, metav1.UpdateOptions{})
			return err
		})
	case st.DeleteConfigMap != "":
		r.lastConfig = time.Now()
		return cl.CoreV1().ConfigMaps(r.ns).Delete(ctx, st.DeleteConfigMap, metav1.DeleteOptions{})
	case st.DeleteSecret != "":
		r.lastConfig = time.Now()
		return cl.CoreV1().Secrets(r.ns).Delete(ctx, st.DeleteSecret, metav1.DeleteOptions{})
	case st.FailNode != "":
		r.nodeSteps = true
		return r.k.failNode(st.FailNode)
	case st.RecoverNode != "":
		r.nodeSteps = true
		return r.k.recoverNode(st.RecoverNode)
	case st.UnreachableNode != "":
		r.nodeSteps = true
		return r.k.unreachableNode(st.UnreachableNode)
	case st.DeleteNode != "":
		r.nodeSteps = true
		return r.k.deleteNode(st.DeleteNode)
	case st.KillPods != nil:
		pods := r.podsOf(r.deploymentOf(st), st.KillPods.RS, nil)
		for _, p := range pods[:min(len(pods), st.KillPods.Count)] {
			if err := cl.CoreV1().Pods(r.ns).Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
		return nil
	case st.Pod != nil && st.Pod.Delete:
		pods := r.podsOf(r.deploymentOf(st), st.Pod.RS, st.Pod.Selector)
		if st.Pod.Index >= len(pods) {
			return fmt.Errorf("pod: index %d, but %d pods match", st.Pod.Index, len(pods))
		}
		return cl.CoreV1().Pods(r.ns).Delete(ctx, pods[st.Pod.Index].Name, metav1.DeleteOptions{})
	}
	return fmt.Errorf("a step kind the harness does not play")
}

// replicaSetsOf returns the Deployment's ReplicaSets that rs names: "new"
// (the one whose template is the Deployment's, as in the simulator; none
// before the controller created it), "old" (the others), a name, or
// all of them ("").
func (r *realRun) replicaSetsOf(name, which string) []*appsv1.ReplicaSet {
	d, err := r.rec.dLister.Deployments(r.ns).Get(name)
	if err != nil {
		return nil
	}
	rss, _ := r.rec.rsLister.ReplicaSets(r.ns).List(labels.Everything())
	var out []*appsv1.ReplicaSet
	for _, rs := range rss {
		ref := metav1.GetControllerOf(rs)
		if ref == nil || ref.UID != d.UID {
			continue
		}
		isNew := hashing.EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template)
		switch which {
		case "", rs.Name:
		case "new":
			if !isNew {
				continue
			}
		case "old":
			if isNew {
				continue
			}
		default:
			continue
		}
		out = append(out, rs)
	}
	return out
}

// podsOf returns the pods of the Deployment's ReplicaSets that rs names
// (see replicaSetsOf) with all the labels of sel, not terminating, in name
// order.
func (r *realRun) podsOf(name, rs string, sel map[string]string) []*corev1.Pod {
	owners := map[string]bool{}
	for _, x := range r.replicaSetsOf(name, rs) {
		owners[string(x.UID)] = true
	}
	pods, _ := r.rec.podLister.Pods(r.ns).List(labels.SelectorFromSet(sel))
	var out []*corev1.Pod
	for _, p := range pods {
		if ref := metav1.GetControllerOf(p); ref != nil && owners[string(ref.UID)] && p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// waitFor waits until a step's when holds (polling the informer caches
// every 2ms) or its timeout passes.
func (r *realRun) waitFor(ctx context.Context, st *sim.Step) bool {
	w := st.When
	name := w.Deployment
	if name == "" {
		name = r.deploymentOf(st)
	}
	deadline := time.Duration(r.sc.Until)
	if deadline == 0 {
		deadline = 30 * time.Minute
	}
	if w.Timeout > 0 {
		deadline = time.Duration(st.At) + time.Duration(w.Timeout)
	}
	var target int32
	switch {
	case w.Replicas != nil:
		target = *w.Replicas
	case w.Ready != nil:
		target = *w.Ready
	case w.Available != nil:
		target = *w.Available
	case w.Updated != nil:
		target = *w.Updated
	}
	value := func() (int32, bool) {
		if w.Condition != "" {
			ty, status, _ := strings.Cut(w.Condition, "=")
			d, err := r.rec.dLister.Deployments(r.ns).Get(name)
			if err != nil {
				return 0, false
			}
			for _, c := range d.Status.Conditions {
				if string(c.Type) == ty && string(c.Status) == status {
					return 0, true
				}
			}
			return 0, false
		}
		var reps, ready, avail, updated int32
		if w.ReplicaSet != "" {
			for _, rs := range r.replicaSetsOf(name, w.ReplicaSet) {
				reps += rs.Status.Replicas
				ready += rs.Status.ReadyReplicas
				avail += rs.Status.AvailableReplicas
			}
		} else {
			d, err := r.rec.dLister.Deployments(r.ns).Get(name)
			if err != nil {
				return 0, false
			}
			reps, ready, avail, updated = d.Status.Replicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UpdatedReplicas
		}
		switch {
		case w.Replicas != nil:
			return reps, true
		case w.Ready != nil:
			return ready, true
		case w.Available != nil:
			return avail, true
		}
		return updated, true
	}
	first, _ := value()
	for r.now() < deadline && ctx.Err() == nil {
		v, ok := value()
		switch {
		case w.Condition != "" && ok:
			return true
		case w.Condition == "" && ok && (first <= target && v >= target || first > target && v <= target):
			return true
		}
		time.Sleep(2 * time.Millisecond)
	}
	return false
}

// recorder watches a namespace's Deployments, ReplicaSets and pods: it
// keeps every size each ReplicaSet was written with, the listers the
// steps read, and the time of the last change of any of them.
type recorder struct {
	dLister   appslisters.DeploymentLister
	rsLister  appslisters.ReplicaSetLister
	podLister corelisters.PodLister

	mu      sync.Mutex
	last    time.Time
	rs      map[string]*rsRecord
	owners  map[string]string // ReplicaSet name → Deployment name
	ordered []string
}

func (w *recorder) touch() {
	w.mu.Lock()
	w.last = time.Now()
	w.mu.Unlock()
}

func (w *recorder) lastChange() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}

func (w *recorder) observeRS(obj any) {
	rs, ok := obj.(*appsv1.ReplicaSet)
	if !ok {
		return
	}
	size := int32(1)
	if rs.Spec.Replicas != nil {
		size = *rs.Spec.Replicas
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.last = time.Now()
	r := w.rs[rs.Name]
	if r == nil {
		r = &rsRecord{Name: rs.Name}
		w.rs[rs.Name] = r
		w.ordered = append(w.ordered, rs.Name)
	}
	if ref := metav1.GetControllerOf(rs); ref != nil {
		w.owners[rs.Name] = ref.Name
	}
	r.Revision = rs.Annotations[revisionAnnotation]
	r.Stamped = hasRestartStamp(rs.Spec.Template.Annotations)
	if n := len(r.Sizes); n == 0 || r.Sizes[n-1] != size {
		r.Sizes = append(r.Sizes, size)
	}
}

// hasRestartStamp says whether a pod template carries a restart
// controller's stamp (a wall-clock time on the control plane, a virtual
// one in the simulator: the pod-template-hash differs).
func hasRestartStamp(annotations map[string]string) bool {
	_, a := annotations[restart.DefaultOptions().RestartedAtAnnotation]
	_, b := annotations[restart.XingKeys().RestartedAtAnnotation]
	return a || b
}

// records returns the ReplicaSets a Deployment owned, in order of first
// appearance.
func (w *recorder) records(deployment string) []rsRecord {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []rsRecord
	for _, n := range w.ordered {
		if w.owners[n] != deployment {
			continue
		}
		r := *w.rs[n]
		r.Sizes = slices.Clone(r.Sizes)
		out = append(out, r)
	}
	return out
}

// waitQuiet waits until no Deployment, ReplicaSet or pod changed for
// quiet (at most two minutes).
func (w *recorder) waitQuiet(ctx context.Context, t *testing.T, quiet time.Duration) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Since(w.lastChange()) < quiet {
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("the Deployments, ReplicaSets and pods did not settle for %v in 2m", quiet)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// startRecorder starts the informers; it returns once they have synced
// and stops when the test ends.
func startRecorder(t *testing.T, c *cluster, namespace string) *recorder {
	t.Helper()
	w := &recorder{rs: map[string]*rsRecord{}, owners: map[string]string{}, last: time.Now()}
	ctx, cancel := context.WithCancel(context.Background())
	factory := informers.NewSharedInformerFactoryWithOptions(c.client, 0, informers.WithNamespace(namespace))
	rsInf := factory.Apps().V1().ReplicaSets()
	dInf := factory.Apps().V1().Deployments()
	podInf := factory.Core().V1().Pods()
	w.rsLister, w.dLister, w.podLister = rsInf.Lister(), dInf.Lister(), podInf.Lister()
	_, err1 := rsInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    w.observeRS,
		UpdateFunc: func(_, obj any) { w.observeRS(obj) },
		DeleteFunc: func(any) { w.touch() },
	})
	_, err2 := dInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { w.touch() },
		UpdateFunc: func(_, _ any) { w.touch() },
		DeleteFunc: func(any) { w.touch() },
	})
	if err1 != nil || err2 != nil {
		cancel()
		t.Fatal(err1, err2)
	}
	_, err3 := podInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { w.touch() },
		UpdateFunc: func(_, _ any) { w.touch() },
		DeleteFunc: func(any) { w.touch() },
	})
	if err3 != nil {
		cancel()
		t.Fatal(err3)
	}
	factory.Start(ctx.Done())
	t.Cleanup(func() { cancel(); factory.Shutdown() })
	waitCtx, stop := context.WithTimeout(ctx, 30*time.Second)
	defer stop()
	for typ, ok := range factory.WaitForCacheSync(waitCtx.Done()) {
		if !ok {
			t.Fatalf("the %v informer did not sync in 30s", typ)
		}
	}
	return w
}
