package hashing

import (
	"fmt"
	"reflect"
	"testing"
	"time"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"
)

// semanticEqualIgnoreHash is EqualIgnoreHash as it was before the compiled
// fast path (and as it still is when the plan does not compile): labels
// compared without LabelKey, then equality.Semantic.DeepEqual on shallow
// copies of the metadata without labels and on the spec. It is the
// "semantic-reference" of the benchmarks and a second oracle in the tests.
func semanticEqualIgnoreHash(a, b *corev1.PodTemplateSpec) bool {
	if a == nil {
		a = &corev1.PodTemplateSpec{}
	}
	if b == nil {
		b = &corev1.PodTemplateSpec{}
	}
	if !labelsEqualIgnoringHash(a.Labels, b.Labels) {
		return false
	}
	ma, mb := a.ObjectMeta, b.ObjectMeta
	ma.Labels, mb.Labels = nil, nil
	return equality.Semantic.DeepEqual(&ma, &mb) && equality.Semantic.DeepEqual(&a.Spec, &b.Spec)
}

// planEqual runs the compiled plan alone (no nil handling, no label step,
// no identity shortcut), to test it apart from EqualIgnoreHash's wrapper.
func planEqual(t interface{ Fatal(...any) }, a, b *corev1.PodTemplateSpec) bool {
	plan := templatePlan()
	if plan == nil {
		t.Fatal("PodTemplateSpec does not compile")
	}
	return labelsEqualIgnoringHash(a.Labels, b.Labels) && plan.equal(unsafe.Pointer(a), unsafe.Pointer(b))
}

// TestTemplatePlanCompiles pins that PodTemplateSpec of the vendored
// k8s.io/api takes the fast path: no float, interface, unexported field
// outside Quantity and Time, unknown map or recursive type in it.
func TestTemplatePlanCompiles(t *testing.T) {
	plan := templatePlan()
	if plan == nil {
		t.Fatal("PodTemplateSpec does not compile: EqualIgnoreHash falls back to Semantic.DeepEqual")
	}
	full := (&eqCompiler{done: map[reflect.Type]*eqPlan{}, busy: map[reflect.Type]bool{}}).compile(reflect.TypeFor[corev1.PodTemplateSpec]())
	if full == nil || len(plan.fields) != len(full.fields)-1 {
		t.Fatalf("the template plan must be the full plan less one step (the labels)")
	}
	labels, _ := reflect.TypeFor[metav1.ObjectMeta]().FieldByName("Labels")
	for _, f := range plan.fields {
		if f.off == labels.Offset {
			t.Fatalf("the template plan compares the labels: %+v", f)
		}
		if f.op == eqStruct || f.op == eqPointer || f.op == 0 || (f.op == eqBytes || f.op == eqPointers) != (f.plan == nil) || (f.op == eqPointers) != (len(f.elems) > 0) {
			t.Fatalf("malformed step %+v", f)
		}
	}
}

// Types the compiler must refuse (the whole plan then falls back).
type (
	withFloat     struct{ F float64 }
	withInterface struct{ I any }
	withFunc      struct{ F func() }
	withChan      struct{ C chan int }
	withIntMap    struct{ M map[string]int }
	//lint:ignore U1000 the unexported field is what this type tests
	withUnexported struct{ s string }
	withSelector   struct{ S []withUnexported }
	recursive      struct {
		Name string
		Next *recursive
	}
	mutual struct{ Others []mutualB }
	// mutualB closes a cycle through a slice.
	mutualB struct{ Back *mutual }
	// namedStringMap is accepted: same memory as map[string]string.
	namedStringMap map[string]string
	accepted       struct {
		M  namedStringMap
		A  [3]int16
		U  uint
		Q  *resource.Quantity
		T  metav1.Time
		MT *metav1.MicroTime
		FV metav1.FieldsV1
		R  corev1.ResourceList
		PS *[]string
		SS [][]int32
		SP []*int32
	}
)

