package defaulting_test

import (
	"testing"

	"github.com/deploymath/deploymath/rollout/defaulting"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"
)

func TestPullPolicy(t *testing.T) {
	const hex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	always, ifNotPresent := corev1.PullAlways, corev1.PullIfNotPresent
	cases := []struct {
		image string
		want  corev1.PullPolicy
	}{
		{"nginx", always},
		{"nginx:latest", always},
		{"nginx:1.14.2", ifNotPresent},
		{"nginx:LATEST", ifNotPresent},
		{"library/nginx", always},
		{"docker.io/library/nginx:latest", always},
		{"index.docker.io/nginx", always},
		{"localhost/app", always},
		{"localhost:5000/app:latest", always},
		{"registry.example.com:5000/team/app", always},
		{"REGISTRY/app", always},              // an upper-case first segment is a registry
		{"[::1]:5000/app", always},            // IPv6 registry
		{"a_b.c/x", always},                   // not a valid host, but a valid path
		{"nginx@sha256:" + hex, ifNotPresent}, // digest only: no tag
		{"nginx:latest@sha256:" + hex, always},
		{"nginx:1@sha256:" + hex, ifNotPresent},
		// References that do not parse get IfNotPresent.
		{"", ifNotPresent},
		{"Nginx", ifNotPresent},
		{"team/Nginx", ifNotPresent},
		{" nginx", ifNotPresent},
		{"nginx:", ifNotPresent},
		{"nginx:-x", ifNotPresent},
		{hex, ifNotPresent},                        // a bare image ID
		{"nginx@sha256:" + hex[:32], ifNotPresent}, // wrong length for sha256
		{"nginx@sha256:" + "0123456789ABCDEF" + hex[16:], ifNotPresent}, // upper-case hex
		{"nginx@md5:" + hex[:32], ifNotPresent},                         // unknown algorithm
		{"a/" + longPath(254), ifNotPresent},                            // a path of 256
		{longPath(247), always},                                         // library/ + 247 = 255
		{longPath(248), ifNotPresent},
	}
	// Twice, the second time in the other order: the policies are
	// remembered, each for its own image.
	for round := range 2 {
		for i := range cases {
			tc := cases[i]
			if round == 1 {
				tc = cases[len(cases)-1-i]
			}
			tmpl := &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: tc.image}}}}
			if got := defaulting.PodTemplate(tmpl).Spec.Containers[0].ImagePullPolicy; got != tc.want {
				t.Errorf("round %d: image %q: imagePullPolicy %s, want %s", round, tc.image, got, tc.want)
			}
		}
	}
}

// longPath is a one-component repository name of n letters.
func longPath(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a'
	}
	return string(b)
}

// TestSetValuesKept: a field that is already set is never changed.
func TestSetValuesKept(t *testing.T) {
	d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{
		Replicas:                ptr(int32(0)),
		RevisionHistoryLimit:    ptr(int32(0)),
		ProgressDeadlineSeconds: ptr(int32(1)),
		Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
			MaxSurge: ptr(intstr.FromInt32(0)), MaxUnavailable: ptr(intstr.FromString("1%")),
		}},
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyNever,
			DNSPolicy:                     corev1.DNSNone,
			SchedulerName:                 "mine",
			SecurityContext:               &corev1.PodSecurityContext{RunAsUser: ptr(int64(1000))},
			TerminationGracePeriodSeconds: ptr(int64(0)),
			ServiceAccountName:            "a",
			DeprecatedServiceAccount:      "a",
			Containers: []corev1.Container{{
				Name: "c", Image: "c", ImagePullPolicy: corev1.PullNever,
				TerminationMessagePath: "/m", TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
				Ports:          []corev1.ContainerPort{{ContainerPort: 1, Protocol: corev1.ProtocolSCTP}},
				LivenessProbe:  &corev1.Probe{TimeoutSeconds: 2, PeriodSeconds: 3, SuccessThreshold: 1, FailureThreshold: 5, ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/z", Scheme: corev1.URISchemeHTTPS}}},
				ReadinessProbe: &corev1.Probe{TimeoutSeconds: 2, PeriodSeconds: 3, SuccessThreshold: 4, FailureThreshold: 5, ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 1, Service: ptr("s")}}},
				Env:            []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v2", FieldPath: "x"}}}},
			}},
			Volumes: []corev1.Volume{
				{Name: "a", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{DefaultMode: ptr(int32(0o400))}}},
				{Name: "b", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/", Type: ptr(corev1.HostPathDirectory)}}},
				{Name: "c", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{DefaultMode: ptr(int32(0o600)), Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: ptr(int64(600))}}}}}},
			},
		}},
	}}
	if diff := cmp.Diff(d, defaulting.Deployment(d)); diff != "" {
		t.Errorf("set values changed (-in +out):\n%s", diff)
	}
}

func TestServiceAccountAlias(t *testing.T) {
	for _, tc := range []struct{ name, deprecated, want string }{
		{"", "", ""}, {"", "old", "old"}, {"new", "", "new"}, {"new", "old", "new"},
	} {
		out := defaulting.PodTemplate(&corev1.PodTemplateSpec{Spec: corev1.PodSpec{ServiceAccountName: tc.name, DeprecatedServiceAccount: tc.deprecated}})
		if out.Spec.ServiceAccountName != tc.want || out.Spec.DeprecatedServiceAccount != tc.want {
			t.Errorf("serviceAccountName %q, serviceAccount %q: got %q and %q, want %q for both",
				tc.name, tc.deprecated, out.Spec.ServiceAccountName, out.Spec.DeprecatedServiceAccount, tc.want)
		}
	}
}

