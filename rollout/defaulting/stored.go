package defaulting

import (
	"bytes"

	corev1 "k8s.io/api/core/v1"
)

// Stored returns t as an API server stores it and a controller reads it
// back: encoded the way the server encodes objects (protobuf, with
// k8s.io/api's own generated code) and decoded, twice, as the object
// travels twice: into etcd and out of it in the API server, then to the
// controller's informer and out of it. That is the form whose
// pod-template-hash names a cluster's ReplicaSets (the controller hashes
// the Go value it decoded): every resource quantity as parsed from its
// canonical string ("0.5" and "500m" both become 500m as parsed from
// "500m"; "0.5Gi" becomes 512Mi; "1.0" becomes 1), and empty maps and
// lists nil. Both trips matter: a quantity's canonical string can change
// once more after the first (a whole number of bytes written without a
// suffix, 3323467409000, reads back as decimal SI and is written
// 3323467409k the second time). Defaults come first (see [PodTemplate]);
// Stored changes no value, only its Go form. t is not modified (not even
// the string a quantity caches when it is encoded); the result shares
// nothing with it. A nil t gives the zero template.
func Stored(t *corev1.PodTemplateSpec) corev1.PodTemplateSpec {
	if t == nil {
		return corev1.PodTemplateSpec{}
	}
	// Encoding a quantity caches its canonical string in it
	// (Quantity.String), and the hash covers that cache. Quantities in
	// maps (resource lists) are encoded from a copy; those in fields (a
	// divisor, an emptyDir's sizeLimit) are encoded where they lie. So a
	// template with such a field is encoded from a copy, and its second
	// trip is always decoded: the result is, like the controller's
	// object, decoded and never encoded since.
	inFields := quantityInField(t)
	src := t
	if inFields {
		src = t.DeepCopy()
	}
	b, err := src.Marshal()
	if err != nil {
		// The generated encoder fails on nothing it is given; a copy is
		// the closest form.
		return *t.DeepCopy()
	}
	var out corev1.PodTemplateSpec
	if err := out.Unmarshal(b); err != nil {
		return *t.DeepCopy()
	}
	// The second trip: when the first one's form encodes to the same
	// bytes, it decodes to the same form (the usual case), so only the
	// encoding is repeated, unless encoding changed out (above).
	b2, err := out.Marshal()
	if err != nil || (bytes.Equal(b, b2) && !inFields) {
		return out
	}
	var next corev1.PodTemplateSpec
	if err := next.Unmarshal(b2); err != nil {
		return out
	}
	return next
}

// quantityInField reports whether t holds a resource quantity outside a
// resource list: a resourceFieldRef's divisor (in an env var of any kind
// of container, or in a downwardAPI volume or projection) or an emptyDir's
// sizeLimit. These are the only places of a v1.37 pod template where a
// quantity is not a map value (TestQuantityInFieldCoversTemplate walks
// the type to check it).
func quantityInField(t *corev1.PodTemplateSpec) bool {
	env := func(env []corev1.EnvVar) bool {
		for i := range env {
			if v := env[i].ValueFrom; v != nil && v.ResourceFieldRef != nil {
				return true
			}
		}
		return false
	}
	downward := func(items []corev1.DownwardAPIVolumeFile) bool {
		for i := range items {
			if items[i].ResourceFieldRef != nil {
				return true
			}
		}
		return false
	}
	s := &t.Spec
	for i := range s.Containers {
		if env(s.Containers[i].Env) {
			return true
		}
	}
	for i := range s.InitContainers {
		if env(s.InitContainers[i].Env) {
			return true
		}
	}
	for i := range s.EphemeralContainers {
		if env(s.EphemeralContainers[i].Env) {
			return true
		}
	}
	for i := range s.Volumes {
		v := &s.Volumes[i].VolumeSource
		if v.EmptyDir != nil && v.EmptyDir.SizeLimit != nil {
			return true
		}
		if v.DownwardAPI != nil && downward(v.DownwardAPI.Items) {
			return true
		}
		if v.Projected != nil {
			for j := range v.Projected.Sources {
				if d := v.Projected.Sources[j].DownwardAPI; d != nil && downward(d.Items) {
					return true
				}
			}
		}
	}
	return false
}
