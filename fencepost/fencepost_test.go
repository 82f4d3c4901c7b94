package fencepost

import (
	"math"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"
)

func ios(s string) *intstr.IntOrString { v := intstr.FromString(s); return &v }
func ioi(i int32) *intstr.IntOrString  { v := intstr.FromInt32(i); return &v }
func i32(i int32) *int32               { return &i }

func rollingDeployment(replicas int32, surge, unavailable *intstr.IntOrString) *appsv1.Deployment {
	return &appsv1.Deployment{Spec: appsv1.DeploymentSpec{
		Replicas: &replicas,
		Strategy: appsv1.DeploymentStrategy{
			Type:          appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: surge, MaxUnavailable: unavailable},
		},
	}}
}

func recreateDeployment(replicas int32) *appsv1.Deployment {
	return &appsv1.Deployment{Spec: appsv1.DeploymentSpec{
		Replicas: &replicas,
		Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
	}}
}

func TestScaled(t *testing.T) {
	tests := []struct {
		name    string
		v       *intstr.IntOrString
		total   int32
		roundUp bool
		want    int32
		wantErr string
	}{
		{name: "nil is 0", v: nil, total: 10, want: 0},
		{name: "int as is", v: ioi(3), total: 10, want: 3},
		{name: "int above total as is", v: ioi(30), total: 10, want: 30},
		{name: "negative int as is", v: ioi(-2), total: 10, want: -2},
		{name: "percent exact", v: ios("50%"), total: 10, want: 5},
		{name: "percent rounds up", v: ios("39%"), total: 10, roundUp: true, want: 4},
		{name: "percent rounds down", v: ios("39%"), total: 10, want: 3},
		{name: "1% of 1 up", v: ios("1%"), total: 1, roundUp: true, want: 1},
		{name: "1% of 1 down", v: ios("1%"), total: 1, want: 0},
		{name: "percent of 0", v: ios("100%"), total: 0, roundUp: true, want: 0},
		{name: "percent over 100", v: ios("250%"), total: 4, want: 10},
		{name: "negative percent down", v: ios("-5%"), total: 10, want: -1},
		{name: "negative percent up", v: ios("-5%"), total: 10, roundUp: true, want: 0},
		{name: "garbage", v: ios("12x"), total: 10, wantErr: `invalid value "12x"`},
		{name: "number without percent", v: ios("5"), total: 10, wantErr: `invalid value "5": invalid value for IntOrString: invalid type: string is not a percentage`},
		{name: "empty string", v: ios(""), total: 10, wantErr: `invalid value ""`},
		{name: "only percent sign", v: ios("%"), total: 10, wantErr: `invalid value "%"`},
		{name: "unknown type", v: &intstr.IntOrString{Type: 7, IntVal: 3}, total: 10, wantErr: "invalid value 3: invalid value for IntOrString: invalid type: neither int nor percentage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Scaled(tt.v, tt.total, tt.roundUp)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Scaled() error = %v, want containing %q", err, tt.wantErr)
				}
				if got != 0 {
					t.Errorf("Scaled() = %d with error, want 0", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Scaled() unexpected error %v", err)
			}
			if got != tt.want {
				t.Errorf("Scaled() = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestResolveFenceposts(t *testing.T) {
	tests := []struct {
		name                       string
		surge, unavailable         *intstr.IntOrString
		desired                    int32
		wantSurge, wantUnavailable int32
		wantErr                    string
	}{
		// Cases of upstream's TestResolveFenceposts.
		{name: "0% and 0% of 0: unavailable becomes 1", surge: ios("0%"), unavailable: ios("0%"), desired: 0, wantSurge: 0, wantUnavailable: 1},
		{name: "39% of 10: surge up, unavailable down", surge: ios("39%"), unavailable: ios("39%"), desired: 10, wantSurge: 4, wantUnavailable: 3},
		{name: "garbage surge", surge: ios("oops"), unavailable: ios("39%"), desired: 10, wantErr: MaxSurgePath + `: invalid value "oops"`},
		{name: "garbage unavailable", surge: ios("55%"), unavailable: ios("urg"), desired: 10, wantErr: MaxUnavailablePath + `: invalid value "urg"`},
		{name: "nil surge is 0", surge: nil, unavailable: ios("39%"), desired: 10, wantSurge: 0, wantUnavailable: 3},
		{name: "nil unavailable is 0", surge: ios("39%"), unavailable: nil, desired: 10, wantSurge: 4, wantUnavailable: 0},
		{name: "both nil: unavailable becomes 1", surge: nil, unavailable: nil, desired: 10, wantSurge: 0, wantUnavailable: 1},
		// The worked examples of upstream's ResolveFenceposts doc comment.
		{name: "doc: 2 desired, unavailable 1%, surge 0%", surge: ios("0%"), unavailable: ios("1%"), desired: 2, wantSurge: 0, wantUnavailable: 1},
		{name: "doc: 1 desired, unavailable 1%, surge 0%", surge: ios("0%"), unavailable: ios("1%"), desired: 1, wantSurge: 0, wantUnavailable: 1},
		{name: "doc: 2 desired, unavailable 25%, surge 1%", surge: ios("1%"), unavailable: ios("25%"), desired: 2, wantSurge: 1, wantUnavailable: 0},
		{name: "doc: 1 desired, unavailable 25%, surge 1%", surge: ios("1%"), unavailable: ios("25%"), desired: 1, wantSurge: 1, wantUnavailable: 0},
		{name: "doc: 2 desired, unavailable 0%, surge 1%", surge: ios("1%"), unavailable: ios("0%"), desired: 2, wantSurge: 1, wantUnavailable: 0},
		{name: "doc: 1 desired, unavailable 0%, surge 1%", surge: ios("1%"), unavailable: ios("0%"), desired: 1, wantSurge: 1, wantUnavailable: 0},
		// More.
		{name: "defaults 25%/25% of 10", surge: ios("25%"), unavailable: ios("25%"), desired: 10, wantSurge: 3, wantUnavailable: 2},
		{name: "ints are not scaled", surge: ioi(2), unavailable: ioi(7), desired: 3, wantSurge: 2, wantUnavailable: 7},
		{name: "int zeros: unavailable becomes 1", surge: ioi(0), unavailable: ioi(0), desired: 5, wantSurge: 0, wantUnavailable: 1},
		{name: "surge only", surge: ioi(1), unavailable: ioi(0), desired: 5, wantSurge: 1, wantUnavailable: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			surge, unavailable, err := ResolveFenceposts(tt.surge, tt.unavailable, tt.desired)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want prefix %q", err, tt.wantErr)
				}
				if surge != 0 || unavailable != 0 {
					t.Errorf("got %d:%d with error, want 0:0", surge, unavailable)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if surge != tt.wantSurge || unavailable != tt.wantUnavailable {
				t.Errorf("got surge:unavailable %d:%d, want %d:%d", surge, unavailable, tt.wantSurge, tt.wantUnavailable)
			}
		})
	}
}

func TestMaxUnavailable(t *testing.T) {
	tests := []struct {
		name string
		d    *appsv1.Deployment
		want int32
	}{
		// Cases of upstream's TestMaxUnavailable (maxSurge 1).
		{name: "less than replicas", d: rollingDeployment(10, ioi(1), ioi(5)), want: 5},
		{name: "equal to replicas", d: rollingDeployment(10, ioi(1), ioi(10)), want: 10},
		{name: "greater than replicas is capped", d: rollingDeployment(5, ioi(1), ioi(10)), want: 5},
		{name: "replicas 0", d: rollingDeployment(0, ioi(1), ioi(10)), want: 0},
		{name: "recreate", d: &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}}}, want: 0},
		{name: "less than replicas with percent", d: rollingDeployment(10, ioi(1), ios("50%")), want: 5},
		{name: "equal to replicas with percent", d: rollingDeployment(10, ioi(1), ios("100%")), want: 10},
		{name: "greater than replicas with percent", d: rollingDeployment(5, ioi(1), ios("100%")), want: 5},
		// More.
		{name: "percent rounds down", d: rollingDeployment(10, ioi(1), ios("25%")), want: 2},
		{name: "both zero after rounding: 1", d: rollingDeployment(3, ios("0%"), ios("10%")), want: 1},
		{name: "recreate with replicas", d: recreateDeployment(10), want: 0},
		{name: "nil deployment", d: nil, want: 0},
		{name: "nil replicas", d: &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: ioi(1)}}}}, want: 0},
		{name: "nil rollingUpdate", d: &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: i32(3), Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType}}}, want: 0},
		{name: "garbage unavailable", d: rollingDeployment(10, ioi(1), ios("x")), want: 0},
		{name: "garbage surge", d: rollingDeployment(10, ios("x"), ioi(3)), want: 0},
		{name: "empty type", d: &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: i32(3), Strategy: appsv1.DeploymentStrategy{RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: ioi(1)}}}}, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MaxUnavailable(tt.d); got != tt.want {
				t.Errorf("MaxUnavailable() = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestMaxSurge(t *testing.T) {
	tests := []struct {
		name string
		d    *appsv1.Deployment
		want int32
	}{
		{name: "int", d: rollingDeployment(10, ioi(3), ioi(1)), want: 3},
		{name: "percent rounds up", d: rollingDeployment(10, ios("25%"), ioi(1)), want: 3},
		{name: "percent over 100", d: rollingDeployment(10, ios("200%"), ioi(1)), want: 20},
		{name: "replicas 0 with int surge", d: rollingDeployment(0, ioi(2), ioi(1)), want: 2},
		{name: "replicas 0 with percent surge", d: rollingDeployment(0, ios("50%"), ioi(1)), want: 0},
		{name: "nil surge", d: rollingDeployment(10, nil, ioi(1)), want: 0},
		{name: "recreate", d: recreateDeployment(10), want: 0},
		{name: "nil deployment", d: nil, want: 0},
		{name: "nil rollingUpdate", d: &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: i32(3), Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType}}}, want: 0},
		{name: "nil replicas", d: &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ioi(2)}}}}, want: 0},
		{name: "garbage surge", d: rollingDeployment(10, ios("12x"), ioi(1)), want: 0},
		{name: "garbage unavailable zeroes surge too, like upstream", d: rollingDeployment(10, ioi(2), ios("12x")), want: 0},
		{name: "int32 overflow wraps like upstream", d: rollingDeployment(math.MaxInt32, ios("200%"), ioi(1)), want: -2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MaxSurge(tt.d); got != tt.want {
				t.Errorf("MaxSurge() = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestMinAvailable(t *testing.T) {
	tests := []struct {
		name string
		d    *appsv1.Deployment
		want int32
	}{
		// Cases of upstream's TestMinAvailable (maxSurge 1).
		{name: "replicas greater than maxUnavailable", d: rollingDeployment(10, ioi(1), ioi(5)), want: 5},
		{name: "replicas equal maxUnavailable", d: rollingDeployment(10, ioi(1), ioi(10)), want: 0},
		{name: "replicas less than maxUnavailable", d: rollingDeployment(5, ioi(1), ioi(10)), want: 0},
		{name: "replicas 0", d: rollingDeployment(0, ioi(1), ioi(10)), want: 0},
		{name: "recreate", d: recreateDeployment(10), want: 0},
		{name: "greater with percent", d: rollingDeployment(10, ioi(1), ios("60%")), want: 4},
		{name: "equal with percent", d: rollingDeployment(10, ioi(1), ios("100%")), want: 0},
		{name: "less with percent", d: rollingDeployment(5, ioi(1), ios("100%")), want: 0},
		// More.
		{name: "nil deployment", d: nil, want: 0},
		{name: "nil replicas", d: &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType}}}, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MinAvailable(tt.d); got != tt.want {
				t.Errorf("MinAvailable() = %d, want %d", got, tt.want)
			}
		})
	}
}

