package restart

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Lookup returns the current version of the config a reference names: a
// *corev1.ConfigMap for [KindConfigMap], a *corev1.Secret for [KindSecret],
// or nil (also a nil pointer) when it does not exist. An error aborts
// [DiffChecksums]. The returned object is only read. Over listers:
//
//	func(r restart.Ref) (runtime.Object, error) {
//		var obj runtime.Object
//		var err error
//		switch r.Kind {
//		case restart.KindConfigMap:
//			obj, err = configMaps.ConfigMaps(r.Namespace).Get(r.Name)
//		case restart.KindSecret:
//			obj, err = secrets.Secrets(r.Namespace).Get(r.Name)
//		}
//		if apierrors.IsNotFound(err) {
//			return nil, nil
//		}
//		return obj, err
//	}
type Lookup func(Ref) (runtime.Object, error)

// ChangeKind says how a config's entry in the checksums annotation changes.
type ChangeKind string

const (
	// ConfigAdded: the config is referenced and exists, and the annotation
	// has no checksum for it. It is recorded; no restart.
	ConfigAdded ChangeKind = "added"
	// ConfigChanged: the config is referenced and exists, and its checksum
	// differs from the recorded one. The workload restarts.
	ConfigChanged ChangeKind = "changed"
	// ConfigRemoved: the annotation has a checksum for a config that is no
	// longer referenced. It is dropped; no restart.
	ConfigRemoved ChangeKind = "removed"
)

// ConfigChange is one config whose entry in the checksums annotation
// changes.
type ConfigChange struct {
	// Config is the config key, "configmap/<namespace>/<name>" or
	// "secret/<namespace>/<name>".
	Config string
	// Change is what happens to its entry.
	Change ChangeKind
	// Recorded is the checksum in the annotation; empty for ConfigAdded.
	Recorded string
	// Current is the config's checksum now; empty for ConfigRemoved.
	Current string
	// Keys are the data keys (ConfigMap data and binaryData, Secret data
	// with stringData merged) added, removed or edited since the recorded
	// version, sorted. Known only for ConfigChanged, and only when the
	// previous lookup passed to [DiffChecksums] returned an object whose
	// checksum is the recorded one: the annotation holds one checksum per
	// config, not per key. Nil otherwise; see KeysKnown.
	Keys []string
	// KeysKnown tells an empty Keys (the checksums differ but no key does,
	// e.g. [ChecksumXing]'s null against {}) from unknown keys.
	KeysKnown bool
}

// ChecksumDiff compares a workload's checksums annotation with the current
// configs. See [DiffChecksums].
type ChecksumDiff struct {
	// Changes are the configs whose entry changes, sorted by key. Write
	// Annotation when it is not empty.
	Changes []ConfigChange
	// Missing are the referenced configs that do not exist, sorted by key.
	// A recorded checksum of one is kept in Checksums, so that re-creating it
	// with other data restarts the workload and with the same data does not.
	Missing []Ref
	// Checksums is the new content of the annotation.
	Checksums map[string]string
	// Annotation is Checksums as the annotation value ([FormatChecksums]).
	Annotation string
	// Restart is true when a recorded checksum changed (some Change is
	// ConfigChanged): stamp the pod template to restart the pods.
	Restart bool
}

// DiffChecksums compares the checksums annotation value of a workload with
// the configs it references, as now found by current, and returns the
// changes, the new annotation value and whether the pods must restart. The
// rule is the [Engine]'s: a referenced config that exists is recorded at its
// current checksum, and the workload restarts when that differs from a
// checksum already recorded; entries of configs no longer referenced are
// dropped, and those of missing configs kept.
//
// For example, with the annotation {"configmap/shop/settings":"A",
// "configmap/shop/old":"O"} and a template that now uses ConfigMap settings
// (whose data hashes to B) and Secret tls (T): settings is ConfigChanged,
// secret/shop/tls ConfigAdded, configmap/shop/old ConfigRemoved, Restart is
// true and the new value is {"configmap/shop/settings":"B",
// "secret/shop/tls":"T"}.
//
// refs are usually [References] of the pod spec, or [Options.Tracked] of
// the [Workload]; duplicates are merged, order does not matter. annotation
// is the workload's metadata.annotations[opts.ChecksumsAnnotation] ("" when
// absent). Checksums are computed with opts.Checksum; no other option is
// used. previous may be nil; when it returns the version of a changed config
// whose checksum is the recorded one (an informer's old object, say), the
// change lists the data keys that differ ([ConfigChange.Keys]). A nil
// current finds no config.
//
// The Engine decides the same way, with one addition that needs its memory:
// a config newly referenced and edited again before it was recorded also
// restarts. A fresh DiffChecksums cannot see that edit.
//
// An annotation that is not a JSON object of strings returns an error
// naming the annotation key; to overwrite it, as the Engine does, diff
// against "" instead. Invalid refs and lookup errors are errors too. Inputs
// are not modified.
func DiffChecksums(opts Options, refs []Ref, annotation string, current, previous Lookup) (ChecksumDiff, error) {
	if opts.Checksum != ChecksumFramed && opts.Checksum != ChecksumXing {
		return ChecksumDiff{}, fmt.Errorf("Options.Checksum: invalid value %v", opts.Checksum)
	}
	byKey := make(map[string]Ref, len(refs))
	keys := make([]string, 0, len(refs))
	for i, r := range refs {
		switch {
		case r.Kind != KindConfigMap && r.Kind != KindSecret:
			return ChecksumDiff{}, fmt.Errorf("refs[%d].Kind: invalid value %q: want %q or %q", i, r.Kind, KindConfigMap, KindSecret)
		case r.Name == "":
			return ChecksumDiff{}, fmt.Errorf("refs[%d].Name: must not be empty", i)
		}
		k := r.Key()
		if u, dup := byKey[k]; dup {
			u.Optional = u.Optional && r.Optional
			byKey[k] = u
			continue
		}
		byKey[k] = r
		keys = append(keys, k)
	}
	slices.Sort(keys)
	recorded, err := ParseChecksums(opts.ChecksumsAnnotation, annotation)
	if err != nil {
		return ChecksumDiff{}, err
	}

	var d ChecksumDiff
	sums := make(map[string]string, len(keys))
	objs := make(map[string]runtime.Object, len(keys))
	for _, k := range keys {
		obj, sum, err := lookupConfig(current, byKey[k], opts.Checksum)
		if err != nil {
			return ChecksumDiff{}, err
		}
		if obj == nil {
			d.Missing = append(d.Missing, byKey[k])
			continue
		}
		sums[k], objs[k] = sum, obj
	}
	d.Checksums = make(map[string]string, len(keys))
	d.Changes = diffSums(keys, recorded, func(k string) (string, bool) {
		s, ok := sums[k]
		return s, ok
	}, d.Checksums)
	for i := range d.Changes {
		c := &d.Changes[i]
		if c.Change != ConfigChanged {
			continue
		}
		d.Restart = true
		prev, sum, err := lookupConfig(previous, byKey[c.Config], opts.Checksum)
		if err != nil {
			return ChecksumDiff{}, err
		}
		if prev != nil && sum == c.Recorded {
			c.Keys, c.KeysKnown = changedKeys(prev, objs[c.Config]), true
		}
	}
	d.Annotation = FormatChecksums(d.Checksums)
	return d, nil
}

