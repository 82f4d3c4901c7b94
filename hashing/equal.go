package hashing

import (
	"reflect"
	"sync"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// This file holds the fast path of [EqualIgnoreHash]: apimachinery's
// equality.Semantic.DeepEqual for PodTemplateSpec, compiled once into a
// tree of comparison steps over raw memory (field offsets, element sizes),
// so that a comparison allocates nothing and stops at the first difference.
//
// The forked reflect.DeepEqual of apimachinery, with Semantic's functions,
// decides as follows, and the compiled steps do the same:
//
//   - a type with a Semantic function is compared by that function, before
//     anything else: resource.Quantity by Cmp == 0 (on copies: Cmp may
//     convert its operands to inf.Dec in place), metav1.Time and
//     metav1.MicroTime by UTC() ==, metav1.FieldsV1 by Equal;
//   - pointers: both nil are equal, one nil is not, otherwise the targets;
//   - slices and maps: nil and empty are equal; otherwise same length and
//     equal elements (a missing map key is a difference);
//   - structs field by field, arrays element by element;
//   - strings, booleans and integers with ==.
//
// Upstream also short-circuits on identical addresses and remembers the
// pairs it has visited (a revisit counts as equal). Neither changes the
// answer when every comparison is deterministic and reflexive and the type
// graph has no cycle, which is exactly what the compiler accepts: a type
// with an unexported field outside the four above (upstream panics on it),
// an interface, a float (NaN is not equal to itself), a function, a
// channel, a map other than map[string]string and ResourceList, a Semantic
// function for a type not listed above, or a recursive type anywhere in
// PodTemplateSpec makes the whole plan unsupported, and EqualIgnoreHash
// then uses equality.Semantic.DeepEqual itself. PodTemplateSpec of
// k8s.io/api v0.37 contains none of them (a test pins it).

// eqOp is the comparison one step performs.
type eqOp uint8

const (
	eqBool eqOp = iota + 1
	eqInt8
	eqInt16
	eqInt32
	eqInt64
	eqString
	eqStruct
	eqPointer
	eqSlice
	eqArray
	eqStringMap   // map[string]string, possibly named
	eqResourceMap // corev1.ResourceList
	eqQuantity
	eqTime
	eqMicroTime
	eqFieldsV1
	eqBytes    // struct steps only: a run of adjacent integers and booleans
	eqPointers // struct steps only: a run of adjacent pointers
)

// eqPlan is the compiled comparison of one Go type. Plans are built once and
// never change.
type eqPlan struct {
	op     eqOp
	size   uintptr   // elements: the element size of slices and arrays
	n      int       // arrays: the length
	elem   *eqPlan   // pointers, slices, arrays
	fields []eqField // structs: the flattened steps, in declaration order
}

// eqField is one step of a struct comparison. Nested struct fields are
// flattened into their parent's steps (offsets added up); adjacent integer
// and boolean fields with no padding between them are merged into one
// eqBytes step comparing size bytes of memory, and adjacent pointer fields
// into one eqPointers step (most pointers of a pod spec are nil on both
// sides, which a tight loop skips quickly).
type eqField struct {
	off   uintptr
	op    eqOp      // plan.op, eqBytes or eqPointers
	size  uintptr   // eqBytes: the length of the run
	plan  *eqPlan   // nil for eqBytes and eqPointers
	elems []*eqPlan // eqPointers: the plans of the pointers' targets
}

// isScalar reports whether op compares integers or booleans, whose memory
// holds no padding and whose equality is equality of their bytes.
func isScalar(op eqOp) bool {
	switch op {
	case eqBool, eqInt8, eqInt16, eqInt32, eqInt64:
		return true
	}
	return false
}

// addField appends f to p's steps, merging a scalar run with the previous
// one when they touch.
func (p *eqPlan) addField(f eqField) {
	if n := len(p.fields); n > 0 {
		last := &p.fields[n-1]
		switch {
		case f.op == eqBytes && last.op == eqBytes && last.off+last.size == f.off:
			last.size += f.size
			return
		case f.op == eqPointers && last.op == eqPointers && last.off+uintptr(len(last.elems))*ptrSize == f.off:
			last.elems = append(last.elems[:len(last.elems):len(last.elems)], f.elems...)
			return
		}
	}
	p.fields = append(p.fields, f)
}

const ptrSize = unsafe.Sizeof(unsafe.Pointer(nil))

// sliceHeader is the memory layout of every Go slice.
type sliceHeader struct {
	data unsafe.Pointer
	len  int
	cap  int
}

// templatePlan is the compiled comparison of a PodTemplateSpec without the
// labels of its metadata (compared separately, ignoring LabelKey); nil when
// the type contains something the compiler does not handle exactly.
var templatePlan = sync.OnceValue(func() *eqPlan {
	return compileTemplatePlan(reflect.TypeFor[corev1.PodTemplateSpec]())
})

// templateEqual compares two templates whose labels are already known to
// be equal (ignoring LabelKey) with the plan of [templatePlan]. (Its caller,
// EqualIgnoreHash, has also compared what differs between the ReplicaSets
// of a rollout first: see imagesEqual.)
//
// If the two templates are the same bytes apart from their labels (one is
// a shallow copy of the other with new labels, as a ReplicaSet's template
// made from a Deployment's in memory), they are equal: every pointer, slice
// and map is the same one, and every comparison the walk would make is
// reflexive (see above). Padding bytes may differ between otherwise
// identical structs; then the walk decides, as it always may.
func (p *eqPlan) templateEqual(a, b *corev1.PodTemplateSpec) bool {
	if sameBytesButLabels(a, b) {
		return true
	}
	return p.equal(unsafe.Pointer(a), unsafe.Pointer(b))
}

// imagesEqual reports whether a and b have as many containers with the
// same images. Those are what differs between the ReplicaSets of a rollout,
// and a difference there is a difference for Semantic.DeepEqual too (slices
// of different lengths, strings that differ): checking them first gives
// the same answer, sooner.
func imagesEqual(a, b *corev1.PodTemplateSpec) bool {
	ca, cb := a.Spec.Containers, b.Spec.Containers
	if len(ca) != len(cb) {
		return false
	}
	for i := range ca {
		if ca[i].Image != cb[i].Image {
			return false
		}
	}
	return true
}

// The labels field of a PodTemplateSpec, as a byte range.
const (
	templateLabelsOff  = unsafe.Offsetof(corev1.PodTemplateSpec{}.ObjectMeta) + unsafe.Offsetof(metav1.ObjectMeta{}.Labels)
	templateLabelsEnd  = templateLabelsOff + unsafe.Sizeof(metav1.ObjectMeta{}.Labels)
	templateSize       = unsafe.Sizeof(corev1.PodTemplateSpec{})
	templateTailLength = templateSize - templateLabelsEnd
)

// sameBytesButLabels reports whether a and b hold the same bytes outside
// their labels field.
func sameBytesButLabels(a, b *corev1.PodTemplateSpec) bool {
	pa, pb := unsafe.Pointer(a), unsafe.Pointer(b)
	if unsafe.String((*byte)(pa), templateLabelsOff) != unsafe.String((*byte)(pb), templateLabelsOff) {
		return false
	}
	ta, tb := unsafe.Add(pa, templateLabelsEnd), unsafe.Add(pb, templateLabelsEnd)
	return unsafe.String((*byte)(ta), templateTailLength) == unsafe.String((*byte)(tb), templateTailLength)
}

// compileTemplatePlan compiles t (PodTemplateSpec) with the Labels field of
// its embedded ObjectMeta left out. It returns nil if t is not supported or
// does not have that shape.
func compileTemplatePlan(t reflect.Type) *eqPlan {
	c := eqCompiler{done: map[reflect.Type]*eqPlan{}, busy: map[reflect.Type]bool{}}
	root := c.compile(t)
	if root == nil || root.op != eqStruct || t.Kind() != reflect.Struct {
		return nil
	}
	metaField, ok := t.FieldByName("ObjectMeta")
	if !ok || metaField.Type != reflect.TypeFor[metav1.ObjectMeta]() || len(metaField.Index) != 1 {
		return nil
	}
	labels, ok := metaField.Type.FieldByName("Labels")
	if !ok || labels.Type != reflect.TypeFor[map[string]string]() || len(labels.Index) != 1 {
		return nil
	}
	// The root's steps are flat: the labels are the one map step at their
	// offset.
	out := &eqPlan{op: eqStruct}
	removed := 0
	for _, f := range root.fields {
		if f.off == metaField.Offset+labels.Offset && f.op == eqStringMap {
			removed++
			continue
		}
		out.fields = append(out.fields, f)
	}
	if removed != 1 {
		return nil
	}
	return out
}

// eqCompiler builds plans; done memoises finished ones, busy holds the
// types being built (meeting one again means the type is recursive).
type eqCompiler struct {
	done map[reflect.Type]*eqPlan
	busy map[reflect.Type]bool
}

var (
	quantityType    = reflect.TypeFor[resource.Quantity]()
	timeType        = reflect.TypeFor[metav1.Time]()
	microTimeType   = reflect.TypeFor[metav1.MicroTime]()
	fieldsV1Type    = reflect.TypeFor[metav1.FieldsV1]()
	resourceMapType = reflect.TypeFor[corev1.ResourceList]()
	stringType      = reflect.TypeFor[string]()
)

// compile returns the plan of t, or nil if t cannot be compared exactly.
func (c *eqCompiler) compile(t reflect.Type) *eqPlan {
	if p, ok := c.done[t]; ok {
		return p
	}
	if c.busy[t] {
		return nil
	}
	c.busy[t] = true
	defer delete(c.busy, t)
	p := c.build(t)
	if p != nil {
		c.done[t] = p
	}
	return p
}

func (c *eqCompiler) build(t reflect.Type) *eqPlan {
	if _, custom := equality.Semantic.Equalities[t]; custom {
		switch t {
		case quantityType:
			return &eqPlan{op: eqQuantity}
		case timeType:
			return &eqPlan{op: eqTime}
		case microTimeType:
			return &eqPlan{op: eqMicroTime}
		case fieldsV1Type:
			return &eqPlan{op: eqFieldsV1}
		}
		return nil
	}
	switch t {
	case quantityType, timeType, microTimeType, fieldsV1Type:
		// Semantic no longer has its function for one of these: we do not
		// know what it does instead.
		return nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return &eqPlan{op: eqBool}
	case reflect.Int8, reflect.Uint8:
		return &eqPlan{op: eqInt8}
	case reflect.Int16, reflect.Uint16:
		return &eqPlan{op: eqInt16}
	case reflect.Int32, reflect.Uint32:
		return &eqPlan{op: eqInt32}
	case reflect.Int64, reflect.Uint64:
		return &eqPlan{op: eqInt64}
	case reflect.Int, reflect.Uint, reflect.Uintptr:
		switch t.Size() {
		case 4:
			return &eqPlan{op: eqInt32}
		case 8:
			return &eqPlan{op: eqInt64}
		}
		return nil
	case reflect.String:
		return &eqPlan{op: eqString}
	case reflect.Pointer:
		if elem := c.compile(t.Elem()); elem != nil {
			return &eqPlan{op: eqPointer, elem: elem}
		}
	case reflect.Slice:
		if elem := c.compile(t.Elem()); elem != nil {
			return &eqPlan{op: eqSlice, elem: elem, size: t.Elem().Size()}
		}
	case reflect.Array:
		if elem := c.compile(t.Elem()); elem != nil {
			return &eqPlan{op: eqArray, elem: elem, size: t.Elem().Size(), n: t.Len()}
		}
	case reflect.Map:
		switch {
		case t.Key() == stringType && t.Elem() == stringType:
			return &eqPlan{op: eqStringMap}
		case t == resourceMapType:
			return &eqPlan{op: eqResourceMap}
		}
	case reflect.Struct:
		p := &eqPlan{op: eqStruct}
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				return nil
			}
			fp := c.compile(f.Type)
			switch {
			case fp == nil:
				return nil
			case fp.op == eqStruct:
				for _, sub := range fp.fields {
					sub.off += f.Offset
					p.addField(sub)
				}
			case isScalar(fp.op):
				p.addField(eqField{off: f.Offset, op: eqBytes, size: f.Type.Size()})
			case fp.op == eqPointer:
				p.addField(eqField{off: f.Offset, op: eqPointers, elems: []*eqPlan{fp.elem}})
			default:
				p.addField(eqField{off: f.Offset, op: fp.op, plan: fp})
			}
		}
		return p
	}
	return nil
}