// Scaled (with its fast path for "NN%") gives what
// intstr.GetScaledValueFromIntOrPercent gives, cut to int32, and fails
// exactly when it fails, on strings of digits, signs, spaces and percent
// signs of any length and on totals of any sign and size.
func TestScaledIsIntstr(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOfN(rapid.SampledFrom([]rune("0123456789%+- x.")), 0, 14, -1).Draw(t, "s")
		if rapid.Bool().Draw(t, "percent") {
			s += "%"
		}
		total := rapid.OneOf(rapid.Int32(), rapid.Int32Range(-5, 1000)).Draw(t, "total")
		v := intstr.FromString(s)
		for _, up := range []bool{true, false} {
			got, err := Scaled(&v, total, up)
			want, werr := intstr.GetScaledValueFromIntOrPercent(&v, int(total), up)
			if (err != nil) != (werr != nil) || err == nil && got != int32(want) {
				t.Fatalf("Scaled(%q, %d, %v) = %d, %v; intstr: %d, %v", s, total, up, got, err, int32(want), werr)
			}
		}
	})
}

// The fast path for a plain percent divides in integers while the product
// is below 2⁴⁰ and in floats above: both give intstr's answer, at the
// boundary, on exact multiples of 100 and one either side, and on totals
// of any sign.
func TestScaledPercentIsIntstr(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		total := rapid.OneOf(rapid.Int32(), rapid.Int32Range(-5, 1000), rapid.Int32Range(1<<20, 1<<31-1)).Draw(t, "total")
		var pct int
		if total > 0 && rapid.Bool().Draw(t, "near 2^40") {
			// A product within a few of a multiple of 100 near 2⁴⁰.
			base := (int64(1) << 40) / int64(total)
			pct = int(base + rapid.Int64Range(-3, 3).Draw(t, "off"))
		} else {
			pct = rapid.IntRange(0, 999_999_999).Draw(t, "pct")
		}
		if pct < 0 || pct > 999_999_999 {
			return
		}
		v := intstr.FromString(strconv.Itoa(pct) + "%")
		for _, up := range []bool{true, false} {
			got, err := Scaled(&v, total, up)
			want, werr := intstr.GetScaledValueFromIntOrPercent(&v, int(total), up)
			if err != nil || werr != nil || got != int32(want) {
				t.Fatalf("Scaled(%q, %d, %v) = %d, %v; intstr: %d, %v", v.StrVal, total, up, got, err, int32(want), werr)
			}
		}
	})
}
