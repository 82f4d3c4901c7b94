package fencepost_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/deploymath/deploymath/fencepost"
)

// Percent fenceposts: maxSurge rounds up, maxUnavailable rounds down, and
// when both come to 0, maxUnavailable becomes 1.
func ExampleResolveFenceposts_percent() {
	for _, c := range []struct {
		surge, unavailable string
		desired            int32
	}{
		{"25%", "25%", 10},
		{"39%", "39%", 10},
		{"0%", "1%", 2},
		{"1%", "25%", 2},
	} {
		surge, unavailable := intstr.FromString(c.surge), intstr.FromString(c.unavailable)
		s, u, err := fencepost.ResolveFenceposts(&surge, &unavailable, c.desired)
		fmt.Printf("%d desired, surge %s, unavailable %s: surge %d, unavailable %d, err %v\n",
			c.desired, c.surge, c.unavailable, s, u, err)
	}
	bad := intstr.FromString("12x")
	_, _, err := fencepost.ResolveFenceposts(&bad, nil, 10)
	fmt.Println(err)
	// Output:
	// 10 desired, surge 25%, unavailable 25%: surge 3, unavailable 2, err <nil>
	// 10 desired, surge 39%, unavailable 39%: surge 4, unavailable 3, err <nil>
	// 2 desired, surge 0%, unavailable 1%: surge 0, unavailable 1, err <nil>
	// 2 desired, surge 1%, unavailable 25%: surge 1, unavailable 0, err <nil>
	// spec.strategy.rollingUpdate.maxSurge: invalid value "12x": invalid value for IntOrString: invalid type: string is not a percentage
}

func ExampleValidate() {
	replicas := int32(3)
	surge, unavailable := intstr.FromString("12x"), intstr.FromString("101%")
	d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{
		Replicas: &replicas,
		Strategy: appsv1.DeploymentStrategy{
			Type:          appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable},
		},
	}}
	fmt.Println(fencepost.Validate(d))
	// Output:
	// spec.strategy.rollingUpdate.maxSurge: Invalid value: "12x": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')
	// spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "101%": must not be greater than 100%
}

func ExampleMaxUnavailable() {
	replicas := int32(10)
	surge, unavailable := intstr.FromInt32(1), intstr.FromString("25%")
	d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{
		Replicas: &replicas,
		Strategy: appsv1.DeploymentStrategy{
			Type:          appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable},
		},
	}}
	fmt.Println(fencepost.MaxSurge(d), fencepost.MaxUnavailable(d), fencepost.MinAvailable(d))
	// Output: 1 2 8
}

func ExampleLimits() {
	replicas := int32(10)
	surge, unavailable := intstr.FromString("25%"), intstr.FromString("25%")
	d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{
		Replicas: &replicas,
		Strategy: appsv1.DeploymentStrategy{
			Type:          appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable},
		},
	}}
	maxSurge, maxUnavailable := fencepost.Limits(d)
	fmt.Println(maxSurge, maxUnavailable)
	// Output: 3 2
}

// Resolve takes the values a Deployment would hold, for a workload of
// another kind: percents resolved against replicas, 0 and 0 for any
// strategy but RollingUpdate or for a value that does not parse.
func ExampleResolve() {
	surge, unavailable := intstr.FromString("25%"), intstr.FromString("25%")
	fmt.Println(fencepost.Resolve(appsv1.RollingUpdateDeploymentStrategyType, 10, &surge, &unavailable))
	fmt.Println(fencepost.Resolve(appsv1.RollingUpdateDeploymentStrategyType, 0, &surge, &unavailable))
	fmt.Println(fencepost.Resolve(appsv1.RecreateDeploymentStrategyType, 10, &surge, &unavailable))
	bad := intstr.FromString("12x")
	fmt.Println(fencepost.Resolve(appsv1.RollingUpdateDeploymentStrategyType, 10, &bad, &unavailable))
	// Output:
	// 3 2
	// 0 0
	// 0 0
	// 0 0
}
