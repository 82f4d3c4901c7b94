package hashing

import (
	"math"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

func TestLabelKey(t *testing.T) {
	if LabelKey != "pod-template-hash" {
		t.Fatalf("LabelKey = %q", LabelKey)
	}
}

// TestCollisionCountChangesHash mirrors upstream's ComputeHash test: the same
// template with different collision counts (including nil versus a set
// count, and the maximum int32) hashes differently.
func TestCollisionCountChangesHash(t *testing.T) {
	one, two, maxCount, zero := int32(1), int32(2), int32(math.MaxInt32), int32(0)
	tests := []struct {
		name   string
		a, b   *int32
		tplFun func() *corev1.PodTemplateSpec
	}{
		{"1 vs 2", &one, &two, emptyTemplate},
		{"nil vs MaxInt32", nil, &maxCount, emptyTemplate},
		{"nil vs 0", nil, &zero, emptyTemplate},
		{"0 vs 1 on a real template", &zero, &one, realisticTemplate},
	}
	for _, tt := range tests {
		tpl := tt.tplFun()
		if a, b := PodTemplateHash(tpl, tt.a), PodTemplateHash(tpl, tt.b); a == b {
			t.Errorf("%s: both hash to %q", tt.name, a)
		}
	}
}

// TestHashIsDeterministicAndPointerIndependent: hashing twice gives the same
// value, and two templates equal field by field but built with different
// pointers hash the same (spew follows pointers, it does not print them).
func TestHashIsDeterministicAndPointerIndependent(t *testing.T) {
	a, b := realisticTemplate(), realisticTemplate()
	if a.Spec.TerminationGracePeriodSeconds == b.Spec.TerminationGracePeriodSeconds {
		t.Fatal("fixture should allocate fresh pointers")
	}
	if first, again := PodTemplateHash(a, nil), PodTemplateHash(a, nil); first != again {
		t.Fatalf("not deterministic: %q then %q", first, again)
	}
	if ha, hb := PodTemplateHash(a, nil), PodTemplateHash(b, nil); ha != hb {
		t.Fatalf("equal templates with different pointers: %q vs %q", ha, hb)
	}
}

// TestHashDistinguishesWhatSpewDistinguishes documents the sharp edges that
// upstream has too: nil versus empty maps, quantity representations, and a
// pointer shared by two fields (spew prints the second one as <shown>).
func TestHashDistinguishesWhatSpewDistinguishes(t *testing.T) {
	base := nginxTemplate()

	emptyAnn := nginxTemplate()
	emptyAnn.Annotations = map[string]string{}

	milli := nginxTemplate()
	milli.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1000m")}
	one := nginxTemplate()
	one.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}

	shared := ptrTo[int64](1000)
	aliased := nginxTemplate()
	aliased.DeletionGracePeriodSeconds = shared
	aliased.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{RunAsUser: shared}
	separate := nginxTemplate()
	separate.DeletionGracePeriodSeconds = ptrTo[int64](1000)
	separate.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{RunAsUser: ptrTo[int64](1000)}

	for _, pair := range []struct {
		name string
		a, b *corev1.PodTemplateSpec
	}{
		{"nil vs empty annotations", base, emptyAnn},
		{"1000m vs 1", milli, one},
		{"aliased vs separate pointers", aliased, separate},
	} {
		ha, hb := PodTemplateHash(pair.a, nil), PodTemplateHash(pair.b, nil)
		if ha == hb {
			t.Errorf("%s: expected different hashes, both %q", pair.name, ha)
		}
		if ra, rb := referenceHash(pair.a, nil), referenceHash(pair.b, nil); ra != ha || rb != hb {
			t.Errorf("%s: reference (%q, %q) != fast (%q, %q)", pair.name, ra, rb, ha, hb)
		}
		if !EqualIgnoreHash(pair.a, pair.b) {
			t.Errorf("%s: expected EqualIgnoreHash", pair.name)
		}
	}
}

// TestPodTemplateSpecFields guards EqualIgnoreHash, which compares metadata
// and spec separately: a new field in PodTemplateSpec must fail here.
func TestPodTemplateSpecFields(t *testing.T) {
	typ := reflect.TypeFor[corev1.PodTemplateSpec]()
	var names []string
	for i := range typ.NumField() {
		names = append(names, typ.Field(i).Name)
	}
	if diff := cmp.Diff([]string{"ObjectMeta", "Spec"}, names); diff != "" {
		t.Fatalf("PodTemplateSpec fields changed; update EqualIgnoreHash (-want +got):\n%s", diff)
	}
}