func TestCompilerRefusesWhatItCannotCompareExactly(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[withFloat](), reflect.TypeFor[withInterface](), reflect.TypeFor[withFunc](),
		reflect.TypeFor[withChan](), reflect.TypeFor[withIntMap](), reflect.TypeFor[withUnexported](),
		reflect.TypeFor[withSelector](), reflect.TypeFor[recursive](), reflect.TypeFor[mutual](),
		reflect.TypeFor[map[corev1.ResourceName]string](), reflect.TypeFor[complex128](),
		reflect.TypeFor[time.Time](), // unexported fields and no Semantic function
	} {
		c := eqCompiler{done: map[reflect.Type]*eqPlan{}, busy: map[reflect.Type]bool{}}
		if c.compile(typ) != nil {
			t.Errorf("%v compiled; it must fall back", typ)
		}
		// The same type inside a template-shaped root refuses the root.
		root := reflect.StructOf([]reflect.StructField{
			{Name: "ObjectMeta", Type: reflect.TypeFor[metav1.ObjectMeta](), Anonymous: true},
			{Name: "Spec", Type: typ},
		})
		if compileTemplatePlan(root) != nil {
			t.Errorf("template with a %v compiled; it must fall back", typ)
		}
	}
	c := eqCompiler{done: map[reflect.Type]*eqPlan{}, busy: map[reflect.Type]bool{}}
	if c.compile(reflect.TypeFor[accepted]()) == nil {
		t.Error("accepted did not compile")
	}
	// Wrong shapes for the root.
	for _, typ := range []reflect.Type{
		reflect.TypeFor[corev1.PodSpec](),
		reflect.TypeFor[int](),
		reflect.StructOf([]reflect.StructField{{Name: "Meta", Type: reflect.TypeFor[metav1.ObjectMeta]()}}),
	} {
		if compileTemplatePlan(typ) != nil {
			t.Errorf("%v compiled as a template root", typ)
		}
	}
}

// TestCompiledAcceptedTypeMatchesSemantic runs the plan of a type with
// every special leaf against Semantic.DeepEqual.
func TestCompiledAcceptedTypeMatchesSemantic(t *testing.T) {
	c := eqCompiler{done: map[reflect.Type]*eqPlan{}, busy: map[reflect.Type]bool{}}
	plan := c.compile(reflect.TypeFor[accepted]())
	base := func() *accepted {
		return &accepted{
			M: namedStringMap{"a": "b"}, A: [3]int16{1, 2, 3}, U: 7,
			Q: ptrTo(resource.MustParse("1")), T: metav1.Unix(100, 0),
			MT: ptrTo(metav1.NewMicroTime(time.Unix(5, 1000))), FV: *metav1.NewFieldsV1(`{"f:a":{}}`),
			R:  corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
			PS: &[]string{"a"}, SS: [][]int32{{1}, {2, 3}}, SP: []*int32{ptrTo[int32](1), nil},
		}
	}
	variants := map[string]func(*accepted){
		"same":              func(*accepted) {},
		"map nil":           func(x *accepted) { x.M = nil },
		"map value":         func(x *accepted) { x.M = namedStringMap{"a": "c"} },
		"map key":           func(x *accepted) { x.M = namedStringMap{"b": "b"} },
		"array":             func(x *accepted) { x.A[2] = 4 },
		"uint":              func(x *accepted) { x.U = 8 },
		"quantity form":     func(x *accepted) { x.Q = ptrTo(resource.MustParse("1000m")) },
		"quantity value":    func(x *accepted) { x.Q = ptrTo(resource.MustParse("2")) },
		"quantity nil":      func(x *accepted) { x.Q = nil },
		"time zone":         func(x *accepted) { x.T = metav1.NewTime(x.T.In(time.FixedZone("Z", 3600))) },
		"time instant":      func(x *accepted) { x.T = metav1.Unix(101, 0) },
		"microtime zone":    func(x *accepted) { x.MT = ptrTo(metav1.NewMicroTime(x.MT.In(time.FixedZone("Z", 60)))) },
		"microtime instant": func(x *accepted) { x.MT = ptrTo(metav1.NewMicroTime(time.Unix(5, 2000))) },
		"fields nil":        func(x *accepted) { x.FV.SetRawBytes(nil) },
		"fields other":      func(x *accepted) { x.FV.SetRawString(`{}`) },
		"resources form": func(x *accepted) {
			x.R = corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(100, resource.BinarySI)}
		},
		"resources key":   func(x *accepted) { x.R = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("100m")} },
		"resources empty": func(x *accepted) { x.R = corev1.ResourceList{} },
		"resources missing vs zero": func(x *accepted) {
			x.R = corev1.ResourceList{corev1.ResourceMemory: {}}
		},
		"slice behind pointer":               func(x *accepted) { x.PS = &[]string{"b"} },
		"slice behind pointer, empty vs nil": func(x *accepted) { x.PS = &[]string{} },
		"inner slice element":                func(x *accepted) { x.SS = [][]int32{{1}, {2, 4}} },
		"inner slice nil":                    func(x *accepted) { x.SS = [][]int32{nil, {2, 3}} },
		"pointer in slice nil":               func(x *accepted) { x.SP = []*int32{nil, nil} },
		"pointer in slice set":               func(x *accepted) { x.SP = []*int32{ptrTo[int32](1), ptrTo[int32](0)} },
		"pointer in slice value":             func(x *accepted) { x.SP = []*int32{ptrTo[int32](2), nil} },
		"outer slice shorter":                func(x *accepted) { x.SS = x.SS[:1] },
	}
	for name, change := range variants {
		a, b := base(), base()
		change(b)
		want := equality.Semantic.DeepEqual(a, b)
		if got := plan.equal(unsafe.Pointer(a), unsafe.Pointer(b)); got != want {
			t.Errorf("%s: plan = %v, Semantic = %v", name, got, want)
		}
		if got := plan.equal(unsafe.Pointer(b), unsafe.Pointer(a)); got != want {
			t.Errorf("%s (swapped): plan = %v, Semantic = %v", name, got, want)
		}
	}
}

