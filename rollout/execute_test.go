package rollout_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// fakeWriter logs every call and fails the calls listed in fail.
type fakeWriter struct {
	calls []string
	fail  map[string]error // "create foo-x" → error
}

func (w *fakeWriter) do(call string) error {
	w.calls = append(w.calls, call)
	return w.fail[call]
}

func (w *fakeWriter) CreateReplicaSet(_ context.Context, rs *appsv1.ReplicaSet) error {
	return w.do("create " + rs.Name)
}

func (w *fakeWriter) UpdateReplicaSet(_ context.Context, rs *appsv1.ReplicaSet) error {
	return w.do(fmt.Sprintf("update %s %d", rs.Name, *rs.Spec.Replicas))
}

func (w *fakeWriter) PatchReplicaSet(_ context.Context, _, name string, _ []byte) error {
	return w.do("patch " + name)
}

func (w *fakeWriter) DeleteReplicaSet(_ context.Context, _, name string, uid types.UID) error {
	return w.do("delete " + name + " uid=" + string(uid))
}

func (w *fakeWriter) UpdateDeployment(_ context.Context, d *appsv1.Deployment) error {
	return w.do("update deployment " + d.Name)
}

func (w *fakeWriter) UpdateDeploymentStatus(_ context.Context, d *appsv1.Deployment) error {
	return w.do("status " + d.Name)
}

func (w *fakeWriter) Event(_ *appsv1.Deployment, e rollout.Event) {
	w.calls = append(w.calls, "event "+e.Reason+": "+e.Message)
}

// A rolling update's first sync: create the new ReplicaSet, record the
// revision (and the status write that conflicts is not in the plan).
func executeFixture() (rollout.Snapshot, *rollout.Result) {
	d := upDeployment(2, 1, 0)
	inSync(d, 1)
	d.Spec.Template = withImage(d.Spec.Template, "foo/bar:v2")
	old := upRS(d, "foo-old", 1, 2, upOld, "foo/bar")
	s := snapshot(d, old)
	res, err := rollout.Plan(s)
	if err != nil {
		panic(err)
	}
	return s, res
}

func TestExecuteAppliesInOrderWithEvents(t *testing.T) {
	s, res := executeFixture()
	var w fakeWriter
	err := rollout.Execute(context.Background(), &w, s, res)
	if res.Stop == "" && err != nil || res.Stop != "" && !errors.Is(err, rollout.ErrStopped) {
		t.Fatalf("Execute = %v (Stop %q)", err, res.Stop)
	}
	name := res.Actions[0].(rollout.CreateReplicaSet).ReplicaSet.Name
	want := []string{
		"create " + name,
		"event ScalingReplicaSet: Scaled up replica set " + name + " from 0 to 1",
		"status foo",
	}
	diffStrings(t, "calls", want, w.calls)
}

func TestExecuteStopsAtFirstFailure(t *testing.T) {
	s, res := executeFixture()
	boom := errors.New("boom")
	w := fakeWriter{fail: map[string]error{"status foo": boom}}
	err := rollout.Execute(context.Background(), &w, s, res)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "action 2 of 2") {
		t.Fatalf("Execute = %v, want action 2's error", err)
	}
	// The creation's event is recorded: it came before the failed write.
	if n := len(w.calls); n != 3 {
		t.Errorf("calls = %q", w.calls)
	}
}