// equal reports whether the values of p's type at a and b are semantically
// equal.
func (p *eqPlan) equal(a, b unsafe.Pointer) bool {
	switch p.op {
	case eqBool, eqInt8:
		return *(*uint8)(a) == *(*uint8)(b)
	case eqInt16:
		return *(*uint16)(a) == *(*uint16)(b)
	case eqInt32:
		return *(*uint32)(a) == *(*uint32)(b)
	case eqInt64:
		return *(*uint64)(a) == *(*uint64)(b)
	case eqString:
		return *(*string)(a) == *(*string)(b)
	case eqStruct:
		return p.structEqual(a, b)
	case eqPointer:
		pa, pb := *(*unsafe.Pointer)(a), *(*unsafe.Pointer)(b)
		if pa == pb {
			return true
		}
		if pa == nil || pb == nil {
			return false
		}
		return p.elem.equal(pa, pb)
	case eqSlice:
		sa, sb := (*sliceHeader)(a), (*sliceHeader)(b)
		if sa.len != sb.len {
			return false
		}
		if sa.len == 0 || sa.data == sb.data {
			return true
		}
		return p.elem.elementsEqual(sa.data, sb.data, sa.len, p.size)
	case eqArray:
		return p.elem.elementsEqual(a, b, p.n, p.size)
	case eqStringMap:
		return stringMapsEqual(*(*map[string]string)(a), *(*map[string]string)(b))
	case eqResourceMap:
		return resourceListsEqual(*(*corev1.ResourceList)(a), *(*corev1.ResourceList)(b))
	case eqQuantity:
		return quantitiesEqual((*resource.Quantity)(a), (*resource.Quantity)(b))
	case eqTime:
		return (*metav1.Time)(a).UTC() == (*metav1.Time)(b).UTC()
	case eqMicroTime:
		return (*metav1.MicroTime)(a).UTC() == (*metav1.MicroTime)(b).UTC()
	case eqFieldsV1:
		return (*metav1.FieldsV1)(a).Equal(*(*metav1.FieldsV1)(b))
	}
	panic("hashing: unknown comparison step") // unreachable: plans are built complete
}