// TestEqualIgnoreHashEdgeCases pins the semantic corners, each checked
// against both oracles in both argument orders.
func TestEqualIgnoreHashEdgeCases(t *testing.T) {
	shared := ptrTo[int64](5)
	tests := []struct {
		name   string
		change func(a, b *corev1.PodTemplateSpec)
		want   bool
	}{
		{"identical copies", func(a, b *corev1.PodTemplateSpec) {}, true},
		{"only the hash label differs", func(a, b *corev1.PodTemplateSpec) {
			a.Labels = LabelsWithHash(a.Labels, "x")
			b.Labels = LabelsWithHash(b.Labels, "y")
		}, true},
		{"hash label on one side only", func(a, b *corev1.PodTemplateSpec) { b.Labels = LabelsWithHash(b.Labels, "y") }, true},
		{"only-hash labels vs nil labels", func(a, b *corev1.PodTemplateSpec) {
			a.Labels, b.Labels = map[string]string{LabelKey: "h"}, nil
		}, true},
		{"a label missing vs empty value", func(a, b *corev1.PodTemplateSpec) {
			a.Labels, b.Labels = map[string]string{"x": ""}, map[string]string{"y": ""}
		}, false},
		{"hash label under annotations counts", func(a, b *corev1.PodTemplateSpec) {
			b.Annotations = map[string]string{LabelKey: "h"}
		}, false},
		{"hash label in node selector counts", func(a, b *corev1.PodTemplateSpec) {
			b.Spec.NodeSelector = map[string]string{LabelKey: "h"}
		}, false},
		{"nil vs empty annotations", func(a, b *corev1.PodTemplateSpec) { a.Annotations, b.Annotations = nil, map[string]string{} }, true},
		{"nil vs empty finalizers", func(a, b *corev1.PodTemplateSpec) { a.Finalizers, b.Finalizers = nil, []string{} }, true},
		{"nil vs empty volumes", func(a, b *corev1.PodTemplateSpec) { a.Spec.Volumes, b.Spec.Volumes = nil, []corev1.Volume{} }, true},
		{"nil vs empty args", func(a, b *corev1.PodTemplateSpec) {
			a.Spec.Containers[0].Args, b.Spec.Containers[0].Args = nil, []string{}
		}, true},
		{"nil vs empty resource list", func(a, b *corev1.PodTemplateSpec) {
			a.Spec.Containers[0].Resources.Limits, b.Spec.Containers[0].Resources.Limits = nil, corev1.ResourceList{}
		}, true},
		{"nil vs empty managed fields", func(a, b *corev1.PodTemplateSpec) {
			a.ManagedFields, b.ManagedFields = nil, []metav1.ManagedFieldsEntry{}
		}, true},
		{"empty slice vs one zero element", func(a, b *corev1.PodTemplateSpec) {
			a.Spec.Tolerations, b.Spec.Tolerations = []corev1.Toleration{}, []corev1.Toleration{{}}
		}, false},
		{"nil vs zero-valued pointer", func(a, b *corev1.PodTemplateSpec) {
			a.Spec.ActiveDeadlineSeconds, b.Spec.ActiveDeadlineSeconds = nil, ptrTo[int64](0)
		}, false},
		{"nil vs empty struct pointer", func(a, b *corev1.PodTemplateSpec) {
			a.Spec.SecurityContext, b.Spec.SecurityContext = nil, &corev1.PodSecurityContext{}
		}, false},
		{"aliased vs separate pointers", func(a, b *corev1.PodTemplateSpec) {
			a.DeletionGracePeriodSeconds, a.Spec.ActiveDeadlineSeconds = shared, shared
			b.DeletionGracePeriodSeconds, b.Spec.ActiveDeadlineSeconds = ptrTo[int64](5), ptrTo[int64](5)
		}, true},
		{"shared slice backing array", func(a, b *corev1.PodTemplateSpec) {
			b.Spec.Containers = a.Spec.Containers
		}, true},
		{"1 vs 1000m", func(a, b *corev1.PodTemplateSpec) {
			a.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
			b.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1000m")}
		}, true},
		{"1Gi vs its bytes, constructed", func(a, b *corev1.PodTemplateSpec) {
			a.Spec.Overhead = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}
			b.Spec.Overhead = corev1.ResourceList{corev1.ResourceMemory: *resource.NewQuantity(1<<30, resource.DecimalSI)}
		}, true},
		{"zero quantity vs 0", func(a, b *corev1.PodTemplateSpec) {
			a.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: {}}
			b.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0")}
		}, true},
		{"1 vs 1001m", func(a, b *corev1.PodTemplateSpec) {
			a.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
			b.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1001m")}
		}, false},
		{"inf.Dec vs int64 quantity, equal", func(a, b *corev1.PodTemplateSpec) {
			big := resource.MustParse("12345678901234567890")
			a.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: big}
			b.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: *resource.NewScaledQuantity(1234567890123456789, 1)}
		}, true},
		{"inf.Dec vs int64 quantity, different", func(a, b *corev1.PodTemplateSpec) {
			a.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1.5e100")}
			b.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
		}, false},
		{"resource missing vs zero quantity, same length", func(a, b *corev1.PodTemplateSpec) {
			a.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: {}}
			b.Spec.Overhead = corev1.ResourceList{corev1.ResourceMemory: {}}
		}, false},
		{"annotation missing vs empty value, same length", func(a, b *corev1.PodTemplateSpec) {
			a.Annotations, b.Annotations = map[string]string{"x": ""}, map[string]string{"y": ""}
		}, false},
		{"resource key differs", func(a, b *corev1.PodTemplateSpec) {
			a.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
			b.Spec.Overhead = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1")}
		}, false},
		{"quantity behind a pointer, other form", func(a, b *corev1.PodTemplateSpec) {
			a.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptrTo(resource.MustParse("1Mi"))}}}}
			b.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: resource.NewQuantity(1<<20, resource.BinarySI)}}}}
		}, true},
		{"quantity pointer nil vs zero", func(a, b *corev1.PodTemplateSpec) {
			a.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
			b.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: &resource.Quantity{}}}}}
		}, false},
		{"same instant, other location", func(a, b *corev1.PodTemplateSpec) {
			a.CreationTimestamp = metav1.Unix(1700000000, 5)
			b.CreationTimestamp = metav1.NewTime(a.CreationTimestamp.In(time.FixedZone("X", -3600)))
		}, true},
		{"zero time vs Unix 0", func(a, b *corev1.PodTemplateSpec) { b.CreationTimestamp = metav1.Unix(0, 0) }, false},
		{"deletion timestamp nil vs zero", func(a, b *corev1.PodTemplateSpec) { b.DeletionTimestamp = &metav1.Time{} }, false},
		{"deletion timestamp, same instant", func(a, b *corev1.PodTemplateSpec) {
			a.DeletionTimestamp = ptrTo(metav1.Unix(10, 0))
			b.DeletionTimestamp = ptrTo(metav1.NewTime(time.Unix(10, 0).In(time.FixedZone("Y", 7200))))
		}, true},
		{"managed fields: nil vs empty raw", func(a, b *corev1.PodTemplateSpec) {
			a.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", FieldsV1: &metav1.FieldsV1{}}}
			b.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", FieldsV1: emptyFieldsV1()}}
		}, true},
		{"managed fields: raw differs", func(a, b *corev1.PodTemplateSpec) {
			a.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", FieldsV1: metav1.NewFieldsV1("{}")}}
			b.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", FieldsV1: metav1.NewFieldsV1("{ }")}}
		}, false},
		{"managed fields: time zone", func(a, b *corev1.PodTemplateSpec) {
			a.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", Time: ptrTo(metav1.Unix(3, 0))}}
			b.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", Time: ptrTo(metav1.NewTime(time.Unix(3, 0).UTC()))}}
		}, true},
		{"int-or-string 80 vs \"80\"", func(a, b *corev1.PodTemplateSpec) {
			a.Spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(80)}}}
			b.Spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString("80")}}}
		}, false},
		{"bool field", func(a, b *corev1.PodTemplateSpec) { b.Spec.HostNetwork = true }, false},
		{"int32 field", func(a, b *corev1.PodTemplateSpec) { b.Spec.Containers[0].Ports[0].HostPort = 1 }, false},
		{"int64 in a slice", func(a, b *corev1.PodTemplateSpec) {
			a.Spec.SecurityContext = &corev1.PodSecurityContext{SupplementalGroups: []int64{1, 2}}
			b.Spec.SecurityContext = &corev1.PodSecurityContext{SupplementalGroups: []int64{1, 3}}
		}, false},
		{"container order", func(a, b *corev1.PodTemplateSpec) {
			a.Spec.Containers = append(a.Spec.Containers, corev1.Container{Name: "x"})
			b.Spec.Containers = []corev1.Container{{Name: "x"}, b.Spec.Containers[0]}
		}, false},
		{"last field of the spec", func(a, b *corev1.PodTemplateSpec) {
			b.Spec.HostnameOverride = ptrTo("h")
		}, false},
		{"name", func(a, b *corev1.PodTemplateSpec) { b.Name = "x" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := nginxTemplate(), nginxTemplate()
			tt.change(a, b)
			a0, b0 := a.DeepCopy(), b.DeepCopy()
			for i, args := range [][2]*corev1.PodTemplateSpec{{a, b}, {b, a}} {
				if got := EqualIgnoreHash(args[0], args[1]); got != tt.want {
					t.Errorf("order %d: EqualIgnoreHash = %v, want %v", i, got, tt.want)
				}
				if got := planEqual(t, args[0], args[1]); got != tt.want {
					t.Errorf("order %d: plan = %v, want %v", i, got, tt.want)
				}
				if got := referenceEqualIgnoreHash(args[0], args[1]); got != tt.want {
					t.Errorf("order %d: deep-copy reference = %v, want %v", i, got, tt.want)
				}
				if got := semanticEqualIgnoreHash(args[0], args[1]); got != tt.want {
					t.Errorf("order %d: semantic reference = %v, want %v", i, got, tt.want)
				}
			}
			if !reflect.DeepEqual(a0, a) || !reflect.DeepEqual(b0, b) {
				t.Error("inputs were mutated")
			}
		})
	}
}

