// Package ranking is the order in which the ReplicaSet controller deletes
// pods when it scales a ReplicaSet down: upstream's ranking of active pods
// (controller.ActivePodsWithRanks with logarithmic scale-down, Kubernetes
// v1.37), computed over compact per-pod data that a simulator keeps next
// to its pods.
//
// A pod goes first when it is unassigned rather than assigned; Pending,
// then Unknown, rather than Running; not ready rather than ready; on a
// node with more active pods of the same controller (its co-location
// rank); ready more recently (in log2 buckets of the time since, then by
// UID); restarted more; newer (log2 buckets, then UID). Upstream's
// comparator is not transitive in every case (the bucketed criteria fall
// back to the UID, the others do not), so the procedure that applies it is
// part of the behaviour and is kept exactly: n linear passes for n ≤ 8, a
// sort otherwise, and a bounded heap for very large ReplicaSets (see
// [Picker.Pick]). Whenever the comparator is transitive over the pods, an
// [Index] of them picks what all three pick without visiting every pod.
package ranking

import (
	"math"
	"math/bits"
	"slices"
	"time"
)

// Pod is what the ranking reads of one pod. Times are offsets on the
// simulator's clock, truncated to seconds as the API serializes them. The
// fields that break most ties (readiness time, UID) come first, in 40
// bytes.
type Pod struct {
	ReadyAt time.Duration // only when Ready
	// UID orders pods last; UIDs must be unique and compare like the
	// pods' UID strings.
	UID           uint64
	Ready, Active bool
	Class         uint8 // a value of Class
	Restarts      int32
	// Slot is the pod's node's index in the co-location counts (0 for an
	// unassigned pod).
	Slot    int32
	Created time.Duration
}

// Class packs the first three criteria: unassigned before assigned, then
// phase (0 Pending, 1 Unknown, 2 Running), then not ready before ready. A
// smaller class goes first.
func Class(assigned bool, phase uint8, ready bool) uint8 {
	c := phase << 1
	if assigned {
		c |= 8
	}
	if ready {
		c |= 1
	}
	return c
}

// Word packs what the scan over every pod reads, in contiguous memory:
// 255 minus the class of an active pod, 0 for an inactive one (bits
// 32-39), and the node slot (bits 0-31). A simulator keeps words[i] ==
// Word(&pods[i]).
func Word(p *Pod) uint64 {
	h := uint64(uint32(p.Slot))
	if p.Active {
		h |= uint64(255-p.Class) << 32
	}
	return h
}

// prefix packs the first two criteria of a pod with word h and co-location
// rank rank into an integer that is larger for the pod to delete first:
// the class inverted above the rank. An active pod's is at least 240<<32,
// an inactive pod's below 1<<32. No branch: the scan over all pods stays
// cheap.
func prefix(h uint64, rank int32) uint64 {
	return h>>32<<32 | uint64(uint32(rank))
}

// key is the ranking key of one pod, precomputed so that a comparison
// reads integers only.
type key struct {
	idx        int32 // the pod's index
	uid        uint64
	class      uint8
	ready      bool
	rank       int32
	restarts   int32
	readyAt    time.Duration
	createdAt  time.Duration
	readyLog   int64
	createdLog int64
}

// keyOf is the key of pods[i], with its co-location rank, at now.
func keyOf(p *Pod, i int, rank int32, now time.Duration) key {
	k := key{idx: int32(i), uid: p.UID, class: p.Class, ready: p.Ready, rank: rank, restarts: p.Restarts,
		createdAt: p.Created, createdLog: logRank(now - p.Created)}
	if p.Ready {
		k.readyAt = p.ReadyAt
		k.readyLog = logRank(now - p.ReadyAt)
	}
	return k
}

// lessThan is less(keyOf(p, …), b), computing only the parts of the key
// the comparison reaches (most pods lose on the class, the co-location
// rank or the ready time).
func lessThan(p *Pod, i int, rank int32, b *key, now time.Duration) bool {
	if p.Class != b.class {
		return p.Class < b.class
	}
	if rank != b.rank {
		return rank > b.rank
	}
	if p.Ready && b.ready && p.ReadyAt != b.readyAt {
		if d := logRank(now-p.ReadyAt) - b.readyLog; d != 0 {
			return d < 0
		}
		return p.UID < b.uid
	}
	if p.Restarts != b.restarts {
		return p.Restarts > b.restarts
	}
	if p.Created != b.createdAt {
		if d := logRank(now-p.Created) - b.createdLog; d != 0 {
			return d < 0
		}
		return p.UID < b.uid
	}
	if p.UID != b.uid {
		return p.UID < b.uid
	}
	return int32(i) < b.idx
}

