package fencepost

import (
	"errors"
	"math"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestValidate(t *testing.T) {
	withRU := func(replicas int32, surge, unavailable *intstr.IntOrString) *appsv1.Deployment {
		return rollingDeployment(replicas, surge, unavailable)
	}
	tests := []struct {
		name string
		d    *appsv1.Deployment
		// want lists every expected problem, one full message each, in order.
		want []string
	}{
		{name: "defaults", d: withRU(3, ios("25%"), ios("25%"))},
		{name: "ints", d: withRU(3, ioi(1), ioi(0))},
		{name: "unavailable 100%", d: withRU(3, ioi(0), ios("100%"))},
		{name: "surge above 100% is fine", d: withRU(3, ios("300%"), ioi(0))},
		{name: "0% surge and 1% unavailable", d: withRU(3, ios("0%"), ios("1%"))},
		{name: "replicas 0", d: withRU(0, ioi(1), ioi(1))},
		{name: "recreate", d: recreateDeployment(2)},
		{
			name: "nil deployment",
			d:    nil,
			want: []string{"deployment: must not be nil"},
		},
		{
			name: "nil replicas",
			d:    &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}}},
			want: []string{"spec.replicas: Required value"},
		},
		{
			name: "negative replicas",
			d:    recreateDeployment(-1),
			want: []string{"spec.replicas: Invalid value: -1: must be greater than or equal to 0"},
		},
		{
			name: "empty strategy type",
			d:    &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: i32(1)}},
			want: []string{"spec.strategy.type: Required value"},
		},
		{
			name: "unknown strategy type",
			d:    &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: i32(1), Strategy: appsv1.DeploymentStrategy{Type: "BlueGreen"}}},
			want: []string{`spec.strategy.type: Unsupported value: "BlueGreen": supported values: "Recreate", "RollingUpdate"`},
		},
		{
			name: "recreate with rollingUpdate",
			d: &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: i32(1), Strategy: appsv1.DeploymentStrategy{
				Type: appsv1.RecreateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{},
			}}},
			want: []string{"spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"},
		},
		{
			name: "rolling update without rollingUpdate",
			d: &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: i32(1), Strategy: appsv1.DeploymentStrategy{
				Type: appsv1.RollingUpdateDeploymentStrategyType,
			}}},
			want: []string{"spec.strategy.rollingUpdate: Required value: this should be defaulted and never be nil"},
		},
		{
			name: "garbage surge",
			d:    withRU(3, ios("12x"), ioi(1)),
			want: []string{`spec.strategy.rollingUpdate.maxSurge: Invalid value: "12x": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`},
		},
		{
			name: "negative percent surge",
			d:    withRU(3, ios("-5%"), ioi(1)),
			want: []string{`spec.strategy.rollingUpdate.maxSurge: Invalid value: "-5%": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`},
		},
		{
			name: "negative int unavailable",
			d:    withRU(3, ioi(1), ioi(-1)),
			want: []string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: -1: must be greater than or equal to 0"},
		},
		{
			name: "unavailable over 100%",
			d:    withRU(3, ioi(1), ios("101%")),
			want: []string{`spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "101%": must not be greater than 100%`},
		},
		{
			name: "percent out of range",
			d:    withRU(3, ios("99999999999999999999%"), ioi(1)),
			want: []string{`spec.strategy.rollingUpdate.maxSurge: Invalid value: "99999999999999999999%": percent is out of range`},
		},
		// The API server accepts a surge that overflows replicas + maxSurge
		// in int32, and so does Validate (the controller then computes with
		// the wrapped sum).
		{name: "surge percent overflowing int32", d: withRU(1, ios("214748364701%"), ioi(1))},
		{name: "int surge overflowing int32 with replicas", d: withRU(2, ioi(math.MaxInt32), ioi(1))},
		{name: "largest surge that fits", d: withRU(2, ioi(math.MaxInt32-2), ioi(1))},
		{
			name: "both explicit 0",
			d:    withRU(3, ioi(0), ioi(0)),
			want: []string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0"},
		},
		{
			name: "both 0%",
			d:    withRU(3, ios("0%"), ios("0%")),
			want: []string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"0%\": may not be 0 when `maxSurge` is 0"},
		},
		{
			name: "both nil count as 0",
			d:    withRU(3, nil, nil),
			want: []string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0"},
		},
		{
			name: "unknown IntOrString type",
			d:    withRU(3, &intstr.IntOrString{Type: 9, IntVal: 1}, ioi(1)),
			want: []string{`spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:9, IntVal:1, StrVal:""}: must be an integer or percentage (e.g '5%%')`},
		},
		{
			name: "every problem at once",
			d: &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: i32(-2), Strategy: appsv1.DeploymentStrategy{
				Type:          appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ios("12x"), MaxUnavailable: ios("-5%")},
			}}},
			want: []string{
				"spec.replicas: Invalid value: -2: must be greater than or equal to 0",
				`spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "-5%": a valid percent string`,
				`spec.strategy.rollingUpdate.maxSurge: Invalid value: "12x": a valid percent string`,
				// Like upstream, unparsable values count as 0 for this rule.
				"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"-5%\": may not be 0 when `maxSurge` is 0",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.d)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want %q", tt.want)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tt.want) {
				t.Fatalf("Validate() gave %d problems, want %d:\n%v", len(lines), len(tt.want), err)
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(lines[i], w) {
					t.Errorf("problem %d = %q, want prefix %q", i, lines[i], w)
				}
			}
			if tt.d != nil {
				var fe *field.Error
				if !errors.As(err, &fe) {
					t.Errorf("errors.As(*field.Error) failed for %v", err)
				}
			}
		})
	}
}

func TestValidateDoesNotMutate(t *testing.T) {
	d := rollingDeployment(-1, ios("12x"), nil)
	before := d.DeepCopy()
	_ = Validate(d)
	if d.Spec.Strategy.RollingUpdate.MaxUnavailable != nil || *d.Spec.Replicas != *before.Spec.Replicas ||
		d.Spec.Strategy.RollingUpdate.MaxSurge.StrVal != "12x" {
		t.Errorf("Validate mutated its input")
	}
}
