package ranking

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// set is a ReplicaSet's ranking data, as a simulator keeps it, and the
// instant of the ranking.
type set struct {
	pods   []Pod
	words  []uint64
	colo   []int32
	active int
	now    time.Duration
}

func (s *set) add(p Pod) {
	if p.Active {
		s.active++
		s.colo[p.Slot]++
	}
	s.pods = append(s.pods, p)
	s.words = append(s.words, Word(&p))
}

// drawSet draws up to max pods: unique UIDs, creation times within the
// hour before the ranking, or within ten seconds 30 to 40 seconds before
// it (more equal times, and readiness after the ranking's instant), or
// within two days about 13 days before it (the times since cross 2^50 ns,
// where logRank leaves its fast path), restarts, node slots 0–3 (in
// co-location counts of 4 to 7 slots: Pick copies a length that is not a
// power of two), some pods
// inactive, and (withReady) some ready, a minute (or, to share more
// times, two seconds) at most after their creation. In half the sets
// (withReady) nearly every pod is assigned, Running and ready, like the
// old pods of a rolling update, so that the pods tied on the first
// criteria are compared on readiness; in one draw of ten a pod's class
// does not say whether it is ready (the ranking still applies the
// reference comparison exactly).
func drawSet(t *rapid.T, max int, withReady bool) *set {
	size := rapid.IntRange(1, max).Draw(t, "pods")
	s := &set{colo: make([]int32, rapid.IntRange(4, 7).Draw(t, "coloLen")), now: time.Hour}
	spread := rapid.SampledFrom([]int{3600, 10, 2 * 86400}).Draw(t, "spread")
	switch spread {
	case 10:
		s.now = 40 * time.Second
	case 2 * 86400:
		s.now = 14 * 24 * time.Hour
	}
	readyAfter := rapid.SampledFrom([]int{60, 2}).Draw(t, "readyAfterMax")
	rolling := withReady && rapid.Bool().Draw(t, "rolling")
	for i := 0; i < size; i++ {
		p := Pod{
			UID:      uint64(rapid.IntRange(0, 1000).Draw(t, "uid")*1000 + i),
			Created:  time.Duration(rapid.IntRange(0, spread).Draw(t, "created")) * time.Second,
			Restarts: int32(rapid.IntRange(0, 2).Draw(t, "restarts")),
			Slot:     int32(rapid.IntRange(0, 3).Draw(t, "slot")),
			Active:   rapid.IntRange(0, 5).Draw(t, "inactive") > 0,
		}
		phase := uint8(rapid.IntRange(0, 2).Draw(t, "phase"))
		odd := rapid.IntRange(0, 9).Draw(t, "odd") == 0
		switch {
		case rolling:
			p.Ready = !odd
			if p.Ready {
				phase = 2
				p.Slot = 1 + p.Slot%3
			}
		case withReady:
			p.Ready = rapid.Bool().Draw(t, "ready")
		}
		classReady := p.Ready != (!rolling && odd)
		p.Class = Class(p.Slot != 0, phase, classReady)
		if p.Ready {
			p.ReadyAt = p.Created + time.Duration(rapid.IntRange(0, readyAfter).Draw(t, "readyAfter"))*time.Second
		}
		s.add(p)
	}
	return s
}

// keys builds every active pod's key.
func (s *set) keys(now time.Duration) []key {
	var keys []key
	for i := range s.pods {
		if p := &s.pods[i]; p.Active {
			keys = append(keys, keyOf(p, i, s.colo[p.Slot], now))
		}
	}
	return keys
}

// TestPickFew: Pick's one-pass selection of up to 8 pods, and its sort of
// more, give the pods, in the order, that the reference procedure gives
// (n linear minimum passes with the full comparison for n ≤ 8, a sort of
// every key otherwise), and leave the words as they were.
func TestPickFew(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := drawSet(t, 80, true)
		now := s.now
		if s.active < 2 {
			return
		}
		n := rapid.IntRange(1, s.active-1).Draw(t, "n")
		keys := s.keys(now)
		var want []int32
		if n <= 8 {
			want = passes(keys, n)
		} else {
			slices.SortFunc(keys, order)
			for _, k := range keys[:n] {
				want = append(want, k.idx)
			}
		}
		words := slices.Clone(s.words)
		var pk Picker
		got := pk.Pick(s.pods, s.words, s.colo, s.active, n, now, nil)
		if !slices.Equal(got, want) {
			t.Fatalf("picked %v, want %v", got, want)
		}
		if !slices.Equal(s.words, words) {
			t.Fatalf("the words changed")
		}
	})
}