// less reports whether a goes before b (see the package comment). UIDs
// are unique, so the final index comparison only keeps the order total.
func less(a, b *key) bool {
	if a.class != b.class {
		return a.class < b.class
	}
	if a.rank != b.rank {
		return a.rank > b.rank
	}
	if a.ready && b.ready && a.readyAt != b.readyAt {
		if d := a.readyLog - b.readyLog; d != 0 {
			return d < 0
		}
		return a.uid < b.uid
	}
	if a.restarts != b.restarts {
		return a.restarts > b.restarts
	}
	if a.createdAt != b.createdAt {
		if d := a.createdLog - b.createdLog; d != 0 {
			return d < 0
		}
		return a.uid < b.uid
	}
	if a.uid != b.uid {
		return a.uid < b.uid
	}
	return a.idx < b.idx
}

// order orders keys by less, for slices.SortFunc.
func order(a, b key) int {
	if less(&a, &b) {
		return -1
	}
	if less(&b, &a) {
		return 1
	}
	return 0
}

// logRank is ⌊log2(d)⌋ for a positive d, -1 otherwise: upstream's
// int64(math.Log2(float64(d))), computed exactly with integer bits (the
// two agree for every duration below 2^50 ns, about 13 days, where float64
// rounding cannot reach the next integer).
func logRank(d time.Duration) int64 {
	if d > 0 && d < 1<<50 { // small enough to inline: the hot path
		return int64(bits.Len64(uint64(d))) - 1
	}
	return logRankSlow(d)
}

//go:noinline
func logRankSlow(d time.Duration) int64 {
	if d <= 0 {
		return -1
	}
	return int64(math.Log2(float64(d)))
}

// HeapMinActive is the number of active pods above which Pick selects with
// a bounded heap in one pass, instead of sorting every pod or scanning them
// once per pick: a 1,000,000-pod ReplicaSet is scaled down up to 500 pods
// per sync (upstream's burstReplicas), and sorting every pod at every sync
// made its rollout quadratic. The heap keeps the n first pods in the
// ranking's order, which is the sort's first n as long as the ranking is a
// strict weak order; in upstream's non-transitive corner (two ready pods
// whose readiness times fall in the same logarithmic bucket, compared with
// a third that is not) any two algorithms may pick differently, as the
// real controller's sort.Sort and slices.SortFunc already may. Below this
// size the pods are sorted.
const HeapMinActive = 4096

// checkIndex, when set (by tests), sees every pick an Index answered, with
// Pick's arguments, to compare it with Pick's without the index.
var checkIndex func(got []int32, pods []Pod, words []uint64, colo []int32, active, n int, now time.Duration, x *Index)

// Picker picks the pods to delete. It keeps its buffers from one pick to
// the next; the zero Picker is ready to use. Not safe for concurrent use.
type Picker struct {
	keys  []key
	cands []int32
	out   []int32
	colo  []int32 // a copy of colo when its length is not a power of two
	tier  []*bin  // Index.pick's bins of one prefix
}

// Pick returns the indices of the n active pods to delete first, in order,
// into pods and words (words[i] == Word(&pods[i])); colo[slot] is the
// number of active pods of the same controller on the node of that slot
// (every slot is below len(colo); a power-of-two length saves a copy of
// colo per Pick), and active the number of active pods. With n ≥ active it
// returns every active pod, in index order. The result is valid until the
// next Pick. words is left as it was (a pass marks picked pods inactive,
// then restores them).
//
// For n ≤ 8, each pick is at most one pass over the packed words, then the
// full comparison among the pods that tie on the prefix: the pass computes
// the best prefix (the class, lowest first, and the co-location rank,
// highest first) and lists the pods that have it, in index order; the full
// comparison runs as a running minimum over that list only. That is
// exactly what one running-minimum pass with the full comparison over all
// pods picks: a pod with a worse prefix never stays the best once a pod
// with the best prefix is seen, and among equal prefixes both compare in
// the same order. A picked pod's word is made inactive for the next pass
// and restored at the end. A pass runs only once the list is used up:
// until then, it would find the same best prefix and list the same pods
// but the picked ones (a pick changes no other word and no co-location
// count), so the next pick runs over the rest of the list. Otherwise every
// key is built and sorted, or, above HeapMinActive active pods when n is
// under an eighth of them ([Heaped]), kept in a bounded heap.
//
// Whenever upstream's comparator is a strict total order over the pods at
// now, all three procedures give its first n pods in order, and so does
// an index of the pods (x, nil for none; see [Index]), which Pick then
// uses instead, without a pass over every pod.
func (pk *Picker) Pick(pods []Pod, words []uint64, colo []int32, active, n int, now time.Duration, x *Index) []int32 {
	if n < active && x != nil && x.total(now) {
		out := x.pick(pk.out[:0], colo, n, now, pk)
		pk.out = out
		if checkIndex != nil {
			checkIndex(out, pods, words, colo, active, n, now, x)
		}
		return out
	}
	return pk.pick(pods, words, colo, active, n, now)
}

