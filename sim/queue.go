package sim

import (
	"time"

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
	seq  uint64
	kind eventKind
	item *wqItem // evProcess, evTimer
	pod  *podState
	gen  uint32
	idx  int
	node *nodeState
}

// eventQueue holds the pending events in (at, seq) order: a total order,
// so the processing order never depends on anything but the insertion
// sequence.
//
// The events themselves sit in a slab (reused through a free list); the
// ordering structures hold only pointer-free entries (time, sequence, slab
// slot), so reordering them costs no write barriers and the garbage
// collector never scans them. Events for the instant being processed (the
// informer-style work-queue adds, which are most events) go to a FIFO,
// since each is later than every queued event of that instant; the rest go
// to a 4-ary min-heap. pop takes the smaller of the two heads.
type eventQueue struct {
	slab []event
	free []int32
	heap []qent
	fifo []qent // entries of one instant, in sequence order, from fifo[head]
	head int
	seq  uint64
	cur  time.Duration // time of the last popped event
	// batch holds, from batch[bhead], the heap's entries of the instant
	// being processed, taken out together (see pop).
	batch []qent
	bhead int
	sink  uint32 // what the batch's touch reads (see touchBatch)
}

// qent is the ordering entry of a queued event.
type qent struct {
	at   time.Duration
	seq  uint64
	slot int32
}

func (a *qent) less(b *qent) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// push adds e, stamping it with the next sequence number.
func (q *eventQueue) push(e event) {
	q.seq++
	e.seq = q.seq
	var slot int32
	if n := len(q.free); n > 0 {
		slot = q.free[n-1]
		q.free = q.free[:n-1]
		q.slab[slot] = e
	} else {
		slot = int32(len(q.slab))
		q.slab = append(q.slab, e)
	}
	en := qent{at: e.at, seq: e.seq, slot: slot}
	if e.at == q.cur && (q.head == len(q.fifo) || q.fifo[q.head].at == e.at) {
		q.fifo = append(q.fifo, en)
		return
	}
	h := append(q.heap, en)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !en.less(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = en
	q.heap = h
}

// pop removes and returns the earliest event. The queue must not be empty.
//
// The first event of an instant always comes from the heap (the FIFO takes
// only events pushed during the instant), and every heap entry of that
// instant comes before every FIFO entry of it (pushed earlier: a smaller
// sequence number). So the first pop of an instant takes all the heap's
// entries of the instant out at once, in order, into batch, which the next
// pops drain first, and touches the pods they are for (see touchBatch).
func (q *eventQueue) pop() event {
	var top qent
	switch {
	case q.bhead < len(q.batch):
		top = q.batch[q.bhead]
		q.bhead++
	case q.head < len(q.fifo) && (len(q.heap) == 0 || q.fifo[q.head].less(&q.heap[0])):
		top = q.fifo[q.head]
		q.head++
		if q.head == len(q.fifo) {
			q.fifo, q.head = q.fifo[:0], 0
		}
	default:
		top = q.popHeap()
		if len(q.heap) > 0 && q.heap[0].at == top.at {
			q.batch, q.bhead = q.batch[:0], 0
			for len(q.heap) > 0 && q.heap[0].at == top.at {
				q.batch = append(q.batch, q.popHeap())
			}
			q.touchBatch()
		}
	}
	q.cur = top.at
	e := q.slab[top.slot]
	q.slab[top.slot] = event{}
	q.free = append(q.free, top.slot)
	return e
}

// touchBatch reads the pods of the batch's pod timers, then the ranking
// data of their ReplicaSets, in loops of independent loads: the memory
// fetches of the instant's pods (long out of cache, most of the cost of a
// pod timer) overlap instead of coming one after the other.
func (q *eventQueue) touchBatch() {
	var x uint32
	for _, en := range q.batch {
		if p := q.slab[en.slot].pod; p != nil {
			x += p.gen
		}
	}
	for _, en := range q.batch {
		if p := q.slab[en.slot].pod; p != nil && p.rs != nil && p.idx < len(p.rs.hot) {
			x += uint32(p.rs.hot[p.idx])
		}
	}
	q.sink += x
}

// popHeap removes the root of the heap.
func (q *eventQueue) popHeap() qent {
	h := q.heap
	top := h[0]
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	q.heap = h
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < c+4 && j < n; j++ {
			if h[j].less(&h[m]) {
				m = j
			}
		}
		if !h[m].less(&last) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = last
	return top
}

func (q *eventQueue) len() int { return len(q.heap) + len(q.fifo) - q.head + len(q.batch) - q.bhead }

// peekTime is the time of the earliest event; ok is false when empty.
func (q *eventQueue) peekTime() (time.Duration, bool) {
	switch {
	case q.bhead < len(q.batch):
		return q.batch[q.bhead].at, true
	case q.head < len(q.fifo) && (len(q.heap) == 0 || q.fifo[q.head].less(&q.heap[0])):
		return q.fifo[q.head].at, true
	case len(q.heap) > 0:
		return q.heap[0].at, true
	}
	return 0, false
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
// the token bucket part is not modelled). The state of a key lives in one
// wqItem, found by one map lookup; queued events point at it.
type workQueue struct {
	items  map[queueKey]*wqItem
	ndirty int // items with dirty set
}

// wqItem is the work-queue state of one key.
type wqItem struct {
	key      queueKey
	dirty    bool          // queued and not yet processed
	waiting  bool          // a delayed add is pending, at waitAt
	waitAt   time.Duration //
	failures int           // rate-limiter failures since the last Forget
	syncs    int           // syncs during the instant numbered instant
	instant  uint64
	// rsState is, for a ReplicaSet key, the state of the ReplicaSet stored
	// under it (nil while there is none).
	rsState *rsState
	// condsOwner is, for a Deployment key, the stored Deployment whose
	// conditions array the simulator allocated (see storeConditions).
	condsOwner *appsv1.Deployment
}

func newWorkQueue() workQueue {
	return workQueue{items: map[queueKey]*wqItem{}}
}

// item returns the state of k, creating it on first use.
func (w *workQueue) item(k queueKey) *wqItem {
	it := w.items[k]
	if it == nil {
		it = &wqItem{key: k}
		w.items[k] = it
	}
	return it
}

// isDirty reports whether k is queued and not yet processed.
func (w *workQueue) isDirty(k queueKey) bool {
	it := w.items[k]
	return it != nil && it.dirty
}

// isWaiting reports whether a delayed add of k is pending.
func (w *workQueue) isWaiting(k queueKey) bool {
	it := w.items[k]
	return it != nil && it.waiting
}

const (
	rateLimitBase = 5 * time.Millisecond
	rateLimitMax  = 1000 * time.Second
	maxRetries    = 15 // the Deployment controller drops a key after this many failed syncs
)

// backoff returns the next rate-limited delay for key and counts a failure.
func (w *workQueue) backoff(k queueKey) time.Duration { return w.item(k).backoff() }

// backoff returns the next rate-limited delay for the key and counts a
// failure.
func (it *wqItem) backoff() time.Duration {
	n := it.failures
	it.failures = n + 1
	if n >= 38 { // 5ms·2^38 is far beyond the cap; avoid overflow
		return rateLimitMax
	}
	d := rateLimitBase << uint(n)
	if d > rateLimitMax || d <= 0 {
		d = rateLimitMax
	}
	return d
}
