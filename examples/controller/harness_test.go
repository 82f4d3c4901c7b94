package main

import (
	"container/heap"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/yaml"

	"github.com/deploymath/deploymath/revision"
	"github.com/deploymath/deploymath/sim"
)

// harness drives the example controller and the fake cluster on a virtual
// clock, one thing at a time, with no goroutines and no sleeps. It plays
// the parts the demo leaves to client-go's machinery:
//
//   - informers: every write to the fake API server updates the informer
//     caches (indexers) and calls the controllers' event handlers at once,
//     inside the write (zero watch latency);
//   - the work queue: keys are deduplicated while waiting, processed in
//     (time, sequence) order, AddAfter keeps the earliest time, and the rate
//     limiter is the default controller rate limiter's exponential part
//     (5ms·2^failures, reset by Forget);
//   - the scheduler of the fake cluster's pod timers.
//
// The Deployment controller's sync is Controller.sync, the function the
// demo's workers call; the requeue logic mirrors Controller.handleResult.
type harness struct {
	t   testing.TB
	ctx context.Context
	clk *clocktesting.FakeClock

	cs  *fake.Clientset
	api *fakeAPIServer
	c   *Controller
	cl  *cluster
	rec *record.FakeRecorder

	dIdx, rsIdx, podIdx cache.Indexer

	q        eventHeap
	seq      int
	dirty    map[string]bool // queued, not yet processed (work queue keys, "d:" or "rs:" prefixed)
	waiting  map[string]time.Time
	failures map[string]int

	// scales are the ReplicaSet size changes the API server saw, in order.
	scales []string
	// events are the events the controller recorded, in order.
	events []string

	stopWhenConverged bool
	stepsLeft         int
	syncs             int
}

type hEvent struct {
	at  time.Time
	seq int
	fn  func()
}