// pick is Pick without an index.
func (pk *Picker) pick(pods []Pod, words []uint64, colo []int32, active, n int, now time.Duration) []int32 {
	out := pk.out[:0]
	if n >= active {
		for i := range pods {
			if pods[i].Active {
				out = append(out, int32(i))
			}
		}
		pk.out = out
		return out
	}
	if Heaped(active, n) {
		return pk.selectHeap(pods, colo, n, now)
	}
	if n <= 8 {
		if len(colo)&(len(colo)-1) != 0 || len(colo) == 0 {
			// scan's masked index needs a power of two: a copy, zero above
			size := 1 << bits.Len(uint(len(colo)))
			pk.colo = append(slices.Grow(pk.colo[:0], size), colo...)[:size]
			clear(pk.colo[len(colo):])
			colo = pk.colo
		}
		cands := slices.Grow(pk.cands[:0], len(words)+1)[:len(words)+1]
		var saved [8]uint64 // the picked pods' words
		var bestPrefix uint64
		k := 0 // cands[:k]: the pods with the best prefix, not picked yet
		for len(out) < n {
			if k == 0 {
				bestPrefix, k = scan(words, colo, cands)
			}
			at := runMin(pods, cands[:k], int32(uint32(bestPrefix)), now)
			best := cands[at]
			copy(cands[at:k], cands[at+1:k]) // what the next scan would list
			k--
			saved[len(out)] = words[best]
			words[best] = uint64(uint32(words[best])) // inactive for the next pass
			out = append(out, best)
		}
		for j, i := range out {
			words[i] = saved[j]
		}
		pk.cands, pk.out = cands[:0], out
		return out
	}
	keys := slices.Grow(pk.keys[:0], active)
	for i := range pods {
		if p := &pods[i]; p.Active {
			keys = append(keys, keyOf(p, i, colo[p.Slot], now))
		}
	}
	slices.SortFunc(keys, order)
	return pk.first(keys, n)
}

// scan returns the best prefix among words and writes the indices of the
// words that have it, in order, to cands[:k] (cands has room for
// len(words)+1). len(colo) is a power of two above every slot, so a
// word's slot is h&mask, an index with no bounds check, and its prefix is
// h^slot|rank (prefix(h, rank) without a 64-bit mask constant, which cost
// a register and a spill). Two words a step, without a branch but the
// rare one for a better prefix.
func scan(words []uint64, colo []int32, cands []int32) (bestPrefix uint64, k int) {
	cands = cands[:len(words)+1]
	_ = colo[0] // len(colo) > 0: the mask is below it
	mask := uint64(len(colo) - 1)
	i := 0
	for ; i < len(words)-1; i += 2 {
		h0, h1 := words[i], words[i+1]
		s0, s1 := h0&mask, h1&mask
		p0, p1 := h0^s0|uint64(uint32(colo[s0])), h1^s1|uint64(uint32(colo[s1]))
		if p0 > bestPrefix || p1 > bestPrefix {
			bestPrefix, k = max(p0, p1), 0
		}
		cands[k] = int32(i)
		if p0 == bestPrefix {
			k++
		}
		cands[k] = int32(i + 1)
		if p1 == bestPrefix {
			k++
		}
	}
	if i < len(words) {
		h := words[i]
		s := h & mask
		p := h ^ s | uint64(uint32(colo[s]))
		if p > bestPrefix {
			bestPrefix, k = p, 0
		}
		cands[k] = int32(i)
		if p == bestPrefix {
			k++
		}
	}
	return bestPrefix, k
}

