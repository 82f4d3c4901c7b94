package ranking

import (
	"math"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// indexed is a set with its Index, changed as a simulator changes its
// pods: a pod's data replaced (Set), a pod removed with the last moved to
// its place (Remove), a pod appended.
type indexed struct {
	set
	x *Index
}

func (s *indexed) setPod(i int, p Pod) {
	old := s.pods[i]
	if old.Active {
		s.active--
		s.colo[old.Slot]--
	}
	if p.Active {
		s.active++
		s.colo[p.Slot]++
	}
	s.x.Set(i, &old, &p)
	s.pods[i], s.words[i] = p, Word(&p)
}

func (s *indexed) appendPod(p Pod) {
	s.pods = append(s.pods, Pod{})
	s.words = append(s.words, 0)
	s.setPod(len(s.pods)-1, p)
}

// remove removes pods[i]; first made inactive when inactiveFirst (as a
// simulator deletes a pod: it terminates, then it is gone).
func (s *indexed) remove(i int, inactiveFirst bool) {
	if inactiveFirst {
		s.setPod(i, Pod{UID: s.pods[i].UID})
	}
	if p := s.pods[i]; p.Active {
		s.active--
		s.colo[p.Slot]--
	}
	s.x.Remove(i, &s.pods[i])
	last := len(s.pods) - 1
	s.pods[i], s.words[i] = s.pods[last], s.words[last]
	s.pods, s.words = s.pods[:last], s.words[:last]
}

// drawPod draws a pod like those of a rolling update's ReplicaSets: most
// created in the same second, never restarted, ready at one of a few
// seconds; one in odd+1 created later, one in odd+1 restarted and one in
// odd+1 with a class that says otherwise than Ready, unless odd is 0 (the
// comparator may then not be total); some not ready, unassigned or
// inactive.
func drawPod(t *rapid.T, uid uint64, now time.Duration, odd int) Pod {
	p := Pod{UID: uid, Active: rapid.IntRange(0, 9).Draw(t, "inactive") > 0, Slot: int32(rapid.IntRange(0, 7).Draw(t, "slot"))}
	if odd > 0 && rapid.IntRange(0, odd).Draw(t, "oddCreated") == 0 {
		// 0 to 60 s: at a minute, in the bucket of 0 s or in a smaller one
		p.Created = time.Duration(rapid.SampledFrom([]int{5, 20, 40, 59}).Draw(t, "created")) * time.Second
	}
	if odd > 0 && rapid.IntRange(0, odd).Draw(t, "restarted") == 0 {
		p.Restarts = 1
	}
	phase := uint8(2)
	if p.Slot == 0 || rapid.IntRange(0, 4).Draw(t, "notRunning") == 0 {
		phase = uint8(rapid.IntRange(0, 1).Draw(t, "phase"))
	}
	p.Ready = phase == 2 && rapid.IntRange(0, 3).Draw(t, "notReady") > 0
	if p.Ready {
		// seconds before now: a few readiness buckets, many pods per second
		p.ReadyAt = now - time.Duration(rapid.SampledFrom([]int{0, 1, 2, 3, 5, 9, 17, 30, 31, 33, 40}).Draw(t, "readySince"))*time.Second
	}
	p.Class = Class(p.Slot != 0, phase, p.Ready)
	if odd > 0 && rapid.IntRange(0, odd).Draw(t, "oddClass") == 0 {
		p.Class ^= 1 // the class says otherwise than Ready (not a simulator's pod)
	}
	return p
}

// TestIndexPick: whenever the comparator is total (Index.total), the
// index picks the pods, in the order, that the bounded heap over every
// pod picks, and that Pick without an index picks, as its pods are
// changed, removed and added in any order; its count of active pods stays
// right and every active pod is indexed exactly once.
func TestIndexPick(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		now := time.Minute
		s := &indexed{set: set{colo: make([]int32, 8)}, x: &Index{}}
		uid := uint64(0)
		// one pod in odd+1 is created or restarted otherwise (none for 0)
		odd := rapid.SampledFrom([]int{0, 0, 2, 50}).Draw(t, "odd")
		for range rapid.IntRange(0, 200).Draw(t, "initial") {
			uid++
			s.appendPod(drawPod(t, uid, now, odd))
		}
		if rapid.Bool().Draw(t, "built") { // NewIndex, rather than kept from the start
			s.x = NewIndex(s.pods)
		}
		for range rapid.IntRange(1, 30).Draw(t, "steps") {
			switch op := rapid.IntRange(0, 11).Draw(t, "op"); {
			case op < 3 && len(s.pods) > 0:
				s.remove(rapid.IntRange(0, len(s.pods)-1).Draw(t, "removed"), rapid.Bool().Draw(t, "inactiveFirst"))
			case op < 5 && len(s.pods) > 0:
				i := rapid.IntRange(0, len(s.pods)-1).Draw(t, "changed")
				p := drawPod(t, s.pods[i].UID, now, odd)
				s.setPod(i, p)
			case op < 7:
				for range rapid.IntRange(1, 20).Draw(t, "added") {
					uid++
					s.appendPod(drawPod(t, uid, now, odd))
				}
			case op < 10:
				now += time.Duration(rapid.IntRange(0, 20).Draw(t, "later")) * time.Second
			} // otherwise: no change
			checkIndexed(t, s, now)
			if s.active < 2 || !s.x.total(now) {
				continue
			}
			// a few pods most often, as scale-downs go; sometimes picked
			// again before a change, at the same instant or later
			n := rapid.IntRange(1, min(s.active-1, rapid.SampledFrom([]int{3, 3, 1000}).Draw(t, "most"))).Draw(t, "n")
			var pk, ref Picker
			got := s.x.pick(nil, s.colo, n, now, &pk)
			want := slices.Clone(ref.selectHeap(s.pods, s.colo, n, now))
			if !slices.Equal(got, want) {
				t.Fatalf("at %v, %d of %d pods: index picked %v, the heap %v", now, n, s.active, got, want)
			}
			// and what Pick without an index picks at this size (passes
			// for up to 8 pods, a sort, or the heap)
			if want := ref.pick(s.pods, s.words, s.colo, s.active, n, now); !slices.Equal(got, want) {
				t.Fatalf("at %v, %d of %d pods: index picked %v, Pick without it %v", now, n, s.active, got, want)
			}
			if rapid.Bool().Draw(t, "deletePicked") { // as the ReplicaSet controller does
				for _, i := range got {
					p := s.pods[i]
					p.Active = false
					s.setPod(int(i), p)
				}
			}
		}
	})
}