// TestEqualDoesNotConvertQuantities: Quantity.Cmp turns an int64 quantity
// into an inf.Dec in place when the other side is an inf.Dec; the
// comparison must work on copies.
func TestEqualDoesNotConvertQuantities(t *testing.T) {
	a, b := nginxTemplate(), nginxTemplate()
	a.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
	b.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1.5e100")}
	a.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptrTo(resource.MustParse("1"))}}}}
	b.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptrTo(resource.MustParse("1.5e100"))}}}}
	b.Spec.Overhead = a.Spec.Overhead // reach the volume
	a0, b0 := a.DeepCopy(), b.DeepCopy()
	for range 2 {
		if EqualIgnoreHash(a, b) || EqualIgnoreHash(b, a) {
			t.Fatal("1 == 1.5e100")
		}
	}
	if !reflect.DeepEqual(a0, a) || !reflect.DeepEqual(b0, b) {
		t.Fatal("a quantity of the input was converted in place")
	}
}

// TestEqualIgnoreHashAllocations: the fast path allocates nothing on equal
// and different templates.
func TestEqualIgnoreHashAllocations(t *testing.T) {
	a := realisticTemplate()
	labelled := TemplateWithHash(a, PodTemplateHash(a, nil))
	changed := realisticTemplate()
	changed.Spec.Containers[1].Image = "other"
	for name, b := range map[string]*corev1.PodTemplateSpec{"equal": labelled, "different": changed} {
		if n := testing.AllocsPerRun(50, func() { sinkBool = EqualIgnoreHash(a, b) }); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", name, n)
		}
	}
}

