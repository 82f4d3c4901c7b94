package defaulting_test

import (
	"fmt"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/rollout/defaulting"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// The Kubernetes documentation's nginx Deployment, as written.
const nginxManifest = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
  labels:
    app: nginx
spec:
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.14.2
        ports:
        - containerPort: 80
`

// A v1.37 cluster names the ReplicaSet of the documentation's nginx
// Deployment nginx-deployment-54fd4d6d4c: the hash of the template as the
// API server stores it, not as it was written.
func ExampleDeployment() {
	var d appsv1.Deployment
	if err := yaml.UnmarshalStrict([]byte(nginxManifest), &d); err != nil {
		panic(err)
	}
	fmt.Println("as written:", hashing.PodTemplateHash(&d.Spec.Template, nil))

	stored := defaulting.Deployment(&d)
	c := stored.Spec.Template.Spec.Containers[0]
	fmt.Println("imagePullPolicy:", c.ImagePullPolicy, "protocol:", c.Ports[0].Protocol)
	fmt.Println("ReplicaSet:", d.Name+"-"+hashing.PodTemplateHash(&stored.Spec.Template, nil))
	// Output:
	// as written: 7df89985c6
	// imagePullPolicy: IfNotPresent protocol: TCP
	// ReplicaSet: nginx-deployment-54fd4d6d4c
}

// PodTemplate defaults a template alone (for a workload of another kind
// that stamps out ReplicaSets): an image without a tag is pulled Always, a
// tagged one IfNotPresent, and a probe gets the server's timings.
func ExamplePodTemplate() {
	t := &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
		{Name: "app", Image: "registry.example/app", ReadinessProbe: &corev1.Probe{
			ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(8080)}}}},
		{Name: "sidecar", Image: "envoyproxy/envoy:v1.31.0"},
	}}}
	stored := defaulting.PodTemplate(t)
	app, sidecar := stored.Spec.Containers[0], stored.Spec.Containers[1]
	p := app.ReadinessProbe
	fmt.Println(app.ImagePullPolicy, sidecar.ImagePullPolicy)
	fmt.Println(p.HTTPGet.Path, p.HTTPGet.Scheme, p.TimeoutSeconds, p.PeriodSeconds, p.SuccessThreshold, p.FailureThreshold)
	fmt.Println(stored.Spec.RestartPolicy, stored.Spec.DNSPolicy, *stored.Spec.TerminationGracePeriodSeconds)
	fmt.Println("input untouched:", t.Spec.Containers[0].ImagePullPolicy == "")
	// Output:
	// Always IfNotPresent
	// / HTTP 1 10 1 3
	// Always ClusterFirst 30
	// input untouched: true
}
