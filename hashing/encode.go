package hashing

import (
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// This file holds the fast writer behind [PodTemplateHash]. It prints a Go
// value in the byte format that go-spew produces for
// ConfigState{SortKeys, DisableMethods, SpewKeys, ...}.Sprintf("%#v", v), the
// configuration of k8s.io/utils/dump.ForHash, and feeds those bytes straight
// into an FNV-1a (32 bit) state instead of building the string.
//
// The format in short (the "%#v" verb of spew's Formatter, not its Dump):
//
//   - every value not inside a slice, array or map and not reached through a
//     pointer is preceded by its type in parentheses: (string)nginx, (int64)0;
//   - strings are written raw (no quotes, no length), numbers in base 10;
//   - structs are {Field:value Field:value}, unexported fields included;
//   - slices and arrays are [a b c], maps are map[k:v k:v] with keys sorted;
//     their elements carry no type;
//   - nil slices, maps, pointers and interfaces print <nil>; a pointer prints
//     the pointer type ((*int64)5, (*int64)<nil>) or, inside a container,
//     <*>5 / <nil>;
//   - a pointer already seen at a shallower depth of the current walk prints
//     <shown> (spew's cycle guard, which also fires for aliased pointers).
//
// spew keeps one mutable "omit the next type" flag across the whole walk; a
// nil pointer inside a container leaves that flag set, so the next struct
// field after the container is printed without its type. The writer models
// that flag exactly as spew does, so such quirks come out byte-identical.
//
// Whatever the writer does not reproduce (map keys that spew would sort by
// their own spew rendering or as floats, maps reached through unexported
// fields) sets the failed flag and the caller falls back to spew itself.
// Pod templates contain neither.

const (
	fnvOffset32 uint32 = 2166136261
	fnvPrime32  uint32 = 16777619
)

// typeInfo is the immutable, precomputed description of one Go type.
type typeInfo struct {
	typ    reflect.Type
	kind   reflect.Kind
	name   string // typ.String()
	header string // "(" + name + ")"
	stars  int    // number of '*' in name, used for nil/cycle pointer markers
	elem   *typeInfo
	key    *typeInfo
	fields []fieldInfo
}

// fieldInfo describes one struct field: the text written before its value
// (" Name:" or "Name:" for the first field) and the field's type.
type fieldInfo struct {
	label string
	info  *typeInfo
}

// typeCache maps reflect.Type to *typeInfo. Entries are complete and never
// change once stored, so readers need no lock; builders serialise on
// typeBuildMu so that recursive types are built exactly once.
var (
	typeCache   sync.Map
	typeBuildMu sync.Mutex
)

// infoFor returns the description of t, building it (and every type reachable
// from it) on first use.
func infoFor(t reflect.Type) *typeInfo {
	if ti, ok := typeCache.Load(t); ok {
		return ti.(*typeInfo)
	}
	typeBuildMu.Lock()
	defer typeBuildMu.Unlock()
	building := map[reflect.Type]*typeInfo{}
	ti := buildInfo(t, building)
	for typ, info := range building {
		typeCache.Store(typ, info)
	}
	return ti
}

func buildInfo(t reflect.Type, building map[reflect.Type]*typeInfo) *typeInfo {
	if ti, ok := typeCache.Load(t); ok {
		return ti.(*typeInfo)
	}
	if ti, ok := building[t]; ok {
		return ti
	}
	name := t.String()
	ti := &typeInfo{
		typ:    t,
		kind:   t.Kind(),
		name:   name,
		header: "(" + name + ")",
		stars:  strings.Count(name, "*"),
	}
	building[t] = ti
	switch ti.kind {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		ti.elem = buildInfo(t.Elem(), building)
	case reflect.Map:
		ti.key = buildInfo(t.Key(), building)
		ti.elem = buildInfo(t.Elem(), building)
	case reflect.Struct:
		n := t.NumField()
		ti.fields = make([]fieldInfo, n)
		for i := range n {
			f := t.Field(i)
			label := f.Name + ":"
			if i > 0 {
				label = " " + label
			}
			ti.fields[i] = fieldInfo{label: label, info: buildInfo(f.Type, building)}
		}
	}
	return ti
}

// ptrSeen is one entry of spew's pointer map: an address and the depth at
// which it was dereferenced.
type ptrSeen struct {
	addr  uintptr
	depth int
}

// mapEntry is one map entry collected for sorting: the key in sortable form
// and the index of its value in the value scratch slab.
type mapEntry struct {
	s   string // string keys
	n   uint64 // integer keys: int64 bits (offset for order) or uint64
	val int
}

// slab is a reusable slice of values of one type used to hold map values
// while their keys are sorted; used counts the slots taken by the maps
// currently being printed (maps nest).
type slab struct {
	vals reflect.Value
	used int
}

// encoder is the mutable state of one walk. Encoders are pooled; nothing in
// one survives a walk except capacity.
type encoder struct {
	h       uint32
	ignore  bool // spew's ignoreNextType
	depth   int
	failed  bool
	capture bool   // tests: also collect the bytes
	out     []byte // collected bytes when capture is set
	ptrs    []ptrSeen
	entries []mapEntry
	slabs   map[reflect.Type]*slab
	keys    map[reflect.Type]reflect.Value
	iter    reflect.MapIter
	sorter  entrySorter
	num     [72]byte
}

var encoderPool = sync.Pool{New: func() any { return &encoder{} }}

func getEncoder() *encoder {
	e := encoderPool.Get().(*encoder)
	e.h = fnvOffset32
	e.ignore = false
	e.depth = 0
	e.failed = false
	e.capture = false
	e.out = e.out[:0]
	return e
}

func putEncoder(e *encoder) {
	e.ptrs = e.ptrs[:0]
	clear(e.entries[:cap(e.entries)])
	e.entries = e.entries[:0]
	for _, k := range e.keys {
		k.SetZero()
	}
	e.out = e.out[:0]
	encoderPool.Put(e)
}

// root prints v like spew's Formatter does for a top-level argument.
func (e *encoder) root(v reflect.Value, ti *typeInfo) {
	e.value(v, ti)
}

func (e *encoder) str(s string) {
	h := e.h
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= fnvPrime32
	}
	e.h = h
	if e.capture {
		e.out = append(e.out, s...)
	}
}

