package defaulting

import (
	"reflect"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/hashing"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestStoredIsFreshlyDecoded: the template Stored returns is the one a
// controller holds, decoded and never encoded since, so it hashes as its
// own encoding decoded again; and Stored leaves the hash of its input
// alone. A divisor of 0.5Gi (parsed as 512Mi, whose string ParseQuantity
// does not cache) and an emptyDir sizeLimit of 0.5Gi are quantities held in
// fields, which encoding caches a string in: before Stored encoded from a
// copy and decoded its second trip for them, the first template hashed
// 558545f55d where the real storage path gives 78c4cb587b (the differential
// TestDefaulting, rapid case 13:16), and the input's hash changed.
func TestStoredIsFreshlyDecoded(t *testing.T) {
	divisor := func(q string) *corev1.ResourceFieldSelector {
		return &corev1.ResourceFieldSelector{Resource: "limits.memory", Divisor: resource.MustParse(q)}
	}
	size := resource.MustParse("0.5Gi")
	for name, in := range map[string]*corev1.PodTemplateSpec{
		"env divisor": {Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:1",
			Env: []corev1.EnvVar{{Name: "M", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: divisor("0.5Gi")}}}}}}},
		"init env divisor": {Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "init", Image: "app:1",
			Env: []corev1.EnvVar{{Name: "M", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: divisor("512Mi")}}}}}}},
		"downwardAPI divisor": {Spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "d", VolumeSource: corev1.VolumeSource{
			DownwardAPI: &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{{Path: "m", ResourceFieldRef: divisor("2048Ki")}}}}}}}},
		"emptyDir sizeLimit": {Spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "e", VolumeSource: corev1.VolumeSource{
			EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: &size}}}}}},
	} {
		before := hashing.PodTemplateHash(in, nil)
		st := Stored(in)
		if after := hashing.PodTemplateHash(in, nil); after != before {
			t.Errorf("%s: Stored changed its input's hash %s -> %s", name, before, after)
		}
		b, err := st.DeepCopy().Marshal()
		if err != nil {
			t.Fatal(err)
		}
		var again corev1.PodTemplateSpec
		if err := again.Unmarshal(b); err != nil {
			t.Fatal(err)
		}
		if got, want := hashing.PodTemplateHash(&st, nil), hashing.PodTemplateHash(&again, nil); got != want {
			t.Errorf("%s: Stored hashes %s, its form decoded again %s", name, got, want)
		}
	}
}

// TestQuantityInFieldCoversTemplate walks corev1.PodTemplateSpec's type
// for every resource quantity that is not a map value, builds a template
// holding only that one, and checks quantityInField finds it: a field
// k8s.io/api adds in a later version fails here.
func TestQuantityInFieldCoversTemplate(t *testing.T) {
	if quantityInField(&corev1.PodTemplateSpec{}) {
		t.Fatal("an empty template has a quantity in a field")
	}
	qt := reflect.TypeOf(resource.Quantity{})
	var paths [][]int // field indexes; -1: through a pointer or a slice
	var walk func(ty reflect.Type, path []int, open map[reflect.Type]bool)
	walk = func(ty reflect.Type, path []int, open map[reflect.Type]bool) {
		switch ty.Kind() {
		case reflect.Pointer, reflect.Slice:
			walk(ty.Elem(), append(path, -1), open)
		case reflect.Struct:
			if ty == qt {
				paths = append(paths, append([]int(nil), path...))
				return
			}
			if open[ty] {
				return
			}
			open[ty] = true
			for i := 0; i < ty.NumField(); i++ {
				walk(ty.Field(i).Type, append(path, i), open)
			}
			delete(open, ty)
		}
		// Maps (resource lists) are encoded from a copy of each value.
	}
	walk(reflect.TypeOf(corev1.PodTemplateSpec{}), nil, map[reflect.Type]bool{})
	if len(paths) < 6 {
		t.Fatalf("found %d quantities in fields, want at least the 6 of v1.37", len(paths))
	}
	for _, path := range paths {
		var tmpl corev1.PodTemplateSpec
		v := reflect.ValueOf(&tmpl).Elem()
		var names []string
		for _, i := range path {
			switch {
			case v.Kind() == reflect.Pointer:
				v.Set(reflect.New(v.Type().Elem()))
				v = v.Elem()
			case v.Kind() == reflect.Slice:
				v.Set(reflect.MakeSlice(v.Type(), 1, 1))
				v = v.Index(0)
			}
			if i >= 0 {
				names = append(names, v.Type().Field(i).Name)
				v = v.Field(i)
			}
		}
		if v.Kind() == reflect.Pointer {
			v.Set(reflect.New(qt))
			v = v.Elem()
		}
		v.Set(reflect.ValueOf(resource.MustParse("1")))
		if !quantityInField(&tmpl) {
			t.Errorf("quantityInField misses %s", strings.Join(names, "."))
		}
	}
}
