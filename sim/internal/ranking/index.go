package ranking

import (
	"math"
	"slices"
	"time"
)

// Index keeps the active pods of one large ReplicaSet in the ranking's
// order, so that [Picker.Pick] finds the few pods a scale-down deletes
// without visiting every pod. A simulator keeps it beside the pods and
// words it indexes ([Index.Set], [Index.Remove]); it is worth its upkeep
// for ReplicaSets large enough for Pick's bounded heap (see [Heaped]),
// and then serves every pick of the ReplicaSet, the last pods' included.
// The zero Index indexes no pod; [NewIndex] indexes a set.
//
// When the pods all have the same restart count and their creation times
// the same logarithmic bucket at the ranking's instant (the old pods of a
// rolling update, created together, never restarted), and their classes
// say whether they are ready (as a simulator's do), upstream's
// comparator is a strict total order over them: the class, the
// co-location rank, for ready pods the readiness bucket, then the UID.
// (Two ready pods with the same readiness time fall through to restarts
// and creation, equal or in one bucket, then to the UID; two with
// different times in one bucket go to the UID directly.) The passes, the
// sort and the bounded heap then all give the first n pods of that order,
// and so does the index: it groups the active pods by class, node slot
// and readiness time (whole seconds), each group sorted by UID, so that
// the first pods are a merge of the heads of the groups in the best
// prefix's slots (a heap of the slots' bins, each with its first pod kept
// from one pick to the next while it stays first). Otherwise Pick ranks
// as without an index: upstream's comparator is then not transitive in
// every case, and what the passes, the sort and the heap pick depends on
// the order in which they see the pods.
type Index struct {
	refs   []ref    // refs[i]: the group and position of pods[i]'s entry (g 0: none)
	groups []*group // by number-1 (ref.g); nil: free
	free   []int32  // free group numbers
	bySlot [][]*bin // the bins of each node slot
	list   []*bin   // every bin, in creation order
	// restarts and created count the active pods by restart count and
	// creation time; lo and hi are created's smallest and largest keys.
	restarts map[int32]int32
	created  map[time.Duration]int32
	lo, hi   time.Duration
	live     int    // indexed (active) pods
	odd      int    // indexed pods whose class says otherwise than Ready
	stamp    uint32 // numbers the picks
}

// ref is where a pod's entry is: group number g (0 for none: the pod is
// not active) and position pos in its entries.
type ref struct{ g, pos int32 }

// entry is one indexed pod: its UID and its index in the pods (-1: the
// pod left the group since).
type entry struct {
	uid uint64
	idx int32
}

// binKey identifies a bin: the pods of one class, readiness and node
// slot, whose prefix (class, co-location rank) is the same at any
// ranking.
type binKey struct {
	class uint8
	ready bool
	slot  int32
}

// bin holds the groups of one binKey: for ready pods one group per
// readiness time, otherwise one group. Its first pod at a ranking (its
// candidate) is kept from one pick to the next while the bin's pods are
// the same (version) and the ranking's instant is in [from, until), in
// which the candidate's group keeps its readiness bucket.
type bin struct {
	key  binKey
	live int
	// heads sums up the groups, in increasing readiness time: what
	// finding the candidate reads, in contiguous memory
	heads   []head
	version uint32 // bumped at every change of the bin's pods

	// the candidate, computed at version, for rankings in [from, until)
	// (kept: beyond the pick that computed it)
	cand        cand
	cached      uint32
	kept        bool
	from, until time.Duration
	stamp       uint32 // the last pick that took pods of the bin
}

// head sums up a group in its bin: its readiness time, its number and
// its smallest UID (stale: to be read again from the group); in the pick
// stamp, after pods of the group were taken, next is the smallest UID of
// the others (done: none).
type head struct {
	readyAt time.Duration
	uid     uint64
	g       int32
	stale   bool
	done    bool
	stamp   uint32
	next    uint64
}

// cand is a bin's first pod at a ranking: its readiness bucket (0 for pods
// not ready), its UID and its group's place j in the bin's heads.
type cand struct {
	order int64
	uid   uint64
	j     int32 // -1: none
}

// before reports whether a goes before b in the order of a tier.
func (a *cand) before(b *cand) bool {
	if a.order != b.order {
		return a.order < b.order
	}
	return a.uid < b.uid
}

