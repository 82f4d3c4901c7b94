package hashing

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/dump"
)

// referenceHash is the deliberately simple oracle: the steps of upstream
// controller.ComputeHash done literally with the same libraries (hash/fnv,
// k8s.io/utils/dump.ForHash, apimachinery rand.SafeEncodeString).
func referenceHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	hasher := fnv.New32a()
	hasher.Reset()
	_, _ = io.WriteString(hasher, dump.ForHash(*template))
	if collisionCount != nil {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, uint32(*collisionCount))
		_, _ = hasher.Write(b)
	}
	return rand.SafeEncodeString(fmt.Sprint(hasher.Sum32()))
}

// fastDump returns the bytes the fast writer hashes for v, for comparison
// with dump.ForHash(v) in tests. ok is false when the writer gave up (the
// production code then falls back to spew).
func fastDump(v any) (s string, ok bool) {
	e := getEncoder()
	e.capture = true
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		putEncoder(e)
		return "", false
	}
	e.root(rv, infoFor(rv.Type()))
	s, ok = string(e.out), !e.failed
	putEncoder(e)
	return s, ok
}

// referenceEqualIgnoreHash is the oracle for EqualIgnoreHash: deep copies,
// the hash label deleted from both, apimachinery semantic equality.
func referenceEqualIgnoreHash(a, b *corev1.PodTemplateSpec) bool {
	if a == nil {
		a = &corev1.PodTemplateSpec{}
	}
	if b == nil {
		b = &corev1.PodTemplateSpec{}
	}
	ca, cb := a.DeepCopy(), b.DeepCopy()
	delete(ca.Labels, LabelKey)
	delete(cb.Labels, LabelKey)
	return equality.Semantic.DeepEqual(ca, cb)
}