// passes is the reference for n ≤ 8: n linear passes over keys, each a
// running minimum by the full comparison over the keys not picked yet, in
// order; it returns the picked pods' indices.
func passes(keys []key, n int) []int32 {
	used := make([]bool, len(keys))
	var out []int32
	for len(out) < n {
		best := -1
		for i := range keys {
			if !used[i] && (best < 0 || less(&keys[i], &keys[best])) {
				best = i
			}
		}
		out = append(out, keys[best].idx)
		used[best] = true
	}
	return out
}

// TestPickOrder: where the comparison is not transitive, the pods Pick
// picks after the first still come from the running minimum over the
// tied pods in index order, as n linear passes with the full comparison
// give them. Every pod has the same class and co-location rank; half are
// ready (with readiness times a few seconds apart, often in one
// logarithmic bucket, so they compare by UID), half not (though their
// class says ready: they compare on restarts and creation time), so that
// the order in which candidates meet the running minimum decides.
func TestPickOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		size := rapid.IntRange(3, 16).Draw(t, "pods")
		s := &set{colo: make([]int32, 2), now: time.Hour}
		for i := 0; i < size; i++ {
			at := s.now - time.Duration(rapid.IntRange(1, 8).Draw(t, "readyAgo"))*time.Second
			s.add(Pod{UID: uint64(rapid.IntRange(0, 1000).Draw(t, "uid")*1000 + i), ReadyAt: at,
				Created:  at - time.Duration(rapid.IntRange(0, 1).Draw(t, "readyAfter"))*time.Second,
				Restarts: int32(rapid.IntRange(0, 1).Draw(t, "restarts")), Slot: 1, Class: Class(true, 2, true),
				Active: true, Ready: rapid.Bool().Draw(t, "ready")})
		}
		n := rapid.IntRange(2, min(8, size-1)).Draw(t, "n")
		want := passes(s.keys(s.now), n)
		var pk Picker
		if got := pk.Pick(s.pods, s.words, s.colo, s.active, n, s.now, nil); !slices.Equal(got, want) {
			t.Fatalf("picked %v, want %v", got, want)
		}
	})
}

// TestPrefix: the packed prefix orders pods as the first two criteria do
// (the class, lower first, then the co-location rank, higher first), and
// puts every inactive pod below every active one.
func TestPrefix(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		type drawn struct {
			p    Pod
			rank int32
		}
		draw := func(label string) drawn {
			ready := rapid.Bool().Draw(t, label+"ready")
			p := Pod{Class: Class(rapid.Bool().Draw(t, label+"assigned"), uint8(rapid.IntRange(0, 2).Draw(t, label+"phase")), ready),
				Slot: rapid.Int32Range(0, 1<<31-1).Draw(t, label+"slot"), Active: rapid.Bool().Draw(t, label+"active"), Ready: ready}
			return drawn{p, rapid.Int32Range(0, 1<<31-1).Draw(t, label+"rank")}
		}
		a, b := draw("a"), draw("b")
		pa, pb := prefix(Word(&a.p), a.rank), prefix(Word(&b.p), b.rank)
		if uint32(Word(&a.p)) != uint32(a.p.Slot) {
			t.Fatalf("the word of %+v does not hold its slot", a.p)
		}
		switch {
		case !a.p.Active || !b.p.Active:
			if a.p.Active && pa <= pb || b.p.Active && pb <= pa {
				t.Fatalf("an inactive pod's prefix is not below an active one's: %+v %x, %+v %x", a, pa, b, pb)
			}
		case a.p.Class != b.p.Class:
			if (pa > pb) != (a.p.Class < b.p.Class) {
				t.Fatalf("class order: %+v %x, %+v %x", a, pa, b, pb)
			}
		case a.rank != b.rank:
			if (pa > pb) != (a.rank > b.rank) {
				t.Fatalf("rank order: %+v %x, %+v %x", a, pa, b, pb)
			}
		case pa != pb:
			t.Fatalf("same class and rank, different prefixes: %+v %x, %+v %x", a, pa, b, pb)
		}
	})
}

