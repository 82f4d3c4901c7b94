package defaulting_test

import (
	"testing"

	"github.com/deploymath/deploymath/rollout/defaulting"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// benchDeployment is a production-size manifest: two containers with env,
// probes and resources, three volumes.
func benchDeployment() *appsv1.Deployment {
	c := func(name, image string) corev1.Container {
		return corev1.Container{
			Name: name, Image: image,
			Ports: []corev1.ContainerPort{{ContainerPort: 8080}},
			Env:   []corev1.EnvVar{{Name: "MODE", Value: "prod"}, {Name: "NODE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0.25"), corev1.ResourceMemory: resource.MustParse("256Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("0.5Gi")},
			},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8080)}}},
			LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}}},
			VolumeMounts:   []corev1.VolumeMount{{Name: "cfg", MountPath: "/etc/cfg"}},
		}
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "prod"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "frontend"}},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{c("web", "web:1.2.3"), c("sidecar", "proxy:2")},
					Volumes: []corev1.Volume{
						{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}},
						{Name: "tmp"},
						{Name: "token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "t"}}}}}},
					},
				},
			},
		},
	}
}

var sinkD *appsv1.Deployment

// BenchmarkDeployment is rollout.Default of a production-size manifest:
// the copy, the defaults and the stored form (two protobuf trips of the
// template); BenchmarkStored is the stored form alone.
func BenchmarkDeployment(b *testing.B) {
	d := benchDeployment()
	b.ReportAllocs()
	for b.Loop() {
		sinkD = defaulting.Deployment(d)
	}
}

func BenchmarkStored(b *testing.B) {
	t := defaulting.Deployment(benchDeployment()).Spec.Template
	b.ReportAllocs()
	for b.Loop() {
		st := defaulting.Stored(&t)
		sinkD = &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: st}}
	}
}