func (e *encoder) bytes(b []byte) {
	h := e.h
	for _, c := range b {
		h ^= uint32(c)
		h *= fnvPrime32
	}
	e.h = h
	if e.capture {
		e.out = append(e.out, b...)
	}
}

func (e *encoder) stars(n int) {
	for range n {
		e.str("*")
	}
}

func (e *encoder) int(x int64)   { e.bytes(strconv.AppendInt(e.num[:0], x, 10)) }
func (e *encoder) uint(x uint64) { e.bytes(strconv.AppendUint(e.num[:0], x, 10)) }

func (e *encoder) bool(b bool) {
	if b {
		e.str("true")
	} else {
		e.str("false")
	}
}

// hexPtr prints an address the way spew does: <nil> for zero, else 0x...
func (e *encoder) hexPtr(p uintptr) {
	if p == 0 {
		e.str("<nil>")
		return
	}
	b := append(e.num[:0], "0x"...)
	e.bytes(strconv.AppendUint(b, uint64(p), 16))
}

func (e *encoder) float(f float64, bits int) {
	e.bytes(strconv.AppendFloat(e.num[:0], f, 'g', -1, bits))
}

func (e *encoder) complex(c complex128, bits int) {
	b := append(e.num[:0], '(')
	b = strconv.AppendFloat(b, real(c), 'g', -1, bits)
	if imag(c) >= 0 {
		b = append(b, '+')
	}
	b = strconv.AppendFloat(b, imag(c), 'g', -1, bits)
	b = append(b, 'i', ')')
	e.bytes(b)
}

// unpack replaces a non-nil interface by its dynamic value; for any
// interface it clears the omit-type flag, as spew does.
func (e *encoder) unpack(v reflect.Value, ti *typeInfo) (reflect.Value, *typeInfo) {
	if ti.kind == reflect.Interface {
		e.ignore = false
		if !v.IsNil() {
			v = v.Elem()
			ti = infoFor(v.Type())
		}
	}
	return v, ti
}

