// Package eventq is the simulator's event queue: events of any type in
// (time, insertion sequence) order, a total order, so that the order in
// which a discrete-event simulation processes its events depends on
// nothing but the times given and the order of the pushes.
//
// The events sit in a slab reused through a free list; the ordering
// structures hold only pointer-free entries (time, sequence, slab slot),
// so reordering them costs no write barriers and the garbage collector
// never scans them. Events pushed for the instant being processed (in a
// simulator, the reactions to what just happened: most events) go to a
// FIFO, since each is later than every queued event of that instant; the
// rest go to a 4-ary min-heap. Pop takes the smaller of the two heads.
package eventq

import "time"

// Queue holds pending events of type E. The zero Queue is empty and ready
// to use. A Queue is not safe for concurrent use.
type Queue[E any] struct {
	slab []E
	free []int32
	heap []entry
	fifo []entry // entries of one instant, in sequence order, from fifo[head]
	head int
	seq  uint64
	cur  time.Duration // time of the last popped event
}

// entry is the ordering entry of a queued event.
type entry struct {
	at   time.Duration
	seq  uint64
	slot int32
}

func (a *entry) less(b *entry) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// Push adds e at time at, after every event already queued at that time.
// A time before the last popped event's is allowed and comes out first.
func (q *Queue[E]) Push(at time.Duration, e E) {
	q.seq++
	var slot int32
	if n := len(q.free); n > 0 {
		slot = q.free[n-1]
		q.free = q.free[:n-1]
		q.slab[slot] = e
	} else {
		slot = int32(len(q.slab))
		q.slab = append(q.slab, e)
	}
	en := entry{at: at, seq: q.seq, slot: slot}
	if at == q.cur && (q.head == len(q.fifo) || q.fifo[q.head].at == at) {
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

// Pop removes and returns the earliest event and its time. The queue must
// not be empty (see Len).
func (q *Queue[E]) Pop() (time.Duration, E) {
	var top entry
	if q.head < len(q.fifo) && (len(q.heap) == 0 || q.fifo[q.head].less(&q.heap[0])) {
		top = q.fifo[q.head]
		q.head++
		if q.head == len(q.fifo) {
			q.fifo, q.head = q.fifo[:0], 0
		}
	} else {
		top = q.popHeap()
	}
	q.cur = top.at
	e := q.slab[top.slot]
	var zero E
	q.slab[top.slot] = zero // drop what the event points to
	q.free = append(q.free, top.slot)
	return top.at, e
}

// popHeap removes the root of the heap.
func (q *Queue[E]) popHeap() entry {
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

// Len is the number of queued events.
func (q *Queue[E]) Len() int { return len(q.heap) + len(q.fifo) - q.head }

// PeekTime is the time of the earliest event; ok is false when the queue
// is empty.
func (q *Queue[E]) PeekTime() (at time.Duration, ok bool) {
	switch {
	case q.head < len(q.fifo) && (len(q.heap) == 0 || q.fifo[q.head].less(&q.heap[0])):
		return q.fifo[q.head].at, true
	case len(q.heap) > 0:
		return q.heap[0].at, true
	}
	return 0, false
}