// TestScan: the scan over the packed words gives the best prefix and
// lists, in index order, the words that have it, as a plain loop over
// prefix gives them, for co-location counts of a power-of-two length
// (what Pick passes it) and words of every class, active or not.
func TestScan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		colo := make([]int32, 1<<rapid.IntRange(0, 4).Draw(t, "coloLog"))
		for i := range colo {
			colo[i] = rapid.Int32Range(0, 3).Draw(t, "colo")
		}
		words := make([]uint64, rapid.IntRange(0, 40).Draw(t, "words"))
		for i := range words {
			p := Pod{Class: Class(rapid.Bool().Draw(t, "assigned"), uint8(rapid.IntRange(0, 2).Draw(t, "phase")), rapid.Bool().Draw(t, "ready")),
				Slot: rapid.Int32Range(0, int32(len(colo)-1)).Draw(t, "slot"), Active: rapid.IntRange(0, 3).Draw(t, "inactive") > 0}
			words[i] = Word(&p)
		}
		var want []int32
		var wantPrefix uint64
		for i, h := range words {
			switch p := prefix(h, colo[uint32(h)]); {
			case p > wantPrefix:
				wantPrefix, want = p, []int32{int32(i)}
			case p == wantPrefix:
				want = append(want, int32(i))
			}
		}
		cands := make([]int32, len(words)+1)
		got, k := scan(words, colo, cands)
		if got != wantPrefix || !slices.Equal(cands[:k], want) {
			t.Fatalf("scan = %x %v, want %x %v", got, cands[:k], wantPrefix, want)
		}
	})
}

// TestRunMin: the running minimum over pods that tie on class and
// co-location rank, decided inline, gives the pod that the running
// minimum with lessThan gives. The candidates are a random subset of the
// pods, in index order. The pods are ready (a drawn share of them not
// ready, though their class says ready) a few seconds before the instant
// of the ranking (few times, all in logRank's fast path), around it (ready
// or created at or after it), within the hour before it, 12 to 14 days
// before it (across 2^50 ns, where logRank leaves its fast path), or a
// multiple of 2^30 ns up to 8 before it (on the buckets' bounds); they
// were created up to 3 steps before they became ready (or, to keep the
// two buckets apart, after: the ranking must be exact for any times), and
// restarted up to twice, so that many share a readiness time, a creation
// time and a restart count with the best so far.
func TestRunMin(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		size := rapid.IntRange(1, 60).Draw(t, "pods")
		type times struct {
			now, first time.Duration
			steps      int
			step       time.Duration
		}
		tm := rapid.SampledFrom([]times{
			{time.Hour, time.Hour - 6*time.Second, 4, time.Second}, // few times, all in logRank's fast path
			{time.Hour, time.Hour - 2*time.Second, 4, time.Second}, // ready at or after now too
			{time.Hour, 0, 3600, time.Second},
			{14 * 24 * time.Hour, 0, 2 * 86400, time.Second}, // across 2^50 ns
			{1 << 36, 1<<36 - 8<<30, 8, 1 << 30},             // on the buckets' bounds
		}).Draw(t, "times")
		now := tm.now
		notReady := rapid.IntRange(0, 10).Draw(t, "notReadyTenths")
		pods := make([]Pod, size)
		var cands []int32
		for i := range pods {
			at := tm.first + time.Duration(rapid.IntRange(0, tm.steps).Draw(t, "readyAt"))*tm.step
			pods[i] = Pod{UID: uint64(rapid.IntRange(0, 1000).Draw(t, "uid")*1000 + i), ReadyAt: at,
				Created:  at - time.Duration(rapid.IntRange(-3, 3).Draw(t, "readyAfter"))*tm.step,
				Restarts: int32(rapid.IntRange(0, 2).Draw(t, "restarts")), Slot: 1, Class: Class(true, 2, true),
				Active: true, Ready: rapid.IntRange(0, 9).Draw(t, "notReady") >= notReady}
			if rapid.IntRange(0, 4).Draw(t, "skip") > 0 {
				cands = append(cands, int32(i))
			}
		}
		if len(cands) == 0 {
			return
		}
		const rank = 3
		want := int(cands[0])
		b := keyOf(&pods[want], want, rank, now)
		for _, c := range cands[1:] {
			if i := int(c); lessThan(&pods[i], i, rank, &b, now) {
				want, b = i, keyOf(&pods[i], i, rank, now)
			}
		}
		if got := int(cands[runMin(pods, cands, rank, now)]); got != want {
			t.Fatalf("runMin = %d, want %d", got, want)
		}
	})
}

