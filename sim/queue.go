package sim

import (
	"time"

	"github.com/deploymath/deploymath/sim/internal/eventq"
	"github.com/deploymath/deploymath/sim/internal/workqueue"
	appsv1 "k8s.io/api/apps/v1"
)

// eventKind says what a queued event does when its time comes.
type eventKind uint8

const (
	evStep         eventKind = iota // run scenario step
	evProcess                       // a work-queue key is ready: run its controller
	evTimer                         // a delayed work-queue add fires
	evPodScheduled                  // (re)try to schedule pending pods
	evPodRunning                    // containers started
	evPodReady                      // readiness probe passed
	evPodAvailable                  // ready for minReadySeconds
	evPodCrash                      // crash-looping container restarts
	evPodGone                       // graceful termination finished
	evNodeEvict                     // eviction grace period of a failed node over
	evNodeMonitor                   // node-monitor grace period of an unreachable node over
	evNodeGC                        // PodGC's quarantine of a deleted node over
	evStepTimeout                   // a step's when: timed out
	evRestartTick                   // the restart controller's periodic check
	evUntil                         // end of the run
	evInform                        // a write reaches the Deployment controller's cache (cluster.informerDelay)
)

// event is one entry of the event queue. Only the fields of its kind are set.
type event struct {
	at   time.Duration
	kind eventKind
	item *wqItem // evProcess, evTimer
	pod  *podState
	gen  uint32
	idx  int
	node *nodeState
}

// eventQueue is the run's event queue (package eventq: (time, insertion)
// order), with the event's own time as its key.
type eventQueue struct {
	q    eventq.Queue[event]
	sink uint32 // what touchInstant reads
}

// touchInstant is the queue's OnInstant hook: it reads the pods of the
// instant's pod timers, then their ranking words, in loops of independent
// loads, so that the cache misses of the instant's pods (long out of
// cache: most of a pod timer's cost) overlap instead of coming one after
// another.
func (q *eventQueue) touchInstant() {
	var x uint32
	n := q.q.Batch()
	for i := range n {
		if p := q.q.BatchEvent(i).pod; p != nil {
			x += p.gen
		}
	}
	for i := range n {
		if p := q.q.BatchEvent(i).pod; p != nil && p.rs != nil && p.idx < len(p.rs.hot) {
			x += uint32(p.rs.hot[p.idx])
		}
	}
	q.sink += x
}

func (q *eventQueue) push(e event) { q.q.Push(e.at, e) }

// pop removes and returns the earliest event. The queue must not be empty.
func (q *eventQueue) pop() event {
	_, e := q.q.Pop()
	return e
}

func (q *eventQueue) len() int { return q.q.Len() }

// peekTime is the time of the earliest event; ok is false when empty.
func (q *eventQueue) peekTime() (time.Duration, bool) { return q.q.PeekTime() }

// controllerKind names the controller a work-queue key belongs to.
type controllerKind uint8

const (
	ctrlDeployment controllerKind = iota
	ctrlReplicaSet
)

// queueKey is a work-queue key: which controller and which object
// ("namespace/name").
type queueKey struct {
	ctrl controllerKind
	name string
}

// workQueue is the controllers' work queue (package workqueue: client-go's
// rate-limited delaying queue), its items keyed by controller and object.
type workQueue = workqueue.Queue[queueKey, keyData]

// wqItem is the work-queue state of one key.
type wqItem = workqueue.Item[queueKey, keyData]

// keyData is what the simulator keeps with a work-queue key.
type keyData struct {
	// rsState is, for a ReplicaSet key, the state of the ReplicaSet stored
	// under it (nil while there is none).
	rsState *rsState
	// condsOwner is, for a Deployment key, the stored Deployment whose
	// conditions array the simulator allocated (see storeConditions).
	condsOwner *appsv1.Deployment
}

func newWorkQueue() workQueue { return workqueue.New[queueKey, keyData]() }

// maxRetries is the number of failed syncs after which the Deployment
// controller drops a key.
const maxRetries = 15
