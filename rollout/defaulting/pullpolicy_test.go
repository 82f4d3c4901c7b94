package defaulting

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestPullPoliciesBounded: pullPolicy remembers at most maxPullPolicies
// images, and answers for every image past them as for the first.
func TestPullPoliciesBounded(t *testing.T) {
	for i := range maxPullPolicies + 100 {
		want := corev1.PullPolicy(corev1.PullIfNotPresent)
		image := fmt.Sprintf("bounded-%d:1", i)
		if i%2 == 0 {
			want, image = corev1.PullAlways, fmt.Sprintf("bounded-%d", i)
		}
		for range 2 {
			if got := pullPolicy(image); got != want {
				t.Fatalf("image %q: %s, want %s", image, got, want)
			}
		}
	}
	n := 0
	pullPolicies.Range(func(any, any) bool { n++; return true })
	if n > maxPullPolicies {
		t.Errorf("%d images remembered, want at most %d", n, maxPullPolicies)
	}
}
