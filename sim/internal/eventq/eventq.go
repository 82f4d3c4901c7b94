// Package eventq is the simulator's event queue: events of any type in
// (time, insertion sequence) order, a total order, so that the order in
// which a discrete-event simulation processes its events depends on
// nothing but the times given and the order of the pushes.
//
// The events sit in a slab reused through a free list (those of the FIFO
// below, in an array beside it); the ordering structures hold only
// pointer-free entries (time, sequence, slab slot), so reordering them
// costs no write barriers and the garbage collector never scans them. Events pushed for the instant being processed (in a
// simulator, the reactions to what just happened: most events) go to a
// FIFO, since each is later than every queued event of that instant.
// Events for the next half minute or so (a simulator's timers) go to a
// timing ring of 512 buckets of 67 ms, unsorted; a bucket is sorted when
// its time comes, and its events are popped in order from there. The
// rest (times in the bucket being drained, beyond the ring, or earlier
// than the last pop) go to a 4-ary min-heap. Pop takes the smallest head;
// while the heap and the ring hold no time up to the present (they do
// only after a push for the present or an earlier time while the FIFO held
// another), the FIFO's head is taken without comparing.
// Removing the heap's root picks the earliest of four children without a
// branch (which one it is cannot be predicted) and, at each level, loads
// the first entries of the next level's four candidate groups, so that the
// cache misses of a deep heap overlap.
//
// The first pop of an instant takes every timed entry (ring or heap) of
// that instant out at once, in order, into a batch that the next pops
// drain: they precede every event pushed during the instant (smaller
// sequence numbers). The OnInstant hook sees the batch before its first
// event is returned, so that a simulator can start loading the memory
// those events will touch in a loop of independent loads, rather than one
// cache miss after another.
package eventq

import (
	"math/bits"
	"slices"
	"time"
)

// Queue holds pending events of type E. The zero Queue is empty and ready
// to use. A Queue is not safe for concurrent use.
type Queue[E any] struct {
	// OnInstant, when set, is called when the first event of an instant
	// is popped and two or more events were queued for that instant
	// before it began: [Queue.Batch] and [Queue.BatchEvent] show them
	// (that first one included), in order. It may read the events but not
	// change them or the queue.
	OnInstant func()

	slab  []E
	free  []int32
	heap  []entry
	fifo  []entry // entries of one instant, in sequence order, from fifo[head]
	fifoE []E     // their events (fifoE[i] is fifo[i]'s)
	head  int
	batch []entry // the heap's entries of the current instant, from batch[bhead]
	bhead int
	seq   uint64
	cur   time.Duration // time of the last popped event
	// past: the heap or the ring may hold an entry at cur or earlier
	// (pushed for a time not after the present while the FIFO held
	// another); otherwise the FIFO's head, when at cur, comes before
	// everything but the batch
	past bool
	sink time.Duration // what popHeap's loads ahead add up to

	// The timing ring: ring[b%ringSize] holds, unsorted, the entries of
	// bucket b (times b*bucketWidth up to the next bucket's) for every b
	// after curB within ringSize buckets; near holds bucket curB's,
	// sorted, from near[nhead]. Entries of curB pushed after it was
	// sorted, and of earlier or farther buckets, go to the heap.
	ring  [][]entry
	ringN int   // entries in ring
	nextB int64 // the first bucket with entries in ring (when ringN > 0)
	near  []entry
	nhead int
	// scratch is sortNear's second array
	scratch []entry
	curB    int64
}

// The timing ring's geometry: 512 buckets of 2^26 ns (67 ms), about 34 s.
const (
	bucketShift = 26
	ringSize    = 512
)

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

// before is 1 when a.less(b), 0 otherwise, computed without a branch:
// (at, seq) compared as one 128-bit number (the time's sign bit flipped so
// that the unsigned order is the signed one).
func before(a, b *entry) uint64 {
	_, borrow := bits.Sub64(a.seq, b.seq, 0)
	_, borrow = bits.Sub64(uint64(a.at)^1<<63, uint64(b.at)^1<<63, borrow)
	return borrow
}

