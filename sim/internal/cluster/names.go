package cluster

import (
	"math/bits"
	"slices"
	"strings"
)

// podNames holds the names of the pods, for generateName's uniqueness
// check and look-ups by name. A name of the shape generateName gives
// (a prefix, "-", five characters of the API server's alphabet) is kept as
// its suffix, packed in an integer, in the set of its prefix; the set of a
// ReplicaSet's prefix is at hand from its record, so the check of a new
// name reads a small map of the ReplicaSet's own pods instead of one of
// every pod. Other names are kept whole. Names are unique across
// namespaces (the simulator keys pods by name).
type podNames struct {
	byPrefix map[string]*nameSet
	other    map[string]*Pod
	n        int
}

// nameSet holds the pods of one generateName prefix by suffix code: an
// open-addressing table with linear probing (a ReplicaSet's pods are a few
// kilobytes of codes, which stay in cache where a map's groups do not),
// at most half full, deleting by shifting back the entries that follow
// (no tombstones).
type nameSet struct {
	keys  []uint32 // code+1 of each slot's pod; 0: empty
	pods  []*Pod
	shift uint8 // 32 - log2(len(keys))
	n     int
}

// home is the slot where code's probe starts (Fibonacci hashing).
func (s *nameSet) home(code uint32) int { return int((code * 2654435769) >> s.shift) }

// find returns the slot of code, or the empty slot where it would go.
func (s *nameSet) find(code uint32) int {
	mask := len(s.keys) - 1
	i := s.home(code)
	for s.keys[i] != 0 && s.keys[i] != code+1 {
		i = (i + 1) & mask
	}
	return i
}

// get returns the pod of code, or nil. A code not in s (a new name's, the
// common case) is answered from the keys alone, without loading pods.
func (s *nameSet) get(code uint32) *Pod {
	if s.n == 0 {
		return nil
	}
	i := s.find(code)
	if s.keys[i] == 0 {
		return nil
	}
	return s.pods[i]
}

// reserve makes room for n entries in all.
func (s *nameSet) reserve(n int) {
	if 2*n > len(s.keys) {
		s.grow(n)
	}
}

// put adds code's pod p (code must not be in s).
func (s *nameSet) put(code uint32, p *Pod) {
	s.reserve(s.n + 1)
	i := s.find(code)
	s.keys[i], s.pods[i] = code+1, p
	s.n++
}

// grow makes room for n entries: the table at least doubles (16 slots
// the first time).
func (s *nameSet) grow(n int) {
	keys, pods := s.keys, s.pods
	size := max(16, 2*len(keys))
	for size < 2*n {
		size *= 2
	}
	s.keys, s.pods = make([]uint32, size), make([]*Pod, size)
	s.shift = uint8(32 - bits.Len(uint(size-1)))
	s.n = 0
	for i, k := range keys {
		if k != 0 {
			s.put(k-1, pods[i])
		}
	}
}

// del removes code (which must be in s), shifting back the entries of its
// probe run that would no longer be found.
func (s *nameSet) del(code uint32) {
	mask := len(s.keys) - 1
	i := s.find(code)
	for j := (i + 1) & mask; s.keys[j] != 0; j = (j + 1) & mask {
		// the entry at j may move to i when its home is not in (i, j]
		if h := s.home(s.keys[j] - 1); (j-h)&mask >= (j-i)&mask {
			s.keys[i], s.pods[i] = s.keys[j], s.pods[j]
			i = j
		}
	}
	s.keys[i], s.pods[i] = 0, nil
	s.n--
}

// suffixLen is the length of generateName's random suffix.
const suffixLen = 5

// podNameAlphabet is the API server's alphabet of generated suffixes.
const podNameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// alphabetIndex maps a byte to its position in podNameAlphabet plus one
// (0: not in it).
var alphabetIndex = func() (t [256]uint8) {
	for i := range len(podNameAlphabet) {
		t[podNameAlphabet[i]] = uint8(i + 1)
	}
	return t
}()

// splitName returns the prefix and the suffix code of a generated name;
// ok is false for a name of another shape.
func splitName(name string) (prefix string, code uint32, ok bool) {
	n := len(name) - suffixLen - 1
	if n < 0 || name[n] != '-' {
		return "", 0, false
	}
	for i := n + 1; i < len(name); i++ {
		d := alphabetIndex[name[i]]
		if d == 0 {
			return "", 0, false
		}
		code = code*uint32(len(podNameAlphabet)) + uint32(d-1)
	}
	return name[:n], code, true
}

func newPodNames() podNames {
	return podNames{byPrefix: map[string]*nameSet{}, other: map[string]*Pod{}}
}

// set returns the set of prefix, made empty the first time.
func (ns *podNames) set(prefix string) *nameSet {
	s := ns.byPrefix[prefix]
	if s == nil {
		s = &nameSet{}
		ns.byPrefix[prefix] = s
	}
	return s
}

// add records p under its name (which must be free).
func (ns *podNames) add(p *Pod) {
	if prefix, code, ok := splitName(p.Name); ok {
		p.names, p.code = ns.set(prefix), code
		p.names.put(code, p)
	} else {
		ns.other[p.Name] = p
	}
	ns.n++
}

// remove forgets p's name.
func (ns *podNames) remove(p *Pod) {
	switch {
	case p.inRS:
		p.RS.names.del(p.code)
	case p.names != nil:
		p.names.del(p.code)
	default:
		delete(ns.other, p.Name)
	}
	ns.n--
}

// get returns the pod of that name, or nil.
func (ns *podNames) get(name string) *Pod {
	if prefix, code, ok := splitName(name); ok {
		if s := ns.byPrefix[prefix]; s != nil {
			return s.get(code)
		}
		return nil
	}
	return ns.other[name]
}

// sorted returns every pod, in name order.
func (ns *podNames) sorted() []*Pod {
	out := make([]*Pod, 0, ns.n)
	for _, s := range ns.byPrefix {
		for _, p := range s.pods {
			if p != nil {
				out = append(out, p)
			}
		}
	}
	for _, p := range ns.other {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *Pod) int { return strings.Compare(a.Name, b.Name) })
	return out
}