// checkIndexed checks the index's bookkeeping against the pods, and
// that it finds the comparator total at now exactly when the active pods
// all have the same restart count and creation bucket.
func checkIndexed(t *rapid.T, s *indexed, now time.Duration) {
	x := s.x
	total := true
	var first *Pod
	for i := range s.pods {
		if p := &s.pods[i]; p.Active {
			if first == nil {
				first = p
			}
			total = total && p.Restarts == first.Restarts && logRank(now-p.Created) == logRank(now-first.Created) &&
				p.Ready == (p.Class&1 != 0)
		}
	}
	if x.total(now) != total {
		t.Fatalf("total(%v) = %v, want %v", now, x.total(now), total)
	}
	if x.live != s.active {
		t.Fatalf("index counts %d active pods, want %d", x.live, s.active)
	}
	if len(x.refs) != len(s.pods) {
		t.Fatalf("index has %d refs for %d pods", len(x.refs), len(s.pods))
	}
	seen := 0
	for i, p := range s.pods {
		r := x.refs[i]
		if (r.g != 0) != p.Active {
			t.Fatalf("pod %d (active %v) has ref %v", i, p.Active, r)
		}
		if r.g == 0 {
			continue
		}
		g := x.groups[r.g-1]
		if e := g.ents[r.pos]; e.idx != int32(i) || e.uid != p.UID {
			t.Fatalf("pod %d's entry is %+v", i, e)
		}
		if k := g.b.key; g.b.heads[g.j].g != r.g || k.class != p.Class || k.ready != p.Ready || k.slot != p.Slot || p.Ready && g.readyAt != p.ReadyAt {
			t.Fatalf("pod %d in the group of %+v at %v", i, k, g.readyAt)
		}
		seen++
	}
	live := 0
	for _, g := range x.groups {
		if g == nil || g.live == 0 {
			continue
		}
		smallest := uint64(math.MaxUint64)
		for _, e := range g.ents {
			if e.idx >= 0 {
				live++
				smallest = min(smallest, e.uid)
			}
		}
		if hd := g.b.heads[g.j]; hd.readyAt != g.readyAt || !hd.stale && hd.uid != smallest {
			t.Fatalf("group %d's head %+v: readiness %v, smallest UID %d", hd.g, hd, g.readyAt, smallest)
		}
	}
	if live != seen {
		t.Fatalf("%d live entries for %d active pods", live, seen)
	}
}

// TestPickIndexed: through Pick, a ReplicaSet's index gives what Pick
// without an index gives (the passes for up to 8 pods, the sort, the
// heap above HeapMinActive active pods), whether the comparator is total
// (the index answers) or not (it does not), and Pick calls checkIndex
// only in the first case.
func TestPickIndexed(t *testing.T) {
	for _, size := range []int{300, HeapMinActive + 1000} {
		for _, total := range []bool{true, false} {
			s := &set{colo: make([]int32, 8)}
			now := 5 * time.Minute
			for i := range size {
				p := Pod{UID: uint64(i*7919%size + 1), Active: i%11 != 0, Slot: int32(1 + i%5), Ready: i%13 != 0}
				p.Class = Class(true, 2, p.Ready)
				if p.Ready {
					p.ReadyAt = time.Duration(i%40) * time.Second
				}
				if !total && i%17 == 0 {
					p.Created = 3 * time.Minute // another creation bucket
				}
				s.add(p)
			}
			x := NewIndex(s.pods)
			if x.total(now) != total {
				t.Fatalf("total(%v) = %v", now, !total)
			}
			called, ranked := 0, 0
			checkIndex = func([]int32, []Pod, []uint64, []int32, int, int, time.Duration, *Index) { called++ }
			for _, n := range []int{1, 2, 8, 9, 100, 500, s.active} {
				if n < s.active {
					ranked++ // n ≥ active: every pod, no ranking
				}
				var pk, ref Picker
				words := slices.Clone(s.words)
				got := slices.Clone(pk.Pick(s.pods, s.words, s.colo, s.active, n, now, x))
				want := ref.pick(s.pods, s.words, s.colo, s.active, n, now)
				if !slices.Equal(got, want) {
					t.Errorf("%d pods, total %v, n %d: picked %v, want %v", size, total, n, got, want)
				}
				if !slices.Equal(s.words, words) {
					t.Errorf("%d pods, total %v, n %d: the words changed", size, total, n)
				}
			}
			checkIndex = nil
			if want := map[bool]int{true: ranked, false: 0}[total]; called != want {
				t.Errorf("%d pods, total %v: the index answered %d picks, want %d", size, total, called, want)
			}
		}
	}
}