// perturb makes one random change somewhere in tpl, anywhere in the type
// (not only where the generator puts values): a string gets longer, a
// number changes, a bool flips, a nil pointer gets a zero target and a set
// one is cleared, a slice or map toggles between nil and empty or loses or
// gains an element, a quantity changes form or value, a time changes zone
// or instant. Some changes are semantic no-ops (nil to empty, "1" to
// "1000m"): the property compares with the oracle, whatever the answer.
// It returns a description of the change.
func perturb(t *rapid.T, tpl *corev1.PodTemplateSpec) string {
	var sites []site
	collectSites(reflect.ValueOf(tpl).Elem(), "template", &sites)
	s := sites[rapid.IntRange(0, len(sites)-1).Draw(t, "site")]
	return s.path + ": " + s.change(t, s.v)
}

// site is one place perturb may change.
type site struct {
	path string
	v    reflect.Value
}

func collectSites(v reflect.Value, path string, out *[]site) {
	switch v.Type() {
	case reflect.TypeFor[resource.Quantity](), reflect.TypeFor[metav1.Time]():
		*out = append(*out, site{path, v})
		return
	}
	if v.Kind() != reflect.Struct {
		*out = append(*out, site{path, v})
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			collectSites(v.Elem(), path, out)
		}
	case reflect.Slice:
		for i := range v.Len() {
			collectSites(v.Index(i), fmt.Sprintf("%s[%d]", path, i), out)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				collectSites(v.Field(i), path+"."+v.Type().Field(i).Name, out)
			}
		}
	}
}

