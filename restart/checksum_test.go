package restart_test

import (
	"maps"
	"regexp"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/deploymath/deploymath/restart"
)

var hex16 = regexp.MustCompile(`^[0-9a-f]{16}$`)

func TestChecksumConfigMap(t *testing.T) {
	base := configMap("ns", "a", map[string]string{"a": "bc"})
	sum := restart.ChecksumConfigMap(base)
	if !hex16.MatchString(sum) {
		t.Fatalf("checksum %q is not 16 hex characters", sum)
	}
	meta := base.DeepCopy()
	meta.Labels = map[string]string{"x": "y"}
	meta.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{}"}
	meta.ResourceVersion = "99"
	meta.Name, meta.Namespace = "other", "elsewhere"
	meta.Immutable = ptr(true)
	if got := restart.ChecksumConfigMap(meta); got != sum {
		t.Errorf("metadata-only edit changed the checksum: %s → %s", sum, got)
	}
	differ := map[string]*corev1.ConfigMap{
		"framing ab/c":         configMap("ns", "a", map[string]string{"ab": "c"}),
		"extra empty key":      configMap("ns", "a", map[string]string{"a": "bc", "": ""}),
		"value changed":        configMap("ns", "a", map[string]string{"a": "bd"}),
		"same pair in binary":  {BinaryData: map[string][]byte{"a": []byte("bc")}},
		"binary added":         {Data: map[string]string{"a": "bc"}, BinaryData: map[string][]byte{"z": nil}},
		"empty":                {},
		"key moved into value": configMap("ns", "a", map[string]string{"a": "bc\x00"}),
		"two keys joined":      configMap("ns", "a", map[string]string{"a": "b", "c": ""}),
		"length-like value":    configMap("ns", "a", map[string]string{"a\x00\x00\x00\x00\x00\x00\x00\x02bc": ""}),
	}
	seen := map[string]string{sum: "base"}
	for name, cm := range differ {
		got := restart.ChecksumConfigMap(cm)
		if prev, dup := seen[got]; dup {
			t.Errorf("%s: same checksum as %s", name, prev)
		}
		seen[got] = name
	}
	if restart.ChecksumConfigMap(&corev1.ConfigMap{}) != restart.ChecksumConfigMap(&corev1.ConfigMap{Data: map[string]string{}, BinaryData: map[string][]byte{}}) ||
		restart.ChecksumConfigMap(nil) != restart.ChecksumConfigMap(&corev1.ConfigMap{}) {
		t.Error("nil and empty maps differ")
	}
}

func TestChecksumSecret(t *testing.T) {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Data: map[string][]byte{"user": []byte("u"), "pass": []byte("old")}}
	manifest := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Data: map[string][]byte{"user": []byte("u"), "pass": []byte("zzz")},
		StringData: map[string]string{"pass": "old"}}
	if a, b := restart.ChecksumSecret(s), restart.ChecksumSecret(manifest); a != b {
		t.Errorf("stringData is not merged over data: %s vs %s", a, b)
	}
	if a, b := restart.XingChecksumSecret(s), restart.XingChecksumSecret(manifest); a != b {
		t.Errorf("xing: stringData is not merged over data: %s vs %s", a, b)
	}
	typed := s.DeepCopy()
	typed.Type = corev1.SecretTypeBasicAuth
	if restart.ChecksumSecret(typed) != restart.ChecksumSecret(s) {
		t.Error("type changed the checksum")
	}
	// A Secret and a ConfigMap with the same pairs do not share a checksum.
	if restart.ChecksumSecret(&corev1.Secret{Data: map[string][]byte{"a": []byte("b")}}) ==
		restart.ChecksumConfigMap(&corev1.ConfigMap{Data: map[string]string{"a": "b"}}) {
		t.Error("secret and configmap collide")
	}
	if s.StringData != nil || string(manifest.Data["pass"]) != "zzz" {
		t.Error("input mutated")
	}
}

