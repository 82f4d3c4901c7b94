package sim

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestPodsToDeleteSelection: the one-pass selection of a few pods gives the
// same pods in the same order as sorting every key.
func TestPodsToDeleteSelection(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := &Sim{now: time.Hour}
		st := drawRanking(t, 80, true)
		if st.active < 2 {
			return
		}
		n := rapid.IntRange(1, int(st.active)-1).Draw(t, "n")
		// the reference: every key built, then n linear passes for n ≤ 8,
		// a sort otherwise
		var keys []rankKey
		for i := range st.meta {
			if m := &st.meta[i]; m.active {
				keys = append(keys, m.key(st.pods[i], st.colo[m.slot], s.now))
			}
		}
		var want []*podState
		if n <= 8 {
			for len(want) < n {
				best := -1
				for i := range keys {
					if keys[i].p != nil && (best < 0 || lessForDeletion(&keys[i], &keys[best])) {
						best = i
					}
				}
				want = append(want, keys[best].p)
				keys[best].p = nil
			}
		} else {
			slices.SortFunc(keys, func(a, b rankKey) int {
				if lessForDeletion(&a, &b) {
					return -1
				}
				if lessForDeletion(&b, &a) {
					return 1
				}
				return 0
			})
			for _, k := range keys[:n] {
				want = append(want, k.p)
			}
		}
		metaBefore, hotBefore := slices.Clone(st.meta), slices.Clone(st.hot)
		got := s.podsToDelete(st, n)
		if len(got) != n {
			t.Fatalf("got %d pods, want %d", len(got), n)
		}
		for i, p := range got {
			if p != want[i] {
				t.Fatalf("pod %d: got %s, want %s", i, p.Name, want[i].Name)
			}
		}
		if !slices.Equal(st.meta, metaBefore) || !slices.Equal(st.hot, hotBefore) {
			t.Fatalf("ranking data changed by the selection")
		}
	})
}

// BenchmarkPodsToDelete picks one pod to delete among 1,500 ready pods
// spread over 1,000 nodes (the old ReplicaSet of a rollout), with 10% of
// them terminating.
func BenchmarkPodsToDelete(b *testing.B) {
	s := &Sim{now: time.Hour}
	st := &rsState{colo: make([]int32, 1001)}
	for i := 0; i < 1500; i++ {
		m := podMeta{uid: uint64(i), created: time.Duration(i) * time.Millisecond, slot: int32(i%1000 + 1), active: i%10 != 0, ready: true}
		m.class = rankClass(true, 2, true)
		m.readyAt = m.created + 5*time.Second
		if m.active {
			st.active++
			st.colo[m.slot]++
		}
		st.pods = append(st.pods, &podState{Name: fmt.Sprint(i), Terminating: !m.active})
		st.meta = append(st.meta, m)
		st.hot = append(st.hot, hotWord(&m))
	}
	b.ReportAllocs()
	for b.Loop() {
		s.podsToDelete(st, 1)
	}
}

// TestSelectToDelete: the heap selection used for ReplicaSets of more than
// selectMinActive pods gives the sort's first n pods in the sort's order
// (on rankings without upstream's non-transitive readiness corner: no pod
// is ready here).
func TestSelectToDelete(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := &Sim{now: time.Hour}
		st := drawRanking(t, 300, false)
		if st.active < 1 {
			return
		}
		n := rapid.IntRange(1, int(st.active)).Draw(t, "n")
		var keys []rankKey
		for i := range st.meta {
			if m := &st.meta[i]; m.active {
				keys = append(keys, m.key(st.pods[i], st.colo[m.slot], s.now))
			}
		}
		slices.SortFunc(keys, deletionOrder)
		got := s.selectToDelete(st, n, s.now)
		for i, p := range got {
			if p != keys[i].p {
				t.Fatalf("pod %d of %d: got %s, want %s", i, n, p.Name, keys[i].p.Name)
			}
		}
	})
}

// drawRanking draws a ReplicaSet of up to max pods for the deletion
// ranking tests: unique UIDs, creation times within an hour, restarts,
// node slots 0–3, some pods terminating, and (withReady) some ready.
func drawRanking(t *rapid.T, max int, withReady bool) *rsState {
	size := rapid.IntRange(1, max).Draw(t, "pods")
	st := &rsState{colo: make([]int32, 4)}
	for i := 0; i < size; i++ {
		m := podMeta{
			uid:      uint64(rapid.IntRange(0, 1000).Draw(t, "uid")*1000 + i),
			created:  time.Duration(rapid.IntRange(0, 3600).Draw(t, "created")) * time.Second,
			restarts: int32(rapid.IntRange(0, 2).Draw(t, "restarts")),
			slot:     int32(rapid.IntRange(0, 3).Draw(t, "slot")),
			active:   rapid.IntRange(0, 5).Draw(t, "inactive") > 0,
			ready:    withReady && rapid.Bool().Draw(t, "ready"),
		}
		m.class = rankClass(m.slot != 0, uint8(rapid.IntRange(0, 2).Draw(t, "phase")), m.ready)
		if m.ready {
			m.readyAt = m.created + time.Duration(rapid.IntRange(0, 60).Draw(t, "readyAfter"))*time.Second
		}
		if m.active {
			st.active++
			st.colo[m.slot]++
		}
		st.pods = append(st.pods, &podState{Name: fmt.Sprint(i), Terminating: !m.active})
		st.meta = append(st.meta, m)
		st.hot = append(st.hot, hotWord(&m))
	}
	return st
}