func (s site) change(t *rapid.T, v reflect.Value) string {
	switch v.Type() {
	case reflect.TypeFor[resource.Quantity]():
		q := v.Addr().Interface().(*resource.Quantity)
		switch rapid.IntRange(0, 3).Draw(t, "quantity") {
		case 0: // same value, other form
			*q = *resource.NewMilliQuantity(q.MilliValue(), resource.DecimalSI)
			return "quantity to milli form"
		case 1:
			*q = resource.MustParse(q.String())
			return "quantity reparsed"
		case 2:
			q.Add(resource.MustParse("1m"))
			return "quantity +1m"
		default:
			*q = resource.Quantity{}
			return "quantity zeroed"
		}
	case reflect.TypeFor[metav1.Time]():
		tm := v.Addr().Interface().(*metav1.Time)
		if rapid.Bool().Draw(t, "zone") {
			*tm = metav1.NewTime(tm.In(time.FixedZone("P", 5400)))
			return "time zone"
		}
		*tm = metav1.NewTime(tm.Add(time.Second))
		return "time +1s"
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + rapid.SampledFrom([]string{"x", "", LabelKey}).Draw(t, "suffix"))
		return "string"
	case reflect.Bool:
		v.SetBool(!v.Bool())
		return "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		// A delta of 1<<32 leaves the low half of an int64 alone (and an
		// int32 unchanged).
		v.SetInt(v.Int() + rapid.SampledFrom([]int64{-1, 1, 1 << 8, 1 << 16, 1 << 32}).Draw(t, "delta"))
		return "int"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() ^ 1)
		return "uint"
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
			return "pointer set to a zero value"
		}
		v.SetZero()
		return "pointer cleared"
	case reflect.Slice:
		switch {
		case v.IsNil():
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			return "nil slice to empty"
		case v.Len() == 0 && rapid.Bool().Draw(t, "nil"):
			v.SetZero()
			return "empty slice to nil"
		case v.Len() > 0 && rapid.Bool().Draw(t, "shrink"):
			v.Set(v.Slice(0, v.Len()-1))
			return "slice lost its last element"
		}
		v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
		return "slice gained a zero element"
	case reflect.Map:
		switch {
		case v.IsNil():
			v.Set(reflect.MakeMap(v.Type()))
			return "nil map to empty"
		case v.Len() == 0 && rapid.Bool().Draw(t, "nil"):
			v.SetZero()
			return "empty map to nil"
		}
		m := reflect.MakeMap(v.Type())
		iter := v.MapRange()
		for iter.Next() {
			m.SetMapIndex(iter.Key(), iter.Value())
		}
		key := reflect.New(v.Type().Key()).Elem()
		key.SetString(rapid.SampledFrom([]string{"k", "cpu", LabelKey, ""}).Draw(t, "key"))
		val := reflect.Zero(v.Type().Elem())
		if v.Type().Elem().Kind() == reflect.String {
			val = reflect.ValueOf(rapid.SampledFrom([]string{"", "v"}).Draw(t, "value")).Convert(v.Type().Elem())
		}
		if v.Len() > 0 {
			keys := v.MapKeys()
			old := keys[rapid.IntRange(0, len(keys)-1).Draw(t, "which")]
			switch rapid.IntRange(0, 2).Draw(t, "mapChange") {
			case 0:
				m.SetMapIndex(old, reflect.Value{})
				v.Set(m)
				return "map lost an entry"
			case 1:
				// Same length, one key renamed; its value is the zero
				// value, which a missing key must not be taken for.
				m.SetMapIndex(old, reflect.Value{})
				key.SetString(old.String() + "x")
				m.SetMapIndex(key, val)
				v.Set(m)
				return "map key renamed"
			}
		}
		m.SetMapIndex(key, val)
		v.Set(m)
		return "map entry set"
	}
	return "nothing (" + v.Kind().String() + ")"
}

