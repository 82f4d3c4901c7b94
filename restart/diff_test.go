package restart_test

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"pgregory.net/rapid"

	"github.com/deploymath/deploymath/restart"
)

// objects is a Lookup over ConfigMaps and Secrets keyed by config key.
type objects map[string]runtime.Object

func (o objects) lookup(r restart.Ref) (runtime.Object, error) { return o[r.Key()], nil }

func cmRef(name string) restart.Ref {
	return restart.Ref{Kind: restart.KindConfigMap, Namespace: "shop", Name: name}
}

func secretRef(name string) restart.Ref {
	return restart.Ref{Kind: restart.KindSecret, Namespace: "shop", Name: name}
}

func TestDiffChecksums(t *testing.T) {
	settings := configMap("shop", "settings", map[string]string{"LOG_LEVEL": "info", "PORT": "80"})
	edited := configMap("shop", "settings", map[string]string{"LOG_LEVEL": "debug", "PORT": "80", "NEW": "x"})
	tls := secret("shop", "tls", map[string]string{"crt": "c"})
	sum := restart.ChecksumConfigMap
	live := objects{"configmap/shop/settings": edited, "secret/shop/tls": tls}
	ann := func(m map[string]string) string { return restart.FormatChecksums(m) }
	type change struct {
		Config, Change string
		Keys           []string
		KeysKnown      bool
	}
	for _, tc := range []struct {
		name       string
		refs       []restart.Ref
		annotation string
		current    objects
		previous   objects
		changes    []change
		missing    []string
		checksums  map[string]string
		restart    bool
	}{{
		name:      "added: not recorded yet",
		refs:      []restart.Ref{cmRef("settings")},
		current:   live,
		changes:   []change{{"configmap/shop/settings", "added", nil, false}},
		checksums: map[string]string{"configmap/shop/settings": sum(edited)},
	}, {
		name:       "changed: recorded checksum differs",
		refs:       []restart.Ref{cmRef("settings")},
		annotation: ann(map[string]string{"configmap/shop/settings": sum(settings)}),
		current:    live,
		changes:    []change{{"configmap/shop/settings", "changed", nil, false}},
		checksums:  map[string]string{"configmap/shop/settings": sum(edited)},
		restart:    true,
	}, {
		name:       "changed, with the recorded version: keys known",
		refs:       []restart.Ref{cmRef("settings")},
		annotation: ann(map[string]string{"configmap/shop/settings": sum(settings)}),
		current:    live,
		previous:   objects{"configmap/shop/settings": settings},
		changes:    []change{{"configmap/shop/settings", "changed", []string{"LOG_LEVEL", "NEW"}, true}},
		checksums:  map[string]string{"configmap/shop/settings": sum(edited)},
		restart:    true,
	}, {
		name:       "changed, previous is not the recorded version: keys unknown",
		refs:       []restart.Ref{cmRef("settings")},
		annotation: ann(map[string]string{"configmap/shop/settings": sum(settings)}),
		current:    live,
		previous:   objects{"configmap/shop/settings": configMap("shop", "settings", map[string]string{"LOG_LEVEL": "warn"})},
		changes:    []change{{"configmap/shop/settings", "changed", nil, false}},
		checksums:  map[string]string{"configmap/shop/settings": sum(edited)},
		restart:    true,
	}, {
		name:       "removed: recorded but no longer referenced",
		refs:       []restart.Ref{cmRef("settings")},
		annotation: ann(map[string]string{"configmap/shop/settings": sum(edited), "configmap/shop/old": "0123456789abcdef"}),
		current:    live,
		changes:    []change{{"configmap/shop/old", "removed", nil, false}},
		checksums:  map[string]string{"configmap/shop/settings": sum(edited)},
	}, {
		name:       "missing and recorded: checksum kept",
		refs:       []restart.Ref{cmRef("gone")},
		annotation: ann(map[string]string{"configmap/shop/gone": "0123456789abcdef"}),
		current:    live,
		missing:    []string{"configmap/shop/gone"},
		checksums:  map[string]string{"configmap/shop/gone": "0123456789abcdef"},
	}, {
		name:      "missing and never recorded",
		refs:      []restart.Ref{cmRef("gone")},
		current:   live,
		missing:   []string{"configmap/shop/gone"},
		checksums: map[string]string{},
	}, {
		name:       "unchanged",
		refs:       []restart.Ref{secretRef("tls"), cmRef("settings")},
		annotation: ann(map[string]string{"configmap/shop/settings": sum(edited), "secret/shop/tls": restart.ChecksumSecret(tls)}),
		current:    live,
		checksums:  map[string]string{"configmap/shop/settings": sum(edited), "secret/shop/tls": restart.ChecksumSecret(tls)},
	}, {
		name:       "all at once, sorted by key, duplicates merged",
		refs:       []restart.Ref{secretRef("tls"), cmRef("settings"), cmRef("gone"), cmRef("settings")},
		annotation: ann(map[string]string{"configmap/shop/settings": sum(settings), "configmap/shop/old": "0123456789abcdef"}),
		current:    live,
		changes: []change{
			{"configmap/shop/old", "removed", nil, false},
			{"configmap/shop/settings", "changed", nil, false},
			{"secret/shop/tls", "added", nil, false},
		},
		missing:   []string{"configmap/shop/gone"},
		checksums: map[string]string{"configmap/shop/settings": sum(edited), "secret/shop/tls": restart.ChecksumSecret(tls)},
		restart:   true,
	}, {
		name:       "JSON null annotation is empty",
		refs:       []restart.Ref{cmRef("settings")},
		annotation: "null",
		current:    live,
		changes:    []change{{"configmap/shop/settings", "added", nil, false}},
		checksums:  map[string]string{"configmap/shop/settings": sum(edited)},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var prev restart.Lookup
			if tc.previous != nil {
				prev = tc.previous.lookup
			}
			d, err := restart.DiffChecksums(restart.DefaultOptions(), tc.refs, tc.annotation, tc.current.lookup, prev)
			if err != nil {
				t.Fatal(err)
			}
			var changes []change
			for _, c := range d.Changes {
				changes = append(changes, change{c.Config, string(c.Change), c.Keys, c.KeysKnown})
			}
			var missing []string
			for _, r := range d.Missing {
				missing = append(missing, r.Key())
			}
			if diff := cmp.Diff(tc.changes, changes); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.missing, missing); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.checksums, d.Checksums); diff != "" {
				t.Errorf("checksums (-want +got):\n%s", diff)
			}
			if want := restart.FormatChecksums(tc.checksums); d.Annotation != want {
				t.Errorf("annotation %s, want %s", d.Annotation, want)
			}
			if d.Restart != tc.restart {
				t.Errorf("restart = %v, want %v", d.Restart, tc.restart)
			}
		})
	}
}

