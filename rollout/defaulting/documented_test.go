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

// TestQuantitiesHashAsReadBack pins the package doc's "Quantities and the
// stored form": whatever the spelling of a quantity, the template
// PodTemplate returns hashes as the one a controller reads back from
// storage (here through JSON, another path to the same parsed form), and
// spellings of one value and format that the server stores alike hash
// alike. The spellings include the twelve checked on a real v1.37.1
// control plane ("0.5", "500m", "1.0", "1", "1000m", "0.1", "100m",
// "250u", "0.5Gi", "512Mi", "2048Ki", "2Mi"), exponents, and sub-milli
// values (rounded up).
func TestQuantitiesHashAsReadBack(t *testing.T) {
	hashOf := func(name corev1.ResourceName, v string) (string, string) {
		in := &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "app", Image: "app:1",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{name: resource.MustParse(v)}},
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
		return hashing.PodTemplateHash(stored, nil), hashing.PodTemplateHash(&readBack, nil)
	}
	for _, tc := range []struct {
		name      corev1.ResourceName
		spellings []string // one value, spelled many ways
	}{
		// A quantity keeps its format (decimal SI, binary SI, decimal
		// exponent) through storage, so the spellings of one value hash
		// alike within a format.
		{corev1.ResourceCPU, []string{"500m", "0.5", "0.50", ".5", "500000u", "500000000n"}},
		{corev1.ResourceCPU, []string{"1", "1.0", "1000m", "1000000u", "0.001k"}},
		{corev1.ResourceCPU, []string{"100m", "0.1", "100000u"}},
		{corev1.ResourceCPU, []string{"1m", "250u", "1u", "0.0001", "1n"}}, // rounded up to 1m
		{corev1.ResourceCPU, []string{"1001m", "1.0001", "1.00001"}},       // rounded up to 1001m
		{corev1.ResourceCPU, []string{"5e-1", "500e-3", "0.5e0", "50E-2"}},
		{corev1.ResourceCPU, []string{"1e0"}},
		// The server keeps a spelling ParseQuantity caches as it was
		// written (String returns it): each is a value of its own here.
		{corev1.ResourceCPU, []string{"1E0"}},
		{corev1.ResourceCPU, []string{"1000e-3"}},
		{corev1.ResourceCPU, []string{"1e-3", "1e-7", "25e-5"}}, // rounded up to 1e-3
		{corev1.ResourceMemory, []string{"512Mi", "0.5Gi", "524288Ki"}},
		{corev1.ResourceMemory, []string{"2Mi", "2048Ki", "0.001953125Gi"}},
		{corev1.ResourceMemory, []string{"536870912", "536870912.0"}},
		{corev1.ResourceMemory, []string{"536870.912k"}},
		{corev1.ResourceMemory, []string{"1G", "1000M", "1000000k"}},
		{corev1.ResourceMemory, []string{"1e9", "1000e6"}},
		{corev1.ResourceMemory, []string{"1E9"}},
		{corev1.ResourceMemory, []string{"0", "0m", "0.0", "0k"}},
	} {
		var first string
		for _, v := range tc.spellings {
			here, there := hashOf(tc.name, v)
			if here != there {
				t.Errorf("%s %s: hash %s, as read back from storage %s", tc.name, v, here, there)
			}
			if first == "" {
				first = here
			} else if here != first {
				t.Errorf("%s %s: hash %s, %s %s hashes %s: one value, two hashes", tc.name, v, here, tc.name, tc.spellings[0], first)
			}
		}
	}
}

// TestStoredTwoTrips pins Stored's second trip: a whole number of bytes
// built in Go in binary SI is written without a suffix the first time
// (3323467409000), read back as decimal SI and written 3323467409k the
// second time, which is the form a controller reads (the API server reads
// it back from etcd, then the controller from the API server).
func TestStoredTwoTrips(t *testing.T) {
	q := resource.NewQuantity(3323467409000, resource.BinarySI)
	in := &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "app", Image: "app:1",
		Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"example.com/gpu": *q}},
	}}}}
	st := defaulting.Stored(in)
	got := st.Spec.Containers[0].Resources.Limits["example.com/gpu"]
	if s := got.String(); s != "3323467409k" {
		t.Errorf("stored as %s, want 3323467409k (the second trip's form)", s)
	}
	once, err := resource.ParseQuantity(q.String())
	if err != nil {
		t.Fatal(err)
	}
	if s := once.String(); s != "3323467409k" || q.String() != "3323467409000" {
		t.Errorf("one trip: %s then %s; the premise of this test changed", q.String(), s)
	}
}
