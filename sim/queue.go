package sim

import (
	"time"

	"github.com/deploymath/deploymath/sim/internal/cluster"
	"github.com/deploymath/deploymath/sim/internal/eventq"
	"github.com/deploymath/deploymath/sim/internal/workqueue"
)

// eventKind says what a queued event does when its time comes.
type eventKind uint8

const (
	evStep        eventKind = iota // run scenario step
	evProcess                      // a work-queue key is ready: run its controller
	evTimer                        // a delayed work-queue add fires
	evCluster                      // a timer of the cluster model (a pod's or a node's next step)
	evStepTimeout                  // a step's when: timed out
	evRestartTick                  // the restart controller's periodic check
	evUntil                        // end of the run
	evInform                       // a write reaches the Deployment controller's cache (cluster.informerDelay)
	evHostInform                   // a change reaches the hosted controllers' view (cluster.informerDelay)
	evHostTick                     // a hosted controller's tick (Ticker)
)

// event is one entry of the event queue (its time is the queue's). Only
// the fields of its kind are set; a cluster timer is kept as its parts,
// so that an event is 32 bytes.
type event struct {
	item *wqItem       // evProcess, evTimer
	pod  *cluster.Pod  // evCluster: the timer's pod or node
	node *cluster.Node //
	n    uint32        // evCluster: the timer's generation; evStep, evStepTimeout: the step's index
	kind eventKind
	tk   cluster.TimerKind // evCluster
}

// clusterEvent is the event of a cluster timer.
func clusterEvent(t cluster.Timer) event {
	return event{kind: evCluster, pod: t.Pod, node: t.Node, n: t.Gen, tk: t.Kind}
}

// timer is the cluster timer of an evCluster event.
func (e *event) timer() cluster.Timer {
	return cluster.Timer{Kind: e.tk, Gen: e.n, Pod: e.pod, Node: e.node}
}

// eventQueue is the run's event queue (package eventq: (time, insertion)
// order), keyed by the time each event is pushed for.
type eventQueue struct {
	q    eventq.Queue[event]
	sink uint64 // what touchInstant reads
}

// touchInstant is the queue's OnInstant hook: it reads the pods of the
// instant's cluster timers, then their ranking words, in loops of
// independent loads, so that the cache misses of the instant's pods (long
// out of cache: most of a pod timer's cost) overlap instead of coming one
// after another.
func (q *eventQueue) touchInstant() {
	var x uint64
	n := q.q.Batch()
	for i := range n {
		t := q.q.BatchEvent(i).timer()
		x += uint64(t.PodGen())
	}
	for i := range n {
		t := q.q.BatchEvent(i).timer()
		x += t.RankWord()
	}
	q.sink += x
}

func (q *eventQueue) push(at time.Duration, e event) { q.q.Push(at, e) }

// pop removes and returns the earliest event. The queue must not be empty.
func (q *eventQueue) pop() (time.Duration, event) { return q.q.Pop() }

func (q *eventQueue) len() int { return q.q.Len() }

// The work-queue keys and the data kept with them (package cluster:
// each ReplicaSet record points to its item).
type (
	queueKey = cluster.QueueKey
	wqItem   = cluster.QueueItem
)

const (
	ctrlDeployment = cluster.DeploymentController
	ctrlReplicaSet = cluster.ReplicaSetController
)

// workQueue is the controllers' work queue (package workqueue: client-go's
// rate-limited delaying queue), its items keyed by controller and object.
type workQueue = workqueue.Queue[queueKey, cluster.QueueData]

func newWorkQueue() workQueue { return workqueue.New[queueKey, cluster.QueueData]() }

// maxRetries is the number of failed syncs after which the Deployment
// controller drops a key.
const maxRetries = 15