// Recorded and current checksums are reported, and a Secret's keys compare
// with stringData merged.
func TestDiffChecksumsChangeFields(t *testing.T) {
	old := secret("shop", "tls", map[string]string{"crt": "c", "key": "k"})
	cur := secret("shop", "tls", map[string]string{"crt": "c"})
	cur.StringData = map[string]string{"key": "k2", "ca": "a"}
	d, err := restart.DiffChecksums(restart.DefaultOptions(), []restart.Ref{secretRef("tls")},
		restart.FormatChecksums(map[string]string{"secret/shop/tls": restart.ChecksumSecret(old)}),
		objects{"secret/shop/tls": cur}.lookup, objects{"secret/shop/tls": old}.lookup)
	if err != nil {
		t.Fatal(err)
	}
	want := []restart.ConfigChange{{Config: "secret/shop/tls", Change: restart.ConfigChanged,
		Recorded: restart.ChecksumSecret(old), Current: restart.ChecksumSecret(cur), Keys: []string{"ca", "key"}, KeysKnown: true}}
	if diff := cmp.Diff(want, d.Changes); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// A ConfigMap key moved from data to binaryData with the same bytes is a
// changed key; a checksum change without any key change (Xing: null and {})
// reports known, empty keys.
func TestDiffChecksumsKeysEdgeCases(t *testing.T) {
	moved := &corev1.ConfigMap{BinaryData: map[string][]byte{"a": []byte("b")}}
	before := configMap("shop", "c", map[string]string{"a": "b"})
	ref := []restart.Ref{cmRef("c")}
	d, err := restart.DiffChecksums(restart.DefaultOptions(), ref,
		restart.FormatChecksums(map[string]string{"configmap/shop/c": restart.ChecksumConfigMap(before)}),
		objects{"configmap/shop/c": moved}.lookup, objects{"configmap/shop/c": before}.lookup)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != 1 || !slices.Equal(d.Changes[0].Keys, []string{"a"}) {
		t.Errorf("moved key: %+v", d.Changes)
	}

	nilData, emptyData := &corev1.ConfigMap{}, &corev1.ConfigMap{Data: map[string]string{}}
	d, err = restart.DiffChecksums(restart.XingKeys(), ref,
		restart.FormatChecksums(map[string]string{"configmap/shop/c": restart.XingChecksumConfigMap(nilData)}),
		objects{"configmap/shop/c": emptyData}.lookup, objects{"configmap/shop/c": nilData}.lookup)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != 1 || d.Changes[0].Change != restart.ConfigChanged || !d.Changes[0].KeysKnown || d.Changes[0].Keys == nil || len(d.Changes[0].Keys) != 0 {
		t.Errorf("null → {}: %+v", d.Changes)
	}
}

// The checksum algorithm and the annotation key come from the options: a
// value recorded by the original controller is unchanged under XingKeys.
func TestDiffChecksumsOptions(t *testing.T) {
	cm := configMap("shop", "settings", map[string]string{"a": "b"})
	refs := []restart.Ref{cmRef("settings")}
	ann := `{"configmap/shop/settings":"db4a7ecb114bc66c"}` // recorded by the original controller
	look := objects{"configmap/shop/settings": cm}.lookup
	d, err := restart.DiffChecksums(restart.XingKeys(), refs, ann, look, nil)
	if err != nil || len(d.Changes) != 0 || d.Restart {
		t.Errorf("XingKeys: %+v, %v; want no change", d, err)
	}
	d, err = restart.DiffChecksums(restart.DefaultOptions(), refs, ann, look, nil)
	if err != nil || !d.Restart {
		t.Errorf("DefaultOptions: %+v, %v; want a restart (other algorithm)", d, err)
	}
	bad := restart.DefaultOptions()
	bad.Checksum = 7
	if _, err := restart.DiffChecksums(bad, refs, ann, look, nil); err == nil || !strings.Contains(err.Error(), "Options.Checksum") {
		t.Errorf("invalid algorithm: %v", err)
	}
}

func TestDiffChecksumsErrors(t *testing.T) {
	refs := []restart.Ref{cmRef("settings")}
	cm := configMap("shop", "settings", map[string]string{"a": "b"})
	look := objects{"configmap/shop/settings": cm}.lookup
	boom := errors.New("cache not synced")
	for _, tc := range []struct {
		name       string
		opts       restart.Options
		refs       []restart.Ref
		annotation string
		current    restart.Lookup
		previous   restart.Lookup
		want       []string
	}{{
		name: "unparsable annotation, default key", opts: restart.DefaultOptions(), refs: refs,
		annotation: "{garbage", current: look,
		want: []string{"metadata.annotations[deploymath.io/config-checksums]", "{garbage"},
	}, {
		name: "not an object of strings, Xing key", opts: restart.XingKeys(), refs: refs,
		annotation: `{"configmap/shop/settings":1}`, current: look,
		want: []string{"metadata.annotations[com.xing.deployment-restart.applied-config-checksums]"},
	}, {
		name: "unknown checksum algorithm", opts: restart.Options{Checksum: 99}, refs: refs, current: look,
		want: []string{"Options.Checksum: invalid value"},
	}, {
		name: "bad ref kind", opts: restart.DefaultOptions(),
		refs: []restart.Ref{cmRef("a"), {Kind: "pod", Namespace: "shop", Name: "x"}}, current: look,
		want: []string{`refs[1].Kind: invalid value "pod"`},
	}, {
		name: "empty ref name", opts: restart.DefaultOptions(),
		refs: []restart.Ref{{Kind: restart.KindSecret, Namespace: "shop"}}, current: look,
		want: []string{"refs[0].Name: must not be empty"},
	}, {
		name: "lookup error", opts: restart.DefaultOptions(), refs: refs,
		current: func(restart.Ref) (runtime.Object, error) { return nil, boom },
		want:    []string{"configmap/shop/settings: cache not synced"},
	}, {
		name: "previous lookup error", opts: restart.DefaultOptions(), refs: refs,
		annotation: `{"configmap/shop/settings":"0000000000000000"}`, current: look,
		previous: func(restart.Ref) (runtime.Object, error) { return nil, boom },
		want:     []string{"configmap/shop/settings: cache not synced"},
	}, {
		name: "wrong type", opts: restart.DefaultOptions(), refs: refs,
		current: func(restart.Ref) (runtime.Object, error) { return secret("shop", "settings", nil), nil },
		want:    []string{"configmap/shop/settings: lookup returned *v1.Secret, want *v1.ConfigMap"},
	}, {
		name: "not a config", opts: restart.DefaultOptions(), refs: refs,
		current: func(restart.Ref) (runtime.Object, error) { return &appsv1.Deployment{}, nil },
		want:    []string{"lookup returned *v1.Deployment"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := restart.DiffChecksums(tc.opts, tc.refs, tc.annotation, tc.current, tc.previous)
			if err == nil {
				t.Fatalf("no error; diff %+v", d)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if !reflect.DeepEqual(d, restart.ChecksumDiff{}) {
				t.Errorf("diff with an error: %+v", d)
			}
		})
	}
	_, err := restart.DiffChecksums(restart.DefaultOptions(), refs, "", func(restart.Ref) (runtime.Object, error) { return nil, boom }, nil)
	if !errors.Is(err, boom) {
		t.Errorf("lookup error not wrapped: %v", err)
	}
}

func TestDiffChecksumsNilInputs(t *testing.T) {
	opts := restart.DefaultOptions()
	d, err := restart.DiffChecksums(opts, nil, "", nil, nil)
	if err != nil || len(d.Changes) != 0 || len(d.Missing) != 0 || d.Restart || d.Annotation != "{}" || d.Checksums == nil {
		t.Errorf("all nil: %+v, %v", d, err)
	}
	recorded := `{"configmap/shop/settings":"0123456789abcdef"}`
	d, err = restart.DiffChecksums(opts, []restart.Ref{cmRef("settings")}, recorded, nil, nil)
	if err != nil || len(d.Changes) != 0 || len(d.Missing) != 1 || d.Annotation != recorded {
		t.Errorf("nil current: %+v, %v", d, err)
	}
	typedNil := func(r restart.Ref) (runtime.Object, error) {
		var cm *corev1.ConfigMap
		return cm, nil
	}
	d, err = restart.DiffChecksums(opts, []restart.Ref{cmRef("settings")}, recorded, typedNil, typedNil)
	if err != nil || len(d.Missing) != 1 {
		t.Errorf("typed nil: %+v, %v", d, err)
	}
	d, err = restart.DiffChecksums(opts, nil, recorded, nil, nil)
	if err != nil || len(d.Changes) != 1 || d.Changes[0].Change != restart.ConfigRemoved || d.Annotation != "{}" {
		t.Errorf("nil refs: %+v, %v", d, err)
	}
	// A config with no data at all exists: it is recorded.
	d, err = restart.DiffChecksums(opts, []restart.Ref{cmRef("settings")}, "", objects{"configmap/shop/settings": &corev1.ConfigMap{}}.lookup, nil)
	if err != nil || len(d.Changes) != 1 || d.Changes[0].Change != restart.ConfigAdded {
		t.Errorf("empty ConfigMap: %+v, %v", d, err)
	}
}

// world draws ConfigMaps and Secrets in namespace shop, references to some
// of them and to configs that do not exist, an annotation recording some
// referenced and unreferenced configs (at their checksum or another one),
// and previous versions of some.
type world struct {
	refs       []restart.Ref
	annotation string
	current    objects
	previous   objects
}

func drawWorld(t *rapid.T) world {
	w := world{current: objects{}, previous: objects{}}
	names := []string{"a", "b", "c", "d"}
	data := func(label string) map[string]string {
		return rapid.MapOfN(rapid.SampledFrom([]string{"k1", "k2", "k3"}), rapid.SampledFrom([]string{"", "x", "y"}), 0, 3).Draw(t, label)
	}
	recorded := map[string]string{}
	for _, kind := range []restart.Kind{restart.KindConfigMap, restart.KindSecret} {
		for _, n := range names {
			r := restart.Ref{Kind: kind, Namespace: "shop", Name: n, Optional: rapid.Bool().Draw(t, "optional")}
			key := r.Key()
			var obj, prev runtime.Object
			if kind == restart.KindConfigMap {
				obj, prev = configMap("shop", n, data("data "+key)), configMap("shop", n, data("previous "+key))
			} else {
				obj, prev = secret("shop", n, data("data "+key)), secret("shop", n, data("previous "+key))
			}
			if rapid.Bool().Draw(t, "exists "+key) {
				w.current[key] = obj
			}
			if rapid.Bool().Draw(t, "previous "+key) {
				w.previous[key] = prev
			}
			if rapid.Bool().Draw(t, "referenced "+key) {
				w.refs = append(w.refs, r)
				if rapid.Bool().Draw(t, "twice "+key) {
					w.refs = append(w.refs, r)
				}
			}
			switch rapid.IntRange(0, 3).Draw(t, "recorded "+key) {
			case 1:
				c, _ := restart.ConfigOf(obj, restart.ChecksumFramed)
				recorded[key] = c.Checksum
			case 2:
				c, _ := restart.ConfigOf(prev, restart.ChecksumFramed)
				recorded[key] = c.Checksum
			case 3:
				recorded[key] = "0123456789abcdef"
			}
		}
	}
	w.refs = rapid.Permutation(w.refs).Draw(t, "ref order")
	if len(recorded) > 0 || rapid.Bool().Draw(t, "annotation present") {
		w.annotation = restart.FormatChecksums(recorded)
	}
	return w
}

// DiffChecksums is deterministic, does not modify its inputs, and applying
// its annotation value then diffing again with the same configs changes
// nothing.
func TestPropDiffChecksums(t *testing.T) {
	opts := restart.DefaultOptions()
	rapid.Check(t, func(t *rapid.T) {
		w := drawWorld(t)
		refs := slices.Clone(w.refs)
		current := objects{}
		for k, o := range w.current {
			current[k] = o.DeepCopyObject()
		}
		previous := objects{}
		for k, o := range w.previous {
			previous[k] = o.DeepCopyObject()
		}
		d1, err := restart.DiffChecksums(opts, w.refs, w.annotation, w.current.lookup, w.previous.lookup)
		if err != nil {
			t.Fatal(err)
		}
		d2, err := restart.DiffChecksums(opts, w.refs, w.annotation, w.current.lookup, w.previous.lookup)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(d1, d2); diff != "" {
			t.Fatalf("not deterministic (-first +second):\n%s", diff)
		}
		if !slices.Equal(refs, w.refs) || !reflect.DeepEqual(current, w.current) || !reflect.DeepEqual(previous, w.previous) {
			t.Fatal("inputs modified")
		}
		again, err := restart.DiffChecksums(opts, w.refs, d1.Annotation, w.current.lookup, w.previous.lookup)
		if err != nil {
			t.Fatal(err)
		}
		if len(again.Changes) != 0 || again.Restart || again.Annotation != d1.Annotation || !slices.Equal(again.Missing, d1.Missing) {
			t.Fatalf("after applying %s: %+v", d1.Annotation, again)
		}
		// Restart is exactly "some recorded checksum changed".
		restarts := slices.ContainsFunc(d1.Changes, func(c restart.ConfigChange) bool { return c.Change == restart.ConfigChanged })
		if d1.Restart != restarts {
			t.Fatalf("restart %v with changes %+v", d1.Restart, d1.Changes)
		}
	})
}

// A fresh Engine given the same workload and configs decides as
// DiffChecksums does: the same new checksums, the same restart and no
// decision when nothing changes.
func TestPropDiffChecksumsMatchesEngine(t *testing.T) {
	opts := restart.DefaultOptions()
	rapid.Check(t, func(t *rapid.T) {
		w := drawWorld(t)
		d, err := restart.DiffChecksums(opts, w.refs, w.annotation, w.current.lookup, nil)
		if err != nil {
			t.Fatal(err)
		}
		var uses []string
		for _, r := range w.refs {
			if r.Kind == restart.KindConfigMap {
				uses = append(uses, "cm:"+r.Name)
			} else {
				uses = append(uses, "secret:"+r.Name)
			}
		}
		ann := optIn()
		if w.annotation != "" {
			ann[opts.ChecksumsAnnotation] = w.annotation
		}
		e, _ := restart.New(opts)
		for _, k := range slices.Sorted(maps.Keys(w.current)) {
			if err := e.Observe(w.current[k], t0); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Observe(deployment("shop", "web", ann, uses...), t0); err != nil {
			t.Fatal(err)
		}
		b := e.Release(at(opts.GracePeriod))
		if len(d.Changes) == 0 {
			if len(b.Decisions) != 0 {
				t.Fatalf("engine decided %s, diff found no change", describe(b.Decisions[0]))
			}
			return
		}
		if len(b.Decisions) != 1 {
			t.Fatalf("engine: %d decisions, diff: %+v", len(b.Decisions), d.Changes)
		}
		got := b.Decisions[0]
		if diff := cmp.Diff(d.Checksums, got.Checksums); diff != "" {
			t.Fatalf("checksums (-diff +engine):\n%s", diff)
		}
		if got.Restart != d.Restart || got.Patch.Annotations[opts.ChecksumsAnnotation] != d.Annotation {
			t.Fatalf("engine %s %s, diff restart=%v %s", describe(got), got.PatchJSON, d.Restart, d.Annotation)
		}
		var triggers []string
		for _, tr := range got.Triggers {
			triggers = append(triggers, fmt.Sprint(tr.Config, " ", tr.Recorded, "→", tr.Current))
		}
		var changed []string
		for _, c := range d.Changes {
			if c.Change == restart.ConfigChanged {
				changed = append(changed, fmt.Sprint(c.Config, " ", c.Recorded, "→", c.Current))
			}
		}
		if diff := cmp.Diff(changed, triggers); diff != "" {
			t.Fatalf("triggers (-diff +engine):\n%s", diff)
		}
	})
}

// Any annotation value either fails with an error naming the annotation or
// gives a value that, diffed again, changes nothing.
func FuzzDiffChecksums(f *testing.F) {
	for _, s := range []string{"", "null", "{}", "{garbage", `{"configmap/shop/settings":"0123456789abcdef"}`,
		`{"secret/shop/tls":"x","configmap/shop/old":""}`, `[]`, `{"a":1}`} {
		f.Add(s)
	}
	opts := restart.DefaultOptions()
	refs := []restart.Ref{cmRef("settings"), secretRef("tls"), cmRef("gone")}
	current := objects{
		"configmap/shop/settings": configMap("shop", "settings", map[string]string{"a": "b"}),
		"secret/shop/tls":         secret("shop", "tls", map[string]string{"crt": "c"}),
	}
	f.Fuzz(func(t *testing.T, annotation string) {
		d, err := restart.DiffChecksums(opts, refs, annotation, current.lookup, current.lookup)
		if err != nil {
			if !strings.Contains(err.Error(), opts.ChecksumsAnnotation) {
				t.Fatalf("error does not name the annotation: %v", err)
			}
			return
		}
		again, err := restart.DiffChecksums(opts, refs, d.Annotation, current.lookup, nil)
		if err != nil || len(again.Changes) != 0 || again.Annotation != d.Annotation {
			t.Fatalf("%q → %s → %+v, %v", annotation, d.Annotation, again, err)
		}
	})
}
