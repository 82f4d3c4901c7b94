package clientgo_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/rollout/clientgo"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
)

// Every kind of action becomes the request upstream's controller sends:
// verb, resource, subresource, object or patch, options.
func TestRequests(t *testing.T) {
	d := nginx(3, "nginx:1.16.1")
	rs := replicaSet(d, "6df7dc6747", "nginx:1.16.1", "1", 3)
	scaled := rs.DeepCopy()
	scaled.Spec.Replicas = ptr.To(int32(5))
	status := d.DeepCopy()
	status.Status.ObservedGeneration = 2
	spec := d.DeepCopy()
	spec.Spec.Template.Spec.Containers[0].Image = "nginx:1.14.2"
	uid := rs.UID
	const (
		adopt   = `{"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"nginx","uid":"uid-nginx","controller":true,"blockOwnerDeletion":true}],"uid":"uid-nginx-6df7dc6747"}}`
		release = `{"metadata":{"ownerReferences":[{"$patch":"delete","uid":"uid-nginx"}],"uid":"uid-nginx-6df7dc6747"}}`
	)
	const rsRes, dRes = "apps/v1/replicasets", "apps/v1/deployments"
	for _, tc := range []struct {
		name   string
		action rollout.Action
		want   call
	}{
		{"create", rollout.CreateReplicaSet{ReplicaSet: rs},
			call{Verb: "create", Resource: rsRes, Namespace: "default", Object: rs, Options: metav1.CreateOptions{}}},
		{"update", rollout.UpdateReplicaSet{ReplicaSet: rs},
			call{Verb: "update", Resource: rsRes, Namespace: "default", Object: rs, Options: metav1.UpdateOptions{}}},
		{"scale", rollout.ScaleReplicaSet{ReplicaSet: scaled, From: 3, To: 5},
			call{Verb: "update", Resource: rsRes, Namespace: "default", Object: scaled, Options: metav1.UpdateOptions{}}},
		{"adopt", rollout.AdoptReplicaSet{ReplicaSet: rs, Patch: []byte(adopt)},
			call{Verb: "patch", Resource: rsRes, Namespace: "default", Name: rs.Name,
				PatchType: types.StrategicMergePatchType, Patch: adopt, Options: metav1.PatchOptions{}}},
		{"release", rollout.ReleaseReplicaSet{ReplicaSet: rs, Patch: []byte(release)},
			call{Verb: "patch", Resource: rsRes, Namespace: "default", Name: rs.Name,
				PatchType: types.StrategicMergePatchType, Patch: release, Options: metav1.PatchOptions{}}},
		{"delete", rollout.DeleteReplicaSet{Namespace: "default", Name: rs.Name, UID: uid},
			call{Verb: "delete", Resource: rsRes, Namespace: "default", Name: rs.Name,
				Options: metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}}},
		{"update deployment", rollout.UpdateDeployment{Deployment: spec},
			call{Verb: "update", Resource: dRes, Namespace: "default", Object: spec, Options: metav1.UpdateOptions{}}},
		{"update status", rollout.UpdateDeploymentStatus{Deployment: status},
			call{Verb: "update", Resource: dRes, Subresource: "status", Namespace: "default", Object: status, Options: metav1.UpdateOptions{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []runtime.Object
			if tc.name != "create" {
				objs = append(objs, rs.DeepCopy())
			}
			cs := fake.NewClientset(append(objs, d.DeepCopy())...)
			w := clientgo.NewWriter(cs, record.NewFakeRecorder(10))
			res := &rollout.Result{Actions: []rollout.Action{tc.action}}
			if err := rollout.Execute(context.Background(), w, rollout.Snapshot{Deployment: d}, res); err != nil {
				t.Fatalf("Execute: %v", err)
			}
			diff(t, "requests", []call{tc.want}, calls(cs))
		})
	}
}