// checkEqualMatchesSemantic is the property: on a drawn template a and a
// partner b (a copy, a relabelled copy, a perturbed copy, or an unrelated
// template), the fast path, the compiled plan alone, the deep-copy
// reference and the semantic reference all agree, in both orders, and
// nothing is mutated.
func checkEqualMatchesSemantic(t *rapid.T) {
	a := genTemplate.Draw(t, "a")
	var b *corev1.PodTemplateSpec
	what := ""
	switch rapid.IntRange(0, 6).Draw(t, "partner") {
	case 0:
		b, what = a.DeepCopy(), "copy"
	case 1:
		b, what = TemplateWithHash(a, genName.Draw(t, "hash")), "hash label set"
	case 2:
		b, what = genTemplate.Draw(t, "b"), "unrelated"
	case 5, 6:
		// A shallow copy with its own labels: the same memory but the
		// labels (the same-bytes shortcut), then perhaps changes, some in
		// memory both share, some in the copy's own top-level fields.
		c := *a
		b = &c
		b.Labels = LabelsWithHash(a.Labels, genName.Draw(t, "hash"))
		what = "shallow copy, hash label set"
		for i := range rapid.IntRange(0, 2).Draw(t, "changes") {
			what += fmt.Sprintf("; [%d] %s", i, perturb(t, b))
		}
	default:
		b = a.DeepCopy()
		for i := range rapid.IntRange(1, 3).Draw(t, "changes") {
			what += fmt.Sprintf("[%d] %s; ", i, perturb(t, b))
		}
	}
	a0, b0 := a.DeepCopy(), b.DeepCopy()
	want := referenceEqualIgnoreHash(a, b)
	for i, args := range [][2]*corev1.PodTemplateSpec{{a, b}, {b, a}} {
		if got := semanticEqualIgnoreHash(args[0], args[1]); got != want {
			t.Fatalf("order %d, %s: semantic reference = %v, deep-copy reference = %v", i, what, got, want)
		}
		if got := EqualIgnoreHash(args[0], args[1]); got != want {
			t.Fatalf("order %d, %s: EqualIgnoreHash = %v, reference = %v", i, what, got, want)
		}
		if got := planEqual(t, args[0], args[1]); got != want {
			t.Fatalf("order %d, %s: plan = %v, reference = %v", i, what, got, want)
		}
	}
	if !reflect.DeepEqual(a0, a) || !reflect.DeepEqual(b0, b) {
		t.Fatal("inputs were mutated")
	}
}

