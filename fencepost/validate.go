package fencepost

import (
	"errors"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate checks the fields of d that the planner needs, with the rules and
// messages of the apps/v1 API validation:
//
//   - spec.replicas is set and not negative;
//   - spec.strategy.type is RollingUpdate or Recreate (an empty type is
//     reported as required on spec.strategy.type);
//   - Recreate: spec.strategy.rollingUpdate is not set;
//   - RollingUpdate: spec.strategy.rollingUpdate is set; maxUnavailable and
//     maxSurge are non-negative integers or percent strings matching
//     [0-9]+% ("12x" and "-5%" are invalid; a nil value counts as 0, as the
//     apps/v1 validation does); they are not both 0; maxUnavailable is not
//     more than 100%; and, beyond the apps/v1 validation, a percent whose
//     number does not fit in an int is rejected (the API server accepts it,
//     but the controller then fails to resolve it).
//
// Like the API server, Validate accepts a maxSurge for which spec.replicas +
// maxSurge exceeds an int32; the controller then computes with the
// wrapped-around sum, and so does the planner.
//
// Each problem is a [*field.Error] (use [errors.As] to inspect one) whose
// message starts with the field path, e.g.
//
//	spec.strategy.rollingUpdate.maxSurge: Invalid value: "12x": a valid percent string must be ...
//
// All problems are joined with [errors.Join]; the result is nil when there
// are none. A nil d is an error too. Validate never panics.
func Validate(d *appsv1.Deployment) error {
	if d == nil {
		return errors.New("deployment: must not be nil")
	}
	if certainlyValid(d) {
		// The common case, without building field paths.
		return nil
	}
	return validateFull(d)
}

// validateFull is Validate without the fast path.
func validateFull(d *appsv1.Deployment) error {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if d.Spec.Replicas == nil {
		errs = append(errs, field.Required(spec.Child("replicas"), ""))
	} else {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*d.Spec.Replicas), spec.Child("replicas"))...)
	}
	errs = append(errs, validateStrategy(&d.Spec.Strategy, spec.Child("strategy"))...)
	if len(errs) == 0 {
		return nil
	}
	joined := make([]error, len(errs))
	for i, e := range errs {
		joined[i] = e
	}
	return errors.Join(joined...)
}

func validateStrategy(s *appsv1.DeploymentStrategy, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch s.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if s.RollingUpdate != nil {
			errs = append(errs, field.Forbidden(path.Child("rollingUpdate"),
				"may not be specified when strategy `type` is '"+string(appsv1.RecreateDeploymentStrategyType)+"'"))
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		if s.RollingUpdate == nil {
			errs = append(errs, field.Required(path.Child("rollingUpdate"), "this should be defaulted and never be nil"))
		} else {
			errs = append(errs, validateRollingUpdate(s.RollingUpdate, path.Child("rollingUpdate"))...)
		}
	case "":
		errs = append(errs, field.Required(path.Child("type"), ""))
	default:
		errs = append(errs, field.NotSupported(path.Child("type"), s.Type, []appsv1.DeploymentStrategyType{
			appsv1.RecreateDeploymentStrategyType, appsv1.RollingUpdateDeploymentStrategyType,
		}))
	}
	return errs
}

func validateRollingUpdate(ru *appsv1.RollingUpdateDeployment, path *field.Path) field.ErrorList {
	// Like the apps/v1 validation: a nil value is validated as the zero value.
	var maxUnavailable, maxSurge intstr.IntOrString
	if ru.MaxUnavailable != nil {
		maxUnavailable = *ru.MaxUnavailable
	}
	if ru.MaxSurge != nil {
		maxSurge = *ru.MaxSurge
	}
	unavailablePath, surgePath := path.Child("maxUnavailable"), path.Child("maxSurge")
	var errs field.ErrorList
	errs = append(errs, validateNonnegative(maxUnavailable, unavailablePath)...)
	errs = append(errs, validateNonnegative(maxSurge, surgePath)...)
	if intOrPercent(maxUnavailable) == 0 && intOrPercent(maxSurge) == 0 {
		errs = append(errs, field.Invalid(unavailablePath, maxUnavailable, "may not be 0 when `maxSurge` is 0"))
	}
	if p, ok := percent(maxUnavailable); ok && p > 100 {
		errs = append(errs, field.Invalid(unavailablePath, maxUnavailable, "must not be greater than 100%"))
	}
	return errs
}

// validateNonnegative accepts a non-negative integer or a percent string.
func validateNonnegative(v intstr.IntOrString, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch v.Type {
	case intstr.String:
		for _, msg := range validation.IsValidPercent(v.StrVal) {
			errs = append(errs, field.Invalid(path, v, msg))
		}
		if len(errs) == 0 {
			// Not in the apps/v1 validation: a percent too large for an int
			// passes it, but the controller cannot resolve it.
			if _, err := strconv.Atoi(v.StrVal[:len(v.StrVal)-1]); err != nil {
				errs = append(errs, field.Invalid(path, v, "percent is out of range"))
			}
		}
	case intstr.Int:
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(v.IntValue()), path)...)
	default:
		// Upstream's message, including its doubled '%'.
		errs = append(errs, field.Invalid(path, v, "must be an integer or percentage (e.g '5%%')"))
	}
	return errs
}

// percent returns the number of a valid percent string.
func percent(v intstr.IntOrString) (int, bool) {
	if v.Type != intstr.String || len(validation.IsValidPercent(v.StrVal)) != 0 {
		return 0, false
	}
	n, _ := strconv.Atoi(v.StrVal[:len(v.StrVal)-1])
	return n, true
}

// intOrPercent is the number upstream compares with 0 for the "both zero"
// rule: the percent number, else IntValue (0 for an unparsable string).
func intOrPercent(v intstr.IntOrString) int {
	if n, ok := percent(v); ok {
		return n
	}
	return v.IntValue()
}

// certainlyValid is a cheap check that accepts only Deployments the full
// validation accepts (replicas set and non-negative; Recreate without
// rollingUpdate; or RollingUpdate with non-negative integer or plain "N%"
// values, not both zero, maxUnavailable at most 100%). Anything else goes
// through the full validation, which words the errors.
func certainlyValid(d *appsv1.Deployment) bool {
	if d.Spec.Replicas == nil || *d.Spec.Replicas < 0 {
		return false
	}
	s := &d.Spec.Strategy
	switch s.Type {
	case appsv1.RecreateDeploymentStrategyType:
		return s.RollingUpdate == nil
	case appsv1.RollingUpdateDeploymentStrategyType:
	default:
		return false
	}
	if s.RollingUpdate == nil {
		return false
	}
	surge, _, ok := simpleIntOrPercent(s.RollingUpdate.MaxSurge)
	if !ok {
		return false
	}
	unavail, unavailPct, ok := simpleIntOrPercent(s.RollingUpdate.MaxUnavailable)
	return ok && !(surge == 0 && unavail == 0) && !(unavailPct && unavail > 100)
}

// simpleIntOrPercent reads a non-negative int, or a percent made of at most
// nine digits and "%". A nil value is 0, as in the apps/v1 validation.
func simpleIntOrPercent(v *intstr.IntOrString) (n int64, percent, ok bool) {
	if v == nil {
		return 0, false, true
	}
	if v.Type == intstr.Int {
		return int64(v.IntVal), false, v.IntVal >= 0
	}
	str := v.StrVal
	if len(str) < 2 || len(str) > 10 || str[len(str)-1] != '%' {
		return 0, false, false
	}
	for i := 0; i < len(str)-1; i++ {
		c := str[i]
		if c < '0' || c > '9' {
			return 0, false, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true, true
}
