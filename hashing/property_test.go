package hashing

import (
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/dump"
	"pgregory.net/rapid"
)

// checkFastMatchesSpew is the central property: for any template and any
// collision count, the streaming writer produces exactly spew's bytes and
// PodTemplateHash equals the literal upstream computation.
func checkFastMatchesSpew(t *rapid.T) {
	tpl := genTemplate.Draw(t, "template")
	cc := rapid.Ptr(rapid.Int32(), true).Draw(t, "collisionCount")
	before := tpl.DeepCopy()

	want := dump.ForHash(*tpl)
	got, ok := fastDump(*tpl)
	if !ok {
		t.Fatalf("fast writer gave up on a pod template")
	}
	if got != want {
		t.Fatalf("dump differs at byte %d:\n%s", firstDiff(want, got), cmp.Diff(want, got))
	}
	if h, r := PodTemplateHash(tpl, cc), referenceHash(tpl, cc); h != r {
		t.Fatalf("PodTemplateHash = %q, reference = %q", h, r)
	}
	if !reflect.DeepEqual(before, tpl) {
		t.Fatalf("PodTemplateHash mutated its input")
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestFastMatchesSpewProperty(t *testing.T) {
	t.Parallel()
	rapid.Check(t, checkFastMatchesSpew)
}

func FuzzFastMatchesSpew(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(checkFastMatchesSpew))
}

// Quirky types: everything spew's format can meet, beyond what pod templates
// contain today, so that the writer stays exact if the API grows.
type (
	quirkInner struct {
		P *int
		S string
	}
	quirkList struct {
		Next *quirkList
		V    int
	}
	quirkEmbedded struct{ A int8 }
	quirkNamedMap map[string]*int
	quirk         struct {
		quirkEmbedded
		unexported string
		Ptrs       []*int
		MapPtrs    quirkNamedMap
		AfterMap   int // printed without its type when the map ends in a nil pointer
		Iface      any
		Ifaces     []any
		Err        error
		PP         **int
		F32        float32
		F64        float64
		C64        complex64
		C128       complex128
		Arr        [3]uint16
		Bytes      []byte
		U          uintptr
		IntKeys    map[int]string
		UintKeys   map[uint8]bool
		BoolKeys   map[bool]int
		Nested     map[string]map[string]quirkInner
		Inner      quirkInner
		InnerP     *quirkInner
		List       *quirkList
		Empty      struct{}
		EmptyP     *struct{}
		Last       *int
	}
)

var genQuirk = rapid.Custom(func(t *rapid.T) quirk {
	shared := ptrTo(7)
	intPtr := func(label string) *int {
		switch rapid.IntRange(0, 2).Draw(t, label) {
		case 0:
			return nil
		case 1:
			return shared
		default:
			return ptrTo(rapid.Int().Draw(t, label+".v"))
		}
	}
	q := quirk{
		quirkEmbedded: quirkEmbedded{A: rapid.Int8().Draw(t, "a")},
		unexported:    genText.Draw(t, "unexported"),
		F32:           rapid.Float32().Draw(t, "f32"),
		F64:           rapid.Float64().Draw(t, "f64"),
		C64:           complex(rapid.Float32().Draw(t, "c64r"), rapid.Float32().Draw(t, "c64i")),
		C128:          complex(rapid.Float64().Draw(t, "c128r"), rapid.Float64().Draw(t, "c128i")),
		U:             uintptr(rapid.Uint64().Draw(t, "u")),
		Bytes:         rapid.SliceOfN(rapid.Byte(), -1, 4).Draw(t, "bytes"),
		Inner:         quirkInner{P: intPtr("inner.p"), S: genText.Draw(t, "inner.s")},
		Last:          intPtr("last"),
	}
	for i := range q.Arr {
		q.Arr[i] = rapid.Uint16().Draw(t, fmt.Sprintf("arr%d", i))
	}
	if rapid.Bool().Draw(t, "ptrs") {
		for i := range rapid.IntRange(0, 3).Draw(t, "nptrs") {
			q.Ptrs = append(q.Ptrs, intPtr(fmt.Sprintf("ptrs%d", i)))
		}
	}
	if rapid.Bool().Draw(t, "mapPtrs") {
		q.MapPtrs = quirkNamedMap{}
		for i := range rapid.IntRange(0, 3).Draw(t, "nmapPtrs") {
			q.MapPtrs[genText.Draw(t, fmt.Sprintf("mk%d", i))] = intPtr(fmt.Sprintf("mv%d", i))
		}
	}
	q.AfterMap = rapid.Int().Draw(t, "afterMap")
	ifaceVals := []any{nil, 1, "s", shared, (*int)(nil), quirkInner{S: "x"}, &quirkInner{P: shared}, []int{1}, map[string]int{"b": 2, "a": 1}}
	q.Iface = rapid.SampledFrom(ifaceVals).Draw(t, "iface")
	q.Ifaces = rapid.SliceOfN(rapid.SampledFrom(ifaceVals), -1, 4).Draw(t, "ifaces")
	if rapid.Bool().Draw(t, "err") {
		q.Err = fmt.Errorf("boom")
	}
	if rapid.Bool().Draw(t, "pp") {
		p := intPtr("ppInner")
		q.PP = &p
	}
	q.IntKeys = rapid.MapOfN(rapid.Int(), genText, -1, 5).Draw(t, "intKeys")
	q.UintKeys = rapid.MapOfN(rapid.Uint8(), rapid.Bool(), -1, 5).Draw(t, "uintKeys")
	q.BoolKeys = rapid.MapOfN(rapid.Bool(), rapid.Int(), -1, 2).Draw(t, "boolKeys")
	if rapid.Bool().Draw(t, "nested") {
		q.Nested = map[string]map[string]quirkInner{}
		for i := range rapid.IntRange(0, 3).Draw(t, "nnested") {
			inner := map[string]quirkInner{}
			for j := range rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("nnested%d", i)) {
				inner[strconv.Itoa(j)] = quirkInner{P: intPtr(fmt.Sprintf("nested%d.%d", i, j))}
			}
			q.Nested[genText.Draw(t, fmt.Sprintf("nestedKey%d", i))] = inner
		}
	}
	if rapid.Bool().Draw(t, "innerP") {
		q.InnerP = &quirkInner{P: intPtr("innerP.p")}
	}
	if rapid.Bool().Draw(t, "emptyP") {
		q.EmptyP = &struct{}{}
	}
	switch rapid.IntRange(0, 2).Draw(t, "list") {
	case 1:
		q.List = &quirkList{V: 1, Next: &quirkList{V: 2}}
	case 2:
		l := &quirkList{V: 1}
		l.Next = &quirkList{V: 2, Next: l} // a real cycle
		q.List = l
	}
	return q
})