// group holds the entries of the pods of one bin with one readiness time
// (ready pods) or of the whole bin: ents[head:sorted] in increasing UID,
// ents[sorted:] in arrival order, dead of ents[head:] removed.
type group struct {
	b            *bin
	j            int // the group's place in b.heads
	readyAt      time.Duration
	ents         []entry
	head, sorted int
	live, dead   int
	cursor       int // the pick's next entry (see head.stamp)
}

// NewIndex returns the index of the active pods of pods.
func NewIndex(pods []Pod) *Index {
	x := &Index{}
	for i := range pods {
		x.Set(i, &Pod{}, &pods[i])
	}
	return x
}

// Heaped reports whether Pick without an index ranks active pods for n
// deletions with its bounded heap: the ReplicaSets worth an index are
// those for which it does.
func Heaped(active, n int) bool { return active > HeapMinActive && n*8 < active }

// Set records that pods[i] changed from old to p (a new pod: i is the
// number of pods so far, and old the zero Pod).
func (x *Index) Set(i int, old, p *Pod) {
	if i == len(x.refs) {
		x.refs = append(x.refs, ref{})
	}
	if old.Active != p.Active || old.Restarts != p.Restarts || old.Created != p.Created || old.Ready != p.Ready || old.Class != p.Class {
		if old.Active {
			x.count(old, -1)
		}
		if p.Active {
			x.count(p, 1)
		}
	}
	r := x.refs[i]
	if r.g != 0 && p.Active {
		g := x.groups[r.g-1]
		if k := g.b.key; k.class == p.Class && k.ready == p.Ready && k.slot == p.Slot && (!p.Ready || g.readyAt == p.ReadyAt) {
			return // same group
		}
	}
	if r.g != 0 {
		x.drop(r)
		x.refs[i] = ref{}
	}
	if p.Active {
		x.refs[i] = x.add(i, p)
	}
}

// Remove records that pods[i], which was old, was removed and the last
// pod moved to its place (the last index removed when i is the last).
func (x *Index) Remove(i int, old *Pod) {
	if old.Active {
		x.count(old, -1)
	}
	if r := x.refs[i]; r.g != 0 {
		x.drop(r)
		x.refs[i] = ref{}
	}
	last := len(x.refs) - 1
	r := x.refs[last]
	x.refs[i] = r
	if r.g != 0 {
		x.groups[r.g-1].ents[r.pos].idx = int32(i)
	}
	x.refs = x.refs[:last]
}

// count adds d to p's restart count and creation time.
func (x *Index) count(p *Pod, d int32) {
	if x.restarts == nil {
		x.restarts, x.created = map[int32]int32{}, map[time.Duration]int32{}
	}
	x.live += int(d)
	if p.Ready != (p.Class&1 != 0) {
		x.odd += int(d)
	}
	if x.restarts[p.Restarts] += d; x.restarts[p.Restarts] == 0 {
		delete(x.restarts, p.Restarts)
	}
	c := p.Created
	n := x.created[c] + d
	switch {
	case n == 0:
		delete(x.created, c)
		if c == x.lo || c == x.hi {
			x.bounds()
		}
	case n == d: // a new key
		x.created[c] = n
		if len(x.created) == 1 {
			x.lo, x.hi = c, c
		}
		x.lo, x.hi = min(x.lo, c), max(x.hi, c)
	default:
		x.created[c] = n
	}
}

// bounds recomputes lo and hi from created's keys.
func (x *Index) bounds() {
	first := true
	for c := range x.created {
		if first {
			x.lo, x.hi, first = c, c, false
		}
		x.lo, x.hi = min(x.lo, c), max(x.hi, c)
	}
}

// total reports whether upstream's comparator is a strict total order over
// the indexed pods at now (see the type's comment).
func (x *Index) total(now time.Duration) bool {
	return x.odd == 0 && len(x.restarts) <= 1 && (len(x.created) <= 1 || logRank(now-x.lo) == logRank(now-x.hi))
}

