package sim

import (
	"testing"

	"github.com/deploymath/deploymath/hashing"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStoreDefaults: every Deployment the simulated API server stores is
// defaulted as a v1.37 server defaults it, on create and on every later
// write, whatever the caller passed.
func TestStoreDefaults(t *testing.T) {
	s := newTestSim(t)
	raw := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx-deployment", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: new(int32(3)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "nginx"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "nginx", Image: "nginx:1.14.2", Ports: []corev1.ContainerPort{{ContainerPort: 80}},
				}}},
			},
		},
	}
	if err := s.createDeployment(raw); err != nil {
		t.Fatal(err)
	}
	key := objKey("default", "nginx-deployment")
	stored := s.st.Deployments[key]
	if h := hashing.PodTemplateHash(&stored.Spec.Template, nil); h != "54fd4d6d4c" {
		t.Errorf("created: pod-template-hash %s, a v1.37 cluster gives 54fd4d6d4c", h)
	}
	if raw.Spec.Template.Spec.RestartPolicy != "" {
		t.Error("createDeployment modified its argument")
	}

	// An edit that adds a sidecar as written: the server defaults it.
	edit := stored.DeepCopy()
	edit.Spec.Template.Spec.Containers = append(edit.Spec.Template.Spec.Containers, corev1.Container{Name: "sidecar", Image: "busybox"})
	s.writeDeploymentSpec(stored, edit)
	got := s.st.Deployments[key].Spec.Template.Spec.Containers[1]
	if got.ImagePullPolicy != corev1.PullAlways || got.TerminationMessagePath != corev1.TerminationMessagePathDefault {
		t.Errorf("edited: sidecar stored undefaulted: imagePullPolicy %q, terminationMessagePath %q", got.ImagePullPolicy, got.TerminationMessagePath)
	}
}