// The client's errors come back unchanged: the same value, so that
// apierrors.IsNotFound and errors.Is see what the API server said.
func TestErrorsUnchanged(t *testing.T) {
	d := nginx(3, "nginx:1.16.1")
	rs := replicaSet(d, "6df7dc6747", "nginx:1.16.1", "1", 3)
	ctx := context.Background()
	for _, tc := range []struct {
		name, verb, resource string
		call                 func(w *clientgo.Writer) error
	}{
		{"create", "create", "replicasets", func(w *clientgo.Writer) error { return w.CreateReplicaSet(ctx, rs) }},
		{"update", "update", "replicasets", func(w *clientgo.Writer) error { return w.UpdateReplicaSet(ctx, rs) }},
		{"patch", "patch", "replicasets", func(w *clientgo.Writer) error {
			return w.PatchReplicaSet(ctx, rs.Namespace, rs.Name, []byte(`{}`))
		}},
		{"delete", "delete", "replicasets", func(w *clientgo.Writer) error {
			return w.DeleteReplicaSet(ctx, rs.Namespace, rs.Name, rs.UID)
		}},
		{"update deployment", "update", "deployments", func(w *clientgo.Writer) error { return w.UpdateDeployment(ctx, d) }},
		{"update status", "update", "deployments", func(w *clientgo.Writer) error { return w.UpdateDeploymentStatus(ctx, d) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := fake.NewClientset(d.DeepCopy(), rs.DeepCopy())
			want := apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: tc.resource}, "x", errors.New("stale"))
			cs.PrependReactor(tc.verb, tc.resource, func(clienttesting.Action) (bool, runtime.Object, error) {
				return true, nil, want
			})
			got := tc.call(clientgo.NewWriter(cs, record.NewFakeRecorder(1)))
			if got != error(want) {
				t.Errorf("error = %#v, want the client's %#v", got, want)
			}
		})
	}
}

// recorded is one call of an EventRecorder.
type recorded struct {
	object                 runtime.Object
	eventtype, reason, msg string
}

// eventLog is an EventRecorder that keeps what it is given.
type eventLog struct{ got []recorded }

func (l *eventLog) Event(o runtime.Object, eventtype, reason, message string) {
	l.got = append(l.got, recorded{o, eventtype, reason, message})
}

func (l *eventLog) Eventf(o runtime.Object, eventtype, reason, format string, args ...any) {
	l.got = append(l.got, recorded{o, eventtype, reason, "Eventf: " + format})
}

func (l *eventLog) AnnotatedEventf(o runtime.Object, _ map[string]string, eventtype, reason, format string, args ...any) {
	l.got = append(l.got, recorded{o, eventtype, reason, "AnnotatedEventf: " + format})
}

// An event is recorded on the Deployment itself with its type, reason and
// message verbatim (no formatting: a message may contain %).
func TestEvent(t *testing.T) {
	d := nginx(3, "nginx:1.16.1")
	var log eventLog
	w := clientgo.NewWriter(fake.NewClientset(), &log)
	w.Event(d, rollout.Event{Type: corev1.EventTypeWarning, Reason: "ReplicaSetCreateError", Message: "100% refused", After: 1})
	if len(log.got) != 1 {
		t.Fatalf("recorded %d events, want 1", len(log.got))
	}
	got := log.got[0]
	if got.object != runtime.Object(d) {
		t.Errorf("event on %v, want the Deployment %p", got.object, d)
	}
	diff(t, "event", []string{corev1.EventTypeWarning, "ReplicaSetCreateError", "100% refused"},
		[]string{got.eventtype, got.reason, got.msg})
}

// A Writer without a client refuses every write with ErrNoClient instead
// of dereferencing nil, so Execute stops at the first action with an error
// naming it; without a recorder, events are dropped.
func TestWriterWithoutClient(t *testing.T) {
	d := nginx(3, "nginx:1.16.1")
	rs := replicaSet(d, "6df7dc6747", "nginx:1.16.1", "1", 3)
	ctx := context.Background()
	for _, w := range []*clientgo.Writer{clientgo.NewWriter(nil, nil), nil, {}} {
		for name, err := range map[string]error{
			"create":       w.CreateReplicaSet(ctx, rs),
			"update":       w.UpdateReplicaSet(ctx, rs),
			"patch":        w.PatchReplicaSet(ctx, "default", rs.Name, []byte("{}")),
			"delete":       w.DeleteReplicaSet(ctx, "default", rs.Name, rs.UID),
			"deployment":   w.UpdateDeployment(ctx, d),
			"status write": w.UpdateDeploymentStatus(ctx, d),
		} {
			if !errors.Is(err, clientgo.ErrNoClient) {
				t.Errorf("%s: err = %v, want ErrNoClient", name, err)
			}
		}
		w.Event(d, rollout.Event{Type: corev1.EventTypeNormal, Reason: "R", Message: "m"})
	}

	res := &rollout.Result{Actions: []rollout.Action{rollout.CreateReplicaSet{ReplicaSet: rs}}}
	err := rollout.Execute(ctx, clientgo.NewWriter(nil, nil), rollout.Snapshot{Deployment: d}, res)
	if !errors.Is(err, clientgo.ErrNoClient) || !strings.Contains(err.Error(), "action 1 of 1") {
		t.Errorf("Execute = %v, want action 1 named and ErrNoClient wrapped", err)
	}
}