func TestNilTemplate(t *testing.T) {
	cc := int32(4)
	for _, c := range []*int32{nil, &cc} {
		if got, want := PodTemplateHash(nil, c), PodTemplateHash(&corev1.PodTemplateSpec{}, c); got != want {
			t.Errorf("nil template hashes %q, zero template %q", got, want)
		}
	}
	if !EqualIgnoreHash(nil, nil) || !EqualIgnoreHash(nil, &corev1.PodTemplateSpec{}) || !EqualIgnoreHash(&corev1.PodTemplateSpec{}, nil) {
		t.Error("nil must equal the zero template")
	}
	if EqualIgnoreHash(nil, nginxTemplate()) || EqualIgnoreHash(nginxTemplate(), nil) {
		t.Error("nil must differ from a non-empty template")
	}
	if !EqualIgnoreHash(nil, TemplateWithHash(nil, "abc")) {
		t.Error("nil must equal a template with only the hash label")
	}
}

// TestEqualIgnoreHashUpstreamCases covers the cases of upstream's
// TestEqualIgnoreHash, in both argument orders.
func TestEqualIgnoreHashUpstreamCases(t *testing.T) {
	tpl := func(image string, labels map[string]string) *corev1.PodTemplateSpec {
		return &corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image}}},
		}
	}
	tests := []struct {
		name string
		a, b *corev1.PodTemplateSpec
		want bool
	}{
		{"same spec, same labels",
			tpl("foo", map[string]string{LabelKey: "value-1", "something": "else"}),
			tpl("foo", map[string]string{LabelKey: "value-1", "something": "else"}), true},
		{"same spec, only hash label value differs",
			tpl("foo", map[string]string{LabelKey: "value-1", "something": "else"}),
			tpl("foo", map[string]string{LabelKey: "value-2", "something": "else"}), true},
		{"same spec, one without hash label",
			tpl("foo", map[string]string{"something": "else"}),
			tpl("foo", map[string]string{LabelKey: "value-2", "something": "else"}), true},
		{"same spec, other label differs, one without hash label, same label count",
			tpl("foo", map[string]string{"something": "else", "extra": "x"}),
			tpl("foo", map[string]string{LabelKey: "value-2", "something": "else"}), false},
		{"same spec, other label differs, same hash label",
			tpl("foo", map[string]string{LabelKey: "value-1", "something": "else"}),
			tpl("foo", map[string]string{LabelKey: "value-1", "nothing": "else"}), false},
		{"different spec, same labels",
			tpl("foo", map[string]string{LabelKey: "value-1", "something": "else"}),
			tpl("bar", map[string]string{LabelKey: "value-1", "something": "else"}), false},
		{"different spec, different hash label",
			tpl("foo", map[string]string{LabelKey: "value-1", "something": "else"}),
			tpl("bar", map[string]string{LabelKey: "value-2", "something": "else"}), false},
		{"different spec, one without hash label",
			tpl("foo", map[string]string{"something": "else"}),
			tpl("bar", map[string]string{LabelKey: "value-2", "something": "else"}), false},
		{"different spec, different labels",
			tpl("foo", map[string]string{"something": "else"}),
			tpl("bar", map[string]string{"nothing": "else"}), false},
		{"nil labels vs only the hash label",
			tpl("foo", nil),
			tpl("foo", map[string]string{LabelKey: "value-1"}), true},
		{"nil labels vs empty labels",
			tpl("foo", nil), tpl("foo", map[string]string{}), true},
		{"hash label with empty value vs none",
			tpl("foo", map[string]string{LabelKey: ""}), tpl("foo", nil), true},
		{"label value differs only in case",
			tpl("foo", map[string]string{"a": "x"}), tpl("foo", map[string]string{"a": "X"}), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a0, b0 := tt.a.DeepCopy(), tt.b.DeepCopy()
			for i, args := range [][2]*corev1.PodTemplateSpec{{tt.a, tt.b}, {tt.b, tt.a}} {
				if got := EqualIgnoreHash(args[0], args[1]); got != tt.want {
					t.Errorf("order %d: EqualIgnoreHash = %v, want %v", i, got, tt.want)
				}
				if got := referenceEqualIgnoreHash(args[0], args[1]); got != tt.want {
					t.Errorf("order %d: reference = %v, want %v", i, got, tt.want)
				}
			}
			if !reflect.DeepEqual(a0, tt.a) || !reflect.DeepEqual(b0, tt.b) {
				t.Error("inputs were mutated")
			}
		})
	}
}

