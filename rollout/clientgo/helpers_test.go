package clientgo_test

import (
	"testing"
	"time"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/rollout/clientgo"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
)

// now is the instant of every sync in these tests; then is an hour
// earlier, when the objects were created.
var (
	now  = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	then = now.Add(-time.Hour)
)

// nginx returns the docs' nginx Deployment, defaulted and observed, at
// revision 1, running image.
func nginx(replicas int32, image string) *appsv1.Deployment {
	return rollout.Default(&appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx", Namespace: "default", UID: "uid-nginx",
			Generation: 2, ResourceVersion: "100",
			Annotations: map[string]string{"deployment.kubernetes.io/revision": "1"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "nginx"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: image}}},
			},
		},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: replicas, UpdatedReplicas: replicas,
			ReadyReplicas: replicas, AvailableReplicas: replicas, Conditions: []appsv1.DeploymentCondition{
				{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable",
					Message: "Deployment has minimum availability.", LastUpdateTime: metav1.NewTime(then), LastTransitionTime: metav1.NewTime(then)},
				{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable",
					Message: `ReplicaSet "nginx-old" has successfully progressed.`, LastUpdateTime: metav1.NewTime(then), LastTransitionTime: metav1.NewTime(then)},
			}},
	})
}

// replicaSet returns a healthy ReplicaSet of d named nginx-hash, at
// revision rev, running image with replicas pods; its desired- and
// max-replicas annotations are those of a Deployment of 3 (maxSurge 1).
func replicaSet(d *appsv1.Deployment, hash, image string, rev string, replicas int32) *appsv1.ReplicaSet {
	tmpl := *d.Spec.Template.DeepCopy()
	tmpl.Spec.Containers[0].Image = image
	tmpl.Labels = hashing.LabelsWithHash(tmpl.Labels, hash)
	name := d.Name + "-" + hash
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: d.Namespace, UID: types.UID("uid-" + name),
			ResourceVersion: "10", Generation: 1, CreationTimestamp: metav1.NewTime(then),
			Labels: tmpl.Labels,
			Annotations: map[string]string{"deployment.kubernetes.io/revision": rev,
				"deployment.kubernetes.io/desired-replicas": "3", "deployment.kubernetes.io/max-replicas": "4"},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))}},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: hashing.SelectorWithHash(d.Spec.Selector, hash),
			Template: tmpl,
		},
		Status: appsv1.ReplicaSetStatus{Replicas: replicas, FullyLabeledReplicas: replicas, ReadyReplicas: replicas,
			AvailableReplicas: replicas, ObservedGeneration: 1},
	}
}

// call is one request the fake clientset saw, with the parts a test
// compares: verb, resource, subresource, namespace and name, and the
// object, patch or options sent.
type call struct {
	Verb, Resource, Subresource, Namespace, Name string
	Object                                       runtime.Object
	PatchType                                    types.PatchType
	Patch                                        string
	Options                                      any
}

// calls returns the requests cs has seen, in order.
func calls(cs *fake.Clientset) []call {
	var out []call
	for _, a := range cs.Actions() {
		gvr := a.GetResource()
		c := call{Verb: a.GetVerb(), Resource: gvr.Group + "/" + gvr.Version + "/" + gvr.Resource,
			Subresource: a.GetSubresource(), Namespace: a.GetNamespace()}
		switch a := a.(type) {
		case clienttesting.CreateActionImpl:
			c.Object, c.Options = a.GetObject(), a.GetCreateOptions()
		case clienttesting.UpdateActionImpl:
			c.Object, c.Options = a.GetObject(), a.GetUpdateOptions()
		case clienttesting.PatchActionImpl:
			c.Name, c.PatchType, c.Patch, c.Options = a.GetName(), a.GetPatchType(), string(a.GetPatch()), a.GetPatchOptions()
		case clienttesting.DeleteActionImpl:
			c.Name, c.Options = a.GetName(), a.GetDeleteOptions()
		case clienttesting.GetActionImpl:
			c.Name = a.GetName()
		}
		out = append(out, c)
	}
	return out
}

// verbs describes the requests cs has seen, one "verb resource[/sub]
// name" line each, for tests that check only the sequence.
func verbs(cs *fake.Clientset) []string {
	var out []string
	for _, c := range calls(cs) {
		name := c.Name
		if m, ok := c.Object.(metav1.Object); ok {
			name = m.GetName()
		}
		res := c.Resource
		if c.Subresource != "" {
			res += "/" + c.Subresource
		}
		out = append(out, c.Verb+" "+res+" "+name)
	}
	return out
}

// events drains the events recorded by r.
func events(r *record.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-r.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// refuse makes the verb requests on resource for the object called name
// fail with err.
func refuse(cs *fake.Clientset, verb, resource, name string, err error) {
	cs.PrependReactor(verb, resource, func(a clienttesting.Action) (bool, runtime.Object, error) {
		var got string
		switch a := a.(type) {
		case clienttesting.CreateAction: // also every UpdateAction (same methods)
			got = a.GetObject().(metav1.Object).GetName()
		case clienttesting.PatchAction:
			got = a.GetName()
		case clienttesting.DeleteAction:
			got = a.GetName()
		}
		return got == name, nil, err
	})
}

// world returns a fake clientset holding the snapshot's objects, a fake
// recorder, and the Writer on them.
func world(s rollout.Snapshot) (*fake.Clientset, *record.FakeRecorder, *clientgo.Writer) {
	objs := []runtime.Object{s.Deployment}
	for _, rs := range s.ReplicaSets {
		objs = append(objs, rs)
	}
	cs := fake.NewClientset(objs...)
	rec := record.NewFakeRecorder(100)
	return cs, rec, clientgo.NewWriter(cs, rec)
}

// mustPlan plans s or fails the test.
func mustPlan(t *testing.T, s rollout.Snapshot) *rollout.Result {
	t.Helper()
	res, err := rollout.Plan(s)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	return res
}

// diff fails the test with a readable diff when got is not want.
func diff(t *testing.T, what string, want, got any) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s (-want +got):\n%s", what, d)
	}
}
