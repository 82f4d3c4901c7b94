package hashing_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploymath/deploymath/hashing"
)

func nginx() *corev1.PodTemplateSpec {
	return &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "nginx"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name:  "nginx",
			Image: "nginx:1.25",
			Ports: []corev1.ContainerPort{{ContainerPort: 80}},
		}}},
	}
}

// The hash of a Deployment's template names its ReplicaSet. After a hash
// collision the Deployment's status.collisionCount is raised and salts the
// hash.
func ExamplePodTemplateHash() {
	template := nginx()
	fmt.Println(hashing.PodTemplateHash(template, nil))

	collisionCount := int32(1)
	fmt.Println(hashing.PodTemplateHash(template, &collisionCount))
	// Output:
	// 676586b8f6
	// cf59fccdf
}

// The ReplicaSet's template carries the hash label; it is still the
// Deployment's template as far as the controller is concerned.
func ExampleEqualIgnoreHash() {
	template := nginx()
	hash := hashing.PodTemplateHash(template, nil)
	rsTemplate := hashing.TemplateWithHash(template, hash)

	fmt.Println(rsTemplate.Labels)
	fmt.Println(hashing.EqualIgnoreHash(template, rsTemplate))

	rsTemplate.Spec.Containers[0].Image = "nginx:1.26"
	fmt.Println(hashing.EqualIgnoreHash(template, rsTemplate))
	// Output:
	// map[app:nginx pod-template-hash:676586b8f6]
	// true
	// false
}

func ExampleSelectorWithHash() {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}}
	fmt.Println(hashing.SelectorWithHash(sel, "676586b8f6").MatchLabels)
	fmt.Println(sel.MatchLabels)
	// Output:
	// map[app:nginx pod-template-hash:676586b8f6]
	// map[app:nginx]
}
