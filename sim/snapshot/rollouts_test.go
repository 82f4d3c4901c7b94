package snapshot

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
)

// drawNamespace draws a namespace of Deployments, ReplicaSets and pods
// that share it in every way Rollouts and Input must sort out: the
// Deployments' own ReplicaSets, ReplicaSets of other controllers (some
// with a Deployment's UID, some without UIDs), orphans that a selector
// matches or not, ReplicaSets whose name is the one a Deployment's new
// ReplicaSet would take (a hash collision), and pods of all of them.
func drawNamespace(t *rapid.T) *Snapshot {
	s := &Snapshot{}
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	apps := []string{"web", "web-a", "api"}
	withUIDs := rapid.Bool().Draw(t, "uids")
	nd := rapid.IntRange(1, 3).Draw(t, "deployments")
	for i := range nd {
		app := apps[i]
		d := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: app, Namespace: "ns", Generation: 1},
			Spec: appsv1.DeploymentSpec{
				Replicas: new(int32(rapid.Int32Range(0, 4).Draw(t, "replicas"))),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: app + ":" + rapid.SampledFrom([]string{"1", "2"}).Draw(t, "image")}}},
				},
			},
		}
		if withUIDs {
			d.UID = types.UID(fmt.Sprintf("d-%d", i))
		}
		if rapid.Bool().Draw(t, "recreate") {
			d.Spec.Strategy.Type = appsv1.RecreateDeploymentStrategyType
		}
		s.Deployments = append(s.Deployments, rollout.Default(d))
	}
	nrs := rapid.IntRange(0, 8).Draw(t, "replicaSets")
	for i := range nrs {
		d := s.Deployments[rapid.IntRange(0, nd-1).Draw(t, "template of")]
		tmpl := d.Spec.Template.DeepCopy()
		if rapid.Bool().Draw(t, "other image") {
			tmpl.Spec.Containers[0].Image += "-old"
		}
		hash := hashing.PodTemplateHash(tmpl, nil)
		name := d.Name + "-" + hash
		if rapid.Bool().Draw(t, "odd name") {
			name = fmt.Sprintf("rs-%d", i)
		}
		if slices.ContainsFunc(s.ReplicaSets, func(o *appsv1.ReplicaSet) bool { return o.Name == name }) {
			continue
		}
		rs := &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Generation: 1,
				Labels:            hashing.LabelsWithHash(tmpl.Labels, hash),
				CreationTimestamp: metav1.NewTime(now.Add(-time.Duration(rapid.IntRange(1, 100).Draw(t, "age")) * time.Minute)),
				Annotations:       map[string]string{"deployment.kubernetes.io/revision": fmt.Sprint(rapid.IntRange(1, 3).Draw(t, "revision"))}},
			Spec: appsv1.ReplicaSetSpec{Replicas: new(int32(rapid.Int32Range(0, 3).Draw(t, "size"))),
				Selector: hashing.SelectorWithHash(d.Spec.Selector, hash), Template: *hashing.TemplateWithHash(tmpl, hash)},
		}
		if withUIDs {
			rs.UID = types.UID(fmt.Sprintf("rs-%d", i))
		}
		if rapid.Bool().Draw(t, "relabelled") {
			rs.Labels = map[string]string{"app": "gone"}
		}
		switch owner := rapid.IntRange(0, 3).Draw(t, "owner"); owner {
		case 0, 1: // a Deployment
			o := s.Deployments[rapid.IntRange(0, nd-1).Draw(t, "owner deployment")]
			rs.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(o, appsv1.SchemeGroupVersion.WithKind("Deployment"))}
		case 2: // another kind of controller, with a Deployment's UID or none
			uid := types.UID("")
			if rapid.Bool().Draw(t, "borrowed uid") {
				uid = s.Deployments[0].UID
			}
			rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "example.com/v1", Kind: "Rollout", Name: "x", UID: uid, Controller: new(true)}}
		}
		rs.Status.Replicas = *rs.Spec.Replicas
		rs.Status.AvailableReplicas = rapid.Int32Range(0, rs.Status.Replicas).Draw(t, "available")
		s.ReplicaSets = append(s.ReplicaSets, rs)
		for k := range rs.Status.Replicas {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", rs.Name, k), Namespace: "ns",
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}},
				Status: corev1.PodStatus{Phase: rapid.SampledFrom([]corev1.PodPhase{corev1.PodRunning, corev1.PodSucceeded}).Draw(t, "phase")}}
			s.Pods = append(s.Pods, p)
		}
	}
	s.sort()
	return s
}

// TestRolloutsAsScans checks Rollouts and Input, which use indexes,
// against their definitions written as scans of the whole namespace: the
// same ReplicaSets and pods per Deployment, and the same plan as with
// every ReplicaSet and pod of the namespace; the Deployments grouped one
// by one or on every core (as from parallelItems Deployments).
func TestRolloutsAsScans(t *testing.T) {
	defer func(n int) { parallelItems = n }(parallelItems)
	rapid.Check(t, func(t *rapid.T) {
		s := drawNamespace(t)
		parallelItems = rapid.SampledFrom([]int{1, 1 << 30}).Draw(t, "parallelItems")
		now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
		for i, r := range s.Rollouts() {
			d := r.Deployment
			if d != s.Deployments[i] {
				t.Fatalf("Rollout %d is of %s, want %s", i, d.Name, s.Deployments[i].Name)
			}
			var rss []*appsv1.ReplicaSet
			for _, rs := range s.ReplicaSets {
				if Claims(d, rs) {
					rss = append(rss, rs)
				}
			}
			slices.SortFunc(rss, oldestFirst)
			var pods []*corev1.Pod
			for _, p := range s.Pods {
				ref := metav1.GetControllerOfNoCopy(p)
				if slices.ContainsFunc(rss, func(rs *appsv1.ReplicaSet) bool { return ref != nil && ref.Name == rs.Name && ref.UID == rs.UID }) {
					pods = append(pods, p)
				}
			}
			if !slices.Equal(r.ReplicaSets, rss) || !slices.Equal(r.Pods, pods) {
				t.Fatalf("%s: ReplicaSets %v pods %v, want %v %v", d.Name, names(r.ReplicaSets), names(r.Pods), names(rss), names(pods))
			}
			whole := rollout.Snapshot{Deployment: d, ReplicaSets: s.ReplicaSets, Pods: s.Pods, Now: now}
			want, werr := rollout.Plan(whole)
			got, gerr := rollout.Plan(r.Input(now))
			if fmt.Sprint(werr) != fmt.Sprint(gerr) {
				t.Fatalf("%s: error %v, want %v", d.Name, gerr, werr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: plan from Input:\n%s\nfrom the whole namespace:\n%s", d.Name, got.Explain(), want.Explain())
			}
		}
	})
}

func names[T metav1.Object](objs []T) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.GetName()
	}
	return out
}
