package ranking

import (
	"slices"
	"time"
)

// Index keeps the active pods of one large ReplicaSet in the ranking's
// order, so that [Picker.Pick] finds the few pods a scale-down deletes
// without visiting every pod. A simulator keeps it beside the pods and
// words it indexes ([Index.Set], [Index.Remove]); it is worth its upkeep
// only for ReplicaSets that Pick would rank with its bounded heap (see
// [Heaped]). The zero Index indexes no pod; [NewIndex] indexes a set.
//
// When the pods all have the same restart count and their creation times
// the same logarithmic bucket at the ranking's instant (the old pods of a
// rolling update, created together, never restarted), upstream's
// comparator is a strict total order over them: the class, the
// co-location rank, for ready pods the readiness bucket, then the UID.
// (Two ready pods with the same readiness time fall through to restarts
// and creation, equal or in one bucket, then to the UID; two with
// different times in one bucket go to the UID directly.) The bounded heap
// then gives the first n pods of that order, and so does the index: it
// groups the active pods by class, node slot and readiness time (whole
// seconds), each group sorted by UID, so that the first pods are a merge
// of the heads of the groups in the best prefix's slots. Otherwise Pick
// runs the heap over every pod, as without an index: upstream's
// comparator is then not transitive in every case, and the heap's picks
// depend on the order in which it sees the pods.
type Index struct {
	refs   []ref    // refs[i]: the group and position of pods[i]'s entry (g 0: none)
	groups []*group // by number-1 (ref.g); nil: free
	free   []int32  // free group numbers
	bins   map[binKey]*bin
	list   []*bin // every bin, in creation order
	// restarts and created count the active pods by restart count and
	// creation time; lo and hi are created's smallest and largest keys.
	restarts map[int32]int32
	created  map[time.Duration]int32
	lo, hi   time.Duration
	live     int // indexed (active) pods
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
// readiness time, in increasing time; otherwise one group.
type bin struct {
	key    binKey
	live   int
	groups []int32 // group numbers
}

// group holds the entries of the pods of one bin with one readiness time
// (ready pods) or of the whole bin: ents[head:sorted] in increasing UID,
// ents[sorted:] in arrival order, dead of ents[head:] removed.
type group struct {
	b             *bin
	readyAt       time.Duration
	ents          []entry
	head, sorted  int
	live, dead    int
	cursor, order int // scratch of a pick: the merge's position, the group's bucket
}

// NewIndex returns the index of the active pods of pods.
func NewIndex(pods []Pod) *Index {
	x := &Index{}
	for i := range pods {
		x.Set(i, &Pod{}, &pods[i])
	}
	return x
}

// Heaped reports whether Pick ranks active pods for n deletions with its
// bounded heap (or, with an index, through the index): the ReplicaSets
// worth an index are those for which it does.
func Heaped(active, n int) bool { return active > HeapMinActive && n*8 < active }

// Set records that pods[i] changed from old to p (a new pod: i is the
// number of pods so far, and old the zero Pod).
func (x *Index) Set(i int, old, p *Pod) {
	if i == len(x.refs) {
		x.refs = append(x.refs, ref{})
	}
	if old.Active {
		x.count(old, -1)
	}
	if p.Active {
		x.count(p, 1)
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
	return len(x.restarts) <= 1 && (len(x.created) <= 1 || logRank(now-x.lo) == logRank(now-x.hi))
}

// add adds pods[i], which is p (active), to its group and returns its ref.
func (x *Index) add(i int, p *Pod) ref {
	k := binKey{class: p.Class, ready: p.Ready, slot: p.Slot}
	if x.bins == nil {
		x.bins = map[binKey]*bin{}
	}
	b := x.bins[k]
	if b == nil {
		b = &bin{key: k}
		x.bins[k] = b
		x.list = append(x.list, b)
	}
	var at time.Duration
	if p.Ready {
		at = p.ReadyAt
	}
	// the group of at: most often the latest
	j := len(b.groups)
	if j == 0 || x.groups[b.groups[j-1]-1].readyAt != at {
		j, _ = slices.BinarySearchFunc(b.groups, at, func(g int32, at time.Duration) int {
			return compareDurations(x.groups[g-1].readyAt, at)
		})
		if j == len(b.groups) || x.groups[b.groups[j]-1].readyAt != at {
			b.groups = slices.Insert(b.groups, j, x.newGroup(b, at))
		}
	} else {
		j--
	}
	gn := b.groups[j]
	g := x.groups[gn-1]
	g.ents = append(g.ents, entry{uid: p.UID, idx: int32(i)})
	g.live++
	b.live++
	return ref{g: gn, pos: int32(len(g.ents) - 1)}
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
	g.ents[r.pos].idx = -1
	g.live--
	g.dead++
	g.b.live--
	switch {
	case g.live == 0:
		b := g.b
		j := slices.Index(b.groups, r.g)
		b.groups = slices.Delete(b.groups, j, j+1)
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
// be total (see total), with co-location counts colo at now.
func (x *Index) pick(out []int32, colo []int32, n int, now time.Duration, pk *Picker) []int32 {
	tier := pk.tier[:0]
	var done uint64 = 1<<64 - 1 // the prefixes above this one are used up
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
		out = x.merge(out, tier, n, now, pk)
		done = best
	}
	pk.tier = tier[:0]
	return out
}

// merge appends to out, up to n in all, the pods of the bins of tier (of
// one class) in the order of their readiness bucket (ready pods), then
// their UID: a merge of the groups' heads.
func (x *Index) merge(out []int32, tier []*bin, n int, now time.Duration, pk *Picker) []int32 {
	h := pk.heads[:0]
	for _, b := range tier {
		for _, gn := range b.groups {
			g := x.groups[gn-1]
			x.ready(gn, g)
			g.cursor, g.order = g.head, 0
			if b.key.ready {
				g.order = int(logRank(now - g.readyAt))
			}
			h = append(h, gn)
		}
	}
	less := func(a, b int32) bool {
		ga, gb := x.groups[a-1], x.groups[b-1]
		if ga.order != gb.order {
			return ga.order < gb.order
		}
		return ga.ents[ga.cursor].uid < gb.ents[gb.cursor].uid
	}
	sift := func(i int) {
		for {
			l, m := 2*i+1, i
			if l < len(h) && less(h[l], h[m]) {
				m = l
			}
			if r := l + 1; r < len(h) && less(h[r], h[m]) {
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
		g := x.groups[h[0]-1]
		out = append(out, g.ents[g.cursor].idx)
		g.cursor++
		for g.cursor < len(g.ents) && g.ents[g.cursor].idx < 0 {
			g.cursor++
		}
		if g.cursor == len(g.ents) {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		sift(0)
	}
	pk.heads = h[:0]
	return out
}