// TestSpan: a bucket's span holds exactly the durations of that bucket
// (for buckets 0 to 49, logRank's fast path), every duration above its
// last has a larger bucket and every other one a smaller bucket; for
// every other bucket the span is empty and nothing is above it. Every
// bucket from -1 to 63 against every duration within 3 of a power of two,
// the extremes, and random ones.
func TestSpan(t *testing.T) {
	ds := []time.Duration{0, -1, math.MinInt64, math.MaxInt64}
	for k := range 63 {
		for off := -3; off <= 3; off++ {
			ds = append(ds, time.Duration(1)<<k+time.Duration(off))
		}
	}
	check := func(l int64, d time.Duration) string {
		lo, last := span(l)
		in, above := uint64(d)-lo < lo, d > last
		got := logRank(d)
		switch {
		case l < 0 || l >= 50:
			if in || above {
				return fmt.Sprintf("span(%d) holds or is below %d", l, d)
			}
		case in != (got == l):
			return fmt.Sprintf("span(%d) holds %d: %v, logRank %d", l, d, in, got)
		case above && got <= l:
			return fmt.Sprintf("%d above span(%d), logRank %d", d, l, got)
		case !in && !above && got >= l:
			return fmt.Sprintf("%d below span(%d), logRank %d", d, l, got)
		}
		return ""
	}
	for l := int64(-1); l <= 63; l++ {
		for _, d := range ds {
			if msg := check(l, d); msg != "" {
				t.Fatal(msg)
			}
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		l := rapid.Int64Range(-1, 63).Draw(t, "bucket")
		if msg := check(l, time.Duration(rapid.Int64().Draw(t, "d"))); msg != "" {
			t.Fatal(msg)
		}
	})
}

// TestPickAll: n ≥ the active pods gives every active pod in index order.
func TestPickAll(t *testing.T) {
	s := &set{colo: make([]int32, 2)}
	for i := range 5 {
		s.add(Pod{UID: uint64(i), Slot: 1, Class: Class(true, 2, true), Active: i != 2, Ready: true})
	}
	var pk Picker
	if got := pk.Pick(s.pods, s.words, s.colo, s.active, 9, time.Hour, nil); !slices.Equal(got, []int32{0, 1, 3, 4}) {
		t.Errorf("Pick(all) = %v", got)
	}
}

// TestPickHeap: above HeapMinActive active pods, the bounded heap gives
// the sort's first n pods in the sort's order (on rankings without
// upstream's non-transitive readiness corner: no pod is ready here).
func TestPickHeap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := drawSet(t, 300, false)
		now := s.now
		if s.active < 1 {
			return
		}
		n := rapid.IntRange(1, s.active).Draw(t, "n")
		keys := s.keys(now)
		slices.SortFunc(keys, order)
		var pk Picker
		got := pk.selectHeap(s.pods, s.colo, n, now)
		for i, idx := range got {
			if idx != keys[i].idx {
				t.Fatalf("pod %d of %d: got %d, want %d", i, n, idx, keys[i].idx)
			}
		}
	})
}

