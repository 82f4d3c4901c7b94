package defaulting_test

import (
	"encoding/json"
	"testing"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/rollout/defaulting"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestPodOnlyDefaultsNotApplied pins the package doc's "What is not
// defaulted": defaults a v1.37 server gives Pods only stay unset in a
// Deployment's template.
func TestPodOnlyDefaultsNotApplied(t *testing.T) {
	grace := int64(-5)
	in := &corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		HostNetwork:                   true,
		TerminationGracePeriodSeconds: &grace,
		Containers: []corev1.Container{{
			Name: "app", Image: "app:1",
			Ports: []corev1.ContainerPort{{ContainerPort: 8080}},
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("500m"),
			}},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
				HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(8080)}}},
		}},
	}}
	got := defaulting.PodTemplate(in)
	c := got.Spec.Containers[0]
	if c.Resources.Requests != nil {
		t.Errorf("requests = %v, want unset (copied from limits on Pods only)", c.Resources.Requests)
	}
	if c.Ports[0].HostPort != 0 {
		t.Errorf("hostPort = %d, want 0 (set under hostNetwork on Pods only)", c.Ports[0].HostPort)
	}
	if got.Spec.EnableServiceLinks != nil {
		t.Errorf("enableServiceLinks = %v, want unset", *got.Spec.EnableServiceLinks)
	}
	if got.Spec.Resources != nil {
		t.Errorf("pod-level resources = %v, want unset", got.Spec.Resources)
	}
	if *got.Spec.TerminationGracePeriodSeconds != -5 {
		t.Errorf("terminationGracePeriodSeconds = %d, want -5 kept", *got.Spec.TerminationGracePeriodSeconds)
	}
	if c.ReadinessProbe.HTTPGet.Scheme != corev1.URISchemeHTTP {
		t.Errorf("probe scheme = %q: the template defaults were not applied at all", c.ReadinessProbe.HTTPGet.Scheme)
	}
}

// TestRoundedQuantityHash pins the package doc's "Quantities finer than a
// milli": a quantity the server rounds up ("250u" to 1m) hashes here in its
// in-memory form, which differs from the form a controller parses back
// from storage; a quantity of 1m or coarser hashes the same either way.
func TestRoundedQuantityHash(t *testing.T) {
	for _, tc := range []struct {
		cpu      string
		sameHash bool
	}{
		{"250m", true},
		{"1", true},
		{"250u", false},
		{"1.0001", false},
	} {
		in := &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "app", Image: "app:1",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse(tc.cpu),
			}},
		}}}}
		stored := defaulting.PodTemplate(in)
		raw, err := json.Marshal(stored)
		if err != nil {
			t.Fatal(err)
		}
		var readBack corev1.PodTemplateSpec
		if err := json.Unmarshal(raw, &readBack); err != nil {
			t.Fatal(err)
		}
		q := stored.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]
		back := readBack.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]
		if q.Cmp(back) != 0 {
			t.Errorf("cpu %s: stored %s, read back %s: the value must survive storage", tc.cpu, q.String(), back.String())
		}
		here, there := hashing.PodTemplateHash(stored, nil), hashing.PodTemplateHash(&readBack, nil)
		if (here == there) != tc.sameHash {
			t.Errorf("cpu %s: hash here %s, as read back %s; want equal = %v", tc.cpu, here, there, tc.sameHash)
		}
	}
}