// TestEqualIgnoreHashSemantics: nil and empty maps and slices are equal,
// quantities compare by value, times by instant.
func TestEqualIgnoreHashSemantics(t *testing.T) {
	a, b := nginxTemplate(), nginxTemplate()
	a.Annotations, b.Annotations = nil, map[string]string{}
	a.Spec.Volumes, b.Spec.Volumes = nil, []corev1.Volume{}
	a.Spec.NodeSelector, b.Spec.NodeSelector = map[string]string{}, nil
	a.Spec.Containers[0].Args, b.Spec.Containers[0].Args = []string{}, nil
	a.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
	b.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1000m")}
	a.CreationTimestamp = metav1.Unix(1700000000, 0)
	b.CreationTimestamp = metav1.NewTime(a.CreationTimestamp.In(metav1.Unix(0, 0).Location()).UTC())
	if !EqualIgnoreHash(a, b) {
		t.Fatalf("expected semantic equality:\n%s", cmp.Diff(a, b))
	}
	if !referenceEqualIgnoreHash(a, b) {
		t.Fatal("reference disagrees")
	}
}

// TestEqualIgnoreHashLaws checks, on random templates, that EqualIgnoreHash
// agrees with the deep-copy reference, is reflexive and symmetric, ignores
// exactly the hash label, notices any other change, and mutates nothing.
func TestEqualIgnoreHashLaws(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		a := genTemplate.Draw(t, "a")
		b := genTemplate.Draw(t, "b")
		a0, b0 := a.DeepCopy(), b.DeepCopy()

		if got, want := EqualIgnoreHash(a, b), referenceEqualIgnoreHash(a, b); got != want {
			t.Fatalf("EqualIgnoreHash = %v, reference = %v", got, want)
		}
		if EqualIgnoreHash(a, b) != EqualIgnoreHash(b, a) {
			t.Fatal("not symmetric")
		}
		if !EqualIgnoreHash(a, a) || !EqualIgnoreHash(a, a.DeepCopy()) {
			t.Fatal("not reflexive")
		}

		hash := genName.Draw(t, "hash")
		labelled := TemplateWithHash(a, hash)
		if !EqualIgnoreHash(a, labelled) || !EqualIgnoreHash(labelled, a) {
			t.Fatal("adding the hash label made templates differ")
		}
		unlabelled := a.DeepCopy()
		unlabelled.Labels = LabelsWithoutHash(unlabelled.Labels)
		if !EqualIgnoreHash(a, unlabelled) {
			t.Fatal("removing the hash label made templates differ")
		}

		mutated := a.DeepCopy()
		what := mutate(t, mutated)
		if EqualIgnoreHash(a, mutated) || EqualIgnoreHash(mutated, a) {
			t.Fatalf("change %q not noticed", what)
		}
		if referenceEqualIgnoreHash(a, mutated) {
			t.Fatalf("reference does not notice change %q", what)
		}

		if !reflect.DeepEqual(a0, a) || !reflect.DeepEqual(b0, b) {
			t.Fatal("inputs were mutated")
		}
	})
}

// mutate makes one semantic change to tpl (never to the hash label) and
// says which.
func mutate(t *rapid.T, tpl *corev1.PodTemplateSpec) string {
	switch rapid.IntRange(0, 6).Draw(t, "mutation") {
	case 0:
		key := "mutated-" + genName.Draw(t, "labelKey")
		tpl.Labels = LabelsWithHash(tpl.Labels, "")
		delete(tpl.Labels, LabelKey)
		tpl.Labels[key] = tpl.Labels[key] + "x"
		return "label " + key
	case 1:
		ann := map[string]string{}
		for k, v := range tpl.Annotations {
			ann[k] = v
		}
		ann["mutated"] = ann["mutated"] + "x"
		tpl.Annotations = ann
		return "annotation"
	case 2:
		tpl.Spec.Containers = append(tpl.Spec.Containers, corev1.Container{Name: "extra"})
		return "extra container"
	case 3:
		tpl.Spec.ServiceAccountName += "x"
		return "service account"
	case 4:
		if tpl.Spec.TerminationGracePeriodSeconds == nil {
			tpl.Spec.TerminationGracePeriodSeconds = ptrTo[int64](7)
		} else {
			tpl.Spec.TerminationGracePeriodSeconds = ptrTo(*tpl.Spec.TerminationGracePeriodSeconds + 1)
		}
		return "terminationGracePeriodSeconds"
	case 5:
		q := resource.MustParse("1")
		for _, rl := range tpl.Spec.Overhead {
			q = rl.DeepCopy()
			q.Add(resource.MustParse("1"))
			break
		}
		rl := corev1.ResourceList{}
		for k, v := range tpl.Spec.Overhead {
			rl[k] = v
		}
		rl["mutated.example.com/thing"] = q
		tpl.Spec.Overhead = rl
		return "overhead quantity"
	default:
		tpl.Name += "x"
		return "name"
	}
}