// TestQuirksMatchSpew checks the writer against spew on values that exercise
// every rule of spew's format: the omit-type flag leaking out of containers
// after nil pointers, pointer aliasing and cycles, interfaces, multi-level
// pointers, floats, complex numbers, arrays, non-string map keys, nested maps.
func TestQuirksMatchSpew(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		q := genQuirk.Draw(t, "quirk")
		want := dump.ForHash(q)
		got, ok := fastDump(q)
		if !ok {
			t.Fatalf("fast writer gave up")
		}
		if got != want {
			t.Fatalf("dump differs at byte %d:\n%s", firstDiff(want, got), cmp.Diff(want, got))
		}
	})
}

// TestWriterGivesUpOnUnsortableKeys: map keys that spew sorts by their own
// spew rendering (structs) or as floats are left to spew.
func TestWriterGivesUpOnUnsortableKeys(t *testing.T) {
	if _, ok := fastDump(*realisticTemplate()); !ok {
		t.Fatal("the writer must handle pod templates itself")
	}
	for name, v := range map[string]any{
		"struct keys": map[quirkInner]int{{S: "a"}: 1},
		"float keys":  map[float64]int{1.5: 1},
		"array keys":  map[[2]int]int{{1, 2}: 3},
		"map in an unexported field": struct {
			m map[string]int
		}{m: map[string]int{"a": 1}},
	} {
		if _, ok := fastDump(v); ok {
			t.Errorf("%s: fast writer did not give up", name)
		}
	}
	// Empty maps of those types print without sorting anything.
	for name, v := range map[string]any{
		"empty struct keys": map[quirkInner]int{},
		"nil float keys":    map[float64]int(nil),
	} {
		got, ok := fastDump(v)
		if want := dump.ForHash(v); !ok || got != want {
			t.Errorf("%s: got %q (ok=%v), want %q", name, got, ok, want)
		}
	}
}