// Push adds e at time at, after every event already queued at that time.
// A time before the last popped event's is allowed and comes out first.
func (q *Queue[E]) Push(at time.Duration, e E) {
	q.seq++
	if at == q.cur && (q.head == len(q.fifo) || q.fifo[q.head].at == at) {
		// the FIFO holds its events itself: they pass through without a
		// slot of the slab
		q.fifo = append(q.fifo, entry{at: at, seq: q.seq})
		q.fifoE = append(q.fifoE, e)
		return
	}
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
	if at <= q.cur {
		q.past = true
	}
	if at >= q.cur && at >= 0 { // (earlier times, rare, go to the heap)
		if q.nhead == len(q.near) && q.cur >= 0 {
			// nothing sorted near: the ring may start at the present
			// bucket, or just before its first entry
			cb := int64(q.cur) >> bucketShift
			if q.ringN > 0 {
				cb = min(cb, q.nextB-1)
			}
			q.curB = max(q.curB, cb)
		}
		if b := int64(at) >> bucketShift; b > q.curB && b-q.curB < ringSize {
			if q.ring == nil {
				q.ring = make([][]entry, ringSize)
			}
			q.ring[b%ringSize] = append(q.ring[b%ringSize], en)
			if q.ringN == 0 || b < q.nextB {
				q.nextB = b
			}
			q.ringN++
			return
		}
	}
	q.pushHeap(en)
}

// pushHeap adds en to the heap.
func (q *Queue[E]) pushHeap(en entry) {
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
	var e E
	where := fromFIFO
	slow := q.past || q.bhead < len(q.batch) || q.head == len(q.fifo) || q.fifo[q.head].at != q.cur
	if slow {
		where = q.headOf()
	} // else the FIFO's head is first: the heap and the ring hold later times only
	switch where {
	case fromBatch:
		top = q.batch[q.bhead]
		q.bhead++
		e = q.take(top.slot)
	case fromFIFO:
		top, e = q.fifo[q.head], q.fifoE[q.head]
		var zero E
		q.fifoE[q.head] = zero // drop what the event points to
		q.head++
		if q.head == len(q.fifo) {
			q.fifo, q.fifoE, q.head = q.fifo[:0], q.fifoE[:0], 0
		}
	default:
		top = q.popTimed()
		if q.bhead == len(q.batch) {
			if next := q.timedHead(); next != nil && next.at == top.at {
				q.batch, q.bhead = append(q.batch[:0], top), 1
				for next := q.timedHead(); next != nil && next.at == top.at; next = q.timedHead() {
					q.batch = append(q.batch, q.popTimed())
				}
				if q.OnInstant != nil {
					q.OnInstant()
				}
			}
		}
		e = q.take(top.slot)
	}
	q.cur = top.at
	if slow { // do the heap and the ring hold a time not after the present?
		h := q.timedHead()
		q.past = h != nil && h.at <= q.cur
	}
	return top.at, e
}

// take returns the event in slot and frees the slot.
func (q *Queue[E]) take(slot int32) E {
	e := q.slab[slot]
	var zero E
	q.slab[slot] = zero // drop what the event points to
	q.free = append(q.free, slot)
	return e
}

// Batch is the number of events [Queue.OnInstant] shows.
func (q *Queue[E]) Batch() int { return len(q.batch) - q.bhead + 1 }

// BatchEvent is the i-th event (from 0) [Queue.OnInstant] shows; call it
// only from the hook.
func (q *Queue[E]) BatchEvent(i int) *E { return &q.slab[q.batch[q.bhead-1+i].slot] }

// Where the earliest event is.
const (
	fromHeap = iota
	fromFIFO
	fromBatch
)

// headOf says which structure holds the earliest event; the queue must
// not be empty. The batch's head precedes the FIFO's; the heap's head
// precedes both only when pushed for an earlier time than the instant's.
func (q *Queue[E]) headOf() int {
	best, where := q.timedHead(), fromHeap

	if q.head < len(q.fifo) && (best == nil || q.fifo[q.head].less(best)) {
		best, where = &q.fifo[q.head], fromFIFO
	}
	if q.bhead < len(q.batch) && (best == nil || q.batch[q.bhead].less(best)) {
		where = fromBatch
	}
	return where
}

// timedHead is the earliest entry of the heap and the ring (nil when both
// are empty), bringing the ring's next bucket near when near is used up.
func (q *Queue[E]) timedHead() *entry {
	if q.nhead == len(q.near) && q.ringN > 0 && (len(q.heap) == 0 || int64(q.heap[0].at)>>bucketShift >= q.nextB) {
		// the ring's first bucket may hold the earliest entry
		q.advance()
	}
	var best *entry
	if len(q.heap) > 0 {
		best = &q.heap[0]
	}
	if q.nhead < len(q.near) && (best == nil || q.near[q.nhead].less(best)) {
		best = &q.near[q.nhead]
	}
	return best
}