// add adds pods[i], which is p (active), to its group and returns its ref.
func (x *Index) add(i int, p *Pod) ref {
	k := binKey{class: p.Class, ready: p.Ready, slot: p.Slot}
	if int(k.slot) >= len(x.bySlot) {
		x.bySlot = slices.Grow(x.bySlot, int(k.slot)+1-len(x.bySlot))[:k.slot+1]
	}
	var b *bin
	for _, c := range x.bySlot[k.slot] { // a few classes at most
		if c.key == k {
			b = c
			break
		}
	}
	if b == nil {
		b = &bin{key: k}
		x.bySlot[k.slot] = append(x.bySlot[k.slot], b)
		x.list = append(x.list, b)
	}
	var at time.Duration
	if p.Ready {
		at = p.ReadyAt
	}
	// the group of at: most often the latest
	j := len(b.heads) - 1
	if j < 0 || b.heads[j].readyAt != at {
		var found bool
		j, found = slices.BinarySearchFunc(b.heads, at, func(h head, at time.Duration) int {
			return compareDurations(h.readyAt, at)
		})
		if !found {
			gn := x.newGroup(b, at)
			b.heads = slices.Insert(b.heads, j, head{readyAt: at, g: gn, uid: p.UID})
			x.renumber(b, j)
		}
	}
	h := &b.heads[j]
	g := x.groups[h.g-1]
	g.ents = append(g.ents, entry{uid: p.UID, idx: int32(i)})
	g.live++
	b.live++
	b.version++
	if p.UID < h.uid {
		h.uid = p.UID
	}
	return ref{g: h.g, pos: int32(len(g.ents) - 1)}
}

// renumber sets the places of b's groups from j on.
func (x *Index) renumber(b *bin, j int) {
	for ; j < len(b.heads); j++ {
		x.groups[b.heads[j].g-1].j = j
	}
}

