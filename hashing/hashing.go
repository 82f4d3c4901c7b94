package hashing

import (
	"encoding/binary"
	"reflect"
	"strconv"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/dump"
)

// LabelKey is the label that carries the pod-template-hash on ReplicaSets,
// their selectors and their pods: "pod-template-hash".
const LabelKey = appsv1.DefaultDeploymentUniqueLabelKey

// templateInfo is the precomputed type description of PodTemplateSpec.
var templateInfo = sync.OnceValue(func() *typeInfo {
	return infoFor(reflect.TypeFor[corev1.PodTemplateSpec]())
})

// PodTemplateHash returns the pod-template-hash of template salted with
// collisionCount, byte-identical to upstream controller.ComputeHash: FNV-1a
// (32 bit) over k8s.io/utils/dump.ForHash(*template), then, when
// collisionCount is not nil, the count as a little-endian uint32 followed by
// four zero bytes, and finally the decimal sum in the alphabet of
// apimachinery's rand.SafeEncodeString.
//
// The dump is not built: the bytes are computed and hashed on the fly (see
// the package documentation). A nil template is hashed as the zero
// PodTemplateSpec (upstream dereferences the pointer and would panic; every
// upstream template is a value field, whose missing form is the zero value),
// so PodTemplateHash(nil, c) == PodTemplateHash(&corev1.PodTemplateSpec{}, c).
//
// The hash is of the Go value, not of its JSON: nil and empty maps or slices,
// and resource.Quantity values with different internal forms (for example
// parsed "1Gi" versus resource.NewQuantity), hash differently, exactly as
// upstream. template is not modified.
func PodTemplateHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	if template == nil {
		template = &corev1.PodTemplateSpec{}
	}
	sum := templateSum(template)
	if collisionCount != nil {
		var b [8]byte
		binary.LittleEndian.PutUint32(b[:], uint32(*collisionCount))
		for _, c := range b {
			sum ^= uint32(c)
			sum *= fnvPrime32
		}
	}
	return safeEncode(sum)
}

// templateSum returns the FNV-1a sum of the spew dump of *template.
func templateSum(template *corev1.PodTemplateSpec) uint32 {
	e := getEncoder()
	e.root(reflect.ValueOf(template).Elem(), templateInfo())
	sum, failed := e.h, e.failed
	putEncoder(e)
	if failed {
		return spewSum(template)
	}
	return sum
}

// spewSum is the slow path: the dump built by spew, then hashed.
func spewSum(template *corev1.PodTemplateSpec) uint32 {
	s := dump.ForHash(*template)
	h := fnvOffset32
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= fnvPrime32
	}
	return h
}

// safeEncodeAlphabet is the alphabet of apimachinery's rand.String and
// rand.SafeEncodeString (no vowels).
const safeEncodeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// safeEncode writes sum in decimal and maps every digit through the
// SafeEncodeString alphabet.
func safeEncode(sum uint32) string {
	var buf [10]byte
	b := strconv.AppendUint(buf[:0], uint64(sum), 10)
	for i, c := range b {
		b[i] = safeEncodeAlphabet[int(c)%len(safeEncodeAlphabet)]
	}
	return string(b)
}

// EqualIgnoreHash reports whether a and b are semantically equal
// (apimachinery equality.Semantic.DeepEqual: nil and empty maps and slices
// are equal, quantities compare by value, times by instant) when the
// [LabelKey] label is ignored on both. Every other label, annotation and
// field counts. A nil template is treated as the zero PodTemplateSpec, so
// EqualIgnoreHash(nil, &corev1.PodTemplateSpec{}) is true (upstream would
// panic). Neither input is modified or copied deeply.
func EqualIgnoreHash(a, b *corev1.PodTemplateSpec) bool {
	if a == nil {
		a = &corev1.PodTemplateSpec{}
	}
	if b == nil {
		b = &corev1.PodTemplateSpec{}
	}
	if a == b {
		return true
	}
	plan := templatePlan()
	// Images first: they are what differs between the ReplicaSets of a
	// rollout, and comparing them is cheaper than iterating the labels.
	if plan != nil && !imagesEqual(a, b) {
		return false
	}
	if !labelsEqualIgnoringHash(a.Labels, b.Labels) {
		return false
	}
	if plan != nil {
		return plan.templateEqual(a, b)
	}
	// Slow path, for a PodTemplateSpec the fast path cannot compile (see
	// equal.go). A shallow copy of the metadata with the labels (already compared)
	// removed; the maps and slices it shares with the input are only read.
	// PodTemplateSpec has exactly these two fields (a test checks it).
	ma, mb := a.ObjectMeta, b.ObjectMeta
	ma.Labels, mb.Labels = nil, nil
	return equality.Semantic.DeepEqual(&ma, &mb) && equality.Semantic.DeepEqual(&a.Spec, &b.Spec)
}

// labelsEqualIgnoringHash compares two label maps without LabelKey; nil and
// empty maps are equal.
func labelsEqualIgnoringHash(x, y map[string]string) bool {
	nx, ny := len(x), len(y)
	if _, ok := x[LabelKey]; ok {
		nx--
	}
	if _, ok := y[LabelKey]; ok {
		ny--
	}
	if nx != ny {
		return false
	}
	for k, vx := range x {
		if k == LabelKey {
			continue
		}
		if vy, ok := y[k]; !ok || vy != vx {
			return false
		}
	}
	return true
}

// TemplateWithHash returns a deep copy of template whose labels contain
// LabelKey=hash (replacing any previous value). A nil template gives a new
// template with only that label. template is not modified.
func TemplateWithHash(template *corev1.PodTemplateSpec, hash string) *corev1.PodTemplateSpec {
	var out *corev1.PodTemplateSpec
	if template == nil {
		out = &corev1.PodTemplateSpec{}
	} else {
		out = template.DeepCopy()
	}
	if out.Labels == nil {
		out.Labels = make(map[string]string, 1)
	}
	out.Labels[LabelKey] = hash
	return out
}

// SelectorWithHash returns a deep copy of sel whose matchLabels contain
// LabelKey=hash (replacing any previous value); matchExpressions are copied
// unchanged (nil stays nil). A nil sel gives a selector with only that label.
// sel is not modified.
func SelectorWithHash(sel *metav1.LabelSelector, hash string) *metav1.LabelSelector {
	var out *metav1.LabelSelector
	if sel == nil {
		out = &metav1.LabelSelector{}
	} else {
		out = sel.DeepCopy()
	}
	if out.MatchLabels == nil {
		out.MatchLabels = make(map[string]string, 1)
	}
	out.MatchLabels[LabelKey] = hash
	return out
}

// LabelsWithHash returns a new map with the entries of labels and
// LabelKey=hash (replacing any previous value). labels is not modified; the
// result is never nil.
func LabelsWithHash(labels map[string]string, hash string) map[string]string {
	out := make(map[string]string, len(labels)+1)
	for k, v := range labels {
		out[k] = v
	}
	out[LabelKey] = hash
	return out
}

// LabelsWithoutHash returns a new map with the entries of labels except
// LabelKey. labels is not modified; the result is never nil (an empty map for
// nil or hash-only input), like upstream's CloneAndRemoveLabel.
func LabelsWithoutHash(labels map[string]string) map[string]string {
	out := make(map[string]string, len(labels))
	for k, v := range labels {
		if k != LabelKey {
			out[k] = v
		}
	}
	return out
}
