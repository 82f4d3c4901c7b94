package eventq

import (
	"cmp"
	"math"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestOrder: time first, then insertion.
func TestOrder(t *testing.T) {
	var q Queue[int]
	q.Push(3*time.Second, 1)
	q.Push(time.Second, 2)
	q.Push(3*time.Second, 3)
	q.Push(0, 4)
	q.Push(time.Second, 5)
	var got []int
	for q.Len() > 0 {
		_, e := q.Pop()
		got = append(got, e)
	}
	if want := []int{4, 2, 5, 1, 3}; !slices.Equal(got, want) {
		t.Fatalf("order = %v, want %v (time, then insertion)", got, want)
	}
	if _, ok := q.PeekTime(); ok {
		t.Error("PeekTime on an empty queue reports an event")
	}
}

// TestOrderInterleaved: events come out in (time, insertion) order,
// whatever mix of same-instant, later and earlier pushes happens between
// pops, compared with sorting every pending event.
func TestOrderInterleaved(t *testing.T) {
	checkInterleaved(t, []time.Duration{-1, 0, 0, 0, 1, 2, 5}, 200)
}

// TestOrderRing: with times spread over the timing ring's buckets (the
// current one, the next ones, the ring's far end, beyond it, earlier than
// the last pop) and pops in between, events come out in (time,
// insertion) order, PeekTime and Len agree.
func TestOrderRing(t *testing.T) {
	const w = time.Duration(1) << bucketShift
	checkInterleaved(t, []time.Duration{-w, -1, 0, 1, w / 3, w - 1, w, w + 1, 2 * w, 17 * w, (ringSize - 1) * w, ringSize * w, (ringSize + 3) * w}, 400)
}

// checkInterleaved pushes events at the last popped time plus one of
// afters, pops between pushes, and compares every pop, PeekTime and Len
// with a sort of the pending events.
func checkInterleaved(t *testing.T, afters []time.Duration, maxOps int) {
	rapid.Check(t, func(t *rapid.T) {
		var q Queue[int]
		type ref struct {
			at  time.Duration
			seq int
		}
		var pending []ref
		seq := 0
		now := time.Duration(0)
		ops := rapid.IntRange(1, maxOps).Draw(t, "ops")
		for i := 0; i < ops; i++ {
			if len(pending) > 0 && rapid.IntRange(0, 2).Draw(t, "pop") == 0 {
				slices.SortFunc(pending, func(a, b ref) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq)) })
				want := pending[0]
				pending = pending[1:]
				if at, ok := q.PeekTime(); !ok || at != want.at {
					t.Fatalf("PeekTime = %v, %v; want %v", at, ok, want.at)
				}
				at, e := q.Pop()
				if at != want.at || e != want.seq {
					t.Fatalf("Pop = (%v, %d), want (%v, %d)", at, e, want.at, want.seq)
				}
				now = at
				continue
			}
			at := now + rapid.SampledFrom(afters).Draw(t, "after")
			seq++
			q.Push(at, seq)
			pending = append(pending, ref{at, seq})
			if q.Len() != len(pending) {
				t.Fatalf("Len = %d, want %d", q.Len(), len(pending))
			}
		}
	})
}

// TestOrderHeap: a heap of up to 1,000 events, with times over the whole
// range of a Duration (negative ones and the extremes included) or a few
// shared ones, pops in (time, insertion) order: the heap's branch-free
// comparison is the ordering's.
func TestOrderHeap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q Queue[int]
		n := rapid.IntRange(1, 1000).Draw(t, "events")
		wide := rapid.Bool().Draw(t, "wide")
		q.Push(1, -1) // and popped: later pushes go to the heap, not the FIFO
		q.Pop()
		ats := make([]time.Duration, n)
		for i := range ats {
			ats[i] = time.Duration(rapid.SampledFrom([]int64{math.MinInt64, -1, 0, 1, 2, math.MaxInt64}).Draw(t, "at"))
			if wide {
				ats[i] = time.Duration(rapid.Int64().Draw(t, "at"))
			}
		}
		pushThenDrain(t, &q, ats)
	})
}