func compareDurations(a, b time.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// newGroup returns the number of a new empty group of b.
func (x *Index) newGroup(b *bin, at time.Duration) int32 {
	if n := len(x.free); n > 0 {
		gn := x.free[n-1]
		x.free = x.free[:n-1]
		*x.groups[gn-1] = group{b: b, readyAt: at, ents: x.groups[gn-1].ents[:0]}
		return gn
	}
	x.groups = append(x.groups, &group{b: b, readyAt: at})
	return int32(len(x.groups))
}

// drop removes the entry at r; an empty group leaves its bin.
func (x *Index) drop(r ref) {
	g := x.groups[r.g-1]
	b := g.b
	e := &g.ents[r.pos]
	if h := &b.heads[g.j]; e.uid == h.uid {
		h.stale = true // its smallest UID left
	}
	e.idx = -1
	g.live--
	g.dead++
	b.live--
	b.version++
	switch {
	case g.live == 0:
		b.heads = slices.Delete(b.heads, g.j, g.j+1)
		x.renumber(b, g.j)
		clear(g.ents)
		g.ents, g.head, g.sorted, g.dead = g.ents[:0], 0, 0, 0
		x.free = append(x.free, r.g)
	case g.dead > 32 && g.dead > g.live:
		x.compact(r.g, g)
	}
}

// compact drops g's removed entries, sorts them all by UID and updates
// their refs.
func (x *Index) compact(gn int32, g *group) {
	head := g.ents[g.head:g.sorted]
	tail := g.ents[g.sorted:]
	slices.SortFunc(tail, func(a, b entry) int { return compareUIDs(a.uid, b.uid) })
	out := make([]entry, 0, g.live+g.live/4)
	i, j := 0, 0
	for i < len(head) || j < len(tail) {
		var e entry
		if j == len(tail) || i < len(head) && head[i].uid < tail[j].uid {
			e, i = head[i], i+1
		} else {
			e, j = tail[j], j+1
		}
		if e.idx >= 0 {
			x.refs[e.idx] = ref{g: gn, pos: int32(len(out))}
			out = append(out, e)
		}
	}
	g.ents, g.head, g.sorted, g.dead = out, 0, len(out), 0
	if len(out) > 0 {
		hd := &g.b.heads[g.j]
		hd.uid, hd.stale = out[0].uid, false
	}
}

func compareUIDs(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ready makes g's entries sorted from its head, the removed ones at the
// head skipped.
func (x *Index) ready(gn int32, g *group) {
	if g.sorted < len(g.ents) {
		x.compact(gn, g)
		return
	}
	for g.head < len(g.ents) && g.ents[g.head].idx < 0 {
		g.head++
		g.dead--
	}
}

// pick appends to out the indices of the first n indexed pods (n below
// the number of indexed pods) in the order of the comparator, which must
// be total (see total), with co-location counts colo at now: the pods of
// the best prefix's bins (a tier), then of the next prefix's, and so on.
func (x *Index) pick(out []int32, colo []int32, n int, now time.Duration, pk *Picker) []int32 {
	x.stamp++
	if x.stamp == 0 { // wrapped: no bin or head may keep an old stamp
		for _, b := range x.list {
			b.stamp = 0
			for j := range b.heads {
				b.heads[j].stamp = 0
			}
		}
		x.stamp = 1
	}
	tier := pk.tier[:0]
	var done uint64 = 1<<64 - 1 // the prefixes from this one up are used up
	for len(out) < n {
		// the best prefix below done, and its bins
		var best uint64
		tier = tier[:0]
		for _, b := range x.list {
			if b.live == 0 {
				continue
			}
			p := prefix(uint64(255-b.key.class)<<32, colo[b.key.slot])
			switch {
			case p >= done || p < best:
			case p > best:
				best, tier = p, append(tier[:0], b)
			default:
				tier = append(tier, b)
			}
		}
		if len(tier) == 0 {
			break // fewer than n pods: not a caller's case
		}
		out = x.merge(out, tier, n, now)
		done = best
	}
	pk.tier = tier[:0]
	return out
}

// merge appends to out, up to n in all, the pods of the bins of tier (one
// prefix, so one class) in the order of their readiness bucket (ready
// pods), then their UID: a heap of the bins by their candidates.
func (x *Index) merge(out []int32, tier []*bin, n int, now time.Duration) []int32 {
	h := tier[:0] // the bins with a candidate, a min-heap
	for _, b := range tier {
		if x.candidate(b, now).j >= 0 {
			h = append(h, b)
		}
	}
	sift := func(i int) {
		for {
			l, m := 2*i+1, i
			if l < len(h) && h[l].cand.before(&h[m].cand) {
				m = l
			}
			if r := l + 1; r < len(h) && h[r].cand.before(&h[m].cand) {
				m = r
			}
			if m == i {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		sift(i)
	}
	for len(out) < n && len(h) > 0 {
		b := h[0]
		out = append(out, x.take(b))
		if len(out) == n {
			break // b's next candidate is not needed
		}
		if x.candidate(b, now).j < 0 {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		sift(0)
	}
	return out
}

// take returns the index of b's candidate, taken by the pick x.stamp.
func (x *Index) take(b *bin) int32 {
	b.stamp, b.kept = x.stamp, false
	hd := &b.heads[b.cand.j]
	g := x.groups[hd.g-1]
	if hd.stamp != x.stamp {
		x.ready(hd.g, g)
		hd.stamp, g.cursor = x.stamp, g.head
	}
	idx := g.ents[g.cursor].idx
	g.cursor++
	for g.cursor < len(g.ents) && g.ents[g.cursor].idx < 0 {
		g.cursor++
	}
	hd.done = g.cursor == len(g.ents)
	if !hd.done {
		hd.next = g.ents[g.cursor].uid
	}
	return idx
}

// candidate sets and returns b's candidate at now (j -1 when the pick
// x.stamp took every pod of b): its first pod not taken, the smallest UID
// among its groups of the lowest readiness bucket. The candidate is kept
// while b's pods are the same and its group stays in its bucket, unless
// the pick took pods of b.
func (x *Index) candidate(b *bin, now time.Duration) *cand {
	if b.kept && b.cached == b.version && b.from <= now && now < b.until {
		return &b.cand
	}
	best := cand{j: -1}
	for j := range b.heads {
		hd := &b.heads[j]
		uid := hd.uid
		switch {
		case hd.stamp == x.stamp:
			if hd.done {
				continue
			}
			uid = hd.next
		case hd.stale:
			g := x.groups[hd.g-1]
			x.ready(hd.g, g)
			hd.uid, hd.stale = g.ents[g.head].uid, false
			uid = hd.uid
		}
		c := cand{uid: uid, j: int32(j)}
		if b.key.ready {
			c.order = logRank(now - hd.readyAt)
		}
		if best.j < 0 || c.before(&best) {
			best = c
		}
	}
	// The candidate's group keeps its bucket until its bucket's end; the
	// others' buckets only grow, so none of them comes first before.
	until := time.Duration(math.MaxInt64)
	if best.j >= 0 && b.key.ready {
		until = bucketEnd(b.heads[best.j].readyAt, best.order, now)
	}
	// (a candidate after pods taken by this pick holds for this pick only)
	b.cand, b.cached, b.kept, b.from, b.until = best, b.version, b.stamp != x.stamp, now, until
	return &b.cand
}

// bucketEnd is the first instant, after now, at which the readiness
// bucket of a pod ready at readyAt is no longer l (its bucket at now);
// now+1 (no caching) where logRank leaves its fast path.
func bucketEnd(readyAt time.Duration, l int64, now time.Duration) time.Duration {
	switch {
	case l < 0:
		return readyAt + 1 // since: 0 or less, until it is 1
	case l >= 49:
		return now + 1
	}
	return readyAt + 1<<(l+1)
}
