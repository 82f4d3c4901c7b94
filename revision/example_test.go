package revision_test

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploymath/deploymath/revision"
)

func printSorted(m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Printf("  %s=%s\n", k, m[k])
	}
}

// Rolling back to an existing ReplicaSet raises its revision and records the
// old one in its revision history; the Deployment's own bookkeeping
// annotations are not copied.
func ExampleNewReplicaSetAnnotations() {
	replicas := int32(3)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Annotations: map[string]string{
			revision.RevisionAnnotation:    "4",
			revision.ChangeCauseAnnotation: "kubectl rollout undo",
		}},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas},
	}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-5d4f", Annotations: map[string]string{
		revision.RevisionAnnotation:        "2",
		revision.RevisionHistoryAnnotation: "1",
	}}}
	annotations, changed := revision.NewReplicaSetAnnotations(d, rs, "5", true, 1)
	fmt.Println("changed:", changed)
	printSorted(annotations)
	fmt.Println("rs untouched:", rs.Annotations[revision.RevisionAnnotation])
	// Output:
	// changed: true
	//   deployment.kubernetes.io/revision=5
	//   deployment.kubernetes.io/revision-history=1,2
	//   kubernetes.io/change-cause=kubectl rollout undo
	// rs untouched: 2
}

func ExampleRollbackTarget() {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", UID: "d1", Annotations: map[string]string{
			revision.RevisionAnnotation: "2",
		}},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: podTemplate("nginx:1.27", ""),
		},
	}
	owner := *metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))
	rs := func(name, rev, image, cause string) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{
				Name: name, Labels: map[string]string{"app": "web"}, OwnerReferences: []metav1.OwnerReference{owner},
				Annotations: map[string]string{revision.RevisionAnnotation: rev, revision.ChangeCauseAnnotation: cause},
			},
			Spec: appsv1.ReplicaSetSpec{Template: podTemplate(image, name)},
		}
	}
	rss := []*appsv1.ReplicaSet{
		rs("web-1", "1", "nginx:1.26", "initial"),
		rs("web-2", "2", "nginx:1.27", "upgrade"),
	}

	history, _ := revision.History(d, rss)
	fmt.Print(revision.DescribeHistory(history))

	undo, err := revision.RollbackTarget(d, rss, 0)
	fmt.Println(undo.Message, undo.Revision, undo.Template.Spec.Containers[0].Image, undo.Template.Labels, err)
	printSorted(undo.Annotations)

	_, err = revision.RollbackTarget(d, rss, 5)
	fmt.Println(err)
	// Output:
	// REVISION  CHANGE-CAUSE
	// 1         initial
	// 2         upgrade
	// rolled back 1 nginx:1.26 map[app:web] <nil>
	//   deployment.kubernetes.io/revision=2
	//   kubernetes.io/change-cause=initial
	// unable to find specified revision 5 in history
}

func podTemplate(image, hash string) corev1.PodTemplateSpec {
	labels := map[string]string{"app": "web"}
	if hash != "" {
		labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	}
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: image}}},
	}
}

func ExampleByRevision() {
	rs := func(name, rev string) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{revision.RevisionAnnotation: rev}}}
	}
	rss := []*appsv1.ReplicaSet{rs("c", "10"), rs("a", "9"), rs("b", "2")}
	for _, r := range revision.ByRevision(rss) {
		fmt.Print(r.Name, " ")
	}
	fmt.Println("| max", revision.MaxRevision(rss), "last", revision.LastRevision(rss), "next", revision.Next(rss))
	// Output: b a c | max 10 last 9 next 11
}