// structEqual compares field by field; the common leaf steps are done
// inline to save a call per field.
func (p *eqPlan) structEqual(a, b unsafe.Pointer) bool {
	for i := range p.fields {
		f := &p.fields[i]
		fa, fb := unsafe.Add(a, f.off), unsafe.Add(b, f.off)
		switch f.op {
		case eqString:
			if *(*string)(fa) != *(*string)(fb) {
				return false
			}
		case eqBytes:
			if unsafe.String((*byte)(fa), f.size) != unsafe.String((*byte)(fb), f.size) {
				return false
			}
		case eqPointers:
			pa := unsafe.Slice((*unsafe.Pointer)(fa), len(f.elems))
			pb := unsafe.Slice((*unsafe.Pointer)(fb), len(f.elems))
			for j, elem := range f.elems {
				x, y := pa[j], pb[j]
				if x == y {
					continue
				}
				if x == nil || y == nil || !elem.equal(x, y) {
					return false
				}
			}
		case eqSlice:
			sa, sb := (*sliceHeader)(fa), (*sliceHeader)(fb)
			if sa.len != sb.len {
				return false
			}
			if sa.len != 0 && sa.data != sb.data && !f.plan.elem.elementsEqual(sa.data, sb.data, sa.len, f.plan.size) {
				return false
			}
		default:
			if !f.plan.equal(fa, fb) {
				return false
			}
		}
	}
	return true
}

