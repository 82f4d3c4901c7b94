package crsim

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// clusterScoped are the kinds of core/v1 without a namespace.
var clusterScoped = map[string]bool{
	"Node": true, "Namespace": true, "PersistentVolume": true, "ComponentStatus": true,
}

// newRESTMapper maps every object kind of s to its resource (the
// lower-case plural, as a CRD's default) and scope: namespaced, but for
// the cluster-scoped kinds of core/v1. The simulator stores custom kinds
// namespaced.
func newRESTMapper(s *runtime.Scheme) meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(s.PrioritizedVersionsAllGroups())
	for gvk := range s.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		obj, err := s.New(gvk)
		if err != nil {
			continue
		}
		if _, ok := obj.(metav1.Object); !ok {
			continue
		}
		scope := meta.RESTScopeNamespace
		if gvk.Group == corev1.GroupName && clusterScoped[gvk.Kind] {
			scope = meta.RESTScopeRoot
		}
		m.Add(gvk, scope)
	}
	return m
}