type eventHeap []hEvent

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(hEvent)) }
func (h *eventHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

func newHarness(t testing.TB, start time.Time, timing podTiming) *harness {
	h := &harness{
		t: t, ctx: context.Background(), clk: clocktesting.NewFakeClock(start),
		dirty: map[string]bool{}, waiting: map[string]time.Time{}, failures: map[string]int{},
	}
	h.cs, h.api = newFakeClientset(h.clk)
	// The informers are never started: the harness fills their caches.
	factory := informers.NewSharedInformerFactory(h.cs, 0)
	dInf, rsInf, podInf := factory.Apps().V1().Deployments(), factory.Apps().V1().ReplicaSets(), factory.Core().V1().Pods()
	h.rec = record.NewFakeRecorder(10000)
	c, err := NewController(h.cs, dInf, rsInf, podInf, h.rec, h.clk)
	if err != nil {
		t.Fatal(err)
	}
	c.enqueue = func(key string) { h.add("d:"+key, 0) }
	h.c = c
	h.dIdx, h.rsIdx, h.podIdx = dInf.Informer().GetIndexer(), rsInf.Informer().GetIndexer(), podInf.Informer().GetIndexer()
	h.cl = newCluster(h.cs, h, timing)
	h.cl.failures = map[string]string{}
	h.cl.notify = func(key string) { h.add("rs:"+key, 0) }
	h.api.OnChange = h.informers
	return h
}

// Now and After make the harness the cluster's scheduler.
func (h *harness) Now() time.Time { return h.clk.Now() }

func (h *harness) After(d time.Duration, fn func()) { h.push(h.clk.Now().Add(d), fn) }

func (h *harness) push(at time.Time, fn func()) {
	h.seq++
	heap.Push(&h.q, hEvent{at: at, seq: h.seq, fn: fn})
}

// add is the work queue's Add (d == 0) and AddAfter.
func (h *harness) add(key string, d time.Duration) {
	if d <= 0 {
		if h.dirty[key] {
			return
		}
		h.dirty[key] = true
		h.push(h.clk.Now(), func() { h.process(key) })
		return
	}
	at := h.clk.Now().Add(d)
	if cur, ok := h.waiting[key]; ok && !at.Before(cur) {
		return
	}
	h.waiting[key] = at
	h.push(at, func() {
		if cur, ok := h.waiting[key]; !ok || !cur.Equal(at) {
			return // superseded by an earlier AddAfter
		}
		delete(h.waiting, key)
		h.add(key, 0)
	})
}

// backoff is the default controller rate limiter's per-item exponential
// back-off: 5ms·2^failures, at most 1000s.
func (h *harness) backoff(key string) time.Duration {
	n := h.failures[key]
	h.failures[key] = n + 1
	d := 5 * time.Millisecond
	for range n {
		d *= 2
		if d >= 1000*time.Second {
			return 1000 * time.Second
		}
	}
	return d
}

func (h *harness) process(key string) {
	if !h.dirty[key] {
		return
	}
	delete(h.dirty, key)
	kind, name, _ := strings.Cut(key, ":")
	if kind == "rs" {
		if err := h.cl.SyncReplicaSet(h.ctx, name); err != nil {
			h.t.Fatalf("replica set sync %s: %v", name, err)
		}
		return
	}
	h.syncs++
	if h.syncs > 10000 {
		h.t.Fatalf("deployment %s keeps syncing", name)
	}
	res, err := h.c.sync(h.ctx, name)
	h.drainEvents()
	switch {
	case err != nil:
		// Controller.handleResult: AddRateLimited (retries are not capped
		// here: the scenarios never fail that often).
		h.add(key, h.backoff(key))
	case res != nil:
		if res.Requeue.RateLimited {
			h.add(key, h.backoff(key))
		}
		if res.Requeue.After > 0 {
			h.add(key, res.Requeue.After)
		}
		delete(h.failures, key) // Forget
	default:
		delete(h.failures, key)
	}
}

func (h *harness) drainEvents() {
	for {
		select {
		case e := <-h.rec.Events:
			h.events = append(h.events, e)
		default:
			return
		}
	}
}

// informers is the fake API server's OnChange hook: what the shared
// informers do with a watch event, synchronously. It also records
// ReplicaSet size changes.
func (h *harness) informers(old, cur runtime.Object) {
	must := func(err error) {
		if err != nil {
			h.t.Fatal(err)
		}
	}
	obj := cur
	if obj == nil {
		obj = old
	}
	switch obj.(type) {
	case *appsv1.Deployment:
		switch {
		case old == nil:
			must(h.dIdx.Add(cur))
			h.c.addDeployment(cur)
		case cur == nil:
			must(h.dIdx.Delete(old))
			h.c.deleteDeployment(old)
		default:
			must(h.dIdx.Update(cur))
			h.c.updateDeployment(old, cur)
		}
	case *appsv1.ReplicaSet:
		var from, to int32
		switch {
		case old == nil:
			must(h.rsIdx.Add(cur))
			h.c.addReplicaSet(cur)
			to = ptrOr(cur.(*appsv1.ReplicaSet).Spec.Replicas, 1)
		case cur == nil:
			must(h.rsIdx.Delete(old))
			h.c.deleteReplicaSet(old)
			from = ptrOr(old.(*appsv1.ReplicaSet).Spec.Replicas, 1)
			to = from
		default:
			must(h.rsIdx.Update(cur))
			h.c.updateReplicaSet(old, cur)
			from, to = ptrOr(old.(*appsv1.ReplicaSet).Spec.Replicas, 1), ptrOr(cur.(*appsv1.ReplicaSet).Spec.Replicas, 1)
		}
		rs := obj.(*appsv1.ReplicaSet)
		if from != to {
			h.scales = append(h.scales, fmt.Sprintf("%s %d->%d", rs.Name, from, to))
		}
		h.cl.notify(rs.Namespace + "/" + rs.Name)
	case *corev1.Pod:
		switch {
		case old == nil:
			must(h.podIdx.Add(cur))
		case cur == nil:
			must(h.podIdx.Delete(old))
			h.c.deletePod(old)
		default:
			must(h.podIdx.Update(cur))
		}
	}
}

// run processes events until the queue is empty, until, or convergence
// after a stopWhenConverged step.
func (h *harness) run(until time.Time) {
	for h.q.Len() > 0 {
		at := h.q[0].at
		if at.After(until) {
			break
		}
		if !at.Equal(h.clk.Now()) {
			if h.stopWhenConverged && h.stepsLeft == 0 && h.converged() {
				return
			}
			h.clk.SetTime(at)
		}
		e := heap.Pop(&h.q).(hEvent)
		e.fn()
	}
}

// converged is the simulator's convergence: nothing queued, every
// Deployment complete and no pod terminating.
func (h *harness) converged() bool {
	if len(h.dirty) > 0 {
		return false
	}
	for _, obj := range h.dIdx.List() {
		d := obj.(*appsv1.Deployment)
		want, st := ptrOr(d.Spec.Replicas, 1), d.Status
		if st.UpdatedReplicas != want || st.Replicas != want || st.AvailableReplicas != want || st.ObservedGeneration < d.Generation {
			return false
		}
	}
	for _, p := range h.cl.pods {
		if p.deleted {
			return false
		}
	}
	return true
}

// ---- scenarios ----

// loadScenario reads a bundled scenario and reports whether this harness
// supports it: Deployments only, steps among set image, scale, pause,
// resume, undo and stop-when-converged, failures by image only and for every
// matching pod, no pod quota, no controller latency.
func loadScenario(t *testing.T, name string) (*sim.Scenario, bool) {
	sc, err := sim.LoadScenario(filepath.Join("..", "..", "testdata", "scenarios", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Cluster.PodQuota > 0 || sc.Cluster.ControllerLatency != 0 {
		return sc, false
	}
	for _, f := range sc.Cluster.Failures {
		if f.Image == "" || len(f.Labels) > 0 || (f.Probability != nil && *f.Probability < 1) {
			return sc, false
		}
	}
	for _, st := range sc.Steps {
		if len(st.Apply) > 0 || st.EditConfigMap != nil || st.EditSecret != nil || st.KillPods != nil ||
			st.FailNode != "" || st.RecoverNode != "" ||
			st.Pod != nil || st.When != nil || st.UnreachableNode != "" || st.DeleteNode != "" {
			return sc, false
		}
	}
	for _, raw := range sc.Objects {
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(raw, &tm); err != nil || tm.Kind != "Deployment" {
			return sc, false
		}
	}
	return sc, true
}

// play runs a scenario's objects and steps through the harness.
func (h *harness) play(sc *sim.Scenario) {
	start := h.clk.Now()
	for _, f := range sc.Cluster.Failures {
		h.cl.failures[f.Image] = f.Mode
	}
	for _, raw := range sc.Objects {
		d := &appsv1.Deployment{}
		if err := yaml.Unmarshal(raw, d); err != nil {
			h.t.Fatal(err)
		}
		if d.Namespace == "" {
			d.Namespace = metav1.NamespaceDefault
		}
		if _, err := h.cs.AppsV1().Deployments(d.Namespace).Create(h.ctx, d, metav1.CreateOptions{}); err != nil {
			h.t.Fatal(err)
		}
	}
	h.stepsLeft = len(sc.Steps)
	for i := range sc.Steps {
		st := sc.Steps[i]
		h.push(start.Add(time.Duration(st.At)), func() {
			h.stepsLeft--
			h.step(sc, st)
		})
	}
	until := time.Duration(sc.Until)
	if until == 0 {
		until = 30 * time.Minute
	}
	h.run(start.Add(until))
}

// step is the user's kubectl command: read, change, update.
func (h *harness) step(sc *sim.Scenario, st sim.Step) {
	if st.StopWhenConverged {
		h.stopWhenConverged = true
		return
	}
	name := st.Deployment
	if name == "" {
		d := &appsv1.Deployment{}
		if err := yaml.Unmarshal(sc.Objects[0], d); err != nil {
			h.t.Fatal(err)
		}
		name = d.Name
	}
	deployments := h.cs.AppsV1().Deployments(metav1.NamespaceDefault)
	d, err := deployments.Get(h.ctx, name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	switch {
	case st.SetImage != nil:
		for i := range d.Spec.Template.Spec.Containers {
			if c := &d.Spec.Template.Spec.Containers[i]; c.Name == st.SetImage.Container {
				c.Image = st.SetImage.Image
			}
		}
	case st.Scale != nil:
		d.Spec.Replicas = st.Scale
	case st.Pause:
		d.Spec.Paused = true
	case st.Resume:
		d.Spec.Paused = false
	case st.Undo != nil:
		var rss []*appsv1.ReplicaSet
		for _, obj := range h.rsIdx.List() {
			rss = append(rss, obj.(*appsv1.ReplicaSet))
		}
		rb, err := revision.RollbackTarget(d, rss, st.Undo.ToRevision)
		if err != nil {
			h.t.Logf("rollout undo: %v", err)
			return
		}
		d = rb.Apply(d)
	}
	if _, err := deployments.Update(h.ctx, d, metav1.UpdateOptions{}); err != nil {
		h.t.Fatal(err)
	}
}

// final is the state compared at the end: a Deployment's status and
// conditions without times, and its ReplicaSets' sizes.
type final struct {
	Name               string
	Generation         int64
	ObservedGeneration int64
	Revision           string
	Replicas           int32
	Updated            int32
	Ready              int32
	Available          int32
	Unavailable        int32
	Terminating        *int32
	Conditions         []string
	ReplicaSets        []string
}

func (h *harness) finals() []final {
	var out []final
	for _, obj := range h.dIdx.List() {
		d := obj.(*appsv1.Deployment)
		f := final{
			Name: d.Name, Generation: d.Generation, ObservedGeneration: d.Status.ObservedGeneration,
			Revision: d.Annotations["deployment.kubernetes.io/revision"], Replicas: d.Status.Replicas,
			Updated: d.Status.UpdatedReplicas, Ready: d.Status.ReadyReplicas, Available: d.Status.AvailableReplicas,
			Unavailable: d.Status.UnavailableReplicas, Terminating: d.Status.TerminatingReplicas,
		}
		for _, c := range d.Status.Conditions {
			f.Conditions = append(f.Conditions, fmt.Sprintf("%s=%s %s: %s", c.Type, c.Status, c.Reason, c.Message))
		}
		for _, obj := range h.rsIdx.List() {
			rs := obj.(*appsv1.ReplicaSet)
			if ref := metav1.GetControllerOf(rs); ref == nil || ref.UID != d.UID {
				continue
			}
			f.ReplicaSets = append(f.ReplicaSets, fmt.Sprintf("%s rev %s desired %d current %d ready %d available %d terminating %d",
				rs.Name, rs.Annotations["deployment.kubernetes.io/revision"], ptrOr(rs.Spec.Replicas, 1), rs.Status.Replicas,
				rs.Status.ReadyReplicas, rs.Status.AvailableReplicas, ptrOr(rs.Status.TerminatingReplicas, 0)))
		}
		slices.Sort(f.ReplicaSets)
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b final) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func simFinals(r *sim.Result) []final {
	var out []final
	for _, d := range r.Trace.Final() {
		f := final{
			Name: d.Name, Generation: d.Generation, ObservedGeneration: d.ObservedGeneration, Revision: d.Revision,
			Replicas: d.Replicas, Updated: d.Updated, Ready: d.Ready, Available: d.Available, Unavailable: d.Unavailable,
			Terminating: d.Terminating,
		}
		for _, c := range d.Conditions {
			f.Conditions = append(f.Conditions, fmt.Sprintf("%s=%s %s: %s", c.Type, c.Status, c.Reason, c.Message))
		}
		for _, rs := range d.ReplicaSets {
			f.ReplicaSets = append(f.ReplicaSets, fmt.Sprintf("%s rev %s desired %d current %d ready %d available %d terminating %d",
				rs.Name, rs.Revision, rs.Desired, rs.Current, rs.Ready, rs.Available, rs.Terminating))
		}
		slices.Sort(f.ReplicaSets)
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b final) int { return strings.Compare(a.Name, b.Name) })
	return out
}