func TestEqualIgnoreHashMatchesSemantic(t *testing.T) {
	t.Parallel()
	rapid.Check(t, checkEqualMatchesSemantic)
}

func FuzzEqualIgnoreHash(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(checkEqualMatchesSemantic))
}

// BenchmarkEqualIgnoreHash compares, on the realistic template of
// fixtures_test.go, the fast path (equal: the template and its
// hash-labelled copy; different: the last container's image differs,
// which the image pre-check finds; different-late: the last toleration's
// value differs, found after the whole walk but the tolerations) with
// the Semantic.DeepEqual path it replaces (semantic-reference, equal pair),
// and a shallow copy with new labels (fast-equal-shared: the same-bytes
// shortcut)
// and with upstream's literal steps (deepcopy-reference: two deep copies,
// label deleted, Semantic.DeepEqual).
func BenchmarkEqualIgnoreHash(b *testing.B) {
	a := realisticTemplate()
	labelled := TemplateWithHash(a, PodTemplateHash(a, nil))
	changed := realisticTemplate()
	changed.Spec.Containers[1].Image = "registry.example.com/proxy:2.5"
	lateChange := realisticTemplate()
	lateChange.Spec.Tolerations[len(lateChange.Spec.Tolerations)-1].Value += "x"
	shared := *a // a ReplicaSet's template made in memory from a Deployment's
	shared.Labels = LabelsWithHash(a.Labels, "abc")
	for _, bm := range []struct {
		name string
		f    func(a, b *corev1.PodTemplateSpec) bool
		b    *corev1.PodTemplateSpec
	}{
		{"fast-equal", EqualIgnoreHash, labelled},
		{"fast-equal-shared", EqualIgnoreHash, &shared},
		{"fast-different", EqualIgnoreHash, changed},
		{"fast-different-late", EqualIgnoreHash, lateChange},
		{"semantic-reference", semanticEqualIgnoreHash, labelled},
		{"semantic-reference-different", semanticEqualIgnoreHash, changed},
		{"deepcopy-reference", referenceEqualIgnoreHash, labelled},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkBool = bm.f(a, bm.b)
			}
		})
	}
}

// The same-bytes shortcut takes a shallow copy with new labels, and nothing
// that differs outside the labels.
func TestSameBytesButLabels(t *testing.T) {
	a := realisticTemplate()
	c := *a
	c.Labels = LabelsWithHash(a.Labels, "abc")
	if !sameBytesButLabels(a, &c) {
		t.Fatal("a shallow copy with new labels is not recognised")
	}
	if !EqualIgnoreHash(a, &c) {
		t.Fatal("EqualIgnoreHash(a, shallow copy) = false")
	}
	d := c
	d.Spec.RestartPolicy = corev1.RestartPolicyNever
	if sameBytesButLabels(a, &d) || EqualIgnoreHash(a, &d) {
		t.Fatal("a changed restartPolicy is taken for the same template")
	}
	e := c
	e.Name = "other"
	if sameBytesButLabels(a, &e) || EqualIgnoreHash(a, &e) {
		t.Fatal("a changed name (before the labels) is taken for the same template")
	}
	if sameBytesButLabels(a, a.DeepCopy()) {
		t.Fatal("a deep copy has other pointers: not the same bytes")
	}
}

// emptyFieldsV1 is managed fields whose raw bytes are empty but not nil.
func emptyFieldsV1() *metav1.FieldsV1 {
	f := &metav1.FieldsV1{}
	f.SetRawBytes([]byte{})
	return f
}
