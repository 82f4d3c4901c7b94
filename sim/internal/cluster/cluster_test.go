package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/sim/internal/workqueue"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// testEngine is the smallest engine: timers in a list fired in time
// order, every notification of a ReplicaSet answered by a sync at once.
type testEngine struct {
	t      *testing.T
	c      *Cluster
	now    time.Duration
	timers []timerAt
	queued []*ReplicaSet
	notes  []string
	writes int
	gone   int
}

type timerAt struct {
	at time.Duration
	t  Timer
}

func (e *testEngine) Now() time.Duration { return e.now }
func (e *testEngine) Schedule(at time.Duration, t Timer) {
	if at < e.now {
		e.t.Fatalf("timer %v at %s, before now %s", t.Kind, at, e.now)
	}
	e.timers = append(e.timers, timerAt{at, t})
}
func (e *testEngine) Note(format string, args ...any) {
	e.notes = append(e.notes, fmt.Sprintf(format, args...))
}
func (e *testEngine) Notify(it *QueueItem) {
	if rs := it.X.RS; rs != nil && !slices.Contains(e.queued, rs) {
		e.queued = append(e.queued, rs)
	}
}
func (e *testEngine) PodDeleted(*ReplicaSet) { e.gone++ }
func (e *testEngine) StatusWritten(rs *ReplicaSet) {
	e.writes++
	rs.Obj.ResourceVersion = fmt.Sprint(e.writes)
}

// settle syncs the queued ReplicaSets, then fires timers in time order,
// until nothing is left before until.
func (e *testEngine) settle(until time.Duration) {
	for {
		for len(e.queued) > 0 {
			rs := e.queued[0]
			e.queued = e.queued[1:]
			if err := e.c.SyncReplicaSet(rs); err != nil {
				e.t.Logf("sync %s: %v", rs.Key(), err)
			}
		}
		if len(e.timers) == 0 {
			break
		}
		i := 0
		for j, x := range e.timers {
			if x.at < e.timers[i].at {
				i = j
			}
		}
		next := e.timers[i]
		if next.at > until {
			break
		}
		e.timers = slices.Delete(e.timers, i, i+1)
		e.now = next.at
		e.c.Fire(next.t)
	}
	e.now = until
}

func newTestCluster(t *testing.T, nodes int) (*testEngine, *ReplicaSet) {
	e := &testEngine{t: t}
	st := NewStore()
	e.c = New(Config{Epoch: time.Unix(0, 0), Startup: Range{time.Second, 2 * time.Second},
		Readiness: Range{time.Second, time.Second}, Termination: Range{3 * time.Second, 3 * time.Second},
		EvictionTimeout: time.Minute, NodeMonitorGracePeriod: 40 * time.Second}, e, rand.New(rand.NewPCG(1, 2)), st)
	for i := range nodes {
		e.c.AddNode(fmt.Sprintf("node-%d", i+1), 100, true)
	}
	obj := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-1", UID: "u1", Generation: 1},
		Spec: appsv1.ReplicaSetSpec{Replicas: new(int32),
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}}}}
	q := workqueue.New[QueueKey, QueueData]()
	rs := NewReplicaSet("ns/web-1", obj, q.Item(QueueKey{Ctrl: ReplicaSetController, Name: "ns/web-1"}))
	st.ReplicaSets[rs.Key()] = rs
	st.Index("ns", rs)
	e.c.Refresh(rs, obj)
	return e, rs
}

func scaleTo(rs *ReplicaSet, n int32) {
	*rs.Obj.Spec.Replicas = n
}

// TestReplicaSetLifecycle runs the model with testEngine: a scale-up
// creates pods that start, become ready and are reported in the status;
// a scale-down deletes the surplus, which terminate and are gone.
func TestReplicaSetLifecycle(t *testing.T) {
	e, rs := newTestCluster(t, 3)
	scaleTo(rs, 5)
	e.queued = append(e.queued, rs)
	e.settle(time.Minute)
	if st := rs.Obj.Status; st.Replicas != 5 || st.ReadyReplicas != 5 || st.AvailableReplicas != 5 || e.c.Stats.PodsCreated != 5 {
		t.Fatalf("after scale-up: status %+v, %d pods created", st, e.c.Stats.PodsCreated)
	}
	perNode := map[string]int{}
	for _, p := range rs.Pods {
		perNode[p.NodeName()]++
		if p.Phase != corev1.PodRunning || !p.Ready || p.ReadyAt < 2*time.Second || p.ReadyAt > 3*time.Second {
			t.Errorf("pod %s: %s ready %v at %s (want running, ready between 2s and 3s)", p.Name, p.Phase, p.Ready, p.ReadyAt)
		}
	}
	if perNode["node-1"] != 2 || perNode["node-2"] != 2 || perNode["node-3"] != 1 {
		t.Errorf("round-robin binding: %v", perNode)
	}
	// the co-location counts the ranking reads follow the pods
	for _, n := range e.c.Nodes {
		if got := rs.colo[n.slot]; got != int32(perNode[n.Name]) {
			t.Errorf("co-location count of %s: %d, want %d", n.Name, got, perNode[n.Name])
		}
	}
	scaleTo(rs, 2)
	e.queued = append(e.queued, rs)
	e.settle(time.Minute + time.Second)
	if st := rs.Obj.Status; st.Replicas != 2 || *st.TerminatingReplicas != 3 || len(rs.Pods) != 5 {
		t.Fatalf("while terminating: status %+v, %d pods", st, len(rs.Pods))
	}
	e.settle(2 * time.Minute)
	if st := rs.Obj.Status; st.Replicas != 2 || *st.TerminatingReplicas != 0 || len(rs.Pods) != 2 || e.gone != 3 {
		t.Fatalf("after scale-down: status %+v, %d pods, %d gone", st, len(rs.Pods), e.gone)
	}
	// the co-location rank: the node with two pods loses one first
	perNode = map[string]int{}
	for _, p := range rs.Pods {
		perNode[p.NodeName()]++
	}
	if len(perNode) != 2 {
		t.Errorf("pods left on %v: want one on each of two nodes", perNode)
	}
}