// TestLess: each criterion, in upstream's order.
func TestLess(t *testing.T) {
	now := time.Hour
	type pod struct {
		unassigned, notReady bool
		phase                uint8
		rank, restarts       int32
		readyAt, createdAt   time.Duration
	}
	mk := func(uid uint64, f func(p *pod)) *key {
		p := &pod{phase: 2, readyAt: now - 10*time.Minute, createdAt: now - 20*time.Minute}
		if f != nil {
			f(p)
		}
		k := &key{idx: int32(uid), uid: uid, class: Class(!p.unassigned, p.phase, !p.notReady),
			ready: !p.notReady, rank: p.rank, restarts: p.restarts, readyAt: p.readyAt, createdAt: p.createdAt}
		k.readyLog = logRank(now - k.readyAt)
		k.createdLog = logRank(now - k.createdAt)
		return k
	}
	cases := []struct {
		name        string
		first, last *key
	}{
		{"unassigned first", mk(2, func(p *pod) { p.unassigned = true; p.phase = 0; p.notReady = true }), mk(1, func(p *pod) { p.phase = 0; p.notReady = true })},
		{"pending before running", mk(2, func(p *pod) { p.phase = 0 }), mk(1, nil)},
		{"unknown before running", mk(2, func(p *pod) { p.phase = 1 }), mk(1, nil)},
		{"not ready first", mk(2, func(p *pod) { p.notReady = true }), mk(1, nil)},
		{"doubled up first", mk(2, func(p *pod) { p.rank = 3 }), mk(1, func(p *pod) { p.rank = 1 })},
		{"recently ready first", mk(2, func(p *pod) { p.readyAt = now - time.Second }), mk(1, nil)},
		{"same log bucket: by UID", mk(1, func(p *pod) { p.readyAt = now - 9*time.Minute }), mk(2, nil)},
		{"more restarts first", mk(2, func(p *pod) { p.restarts = 2 }), mk(1, nil)},
		{"newer first", mk(2, func(p *pod) { p.notReady = true; p.createdAt = now - time.Second }), mk(1, func(p *pod) { p.notReady = true })},
		{"total order by UID", mk(1, nil), mk(2, nil)},
	}
	for _, c := range cases {
		if !less(c.first, c.last) || less(c.last, c.first) {
			t.Errorf("%s: want %d deleted before %d", c.name, c.first.uid, c.last.uid)
		}
	}
}

// TestLogRank: the integer ⌊log2⌋ agrees with math.Log2 where both are
// exact, and non-positive durations rank -1.
func TestLogRank(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int64
	}{{-time.Second, -1}, {0, -1}, {1, 0}, {2, 1}, {3, 1}, {1024, 10}, {time.Second, 29}, {1 << 50, 50}, {1<<62 + 1, 62}} {
		if got := logRank(c.d); got != c.want {
			t.Errorf("logRank(%d) = %d, want %d", c.d, got, c.want)
		}
	}
}

// BenchmarkPickOne picks one pod to delete among 1,500 ready pods spread
// over 1,000 nodes (the old ReplicaSet of a rollout), 10% of them
// inactive.
func BenchmarkPickOne(b *testing.B) {
	benchPickOne(b, func(i int) time.Duration { return time.Duration(i) * time.Millisecond })
}

// BenchmarkPickOneShared is BenchmarkPickOne with readiness and creation
// times truncated to seconds, as the API serializes them: thirty pods
// share each, so most pods tied on the prefix share the best's readiness
// time and are compared on restarts, creation time and UID.
func BenchmarkPickOneShared(b *testing.B) {
	benchPickOne(b, func(i int) time.Duration { return time.Duration(i/30) * time.Second })
}

// benchPickOne picks one pod among 1,500 ready pods over 1,000 nodes, 10%
// inactive, pod i created at created(i) and ready 5 s later.
func benchPickOne(b *testing.B, created func(i int) time.Duration) {
	s := &set{colo: make([]int32, 1024)} // slots 0-1000, in a power-of-two length as the simulator allocates them
	for i := 0; i < 1500; i++ {
		p := Pod{UID: uint64(i), Created: created(i), Slot: int32(i%1000 + 1), Active: i%10 != 0, Ready: true}
		p.Class = Class(true, 2, true)
		p.ReadyAt = p.Created + 5*time.Second
		s.add(p)
	}
	var pk Picker
	b.ReportAllocs()
	for b.Loop() {
		pk.Pick(s.pods, s.words, s.colo, s.active, 1, time.Hour, nil)
	}
}