func TestNil(t *testing.T) {
	if defaulting.Deployment(nil) != nil || defaulting.PodTemplate(nil) != nil {
		t.Error("nil in, non-nil out")
	}
}

// TestRecreateUntouched: the rollingUpdate block is only defaulted for the
// RollingUpdate strategy.
func TestRecreateUntouched(t *testing.T) {
	d := defaulting.Deployment(&appsv1.Deployment{Spec: appsv1.DeploymentSpec{Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}}})
	if d.Spec.Strategy.RollingUpdate != nil {
		t.Errorf("Recreate got rollingUpdate %+v", d.Spec.Strategy.RollingUpdate)
	}
}

// TestPureAndIdempotent: the input is never modified, and defaulting a
// defaulted Deployment changes nothing, on random Deployments.
func TestPureAndIdempotent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := genDeployment(t)
		before := d.DeepCopy()
		once := defaulting.Deployment(d)
		if diff := cmp.Diff(before, d); diff != "" {
			t.Fatalf("input modified (-before +after):\n%s", diff)
		}
		twice := defaulting.Deployment(once)
		if diff := cmp.Diff(once, twice); diff != "" {
			t.Fatalf("not idempotent (-once +twice):\n%s", diff)
		}
		tmpl := defaulting.PodTemplate(&d.Spec.Template)
		if diff := cmp.Diff(&once.Spec.Template, tmpl); diff != "" {
			t.Fatalf("PodTemplate differs from Deployment's template (-Deployment +PodTemplate):\n%s", diff)
		}
	})
}

func genDeployment(t *rapid.T) *appsv1.Deployment {
	maybe := func(label string) bool { return rapid.Bool().Draw(t, label) }
	str := func(label string, opts ...string) string {
		return rapid.SampledFrom(append([]string{""}, opts...)).Draw(t, label)
	}
	i32 := func(label string) int32 { return rapid.Int32Range(0, 3).Draw(t, label) }
	d := &appsv1.Deployment{}
	if maybe("replicas set") {
		d.Spec.Replicas = ptr(i32("replicas"))
	}
	d.Spec.Strategy.Type = appsv1.DeploymentStrategyType(str("strategy", "RollingUpdate", "Recreate"))
	if maybe("rollingUpdate") {
		d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		if maybe("maxSurge") {
			d.Spec.Strategy.RollingUpdate.MaxSurge = ptr(intstr.FromInt32(i32("maxSurge value")))
		}
	}
	spec := &d.Spec.Template.Spec
	spec.RestartPolicy = corev1.RestartPolicy(str("restartPolicy", "Never"))
	spec.ServiceAccountName = str("serviceAccountName", "a")
	spec.DeprecatedServiceAccount = str("serviceAccount", "b")
	if maybe("grace") {
		spec.TerminationGracePeriodSeconds = ptr(int64(i32("grace value")))
	}
	probe := func(label string) *corev1.Probe {
		if !maybe(label) {
			return nil
		}
		p := &corev1.Probe{TimeoutSeconds: i32(label + " timeout"), PeriodSeconds: i32(label + " period")}
		switch rapid.IntRange(0, 2).Draw(t, label+" handler") {
		case 0:
			p.HTTPGet = &corev1.HTTPGetAction{Path: str(label+" path", "/x")}
		case 1:
			p.GRPC = &corev1.GRPCAction{}
		}
		return p
	}
	container := func(label string) corev1.Container {
		c := corev1.Container{Name: label, Image: str(label+" image", "nginx", "nginx:1", "nginx:latest", "Bad")}
		c.ImagePullPolicy = corev1.PullPolicy(str(label+" pull", "Never"))
		for range rapid.IntRange(0, 2).Draw(t, label+" ports") {
			c.Ports = append(c.Ports, corev1.ContainerPort{ContainerPort: 80, Protocol: corev1.Protocol(str(label+" protocol", "UDP"))})
		}
		if maybe(label + " env") {
			c.Env = []corev1.EnvVar{{Name: "N", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: str(label+" apiVersion", "v1")}}}}
		}
		if maybe(label + " resources") {
			c.Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(rapid.SampledFrom([]string{"1", "1u", "0.5", "100m"}).Draw(t, label+" cpu"))}
		}
		c.LivenessProbe, c.ReadinessProbe, c.StartupProbe = probe(label+" liveness"), probe(label+" readiness"), probe(label+" startup")
		if maybe(label + " lifecycle") {
			c.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{}}}
		}
		return c
	}
	for i := range rapid.IntRange(0, 2).Draw(t, "containers") {
		spec.Containers = append(spec.Containers, container("c"+string(rune('0'+i))))
	}
	if maybe("init") {
		spec.InitContainers = []corev1.Container{container("init")}
	}
	if maybe("ephemeral") {
		spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon(container("eph"))}}
	}
	for i := range rapid.IntRange(0, 4).Draw(t, "volumes") {
		v := corev1.Volume{Name: "v" + string(rune('0'+i))}
		switch rapid.IntRange(0, 6).Draw(t, "volume kind") {
		case 1:
			v.ConfigMap = &corev1.ConfigMapVolumeSource{}
		case 2:
			v.Secret = &corev1.SecretVolumeSource{}
		case 3:
			v.HostPath = &corev1.HostPathVolumeSource{}
		case 4:
			v.Projected = &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{}}}}
		case 5:
			v.RBD = &corev1.RBDVolumeSource{RBDPool: str("pool", "p")}
		case 6:
			v.Image = &corev1.ImageVolumeSource{Reference: str("image ref", "x", "x:1")}
		}
		spec.Volumes = append(spec.Volumes, v)
	}
	return d
}

func ptr[T any](v T) *T { return &v }