// popTimed removes the earliest entry of the heap and the ring; there
// must be one (timedHead not nil).
func (q *Queue[E]) popTimed() entry {
	if q.nhead < len(q.near) && (len(q.heap) == 0 || q.near[q.nhead].less(&q.heap[0])) {
		q.nhead++
		return q.near[q.nhead-1]
	}
	return q.popHeap()
}

// advance makes the ring's first bucket with entries (nextB) the near
// one, sorted, and finds the next.
func (q *Queue[E]) advance() {
	b := q.nextB
	// sorted from the bucket into near, not swapped: each bucket keeps its
	// own array, grown once to the most it holds, instead of arrays of
	// other sizes passing around and growing again
	slot := &q.ring[b%ringSize]
	q.sortNear(*slot)
	*slot = (*slot)[:0]
	q.nhead, q.curB = 0, b
	q.ringN -= len(q.near)
	if q.ringN > 0 {
		for q.nextB = b + 1; len(q.ring[q.nextB%ringSize]) == 0; q.nextB++ {
		}
	}
}

// radixMin is the size from which a bucket is sorted by radix, and
// radixBits the width of its digits (three passes cover a bucket's
// bucketShift bits of offset).
const (
	radixMin  = 64
	radixBits = 9
)

// sortNear sets near to the entries of one ring bucket, src (in push
// order, so in sequence order), sorted. A large bucket is sorted by a
// stable least-significant-digit radix sort of the entries' offsets in
// the bucket: a few linear passes instead of n log n comparisons, and
// entries of one time keep their sequence order. A digit that every entry
// shares is skipped.
func (q *Queue[E]) sortNear(src []entry) {
	n := len(src)
	q.near = append(q.near[:0], src...)
	if n < radixMin {
		slices.SortFunc(q.near, func(a, b entry) int {
			if a.less(&b) {
				return -1
			}
			return 1 // entries are never equal: their sequences differ
		})
		return
	}
	q.scratch = slices.Grow(q.scratch[:0], n)[:n]
	in, out := q.near, q.scratch
	const mask = 1<<radixBits - 1
	for shift := 0; shift < bucketShift; shift += radixBits {
		var pos [1 << radixBits]int32
		for i := range in {
			pos[uint64(in[i].at)>>shift&mask]++
		}
		if pos[uint64(in[0].at)>>shift&mask] == int32(n) {
			continue // one digit for all
		}
		sum := int32(0)
		for d, c := range pos {
			pos[d] = sum
			sum += c
		}
		for i := range in {
			d := uint64(in[i].at) >> shift & mask
			out[pos[d]] = in[i]
			pos[d]++
		}
		in, out = out, in
	}
	if &in[0] != &q.near[0] {
		copy(q.near, in)
	}
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
	var ahead time.Duration
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		var m int
		if c+3 < n {
			if g := 4*c + 13; g < n {
				// load the first entry of each child's children now:
				// the next level reads one of those groups, and its
				// cache miss overlaps this level's instead of following
				// it
				ahead += h[g-12].at + h[g-8].at + h[g-4].at + h[g].at
			}
			// four children: two pairs, then their winners, each
			// comparison without a branch (which child wins is random)
			a := c + int(before(&h[c+1], &h[c]))
			b := c + 2 + int(before(&h[c+3], &h[c+2]))
			m = a + (b-a)*int(before(&h[b], &h[a]))
		} else {
			m = c
			for j := c + 1; j < n; j++ {
				if h[j].less(&h[m]) {
					m = j
				}
			}
		}
		if !h[m].less(&last) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = last
	q.sink += ahead
	return top
}

// Grow makes room for n more queued events (n > 0), so that queueing them
// does not reallocate: for a simulation that knows it will queue many
// events at its start.
func (q *Queue[E]) Grow(n int) {
	q.slab = slices.Grow(q.slab, n)
	q.heap = slices.Grow(q.heap, n)
	q.free = slices.Grow(q.free, n)
}

// Len is the number of queued events.
func (q *Queue[E]) Len() int {
	return len(q.heap) + len(q.fifo) - q.head + len(q.batch) - q.bhead + q.ringN + len(q.near) - q.nhead
}

// PeekTime is the time of the earliest event; ok is false when the queue
// is empty.
func (q *Queue[E]) PeekTime() (at time.Duration, ok bool) {
	if q.Len() == 0 {
		return 0, false
	}
	switch q.headOf() {
	case fromBatch:
		return q.batch[q.bhead].at, true
	case fromFIFO:
		return q.fifo[q.head].at, true
	}
	return q.timedHead().at, true
}
