package fencepost

import (
	"fmt"
	"math"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Field paths of the values resolved by this package, as they appear in
// error messages.
const (
	MaxSurgePath       = "spec.strategy.rollingUpdate.maxSurge"
	MaxUnavailablePath = "spec.strategy.rollingUpdate.maxUnavailable"
)

// Scaled resolves the int-or-percent v against total.
//
// An integer is returned as it is. A percentage ("25%") is scaled against
// total and rounded up when roundUp is set, down otherwise. A nil v counts as
// 0. Any other string ("12x", "5" without '%') is an error wrapping the one
// from [intstr.GetScaledValueFromIntOrPercent], whose semantics this follows
// exactly, including the conversion of the result to int32.
func Scaled(v *intstr.IntOrString, total int32, roundUp bool) (int32, error) {
	if v != nil && v.Type == intstr.Int {
		return v.IntVal, nil
	}
	if v != nil {
		if pct, ok := plainPercent(v.StrVal); ok {
			// The usual "25%", without the generic parser (and small
			// enough to be inlined): intstr's arithmetic, in its order.
			return scalePercent(pct, total, roundUp), nil
		}
	}
	return scaledSlow(v, total, roundUp)
}

func scalePercent(pct int, total int32, roundUp bool) int32 {
	if m := int64(pct) * int64(total); m >= 0 && m < 1<<40 {
		// Below 2⁴⁰ the product is exact in a float64 and the quotient's
		// rounding error (under 2⁻¹⁸) cannot reach the next integer (a
		// quotient that is not one is at least 0.01 from it), so integer
		// division rounds as intstr's float arithmetic does.
		q := m / 100
		if roundUp && q*100 != m {
			q++
		}
		return int32(q)
	}
	f := float64(pct) * float64(total) / 100
	if roundUp {
		return int32(int(math.Ceil(f)))
	}
	return int32(int(math.Floor(f)))
}

// scaledSlow is Scaled for nil and every value but a plain percent.
func scaledSlow(v *intstr.IntOrString, total int32, roundUp bool) (int32, error) {
	if v == nil {
		return 0, nil
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(v, int(total), roundUp)
	if err != nil {
		return 0, fmt.Errorf("invalid value %s: %w", quote(v), err)
	}
	return int32(n), nil
}

// plainPercent reads s as 1 to 9 decimal digits and a '%' (what
// strconv.Atoi reads the same way, with no sign, space or overflow to
// consider); anything else is left to intstr.
func plainPercent(s string) (int, bool) {
	n := len(s) - 1
	if n < 1 || n > 9 || s[n] != '%' {
		return 0, false
	}
	v := 0
	for i := 0; i < n; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// quote renders an int-or-percent value for an error message: strings are
// quoted, integers are not.
func quote(v *intstr.IntOrString) string {
	if v.Type == intstr.String {
		return strconv.Quote(v.StrVal)
	}
	return strconv.FormatInt(int64(v.IntVal), 10)
}

// ResolveFenceposts resolves maxSurge and maxUnavailable against the desired
// number of replicas, in one step, as the upstream controller does.
//
// maxSurge is rounded up and maxUnavailable down; nil values count as 0. When
// both resolve to 0 (validation forbids both being 0 explicitly, but rounding
// down can produce it), unavailable becomes 1 so the rollout can still make
// progress when surge pods cannot be created. For example, with 2 desired
// replicas, maxUnavailable 1% and maxSurge 0%, surge is 0 and unavailable 1:
// the controller scales old down by one, then new up by one, and so on.
//
// An unparsable value is an error naming its field path
// (spec.strategy.rollingUpdate.maxSurge or .maxUnavailable); both results are
// then 0, like upstream.
func ResolveFenceposts(maxSurge, maxUnavailable *intstr.IntOrString, desired int32) (surge, unavailable int32, err error) {
	surge, err = Scaled(maxSurge, desired, true)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", MaxSurgePath, err)
	}
	unavailable, err = Scaled(maxUnavailable, desired, false)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", MaxUnavailablePath, err)
	}
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return surge, unavailable, nil
}

// rolling returns d's rolling-update parameters and replicas when d is a
// RollingUpdate Deployment with everything needed set.
func rolling(d *appsv1.Deployment) (*appsv1.RollingUpdateDeployment, int32, bool) {
	if d == nil || d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType ||
		d.Spec.Strategy.RollingUpdate == nil || d.Spec.Replicas == nil {
		return nil, 0, false
	}
	return d.Spec.Strategy.RollingUpdate, *d.Spec.Replicas, true
}

// MaxSurge returns how many pods above spec.replicas a RollingUpdate
// Deployment may run during a rollout (maxSurge resolved with
// [ResolveFenceposts]).
//
// It is 0 unless spec.strategy.type is RollingUpdate. Where upstream relies
// on API validation and would panic or use garbage (a nil Deployment,
// spec.replicas or spec.strategy.rollingUpdate, or an unparsable value), it
// returns 0.
func MaxSurge(d *appsv1.Deployment) int32 {
	ru, replicas, ok := rolling(d)
	if !ok {
		return 0
	}
	surge, _, err := ResolveFenceposts(ru.MaxSurge, ru.MaxUnavailable, replicas)
	if err != nil {
		return 0
	}
	return surge
}

// MaxUnavailable returns how many of spec.replicas pods a RollingUpdate
// Deployment may have unavailable during a rollout (maxUnavailable resolved
// with [ResolveFenceposts]), capped at spec.replicas.
//
// It is 0 unless spec.strategy.type is RollingUpdate, and 0 when spec.replicas
// is 0. Like [MaxSurge], it returns 0 instead of panicking on a nil
// Deployment, spec.replicas or spec.strategy.rollingUpdate, and on an
// unparsable value.
func MaxUnavailable(d *appsv1.Deployment) int32 {
	ru, replicas, ok := rolling(d)
	if !ok || replicas == 0 {
		return 0
	}
	_, unavailable, err := ResolveFenceposts(ru.MaxSurge, ru.MaxUnavailable, replicas)
	if err != nil {
		return 0
	}
	if unavailable > replicas {
		return replicas
	}
	return unavailable
}

// Limits returns [MaxSurge] and [MaxUnavailable] of d, resolving the two
// values once (each of those functions resolves both).
func Limits(d *appsv1.Deployment) (maxSurge, maxUnavailable int32) {
	if d == nil || d.Spec.Replicas == nil || d.Spec.Strategy.RollingUpdate == nil {
		return 0, 0
	}
	ru := d.Spec.Strategy.RollingUpdate
	return Resolve(d.Spec.Strategy.Type, *d.Spec.Replicas, ru.MaxSurge, ru.MaxUnavailable)
}

// Resolve is [Limits] for parameters held outside a Deployment: 0 and 0
// when strategy is not RollingUpdate or a value does not parse; otherwise
// [ResolveFenceposts] of replicas, with maxUnavailable 0 when replicas is 0
// and never above replicas. For example RollingUpdate, 10 replicas, 25% and
// 25%: 3 and 2.
func Resolve(strategy appsv1.DeploymentStrategyType, replicas int32, maxSurge, maxUnavailable *intstr.IntOrString) (surge, unavailable int32) {
	if strategy != appsv1.RollingUpdateDeploymentStrategyType {
		return 0, 0
	}
	surge, unavailable, err := ResolveFenceposts(maxSurge, maxUnavailable, replicas)
	if err != nil {
		return 0, 0
	}
	if replicas == 0 {
		return surge, 0
	}
	return surge, min(unavailable, replicas)
}

// MinAvailable returns how many pods of a RollingUpdate Deployment must stay
// available during a rollout: spec.replicas − [MaxUnavailable]. It is 0 for
// any other strategy and when spec.replicas is nil.
func MinAvailable(d *appsv1.Deployment) int32 {
	if d == nil || d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || d.Spec.Replicas == nil {
		return 0
	}
	return *d.Spec.Replicas - MaxUnavailable(d)
}
