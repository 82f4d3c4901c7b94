// Package workqueue models client-go's rate-limited delaying work queue
// (k8s.io/client-go/util/workqueue, as controllers build it with
// DefaultControllerRateLimiter) on a simulator's virtual clock, as state
// transitions: the simulator's engine asks what to schedule and schedules
// it on its own event queue.
//
// A key already queued and not yet processed is not queued twice; a
// delayed add keeps only the earliest pending time per key; the rate
// limiter is the per-item exponential back-off (5ms·2^failures, capped at
// 1000s; the overall token bucket is not modelled). The state of a key
// lives in one Item, found by one map lookup, that the caller may keep and
// hand back instead of the key.
package workqueue

import "time"

// Item is the work-queue state of one key. X is the caller's own data for
// the key (kept with it, so that one look-up finds both).
type Item[K comparable, X any] struct {
	Key K
	X   X

	dirty    bool          // queued and not yet processed
	waiting  bool          // a delayed add is pending, at waitAt
	waitAt   time.Duration //
	failures int           // rate-limiter failures since the last Forget
	syncs    int           // syncs during the instant numbered instant
	instant  uint64
}

// Queue holds the items by key. Create it with New.
type Queue[K comparable, X any] struct {
	items map[K]*Item[K, X]
	dirty int // items queued and not yet processed
}

// New returns an empty queue.
func New[K comparable, X any]() Queue[K, X] {
	return Queue[K, X]{items: map[K]*Item[K, X]{}}
}

// Item returns the state of k, creating it on first use.
func (q *Queue[K, X]) Item(k K) *Item[K, X] {
	it := q.items[k]
	if it == nil {
		it = &Item[K, X]{Key: k}
		q.items[k] = it
	}
	return it
}

// ForEach calls fn for every item, in no particular order.
func (q *Queue[K, X]) ForEach(fn func(*Item[K, X])) {
	for _, it := range q.items {
		fn(it)
	}
}

// Dirty is the number of keys queued and not yet processed.
func (q *Queue[K, X]) Dirty() int { return q.dirty }

// IsDirty reports whether k is queued and not yet processed.
func (q *Queue[K, X]) IsDirty(k K) bool {
	it := q.items[k]
	return it != nil && it.dirty
}

// IsWaiting reports whether a delayed add of k is pending.
func (q *Queue[K, X]) IsWaiting(k K) bool {
	it := q.items[k]
	return it != nil && it.waiting
}

// Add queues it. It reports false when it was queued already (nothing new
// to process); on true the caller has it processed.
func (q *Queue[K, X]) Add(it *Item[K, X]) bool {
	if it.dirty {
		return false
	}
	it.dirty = true
	q.dirty++
	return true
}

// AddAfter asks for it to be added at at. It reports false when a delayed
// add at or before at is pending already (the earliest is kept); on true
// the caller calls Due at at.
func (q *Queue[K, X]) AddAfter(it *Item[K, X], at time.Duration) bool {
	if it.waiting && it.waitAt <= at {
		return false
	}
	it.waiting, it.waitAt = true, at
	return true
}

// Due is the delayed add asked for at at coming due: it reports whether it
// is the one still pending (not superseded by an earlier one), in which
// case the wait is over and the caller adds it.
func (q *Queue[K, X]) Due(it *Item[K, X], at time.Duration) bool {
	if !it.waiting || it.waitAt != at {
		return false
	}
	it.waiting = false
	return true
}

// Take starts processing it during the instant numbered instant: false
// when it is not queued (processed already); otherwise it is no longer
// queued, and syncs is the number of times it was taken during that
// instant, this one included.
func (q *Queue[K, X]) Take(it *Item[K, X], instant uint64) (syncs int, ok bool) {
	if !it.dirty {
		return 0, false
	}
	it.dirty = false
	q.dirty--
	if it.instant != instant {
		it.instant, it.syncs = instant, 0
	}
	it.syncs++
	return it.syncs, true
}

const (
	rateLimitBase = 5 * time.Millisecond
	rateLimitMax  = 1000 * time.Second
)

// Backoff counts a failure of the key and returns the rate limiter's
// delay for its requeue: 5ms·2^(failures before), capped at 1000s.
func (it *Item[K, X]) Backoff() time.Duration {
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

// Failures is the number of failures since the last Forget.
func (it *Item[K, X]) Failures() int { return it.failures }

// Forget resets the failures (the key was processed without error).
func (it *Item[K, X]) Forget() { it.failures = 0 }
