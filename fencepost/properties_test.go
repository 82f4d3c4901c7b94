package fencepost

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"
)

// validFencepost draws a value that API validation accepts for maxSurge:
// a non-negative int or a percent string (maxPercent bounds the percent).
func validFencepost(maxPercent int) *rapid.Generator[*intstr.IntOrString] {
	return rapid.Custom(func(t *rapid.T) *intstr.IntOrString {
		switch rapid.IntRange(0, 2).Draw(t, "kind") {
		case 0:
			return nil
		case 1:
			v := intstr.FromInt32(rapid.Int32Range(0, 1000).Draw(t, "int"))
			return &v
		default:
			v := intstr.FromString(fmt.Sprintf("%d%%", rapid.IntRange(0, maxPercent).Draw(t, "percent")))
			return &v
		}
	})
}

// anyFencepost draws any int-or-string, valid or not.
func anyFencepost() *rapid.Generator[*intstr.IntOrString] {
	return rapid.Custom(func(t *rapid.T) *intstr.IntOrString {
		switch rapid.IntRange(0, 4).Draw(t, "kind") {
		case 0:
			return nil
		case 1:
			v := intstr.FromInt32(rapid.Int32().Draw(t, "int"))
			return &v
		case 2:
			v := intstr.FromString(rapid.String().Draw(t, "string"))
			return &v
		case 3:
			v := intstr.FromString(fmt.Sprintf("%d%%", rapid.Int().Draw(t, "percent")))
			return &v
		default:
			return &intstr.IntOrString{Type: intstr.Type(rapid.Int64().Draw(t, "type")), IntVal: rapid.Int32().Draw(t, "intval"), StrVal: rapid.String().Draw(t, "strval")}
		}
	})
}

func TestPropertyFencepostsNonNegative(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		surge := validFencepost(1000).Draw(t, "maxSurge")
		unavailable := validFencepost(100).Draw(t, "maxUnavailable")
		desired := rapid.Int32Range(0, 100000).Draw(t, "desired")
		s, u, err := ResolveFenceposts(surge, unavailable, desired)
		if err != nil {
			t.Fatalf("valid input gave error %v", err)
		}
		if s < 0 || u < 0 {
			t.Fatalf("negative fencepost: surge %d unavailable %d", s, u)
		}
		if s == 0 && u == 0 {
			t.Fatalf("both fenceposts are 0")
		}
	})
}

func TestPropertyMaxUnavailableBounded(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		replicas := rapid.Int32Range(0, 100000).Draw(t, "replicas")
		d := rollingDeployment(replicas, validFencepost(1000).Draw(t, "maxSurge"), validFencepost(100).Draw(t, "maxUnavailable"))
		u := MaxUnavailable(d)
		if u < 0 || u > replicas {
			t.Fatalf("MaxUnavailable = %d, want within [0, %d]", u, replicas)
		}
		if replicas > 0 && u == 0 && MaxSurge(d) == 0 {
			t.Fatalf("both MaxSurge and MaxUnavailable are 0 with %d replicas", replicas)
		}
		if m := MinAvailable(d); m != replicas-u || m < 0 {
			t.Fatalf("MinAvailable = %d, want %d", m, replicas-u)
		}
	})
}

func TestPropertyRoundUpNotBelowRoundDown(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.IntRange(0, 100000).Draw(t, "percent")
		total := rapid.Int32Range(0, 100000).Draw(t, "total")
		v := intstr.FromString(fmt.Sprintf("%d%%", p))
		up, err1 := Scaled(&v, total, true)
		down, err2 := Scaled(&v, total, false)
		if err1 != nil || err2 != nil {
			t.Fatalf("errors %v %v", err1, err2)
		}
		if up < down || up-down > 1 {
			t.Fatalf("round up %d, round down %d", up, down)
		}
		if int64(p)*int64(total)%100 == 0 && up != down {
			t.Fatalf("exact percent rounded differently: up %d down %d", up, down)
		}
	})
}

// TestPropertyNeverPanics also checks that Limits is MaxSurge and
// MaxUnavailable together, on any input.
func TestPropertyNeverPanics(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var replicas *int32
		if rapid.Bool().Draw(t, "hasReplicas") {
			r := rapid.Int32().Draw(t, "replicas")
			replicas = &r
		}
		var ru *appsv1.RollingUpdateDeployment
		if rapid.Bool().Draw(t, "hasRollingUpdate") {
			ru = &appsv1.RollingUpdateDeployment{
				MaxSurge:       anyFencepost().Draw(t, "maxSurge"),
				MaxUnavailable: anyFencepost().Draw(t, "maxUnavailable"),
			}
		}
		typ := rapid.SampledFrom([]appsv1.DeploymentStrategyType{"", appsv1.RollingUpdateDeploymentStrategyType, appsv1.RecreateDeploymentStrategyType, "Other"}).Draw(t, "type")
		d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: replicas, Strategy: appsv1.DeploymentStrategy{Type: typ, RollingUpdate: ru}}}
		before := d.DeepCopy()
		err := Validate(d)
		surge, unavailable := MaxSurge(d), MaxUnavailable(d)
		if ls, lu := Limits(d); ls != surge || lu != unavailable {
			t.Fatalf("Limits = %d, %d; MaxSurge, MaxUnavailable = %d, %d", ls, lu, surge, unavailable)
		}
		if replicas != nil && ru != nil {
			if gs, gu := Resolve(typ, *replicas, ru.MaxSurge, ru.MaxUnavailable); gs != surge || gu != unavailable {
				t.Fatalf("Resolve = %d, %d; MaxSurge, MaxUnavailable = %d, %d", gs, gu, surge, unavailable)
			}
		}
		MinAvailable(d)
		if ru != nil {
			_, _, _ = ResolveFenceposts(ru.MaxSurge, ru.MaxUnavailable, rapid.Int32().Draw(t, "desired"))
		}
		if !reflect.DeepEqual(before, d) {
			t.Fatalf("inputs mutated")
		}
		// A deployment that validates resolves without error. The values are
		// non-negative unless a percent the API server accepts resolves
		// beyond int32, which wraps as it does upstream (TestMaxSurge
		// pins the wrapped value).
		if err == nil && typ == appsv1.RollingUpdateDeploymentStrategyType {
			s, u, rerr := ResolveFenceposts(ru.MaxSurge, ru.MaxUnavailable, *replicas)
			if rerr != nil {
				t.Fatalf("validated deployment does not resolve: %v", rerr)
			}
			if u < 0 || s < 0 && atMostWhole(ru.MaxSurge) {
				t.Fatalf("validated deployment resolves negative: %d %d", s, u)
			}
		}
	})
}

// atMostWhole reports whether a surge resolves to at most the replicas or
// to an int32 itself: nil (25%), an int, or a percent of at most 100.
func atMostWhole(v *intstr.IntOrString) bool {
	if v == nil || v.Type == intstr.Int {
		return true
	}
	p, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
	return err == nil && p <= 100
}
