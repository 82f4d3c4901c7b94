package fencepost

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// FuzzValidate feeds arbitrary strings as maxSurge / maxUnavailable and
// checks that Validate and Scaled agree: a value Validate accepts always
// scales without error, and nothing panics.
func FuzzValidate(f *testing.F) {
	for _, seed := range [][2]string{{"25%", "25%"}, {"12x", "-5%"}, {"0%", "0%"}, {"101%", "1"}, {"", "%"}, {"99999999999999999999%", "1%"}} {
		f.Add(seed[0], seed[1], int32(10))
	}
	f.Fuzz(func(t *testing.T, surge, unavailable string, replicas int32) {
		s, u := intstr.FromString(surge), intstr.FromString(unavailable)
		d := rollingDeployment(replicas, &s, &u)
		err := Validate(d)
		_, serr := Scaled(&s, replicas, true)
		_, uerr := Scaled(&u, replicas, false)
		if err == nil {
			if serr != nil || uerr != nil {
				t.Fatalf("Validate accepted %q/%q but Scaled failed: %v %v", surge, unavailable, serr, uerr)
			}
			return
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			if !strings.HasPrefix(line, "spec.") {
				t.Fatalf("problem without a field path: %q", line)
			}
		}
		MaxSurge(d)
		MaxUnavailable(d)
		MinAvailable(d)
	})
}

// FuzzScaled checks Scaled on arbitrary strings: an error exactly when the
// string is not an integer followed by '%', and round up never below round
// down.
func FuzzScaled(f *testing.F) {
	for _, seed := range []string{"25%", "12x", "-5%", "5", "", "%", "1%%"} {
		f.Add(seed, int32(7))
	}
	f.Fuzz(func(t *testing.T, s string, total int32) {
		v := intstr.FromString(s)
		up, err1 := Scaled(&v, total, true)
		down, err2 := Scaled(&v, total, false)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("round up and down disagree on validity: %v / %v", err1, err2)
		}
		if err1 != nil {
			if up != 0 || down != 0 {
				t.Fatalf("non-zero result with error")
			}
			return
		}
		if !strings.HasSuffix(s, "%") {
			t.Fatalf("accepted %q without '%%'", s)
		}
		if total >= 0 && total <= 1<<20 && len(s) < 8 && up < down {
			t.Fatalf("round up %d below round down %d", up, down)
		}
	})
}
