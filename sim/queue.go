package sim

import (
	"time"
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
	evRestartTick                   // the restart controller's periodic check
	evUntil                         // end of the run
)

// event is one entry of the event queue. Only the fields of its kind are set.
type event struct {
	at   time.Duration
	seq  uint64
	kind eventKind
	key  queueKey
	pod  *Pod
	gen  uint32
	idx  int
	node *Node
}

// eventQueue is a binary min-heap ordered by (at, seq): a total order, so the
// processing order never depends on anything but the insertion sequence.
type eventQueue struct {
	items []event
	seq   uint64
}

func (q *eventQueue) less(i, j int) bool {
	a, b := &q.items[i], &q.items[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// push adds e, stamping it with the next sequence number.
func (q *eventQueue) push(e event) {
	q.seq++
	e.seq = q.seq
	q.items = append(q.items, e)
	i := len(q.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q.items[i], q.items[p] = q.items[p], q.items[i]
		i = p
	}
}

// pop removes and returns the earliest event. The queue must not be empty.
func (q *eventQueue) pop() event {
	top := q.items[0]
	n := len(q.items) - 1
	q.items[0] = q.items[n]
	q.items[n] = event{}
	q.items = q.items[:n]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && q.less(l, m) {
			m = l
		}
		if r < n && q.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		q.items[i], q.items[m] = q.items[m], q.items[i]
		i = m
	}
	return top
}

func (q *eventQueue) len() int { return len(q.items) }

// peekTime is the time of the earliest event; ok is false when empty.
func (q *eventQueue) peekTime() (time.Duration, bool) {
	if len(q.items) == 0 {
		return 0, false
	}
	return q.items[0].at, true
}

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

// workQueue models client-go's rate-limited delaying work queue on the
// virtual clock: a key already queued and not yet processed is not queued
// twice; a delayed add keeps only the earliest pending time per key; the rate
// limiter is the per-item exponential back-off of
// workqueue.DefaultControllerRateLimiter (5ms·2^failures, capped at 1000s;
// the token bucket part is not modelled).
type workQueue struct {
	dirty    map[queueKey]bool
	waiting  map[queueKey]time.Duration
	failures map[queueKey]int
}

func newWorkQueue() workQueue {
	return workQueue{dirty: map[queueKey]bool{}, waiting: map[queueKey]time.Duration{}, failures: map[queueKey]int{}}
}

const (
	rateLimitBase = 5 * time.Millisecond
	rateLimitMax  = 1000 * time.Second
	maxRetries    = 15 // the Deployment controller drops a key after this many failed syncs
)

// backoff returns the next rate-limited delay for key and counts a failure.
func (w *workQueue) backoff(k queueKey) time.Duration {
	n := w.failures[k]
	w.failures[k] = n + 1
	if n >= 38 { // 5ms·2^38 is far beyond the cap; avoid overflow
		return rateLimitMax
	}
	d := rateLimitBase << uint(n)
	if d > rateLimitMax || d <= 0 {
		d = rateLimitMax
	}
	return d
}
