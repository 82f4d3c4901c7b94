package restart_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/deploymath/deploymath/restart"
)

func ptr[T any](v T) *T { return &v }

func lor(name string) corev1.LocalObjectReference { return corev1.LocalObjectReference{Name: name} }

func TestReferences(t *testing.T) {
	cm := func(name string, opt bool) restart.Ref {
		return restart.Ref{Kind: restart.KindConfigMap, Namespace: "ns", Name: name, Optional: opt}
	}
	sec := func(name string, opt bool) restart.Ref {
		return restart.Ref{Kind: restart.KindSecret, Namespace: "ns", Name: name, Optional: opt}
	}
	envFrom := func(cmName, secName string) []corev1.EnvFromSource {
		var out []corev1.EnvFromSource
		if cmName != "" {
			out = append(out, corev1.EnvFromSource{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: lor(cmName)}})
		}
		if secName != "" {
			out = append(out, corev1.EnvFromSource{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: lor(secName)}})
		}
		return out
	}
	tests := []struct {
		name string
		spec *corev1.PodSpec
		want []restart.Ref
	}{
		{"nil spec", nil, nil},
		{"no configs", &corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}, nil},
		{"configMap and secret volumes", &corev1.PodSpec{Volumes: []corev1.Volume{
			{Name: "a", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: lor("cv")}}},
			{Name: "b", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "sv", Optional: ptr(true)}}},
			{Name: "c", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		}}, []restart.Ref{cm("cv", false), sec("sv", true)}},
		{"projected sources", &corev1.PodSpec{Volumes: []corev1.Volume{{Name: "p", VolumeSource: corev1.VolumeSource{
			Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: lor("pc"), Optional: ptr(true)}},
				{Secret: &corev1.SecretProjection{LocalObjectReference: lor("ps")}},
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "t"}},
				{DownwardAPI: &corev1.DownwardAPIProjection{}},
			}}}}}}, []restart.Ref{cm("pc", true), sec("ps", false)}},
		{"env valueFrom", &corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Env: []corev1.EnvVar{
			{Name: "PLAIN", Value: "x"},
			{Name: "FIELD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			{Name: "A", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: lor("ek"), Key: "k"}}},
			{Name: "B", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: lor("sk"), Key: "k", Optional: ptr(false)}}},
		}}}}, []restart.Ref{cm("ek", false), sec("sk", false)}},
		{"envFrom in init, regular and ephemeral containers", &corev1.PodSpec{
			InitContainers:      []corev1.Container{{Name: "i", EnvFrom: envFrom("init-cm", "")}},
			Containers:          []corev1.Container{{Name: "c", EnvFrom: envFrom("", "main-s")}},
			EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "e", EnvFrom: envFrom("eph-cm", "eph-s")}}},
		}, []restart.Ref{cm("eph-cm", false), cm("init-cm", false), sec("eph-s", false), sec("main-s", false)}},
		{"duplicates merge, optional only if every use is", &corev1.PodSpec{
			Volumes: []corev1.Volume{
				{Name: "a", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: lor("x"), Optional: ptr(true)}}},
				{Name: "b", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: lor("y"), Optional: ptr(true)}}},
			},
			Containers: []corev1.Container{{Name: "c",
				EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: lor("x")}},
					{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: lor("y"), Optional: ptr(true)}}}}},
		}, []restart.Ref{cm("x", false), cm("y", true)}},
		{"same name as configmap and secret are two refs", &corev1.PodSpec{Containers: []corev1.Container{{Name: "c", EnvFrom: envFrom("same", "same")}}},
			[]restart.Ref{cm("same", false), sec("same", false)}},
		{"empty names are skipped", &corev1.PodSpec{Containers: []corev1.Container{{Name: "c", EnvFrom: envFrom("", "")}},
			Volumes: []corev1.Volume{{Name: "a", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{}}}}}, nil},
		// The original controller's ordering test: envFrom secrets and
		// configmaps plus a configMap volume, alphabetical.
		{"upstream alphabetical order", &corev1.PodSpec{
			Containers: []corev1.Container{{EnvFrom: []corev1.EnvFromSource{
				{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: lor("secret-b")}},
				{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: lor("secret-a")}},
				{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: lor("config-c")}},
				{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: lor("config-a")}},
			}}},
			Volumes: []corev1.Volume{{Name: "volumeOne", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: lor("config-b")}}}},
		}, []restart.Ref{cm("config-a", false), cm("config-b", false), cm("config-c", false), sec("secret-a", false), sec("secret-b", false)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before *corev1.PodSpec
			if tt.spec != nil {
				before = tt.spec.DeepCopy()
			}
			got := restart.References("ns", tt.spec)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if tt.spec != nil {
				if diff := cmp.Diff(before, tt.spec); diff != "" {
					t.Errorf("input mutated:\n%s", diff)
				}
			}
		})
	}
	if got := (restart.Ref{Kind: restart.KindSecret, Namespace: "n", Name: "x"}).Key(); got != "secret/n/x" {
		t.Errorf("Key = %s", got)
	}
}

