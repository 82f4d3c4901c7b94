package restart

import (
	"cmp"
	"slices"
	"time"
)

// Change is a queued observation of a config or workload (see [Engine] for
// what creates one). It is identified by the resource's key.
type Change struct {
	// Key is the config or workload key ("configmap/ns/name",
	// "deployment/ns/name").
	Key string
	// First is when the change was first observed; it is due at
	// First + grace period, repeats do not postpone it.
	First time.Time
	// Count is the number of observations while it waited (1 at first).
	Count int
}

// queued is a Change in the heap.
type queued struct {
	Change
	seq   uint64
	index int
}

func lessQueued(a, b *queued) bool {
	if c := a.First.Compare(b.First); c != 0 {
		return c < 0
	}
	return cmp.Less(a.seq, b.seq)
}

// changeQueue is a min-heap by (First, seq) with lookup by key.
type changeQueue struct {
	heap  []*queued
	byKey map[string]*queued
	seq   uint64
}

func (q *changeQueue) len() int { return len(q.heap) }

func (q *changeQueue) get(key string) *queued { return q.byKey[key] }

// touch records an observation of key at now: a new change, or one more
// repeat of the waiting change.
func (q *changeQueue) touch(key string, now time.Time) {
	if c := q.byKey[key]; c != nil {
		c.Count++
		return
	}
	if q.byKey == nil {
		q.byKey = map[string]*queued{}
	}
	q.seq++
	c := &queued{Change: Change{Key: key, First: now, Count: 1}, seq: q.seq, index: len(q.heap)}
	q.byKey[key] = c
	q.heap = append(q.heap, c)
	q.up(c.index)
}

func (q *changeQueue) remove(key string) {
	c := q.byKey[key]
	if c == nil {
		return
	}
	delete(q.byKey, key)
	i := c.index
	last := len(q.heap) - 1
	if i != last {
		q.swap(i, last)
	}
	q.heap[last] = nil
	q.heap = q.heap[:last]
	if i != last {
		q.down(i)
		q.up(i)
	}
}

// min returns the earliest change, or nil.
func (q *changeQueue) min() *queued {
	if len(q.heap) == 0 {
		return nil
	}
	return q.heap[0]
}

// due appends to dst the changes first observed at or before cutoff, in
// (First, seq) order, without removing them. It visits only those changes
// and their heap children.
func (q *changeQueue) due(dst []*queued, cutoff time.Time) []*queued {
	start := len(dst)
	var walk func(i int)
	walk = func(i int) {
		if i >= len(q.heap) || q.heap[i].First.After(cutoff) {
			return
		}
		dst = append(dst, q.heap[i])
		walk(2*i + 1)
		walk(2*i + 2)
	}
	walk(0)
	sortQueued(dst[start:])
	return dst
}

// matching appends the changes for which keep is true, in order.
func (q *changeQueue) matching(dst []*queued, keep func(*queued) bool) []*queued {
	start := len(dst)
	for _, c := range q.heap {
		if keep(c) {
			dst = append(dst, c)
		}
	}
	sortQueued(dst[start:])
	return dst
}

func sortQueued(s []*queued) {
	slices.SortFunc(s, func(a, b *queued) int {
		return cmp.Or(a.First.Compare(b.First), cmp.Compare(a.seq, b.seq))
	})
}

func (q *changeQueue) swap(i, j int) {
	q.heap[i], q.heap[j] = q.heap[j], q.heap[i]
	q.heap[i].index = i
	q.heap[j].index = j
}

func (q *changeQueue) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !lessQueued(q.heap[i], q.heap[p]) {
			return
		}
		q.swap(i, p)
		i = p
	}
}

func (q *changeQueue) down(i int) {
	n := len(q.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && lessQueued(q.heap[r], q.heap[l]) {
			m = r
		}
		if !lessQueued(q.heap[m], q.heap[i]) {
			return
		}
		q.swap(i, m)
		i = m
	}
}