// TestOrderRadix: ring buckets large enough to be sorted by radix
// (radixMin entries and more), with offsets in the bucket that share low
// digits, high digits or all of them, or spread over the bucket's width,
// and times that repeat, pop in (time, insertion) order.
func TestOrderRadix(t *testing.T) {
	const w = time.Duration(1) << bucketShift
	rapid.Check(t, func(t *rapid.T) {
		var q Queue[int]
		n := rapid.IntRange(radixMin, 4*radixMin).Draw(t, "events")
		step := rapid.SampledFrom([]time.Duration{1, 1 << radixBits, 1 << (2 * radixBits), 1000}).Draw(t, "step")
		spread := rapid.SampledFrom([]int64{1, 3, 1 << radixBits, int64(w)}).Draw(t, "spread")
		ats := make([]time.Duration, n)
		for i := range ats {
			b := time.Duration(rapid.IntRange(1, 3).Draw(t, "bucket"))
			ats[i] = b*w + (step*time.Duration(rapid.Int64Range(0, spread-1).Draw(t, "offset")))%w
		}
		pushThenDrain(t, &q, ats)
	})
}

// pushThenDrain pushes event i at ats[i], then pops every event and
// compares the order with a stable sort of the times.
func pushThenDrain(t *rapid.T, q *Queue[int], ats []time.Duration) {
	order := make([]int, len(ats))
	for i, at := range ats {
		q.Push(at, i)
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ats[a], ats[b]) })
	for _, i := range order {
		if at, e := q.Pop(); at != ats[i] || e != i {
			t.Fatalf("Pop = (%v, %d), want (%v, %d)", at, e, ats[i], i)
		}
	}
}

// TestPopDropsReferences: a popped event's slot (of the slab, or of the
// FIFO's array) no longer holds it, so what it points to can be collected.
func TestPopDropsReferences(t *testing.T) {
	var q Queue[*int]
	v := 7
	q.Push(0, &v)              // the present: the FIFO
	q.Push(time.Second, &v)    // the ring
	q.Push(time.Hour*1000, &v) // the heap
	q.Push(0, &v)              // the FIFO again
	q.Pop()
	for i, e := range q.fifoE[:cap(q.fifoE)] {
		if i < q.head && e != nil {
			t.Fatalf("FIFO slot %d still holds a popped event", i)
		}
	}
	for q.Len() > 0 {
		q.Pop()
	}
	for i, e := range q.slab {
		if e != nil {
			t.Fatalf("slot %d still holds a popped event", i)
		}
	}
	for i, e := range q.fifoE[:cap(q.fifoE)] {
		if e != nil {
			t.Fatalf("FIFO slot %d still holds a popped event", i)
		}
	}
}

// TestGrow: room made for n events takes n pushes without reallocating.
func TestGrow(t *testing.T) {
	var q Queue[int]
	q.Grow(100)
	slab, heap := cap(q.slab), cap(q.heap)
	for i := range 100 {
		q.Push(time.Duration(100-i), i)
	}
	if cap(q.slab) != slab || cap(q.heap) != heap || slab < 100 {
		t.Errorf("capacities %d, %d after Grow(100) became %d, %d", slab, heap, cap(q.slab), cap(q.heap))
	}
}

func BenchmarkPushPop(b *testing.B) {
	var q Queue[[7]uint64]
	for b.Loop() {
		for i := range 64 {
			q.Push(time.Duration(i%8), [7]uint64{uint64(i)})
		}
		for q.Len() > 0 {
			q.Pop()
		}
	}
}

// TestOnInstant: the hook sees, at an instant's first pop, the events
// queued for that instant before it began, in order, and not those pushed
// during it; the order of the pops is unchanged.
func TestOnInstant(t *testing.T) {
	var q Queue[int]
	var seen [][]int
	q.OnInstant = func() {
		var b []int
		for i := range q.Batch() {
			b = append(b, *q.BatchEvent(i))
		}
		seen = append(seen, b)
	}
	q.Push(time.Second, 1)
	q.Push(2*time.Second, 2)
	q.Push(time.Second, 3)
	q.Push(time.Second, 4)
	var got []int
	for q.Len() > 0 {
		at, e := q.Pop()
		got = append(got, e)
		if e == 1 {
			q.Push(at, 5) // during the instant: after 3 and 4
		}
	}
	if want := []int{1, 3, 4, 5, 2}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	if want := [][]int{{1, 3, 4}}; len(seen) != 1 || !slices.Equal(seen[0], want[0]) {
		t.Errorf("OnInstant saw %v, want %v (an instant of one event is not shown)", seen, want)
	}
}