func TestWorkloadOf(t *testing.T) {
	tpl := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"t": "1"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c",
			EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: lor("cfg")}}}}}},
	}
	om := metav1.ObjectMeta{Namespace: "ns", Name: "w", ResourceVersion: "7", Annotations: map[string]string{"a": "1"}}
	refs := []restart.Ref{{Kind: restart.KindConfigMap, Namespace: "ns", Name: "cfg"}}
	tests := []struct {
		obj  runtime.Object
		kind restart.WorkloadKind
		path []string
	}{
		{&appsv1.Deployment{ObjectMeta: om, Spec: appsv1.DeploymentSpec{Template: tpl}}, restart.KindDeployment, []string{"spec", "template"}},
		{&appsv1.StatefulSet{ObjectMeta: om, Spec: appsv1.StatefulSetSpec{Template: tpl}}, restart.KindStatefulSet, []string{"spec", "template"}},
		{&appsv1.DaemonSet{ObjectMeta: om, Spec: appsv1.DaemonSetSpec{Template: tpl}}, restart.KindDaemonSet, []string{"spec", "template"}},
		{&batchv1.CronJob{ObjectMeta: om, Spec: batchv1.CronJobSpec{JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: tpl}}}},
			restart.KindCronJob, []string{"spec", "jobTemplate", "spec", "template"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			w, err := restart.WorkloadOf(tt.obj)
			must(t, err)
			want := restart.Workload{Kind: tt.kind, Namespace: "ns", Name: "w", ResourceVersion: "7",
				Annotations: map[string]string{"a": "1"}, TemplateAnnotations: map[string]string{"t": "1"}, Refs: refs}
			if diff := cmp.Diff(want, w); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if w.Key() != string(tt.kind)+"/ns/w" {
				t.Errorf("Key = %s", w.Key())
			}
			w.Annotations["a"] = "changed"
			w.TemplateAnnotations["t"] = "changed"
			if om.Annotations["a"] != "1" || tpl.Annotations["t"] != "1" {
				t.Error("WorkloadOf shares annotation maps with its input")
			}
			if diff := cmp.Diff(tt.path, tt.kind.TemplatePath()); diff != "" {
				t.Errorf("TemplatePath (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := restart.WorkloadOf(&corev1.ConfigMap{}); !errors.Is(err, restart.ErrUnsupported) {
		t.Errorf("ConfigMap: %v", err)
	}
	if _, _, err := restart.PodTemplate((*appsv1.StatefulSet)(nil)); err == nil {
		t.Error("nil StatefulSet: no error")
	}
	if _, _, err := restart.PodTemplate(nil); !errors.Is(err, restart.ErrUnsupported) {
		t.Errorf("nil: %v", err)
	}
}