// A refused create (not AlreadyExists) goes on as upstream: the
// ReplicaSetCreateError condition and a warning.
func TestExecuteCreateRefused(t *testing.T) {
	s, res := executeFixture()
	name := res.Actions[0].(rollout.CreateReplicaSet).ReplicaSet.Name
	quota := apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "replicasets"}, name, errors.New("exceeded quota"))
	w := fakeWriter{fail: map[string]error{"create " + name: quota}}
	err := rollout.Execute(context.Background(), &w, s, res)
	if !apierrors.IsForbidden(err) {
		t.Fatalf("Execute = %v, want the Forbidden error", err)
	}
	want := []string{
		"create " + name,
		"status foo",
		fmt.Sprintf("event ReplicaSetCreateError: Failed to create new replica set %q: %v", name, quota),
	}
	diffStrings(t, "calls", want, w.calls)

	// AlreadyExists: nothing more (the next plan sees the ReplicaSet).
	w = fakeWriter{fail: map[string]error{"create " + name: apierrors.NewAlreadyExists(schema.GroupResource{Group: "apps", Resource: "replicasets"}, name)}}
	_ = rollout.Execute(context.Background(), &w, s, res)
	diffStrings(t, "calls after AlreadyExists", []string{"create " + name}, w.calls)
}

// A ReplicaSet that is gone already counts as released or deleted.
func TestExecuteNotFoundOnReleaseAndDelete(t *testing.T) {
	d := upDeployment(1, 1, 0)
	inSync(d, 2)
	stray := upRS(d, "foo-stray", 1, 0, upOlder, "foo/bar:old")
	stray.Labels = map[string]string{"foo": "other"}
	s := snapshot(d, stray, upRS(d, "foo-new", 2, 1, upNew, ""))
	res := mustPlan(t, s)
	gone := apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "replicasets"}, "foo-stray")
	w := fakeWriter{fail: map[string]error{"patch foo-stray": gone}}
	if err := rollout.Execute(context.Background(), &w, s, res); err != nil && !errors.Is(err, rollout.ErrStopped) {
		t.Fatalf("Execute = %v", err)
	}
	if len(w.calls) == 0 || w.calls[0] != "patch foo-stray" {
		t.Errorf("calls = %q, want the release first", w.calls)
	}
}

func TestExecuteNil(t *testing.T) {
	if err := rollout.Execute(context.Background(), nil, rollout.Snapshot{}, &rollout.Result{}); err == nil {
		t.Error("Execute(nil writer) = nil")
	}
}

// A hand-built Result whose action lacks its object is refused before any
// write, naming the action and field; Explain does not panic on it.
func TestExecuteRefusesActionsWithoutObject(t *testing.T) {
	s, _ := executeFixture()
	for _, tc := range []struct {
		a    rollout.Action
		want string
	}{
		{rollout.CreateReplicaSet{}, "actions[1]: CreateReplicaSet.ReplicaSet must not be nil"},
		{rollout.UpdateReplicaSet{}, "actions[1]: UpdateReplicaSet.ReplicaSet must not be nil"},
		{rollout.ScaleReplicaSet{}, "actions[1]: ScaleReplicaSet.ReplicaSet must not be nil"},
		{rollout.AdoptReplicaSet{}, "actions[1]: AdoptReplicaSet.ReplicaSet must not be nil"},
		{rollout.ReleaseReplicaSet{}, "actions[1]: ReleaseReplicaSet.ReplicaSet must not be nil"},
		{rollout.UpdateDeployment{}, "actions[1]: UpdateDeployment.Deployment must not be nil"},
		{rollout.UpdateDeploymentStatus{}, "actions[1]: UpdateDeploymentStatus.Deployment must not be nil"},
		{nil, "actions[1] is nil"},
	} {
		w := &fakeWriter{}
		res := &rollout.Result{Actions: []rollout.Action{rollout.DeleteReplicaSet{Namespace: "default", Name: "old"}, tc.a}}
		err := rollout.Execute(context.Background(), w, s, res)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%T: Execute = %v, want an error containing %q", tc.a, err, tc.want)
		}
		if len(w.calls) != 0 {
			t.Errorf("%T: writes before the refusal: %v", tc.a, w.calls)
		}
		if tc.a != nil {
			if got := tc.a.Explain(); !strings.Contains(got, "<nil>") {
				t.Errorf("%T.Explain() = %q, want it to say <nil>", tc.a, got)
			}
		}
	}
}