// value prints v (of type ti) with the current omit-type flag.
func (e *encoder) value(v reflect.Value, ti *typeInfo) {
	if e.failed {
		return
	}
	if ti.kind == reflect.Pointer {
		e.pointer(v, ti)
		return
	}
	if !e.ignore {
		e.str(ti.header)
	}
	e.ignore = false

	switch ti.kind {
	case reflect.Bool:
		e.bool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.int(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		e.uint(v.Uint())
	case reflect.Uintptr:
		e.hexPtr(uintptr(v.Uint()))
	case reflect.Float32:
		e.float(v.Float(), 32)
	case reflect.Float64:
		e.float(v.Float(), 64)
	case reflect.Complex64:
		e.complex(v.Complex(), 32)
	case reflect.Complex128:
		e.complex(v.Complex(), 64)
	case reflect.String:
		e.str(v.String())
	case reflect.Slice:
		if v.IsNil() {
			e.str("<nil>")
			return
		}
		e.list(v, ti)
	case reflect.Array:
		e.list(v, ti)
	case reflect.Interface:
		// Only nil interfaces get here: non-nil ones are unpacked first.
		e.str("<nil>")
	case reflect.Map:
		if v.IsNil() {
			e.str("<nil>")
			return
		}
		e.mapping(v, ti)
	case reflect.Struct:
		e.str("{")
		e.depth++
		for i := range ti.fields {
			f := &ti.fields[i]
			e.str(f.label)
			fv, fi := e.unpack(v.Field(i), f.info)
			e.value(fv, fi)
		}
		e.depth--
		e.str("}")
	case reflect.Chan, reflect.Func, reflect.UnsafePointer:
		e.hexPtr(v.Pointer())
	default:
		e.failed = true
	}
}

func (e *encoder) list(v reflect.Value, ti *typeInfo) {
	e.str("[")
	e.depth++
	n := v.Len()
	for i := range n {
		if i > 0 {
			e.str(" ")
		}
		e.ignore = true
		ev, ei := e.unpack(v.Index(i), ti.elem)
		e.value(ev, ei)
	}
	e.depth--
	e.str("]")
}

// pointer follows spew's pointer handling: the type (or a <*> marker inside
// containers), the cycle guard keyed by address and depth, then the value.
func (e *encoder) pointer(v reflect.Value, ti *typeInfo) {
	if e.ignore && v.IsNil() {
		e.str("<nil>")
		return
	}
	// Forget pointers dereferenced at this depth or deeper.
	kept := e.ptrs[:0]
	for _, p := range e.ptrs {
		if p.depth < e.depth {
			kept = append(kept, p)
		}
	}
	e.ptrs = kept

	indirects := 0
	nilFound, cycle := false, false
	ve, vi := v, ti
	for vi.kind == reflect.Pointer {
		if ve.IsNil() {
			nilFound = true
			break
		}
		indirects++
		addr := ve.Pointer()
		if e.seen(addr) {
			cycle = true
			indirects--
			break
		}
		e.ptrs = append(e.ptrs, ptrSeen{addr: addr, depth: e.depth})
		ve, vi = ve.Elem(), vi.elem
		if vi.kind == reflect.Interface {
			if ve.IsNil() {
				nilFound = true
				break
			}
			ve = ve.Elem()
			vi = infoFor(ve.Type())
		}
	}

	if !e.ignore {
		if (indirects == 1 && vi == ti.elem) || (indirects == 0 && vi == ti) {
			e.str(ti.header)
		} else {
			e.str("(")
			e.stars(indirects)
			e.str(vi.name)
			e.str(")")
		}
	} else {
		n := indirects
		if nilFound || cycle {
			n += vi.stars
		}
		e.str("<")
		e.stars(n)
		e.str(">")
	}

	switch {
	case nilFound:
		e.str("<nil>")
	case cycle:
		e.str("<shown>")
	default:
		e.ignore = true
		e.value(ve, vi)
	}
}

// seen reports whether addr is in the pointer map. Every entry left in the
// map was recorded at a shallower depth, so any hit is what spew treats as a
// circular reference.
func (e *encoder) seen(addr uintptr) bool {
	for _, p := range e.ptrs {
		if p.addr == addr {
			return true
		}
	}
	return false
}

// sortKind classifies map key kinds: spew sorts bool, integer and string
// keys by value. Other key kinds (floats, arrays, structs, pointers,
// interfaces) are left to spew itself.
func sortKind(k reflect.Kind) (ok bool, str bool) {
	switch k {
	case reflect.String:
		return true, true
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true, false
	}
	return false, false
}

// sortableKey turns an integer or bool key into a uint64 with the same order.
func sortableKey(k reflect.Value) uint64 {
	switch k.Kind() {
	case reflect.Bool:
		if k.Bool() {
			return 1
		}
		return 0
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return uint64(k.Int()) ^ (1 << 63)
	default:
		return k.Uint()
	}
}

// entrySorter sorts a window of e.entries by key.
type entrySorter struct {
	ents []mapEntry
	str  bool
}

func (s *entrySorter) Len() int      { return len(s.ents) }
func (s *entrySorter) Swap(i, j int) { s.ents[i], s.ents[j] = s.ents[j], s.ents[i] }
func (s *entrySorter) Less(i, j int) bool {
	if s.str {
		return s.ents[i].s < s.ents[j].s
	}
	return s.ents[i].n < s.ents[j].n
}

// sortEntries sorts map entries by key: insertion sort for the small maps
// of pod templates, sort.Sort beyond. Keys are distinct, so the order is
// total and the same whichever algorithm spew uses.
func (e *encoder) sortEntries(ents []mapEntry, isStr bool) {
	if len(ents) <= 16 {
		for i := 1; i < len(ents); i++ {
			for j := i; j > 0; j-- {
				a, b := &ents[j-1], &ents[j]
				less := b.n < a.n
				if isStr {
					less = b.s < a.s
				}
				if !less {
					break
				}
				*a, *b = *b, *a
			}
		}
		return
	}
	e.sorter = entrySorter{ents: ents, str: isStr}
	sort.Sort(&e.sorter)
	e.sorter = entrySorter{}
}

func (e *encoder) keyScratch(t reflect.Type) reflect.Value {
	if e.keys == nil {
		e.keys = map[reflect.Type]reflect.Value{}
	}
	k, ok := e.keys[t]
	if !ok {
		k = reflect.New(t).Elem()
		e.keys[t] = k
	}
	return k
}

// takeSlots reserves n consecutive settable values of type t.
func (e *encoder) takeSlots(t reflect.Type, n int) (*slab, int) {
	if e.slabs == nil {
		e.slabs = map[reflect.Type]*slab{}
	}
	s, ok := e.slabs[t]
	if !ok {
		s = &slab{}
		e.slabs[t] = s
	}
	if !s.vals.IsValid() || s.used+n > s.vals.Len() {
		size := max(2*(s.used+n), 8)
		// Slots already handed out stay valid in the old backing array.
		s.vals = reflect.MakeSlice(reflect.SliceOf(t), size, size)
	}
	start := s.used
	s.used += n
	return s, start
}

func (e *encoder) mapping(v reflect.Value, ti *typeInfo) {
	e.str("map[")
	e.depth++
	n := v.Len()
	if n > 0 {
		ok, isStr := sortKind(ti.key.kind)
		// Maps reached through unexported fields cannot be iterated into
		// scratch values (reflect forbids copying out of them); spew reads
		// them with MapKeys/MapIndex. None occur in API types; leave them to
		// spew rather than pay for that path.
		if !ok || !v.CanInterface() {
			e.failed = true
			return
		}
		key := e.keyScratch(ti.key.typ)
		sl, start := e.takeSlots(ti.elem.typ, n)
		base := len(e.entries)
		e.iter.Reset(v)
		i := 0
		for e.iter.Next() {
			key.SetIterKey(&e.iter)
			ent := mapEntry{val: start + i}
			if isStr {
				ent.s = key.String()
			} else {
				ent.n = sortableKey(key)
			}
			sl.vals.Index(start + i).SetIterValue(&e.iter)
			e.entries = append(e.entries, ent)
			i++
		}
		e.iter.Reset(reflect.Value{})
		vals := sl.vals
		e.sortEntries(e.entries[base:], isStr)

		for j := base; j < base+n; j++ {
			if j > base {
				e.str(" ")
			}
			ent := e.entries[j]
			e.ignore = true
			e.mapKey(ent, ti.key)
			e.str(":")
			e.ignore = true
			ev, ei := e.unpack(vals.Index(ent.val), ti.elem)
			e.value(ev, ei)
		}
		// Release the slots and drop references to the caller's data.
		for j := start; j < start+n; j++ {
			vals.Index(j).SetZero()
		}
		// If a nested map regrew the slab, the reserved region of the new
		// backing array is released the same way.
		sl.used = start
		clear(e.entries[base:])
		e.entries = e.entries[:base]
		key.SetZero()
	}
	e.depth--
	e.str("]")
}

// mapKey prints a sortable key with the omit-type flag set, which is how
// spew prints map keys (no type; scalars only, see sortKind).
func (e *encoder) mapKey(ent mapEntry, ki *typeInfo) {
	e.ignore = false
	switch ki.kind {
	case reflect.String:
		e.str(ent.s)
	case reflect.Bool:
		e.bool(ent.n == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.int(int64(ent.n ^ (1 << 63)))
	case reflect.Uintptr:
		e.hexPtr(uintptr(ent.n))
	default:
		e.uint(ent.n)
	}
}