// runMin returns the position in cands of the running minimum, in the
// order of cands (at least one index, all of pods with the same class and
// co-location rank rank), by the full comparison lessThan (whose class
// and rank criteria then always tie). A pod that loses to the best so far
// is decided in a loop without a call, exactly as lessThan decides it, in
// lessThan's order: the readiness bucket and the UID when both are ready
// at different times (the common case in a rolling update), otherwise
// the restarts, the creation bucket and the UID, then the UID. The loop
// places a time in the best's bucket by comparing it with the bucket's
// bounds (see [span]), without computing its logarithm. A pod that comes
// first (a new best: rare), a best whose bucket is outside logRank's fast
// path, or an equal UID goes through lessThan. Many tied pods share the
// best's readiness time (truncated to seconds) or are not ready: deciding
// them in the loop saves a call and a mispredicted exit each.
//
// (When the tied pods are ready, restricting cands to those of the lowest
// readiness bucket would give the same pod: one of another bucket was
// ready at another time than one of the lowest, so it never replaces one,
// and the first of the lowest replaces any other. It does not pay: in a
// rolling update nearly every tied pod is in the lowest bucket.)
func runMin(pods []Pod, cands []int32, rank int32, now time.Duration) (at int) {
	b := keyOf(&pods[cands[0]], int(cands[0]), rank, now)
	for j := 1; j < len(cands); j++ {
		readyLo, readyLast := span(b.readyLog)
		createdLo, createdLast := span(b.createdLog)
		for ; j < len(cands); j++ {
			p := &pods[cands[j]]
			if p.Ready && b.ready && p.ReadyAt != b.readyAt {
				if d := now - p.ReadyAt; uint64(d)-readyLo < readyLo {
					if p.UID > b.uid {
						continue // the best's bucket, a larger UID
					}
				} else if d > readyLast {
					continue // an older bucket
				}
				break // comes first, or lessThan decides
			}
			if p.Restarts != b.restarts {
				if p.Restarts > b.restarts {
					break // comes first
				}
				continue
			}
			if p.Created != b.createdAt { // as for readiness above, written out: a shared function costs runMin 11 % more instructions
				if d := now - p.Created; uint64(d)-createdLo < createdLo {
					if p.UID > b.uid {
						continue // the best's bucket, a larger UID
					}
				} else if d > createdLast {
					continue // an older bucket
				}
				break // comes first, or lessThan decides
			}
			if p.UID <= b.uid {
				break // comes first, or the index decides
			}
		}
		if j == len(cands) {
			break
		}
		i := int(cands[j])
		if lessThan(&pods[i], i, rank, &b, now) {
			at, b = j, keyOf(&pods[i], i, rank, now)
		}
	}
	return at
}

// span describes the durations d with logRank(d) == l, for l in
// logRank's fast path (0 to 49): d-lo < lo as unsigned integers, that is
// lo ≤ d < 2*lo; every d > last has a larger logRank (the slow path above
// 2^50 included), every smaller d (0 and negative included) a smaller
// one. For any other l it describes no duration and no larger one (lo 0,
// last the largest duration), so that runMin sends every comparison with
// such a bucket to lessThan.
func span(l int64) (lo uint64, last time.Duration) {
	if l < 0 || l >= 50 {
		return 0, math.MaxInt64
	}
	return 1 << l, 1<<(l+1) - 1
}

// first returns the indices of the first n keys and keeps keys' memory.
func (pk *Picker) first(keys []key, n int) []int32 {
	out := pk.out[:0]
	for _, k := range keys[:n] {
		out = append(out, k.idx)
	}
	pk.keys, pk.out = keys[:0], out
	return out
}

// selectHeap returns the n active pods that come first, in that order: a
// max-heap of the best n seen so far over one pass, then a sort of those
// n.
func (pk *Picker) selectHeap(pods []Pod, colo []int32, n int, now time.Duration) []int32 {
	h := slices.Grow(pk.keys[:0], n)
	// sift restores the max-heap order (the worst kept pod at h[0]) below i.
	sift := func(i int) {
		for {
			l, worst := 2*i+1, i
			if l < len(h) && order(h[l], h[worst]) > 0 {
				worst = l
			}
			if r := l + 1; r < len(h) && order(h[r], h[worst]) > 0 {
				worst = r
			}
			if worst == i {
				return
			}
			h[i], h[worst] = h[worst], h[i]
			i = worst
		}
	}
	for i := range pods {
		p := &pods[i]
		if !p.Active {
			continue
		}
		switch {
		case len(h) < n:
			h = append(h, keyOf(p, i, colo[p.Slot], now))
			for j := len(h) - 1; j > 0; {
				parent := (j - 1) / 2
				if order(h[j], h[parent]) <= 0 {
					break
				}
				h[j], h[parent] = h[parent], h[j]
				j = parent
			}
		case lessThan(p, i, colo[p.Slot], &h[0], now):
			// comes before the last kept pod (the key is built only then)
			h[0] = keyOf(p, i, colo[p.Slot], now)
			sift(0)
		}
	}
	slices.SortFunc(h, order)
	return pk.first(h, n)
}