// elementsEqual compares n consecutive elements of p's type, size bytes
// apart.
func (p *eqPlan) elementsEqual(a, b unsafe.Pointer, n int, size uintptr) bool {
	if p.op == eqStruct {
		for i := range n {
			off := uintptr(i) * size
			if !p.structEqual(unsafe.Add(a, off), unsafe.Add(b, off)) {
				return false
			}
		}
		return true
	}
	for i := range n {
		off := uintptr(i) * size
		if !p.equal(unsafe.Add(a, off), unsafe.Add(b, off)) {
			return false
		}
	}
	return true
}

// stringMapsEqual compares string maps; nil and empty are equal.
func stringMapsEqual(x, y map[string]string) bool {
	if len(x) != len(y) {
		return false
	}
	for k, vx := range x {
		if vy, ok := y[k]; !ok || vy != vx {
			return false
		}
	}
	return true
}

// resourceListsEqual compares resource lists by quantity value; nil and
// empty are equal.
func resourceListsEqual(x, y corev1.ResourceList) bool {
	if len(x) != len(y) {
		return false
	}
	for k, qx := range x {
		qy, ok := y[k]
		if !ok || !quantitiesEqual(&qx, &qy) {
			return false
		}
	}
	return true
}

// quantitiesEqual is Semantic's quantity function, a.Cmp(b) == 0, on
// copies: Cmp converts an int64 quantity to inf.Dec in place when the other
// one is an inf.Dec, and the inputs must not change.
func quantitiesEqual(a, b *resource.Quantity) bool {
	ca := *a
	return ca.Cmp(*b) == 0
}