// diffSums is the comparison shared by [DiffChecksums] and the [Engine].
// keys are the tracked config keys, sorted and without duplicates; current
// returns a config's checksum, false when it does not exist. It returns the
// changes sorted by key and, when next is not nil, stores the new
// annotation content in it.
func diffSums(keys []string, recorded map[string]string, current func(string) (string, bool), next map[string]string) []ConfigChange {
	var out []ConfigChange
	for _, k := range keys {
		old, had := recorded[k]
		cur, ok := current(k)
		if !ok {
			if had && next != nil {
				next[k] = old
			}
			continue
		}
		if next != nil {
			next[k] = cur
		}
		switch {
		case !had:
			out = append(out, ConfigChange{Config: k, Change: ConfigAdded, Current: cur})
		case old != cur:
			out = append(out, ConfigChange{Config: k, Change: ConfigChanged, Recorded: old, Current: cur})
		}
	}
	removed := false
	for k, old := range recorded {
		if _, found := slices.BinarySearch(keys, k); !found {
			out = append(out, ConfigChange{Config: k, Change: ConfigRemoved, Recorded: old})
			removed = true
		}
	}
	if removed {
		slices.SortFunc(out, func(a, b ConfigChange) int { return strings.Compare(a.Config, b.Config) })
	}
	return out
}

// lookupConfig calls l for r and checksums the object; a nil l, a nil
// result or a nil *corev1.ConfigMap or *corev1.Secret is a missing config.
func lookupConfig(l Lookup, r Ref, alg ChecksumAlgorithm) (runtime.Object, string, error) {
	if l == nil {
		return nil, "", nil
	}
	obj, err := l(r)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", r.Key(), err)
	}
	switch o := obj.(type) {
	case nil:
		return nil, "", nil
	case *corev1.ConfigMap:
		if o == nil {
			return nil, "", nil
		}
	case *corev1.Secret:
		if o == nil {
			return nil, "", nil
		}
	}
	c, err := ConfigOf(obj, alg)
	if err != nil || c.Kind != r.Kind {
		want := "*v1.ConfigMap"
		if r.Kind == KindSecret {
			want = "*v1.Secret"
		}
		return nil, "", fmt.Errorf("%s: lookup returned %T, want %s", r.Key(), obj, want)
	}
	return obj, c.Checksum, nil
}

// changedKeys returns the data keys whose presence or value differs between
// two versions of a config (both *corev1.ConfigMap or both *corev1.Secret).
func changedKeys(a, b runtime.Object) []string {
	ma, mb := dataOf(a), dataOf(b)
	out := []string{}
	for k, va := range ma {
		if vb, ok := mb[k]; !ok || !bytes.Equal(va, vb) {
			out = append(out, k)
		}
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// dataOf returns a config's data by key; ConfigMap values are tagged with
// their section, so a key moving between data and binaryData counts.
func dataOf(obj runtime.Object) map[string][]byte {
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		m := make(map[string][]byte, len(o.Data)+len(o.BinaryData))
		for k, v := range o.Data {
			m[k] = append([]byte{'d'}, v...)
		}
		for k, v := range o.BinaryData {
			m[k] = append([]byte{'b'}, v...)
		}
		return m
	case *corev1.Secret:
		return secretData(o)
	}
	return nil
}