// TestIndexTotal: the comparator is total while the active pods share
// their restart count and their creation bucket, and again once the pods
// that differ are gone or inactive.
func TestIndexTotal(t *testing.T) {
	now := time.Minute
	pod := func(uid uint64, created time.Duration, restarts int32) Pod {
		return Pod{UID: uid, Created: created, Restarts: restarts, Active: true, Slot: 1, Class: Class(true, 2, false)}
	}
	s := &indexed{set: set{colo: make([]int32, 2)}, x: &Index{}}
	s.appendPod(pod(1, 0, 0))
	s.appendPod(pod(2, 20*time.Second, 0)) // 40 s and 60 s before now: one bucket
	if !s.x.total(now) {
		t.Fatal("not total with creations in one bucket")
	}
	s.appendPod(pod(3, 59*time.Second, 0))
	if s.x.total(now) {
		t.Fatal("total with a creation in another bucket")
	}
	s.remove(2, false)
	if !s.x.total(now) {
		t.Fatal("not total once the pod created last is removed")
	}
	s.appendPod(pod(4, 20*time.Second, 1))
	if s.x.total(now) {
		t.Fatal("total with two restart counts")
	}
	p := s.pods[2]
	p.Active = false
	s.setPod(2, p)
	if !s.x.total(now) {
		t.Fatal("not total once the restarted pod is inactive")
	}
	// a ready pod in a class of pods not ready: the comparator is not
	// transitive across a class that mixes both
	p = s.pods[1]
	p.Ready, p.ReadyAt = true, now-time.Second
	s.setPod(1, p)
	if s.x.total(now) {
		t.Fatal("total with a ready pod of a class not ready")
	}
	p.Class = Class(true, 2, true)
	s.setPod(1, p)
	if !s.x.total(now) {
		t.Fatal("not total once the pod's class says ready")
	}
}

// TestIndexCandidateTime: a bin's candidate kept from a pick is not used
// once its readiness bucket has changed. Nodes 1 and 2 have two pods
// each, node 3 one; the first pick takes node 2's pod g (UID 0, ready
// when A, UID 1, on node 1 was); a few seconds later a pod B (UID 2) is
// added on node 3, ready since as long as A was at the first pick: B is
// now in A's old bucket and A in a later one, so B goes first (with A's
// old bucket kept, A would, on its smaller UID). A ready at the first
// pick (bucket -1) and 2 s before it (bucket 30).
func TestIndexCandidateTime(t *testing.T) {
	t0 := 10 * time.Minute
	for _, c := range []struct{ since, later time.Duration }{
		{0, 2 * time.Second},
		{2 * time.Second, time.Second},
	} {
		s := &indexed{set: set{colo: make([]int32, 4)}, x: &Index{}}
		ready := func(uid uint64, slot int32, at time.Duration) Pod {
			return Pod{UID: uid, Active: true, Ready: true, ReadyAt: at, Slot: slot, Class: Class(true, 2, true)}
		}
		s.appendPod(ready(1, 1, t0-c.since)) // A
		s.appendPod(ready(10, 1, t0-time.Hour))
		s.appendPod(ready(0, 2, t0-c.since)) // g
		s.appendPod(ready(11, 2, t0-time.Hour))
		s.appendPod(ready(12, 3, t0-time.Hour))
		var pk, ref Picker
		for _, now := range []time.Duration{t0, t0 + c.later} {
			if now > t0 {
				s.appendPod(ready(2, 3, now-c.since)) // B
			}
			got := s.x.pick(nil, s.colo, 1, now, &pk)
			want := ref.selectHeap(s.pods, s.colo, 1, now)
			if !slices.Equal(got, want) {
				t.Errorf("since %v, at %v: index picked %v, the heap %v", c.since, now, got, want)
			}
			if wantUID := map[bool]uint64{false: 0, true: 2}[now > t0]; s.pods[want[0]].UID != wantUID {
				t.Errorf("since %v, at %v: the heap picked UID %d, want %d", c.since, now, s.pods[want[0]].UID, wantUID)
			}
		}
	}
}