// TestNodeFailure: a failed node's pods lose readiness at once and are
// evicted after the eviction timeout, and replaced on the other node.
func TestNodeFailure(t *testing.T) {
	e, rs := newTestCluster(t, 2)
	scaleTo(rs, 4)
	e.queued = append(e.queued, rs)
	e.settle(time.Minute)
	n := e.c.Node("node-1")
	e.c.FailNode(n)
	e.settle(time.Minute)
	if st := rs.Obj.Status; st.ReadyReplicas != 2 || st.Replicas != 4 {
		t.Fatalf("after the failure: %+v", st)
	}
	e.settle(3 * time.Minute)
	if st := rs.Obj.Status; st.ReadyReplicas != 4 || st.Replicas != 4 || len(e.notes) != 1 {
		t.Fatalf("after eviction: %+v, notes %q", st, e.notes)
	}
	for _, p := range rs.Pods {
		if p.Node == n {
			t.Errorf("pod %s still on the failed node", p.Name)
		}
	}
}

// TestQuota: quota admission refuses the creations beyond the namespace's
// limit, and the sync returns the refusal.
func TestQuota(t *testing.T) {
	e, rs := newTestCluster(t, 1)
	e.c.AddQuota("ns", "pods-quota", "pods", 3)
	scaleTo(rs, 5)
	err := e.c.SyncReplicaSet(rs)
	if err == nil || len(rs.Pods) != 3 || rs.Obj.Status.Replicas != 3 || ReplicaFailure(rs.Obj.Status.Conditions) == nil {
		t.Fatalf("sync over the quota: %v, %d pods, status %+v", err, len(rs.Pods), rs.Obj.Status)
	}
	got := err.Error()
	for _, want := range []string{`pods "web-1-`, "exceeded quota: pods-quota", "used: pods=3", "limited: pods=3"} {
		if !strings.Contains(got, want) {
			t.Errorf("refusal %q does not say %q", got, want)
		}
	}
}

// TestWaitingPods: pods that find no room wait in creation order; a pod
// deleted while it waits is skipped; each slot freed binds the oldest
// waiting pod, over more rounds than it takes to compact the queue.
func TestWaitingPods(t *testing.T) {
	e, rs := newTestCluster(t, 1) // one node of 100 pods
	scaleTo(rs, 3000)
	for range 6 { // 500 pods a sync
		if err := e.c.SyncReplicaSet(rs); err != nil {
			t.Fatal(err)
		}
	}
	var waiting []*Pod // in creation order
	pods := slices.Clone(rs.Pods)
	slices.SortFunc(pods, func(a, b *Pod) int { return int(a.uidNum) - int(b.uidNum) })
	for i, p := range pods {
		if (p.Node == nil) != (i >= 100) {
			t.Fatalf("pod %d of %d: node %q", i, len(pods), p.NodeName())
		}
		if p.Node != nil {
			continue
		}
		if i%3 == 0 {
			e.c.DeletePod(p) // unscheduled: gone at once
			continue
		}
		waiting = append(waiting, p)
	}
	for round := 0; len(waiting) > 0; round++ {
		var bound []*Pod
		for _, p := range rs.Pods {
			if p.Node != nil && !p.Terminating {
				bound = append(bound, p)
			}
		}
		for _, p := range bound {
			e.c.DeletePod(p) // terminates in 3 s, then frees its slot
		}
		e.queued = nil // no ReplicaSet sync: no replacements
		for len(e.timers) > 0 {
			i := 0
			for j, x := range e.timers {
				if x.at < e.timers[i].at {
					i = j
				}
			}
			next := e.timers[i]
			e.timers = slices.Delete(e.timers, i, i+1)
			e.now = next.at
			e.c.Fire(next.t)
		}
		e.queued = nil
		k := min(100, len(waiting))
		for j, p := range waiting {
			if (p.Node != nil) != (j < k) {
				t.Fatalf("round %d: waiting pod %d of %d bound %v, want the first %d bound", round, j, len(waiting), p.Node != nil, k)
			}
		}
		waiting = waiting[k:]
	}
	if e.c.waitHead != 0 || len(e.c.unscheduled) != 0 {
		t.Errorf("queue left with head %d of %d", e.c.waitHead, len(e.c.unscheduled))
	}
}