// The values the kubernetes-deployment-restart-controller records: the first
// 8 bytes of SHA-256 over encoding/json's output, e.g.
// printf '{"a":"b"}' | sha256sum | cut -c1-16.
func TestXingChecksumKnownValues(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{`configmap {"a":"b"}`, restart.XingChecksumConfigMap(&corev1.ConfigMap{Data: map[string]string{"a": "b"}}), "db4a7ecb114bc66c"},
		{"configmap without data (null)", restart.XingChecksumConfigMap(&corev1.ConfigMap{}), "74234e98afe7498f"},
		{"nil configmap", restart.XingChecksumConfigMap(nil), "74234e98afe7498f"},
		{`secret {"k":"dg=="}`, restart.XingChecksumSecret(&corev1.Secret{Data: map[string][]byte{"k": []byte("v")}}), "55cb228b342ed33e"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, tt.got, tt.want)
		}
	}
	withBinary := &corev1.ConfigMap{Data: map[string]string{"a": "b"}, BinaryData: map[string][]byte{"z": {1}}}
	if restart.XingChecksumConfigMap(withBinary) == "db4a7ecb114bc66c" {
		t.Error("binaryData ignored")
	}
	c, err := restart.ConfigOf(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "x", ResourceVersion: "3"},
		Data: map[string]string{"a": "b"}}, restart.ChecksumXing)
	must(t, err)
	if c != (restart.Config{Kind: restart.KindConfigMap, Namespace: "n", Name: "x", ResourceVersion: "3", Checksum: "db4a7ecb114bc66c"}) {
		t.Errorf("ConfigOf = %+v", c)
	}
}

func genData(t *rapid.T, label string) map[string]string {
	return rapid.MapOfN(rapid.StringN(0, 6, -1), rapid.StringN(0, 6, -1), 0, 6).Draw(t, label)
}

// The checksum depends on the pairs, not on how the map was built.
func TestPropChecksumIgnoresKeyOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		data := genData(t, "data")
		keys := make([]string, 0, len(data))
		for k := range data {
			keys = append(keys, k)
		}
		perm := rapid.Permutation(keys).Draw(t, "order")
		rebuilt := make(map[string]string, len(data))
		secData := map[string][]byte{}
		for _, k := range perm {
			rebuilt[k] = data[k]
			secData[k] = []byte(data[k])
		}
		a := restart.ChecksumConfigMap(&corev1.ConfigMap{Data: data})
		if b := restart.ChecksumConfigMap(&corev1.ConfigMap{Data: rebuilt}); a != b {
			t.Fatalf("order changed the checksum: %s vs %s", a, b)
		}
		if !hex16.MatchString(a) {
			t.Fatalf("not 16 hex: %q", a)
		}
		sec := &corev1.Secret{Data: secData}
		if restart.ChecksumSecret(sec) != restart.ChecksumSecret(sec.DeepCopy()) {
			t.Fatal("secret checksum not stable")
		}
		if restart.XingChecksumConfigMap(&corev1.ConfigMap{Data: data}) != restart.XingChecksumConfigMap(&corev1.ConfigMap{Data: rebuilt}) {
			t.Fatal("xing checksum depends on order")
		}
	})
}

// Any change of any key or value — an edit, a split of a key into its value,
// an added or removed pair — changes the checksum.
func TestPropChecksumSensitiveToAnyChange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		data := genData(t, "data")
		edited := maps.Clone(data)
		switch op := rapid.IntRange(0, 3).Draw(t, "op"); {
		case op == 0 || len(data) == 0: // add a pair
			k := rapid.StringN(0, 6, -1).Filter(func(k string) bool { _, ok := data[k]; return !ok }).Draw(t, "newKey")
			edited[k] = rapid.StringN(0, 6, -1).Draw(t, "newValue")
		default:
			keys := make([]string, 0, len(data))
			for k := range data {
				keys = append(keys, k)
			}
			k := rapid.SampledFrom(keys).Draw(t, "key")
			switch op {
			case 1: // remove
				delete(edited, k)
			case 2: // edit the value by one byte
				v := []byte(data[k])
				if len(v) == 0 {
					v = []byte{0}
				} else {
					i := rapid.IntRange(0, len(v)-1).Draw(t, "byte")
					v[i] ^= byte(rapid.IntRange(1, 255).Draw(t, "xor"))
				}
				edited[k] = string(v)
			case 3: // move the boundary between key and value
				if len(k) == 0 {
					edited[k] = data[k] + "x"
					break
				}
				delete(edited, k)
				nk, nv := k[:len(k)-1], k[len(k)-1:]+data[k]
				if _, clash := data[nk]; clash {
					nv += "\x00"
				}
				edited[nk] = nv
			}
		}
		if maps.Equal(data, edited) {
			t.Skip("no change")
		}
		if restart.ChecksumConfigMap(&corev1.ConfigMap{Data: data}) == restart.ChecksumConfigMap(&corev1.ConfigMap{Data: edited}) {
			t.Fatalf("%q and %q have the same checksum", data, edited)
		}
		toBytes := func(m map[string]string) map[string][]byte {
			out := map[string][]byte{}
			for k, v := range m {
				out[k] = []byte(v)
			}
			return out
		}
		if restart.ChecksumSecret(&corev1.Secret{Data: toBytes(data)}) == restart.ChecksumSecret(&corev1.Secret{Data: toBytes(edited)}) {
			t.Fatalf("secrets %q and %q have the same checksum", data, edited)
		}
	})
}