// TestDumpSpotChecks pins a few renderings so that the format itself, not
// only the agreement with spew, is visible in the tests.
func TestDumpSpotChecks(t *testing.T) {
	seven := 7
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"string", "nginx", "(string)nginx"},
		{"nil pointer", (*int64)(nil), "(*int64)<nil>"},
		{"pointer", &seven, "(*int)7"},
		{"sorted map", map[string]string{"b": "2", "a": "1"}, "(map[string]string)map[a:1 b:2]"},
		{"nil map", map[string]string(nil), "(map[string]string)<nil>"},
		{"empty map", map[string]string{}, "(map[string]string)map[]"},
		{"slice of pointers", []*int{&seven, nil}, "([]*int)[<*>7 <nil>]"},
		{"struct", quirkInner{S: "x"}, "(hashing.quirkInner){P:(*int)<nil> S:(string)x}"},
		{"quantity", resource.MustParse("100m"), "(resource.Quantity){i:(resource.int64Amount){value:(int64)100 scale:(resource.Scale)-3} d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string)100m Format:(resource.Format)DecimalSI}"},
		{"type omitted after nil pointer in map", struct {
			M map[string]*int
			N int
		}{M: map[string]*int{"a": nil}, N: 3}, "(struct { M map[string]*int; N int }){M:(map[string]*int)map[a:<nil>] N:3}"},
	}
	for _, tt := range tests {
		got, ok := fastDump(tt.v)
		if !ok || got != tt.want {
			t.Errorf("%s: got %q (ok=%v), want %q", tt.name, got, ok, tt.want)
		}
		if spew := dump.ForHash(tt.v); spew != tt.want {
			t.Errorf("%s: spew gives %q, the pinned rendering is %q", tt.name, spew, tt.want)
		}
	}
}

// TestSafeEncodeMatchesApimachinery: our encoding of the sum equals
// rand.SafeEncodeString(fmt.Sprint(sum)).
func TestSafeEncodeMatchesApimachinery(t *testing.T) {
	for _, s := range []uint32{0, 1, 9, 10, 4294967295, 2166136261} {
		if got, want := safeEncode(s), rand.SafeEncodeString(fmt.Sprint(s)); got != want {
			t.Errorf("safeEncode(%d) = %q, want %q", s, got, want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.Uint32().Draw(t, "sum")
		if got, want := safeEncode(s), rand.SafeEncodeString(fmt.Sprint(s)); got != want {
			t.Fatalf("safeEncode(%d) = %q, want %q", s, got, want)
		}
	})
}

// TestHashStableAcrossMapInsertionOrder: the same labels, annotations and
// resources inserted in different orders give the same hash.
func TestHashStableAcrossMapInsertionOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		keys := rapid.SliceOfNDistinct(genText, 1, 8, func(s string) string { return s }).Draw(t, "keys")
		perm := rapid.Permutation(keys).Draw(t, "perm")
		build := func(order []string) *corev1.PodTemplateSpec {
			tpl := realisticTemplate()
			tpl.Labels = map[string]string{}
			tpl.Annotations = map[string]string{}
			for i, k := range order {
				tpl.Labels[k] = "v-" + k
				tpl.Annotations[k+"/a"] = strconv.Itoa(len(k))
				_ = i
			}
			return tpl
		}
		a, b := build(keys), build(perm)
		cc := rapid.Ptr(rapid.Int32(), true).Draw(t, "cc")
		if ha, hb := PodTemplateHash(a, cc), PodTemplateHash(b, cc); ha != hb {
			t.Fatalf("hash depends on insertion order: %q vs %q", ha, hb)
		}
	})
}

// TestConcurrentUse runs the pooled writer from parallel subtests; with
// -race this checks that the pool and the type cache are safe.
func TestConcurrentUse(t *testing.T) {
	want := referenceHash(realisticTemplate(), nil)
	for i := range 8 {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			tpl := realisticTemplate()
			for range 50 {
				if got := PodTemplateHash(tpl, nil); got != want {
					t.Fatalf("got %q, want %q", got, want)
				}
			}
		})
	}
}

// TestSpewFallback: the fallback used when the writer gives up hashes the
// spew dump itself, so it agrees with the reference.
func TestSpewFallback(t *testing.T) {
	for _, tc := range hashCases {
		if tc.collisionCount != nil {
			continue
		}
		tpl := tc.template()
		if got, want := safeEncode(spewSum(tpl)), referenceHash(tpl, nil); got != want {
			t.Errorf("%s: fallback %q, reference %q", tc.name, got, want)
		}
	}
}