func TestTemplateWithHash(t *testing.T) {
	in := nginxTemplate()
	in0 := in.DeepCopy()
	out := TemplateWithHash(in, "abc")
	if out.Labels[LabelKey] != "abc" || out.Labels["app"] != "nginx" || len(out.Labels) != 2 {
		t.Fatalf("labels = %v", out.Labels)
	}
	if !reflect.DeepEqual(in, in0) {
		t.Fatal("input mutated")
	}
	out.Spec.Containers[0].Image = "changed"
	out.Labels["app"] = "changed"
	if !reflect.DeepEqual(in, in0) {
		t.Fatal("output shares memory with the input")
	}
	again := TemplateWithHash(out, "def")
	if again.Labels[LabelKey] != "def" || out.Labels[LabelKey] != "abc" {
		t.Fatal("replacing the hash label")
	}
	if got := TemplateWithHash(nil, "h"); !reflect.DeepEqual(got, &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{LabelKey: "h"}}}) {
		t.Fatalf("nil template: %#v", got)
	}
	noLabels := &corev1.PodTemplateSpec{}
	if TemplateWithHash(noLabels, "h"); noLabels.Labels != nil {
		t.Fatal("nil labels of the input were filled in")
	}
}

func TestSelectorWithHash(t *testing.T) {
	in := &metav1.LabelSelector{
		MatchLabels: map[string]string{"app": "nginx"},
		MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}},
		},
	}
	in0 := in.DeepCopy()
	out := SelectorWithHash(in, "abc")
	want := &metav1.LabelSelector{
		MatchLabels:      map[string]string{"app": "nginx", LabelKey: "abc"},
		MatchExpressions: in0.MatchExpressions,
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	out.MatchExpressions[0].Values[0] = "changed"
	out.MatchLabels["app"] = "changed"
	if !reflect.DeepEqual(in, in0) {
		t.Fatal("output shares memory with the input")
	}
	if got := SelectorWithHash(nil, "h"); !reflect.DeepEqual(got, &metav1.LabelSelector{MatchLabels: map[string]string{LabelKey: "h"}}) {
		t.Fatalf("nil selector: %#v", got)
	}
	if got := SelectorWithHash(&metav1.LabelSelector{}, "h"); got.MatchExpressions != nil {
		t.Fatal("nil matchExpressions must stay nil")
	}
}

func TestLabelsWithAndWithoutHash(t *testing.T) {
	tests := []struct {
		in          map[string]string
		with, witho map[string]string
	}{
		{nil, map[string]string{LabelKey: "h"}, map[string]string{}},
		{map[string]string{}, map[string]string{LabelKey: "h"}, map[string]string{}},
		{map[string]string{"a": "1"}, map[string]string{"a": "1", LabelKey: "h"}, map[string]string{"a": "1"}},
		{map[string]string{"a": "1", LabelKey: "old"}, map[string]string{"a": "1", LabelKey: "h"}, map[string]string{"a": "1"}},
		{map[string]string{LabelKey: "old"}, map[string]string{LabelKey: "h"}, map[string]string{}},
	}
	for i, tt := range tests {
		var in0 map[string]string
		if tt.in != nil {
			in0 = map[string]string{}
			for k, v := range tt.in {
				in0[k] = v
			}
		}
		with, witho := LabelsWithHash(tt.in, "h"), LabelsWithoutHash(tt.in)
		if diff := cmp.Diff(tt.with, with); diff != "" {
			t.Errorf("case %d: LabelsWithHash (-want +got):\n%s", i, diff)
		}
		if diff := cmp.Diff(tt.witho, witho); diff != "" || witho == nil {
			t.Errorf("case %d: LabelsWithoutHash (-want +got):\n%s", i, diff)
		}
		if !reflect.DeepEqual(tt.in, in0) {
			t.Errorf("case %d: input mutated", i)
		}
		with["new"], witho["new"] = "x", "x"
		if _, ok := tt.in["new"]; ok {
			t.Errorf("case %d: result shares the input map", i)
		}
	}
}

// TestLabelledWithOwnHash: a template labelled with its own hash is still
// the same template for EqualIgnoreHash, and the labelled copy hashes
// differently (the label is part of the hashed value), as upstream.
func TestLabelledWithOwnHash(t *testing.T) {
	for _, mk := range []func() *corev1.PodTemplateSpec{emptyTemplate, nginxTemplate, realisticTemplate} {
		tpl := mk()
		h := PodTemplateHash(tpl, nil)
		labelled := TemplateWithHash(tpl, h)
		if !EqualIgnoreHash(tpl, labelled) {
			t.Errorf("%s: labelled template not equal ignoring hash", h)
		}
		if PodTemplateHash(labelled, nil) == h {
			t.Errorf("%s: labelled template hashes the same", h)
		}
		if PodTemplateHash(tpl, nil) != h {
			t.Errorf("%s: hashing the original changed after labelling", h)
		}
	}
}
