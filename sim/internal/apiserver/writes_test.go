package apiserver

import (
	"errors"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func reason(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

func ptr[T any](v T) *T { return &v }

var now = metav1.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))

func newRecord(key string, rs *appsv1.ReplicaSet) *rec { return &rec{key: key, rs: rs} }

// TestReplicaSetWrites: create, update, in-place scale and delete follow
// the API server's rules, and none modifies the object it was given.
func TestReplicaSetWrites(t *testing.T) {
	s := New[*rec]()
	in := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-1", UID: "theirs", Generation: 7},
		Spec:   appsv1.ReplicaSetSpec{Replicas: ptr(int32(2))},
		Status: appsv1.ReplicaSetStatus{Replicas: 9}}
	r, err := s.CreateReplicaSet(in, now, newRecord)
	if err != nil {
		t.Fatal(err)
	}
	rs := r.rs
	if r.key != "default/web-1" || rs.Namespace != "default" || rs.UID == "theirs" || rs.ResourceVersion != "1" ||
		rs.Generation != 1 || !rs.CreationTimestamp.Equal(&now) || rs.Status.Replicas != 0 {
		t.Fatalf("created %s: %+v", r.key, rs.ObjectMeta)
	}
	if in.Namespace != "" || in.UID != "theirs" || in.Status.Replicas != 9 || rs == in {
		t.Fatal("the create modified or kept its input")
	}
	if s.ReplicaSets["default/web-1"] != r || len(s.RecordsIn("default")) != 1 {
		t.Fatal("not stored or not indexed")
	}
	if _, err := s.CreateReplicaSet(in, now, newRecord); reason(err) != "AlreadyExists" {
		t.Fatalf("second create: %v", err)
	}

	// an update keeps what a write cannot change and bumps the generation
	// on a spec change only
	rs.Status.Replicas = 2
	up := rs.DeepCopy()
	up.Labels = map[string]string{"a": "b"}
	up.UID, up.Status.Replicas, up.Generation = "", 5, 40
	_, old, err := s.UpdateReplicaSet(up, false)
	if err != nil || old != rs {
		t.Fatalf("update: %v, old %p want %p", err, old, rs)
	}
	got := r.rs
	if got == up || got.Generation != 1 || got.Status.Replicas != 2 || got.UID != rs.UID || got.ResourceVersion != "2" || got.Labels["a"] != "b" {
		t.Fatalf("metadata update stored %+v, status %+v", got.ObjectMeta, got.Status)
	}
	spec := got.DeepCopy()
	spec.Spec.Replicas = ptr(int32(3))
	if _, _, err := s.UpdateReplicaSet(spec, true); err != nil || r.rs != spec || spec.Generation != 2 {
		t.Fatalf("owned spec update: %v, stored as is %v, generation %d", err, r.rs == spec, spec.Generation)
	}
	stale := spec.DeepCopy()
	stale.ResourceVersion = "1"
	if _, _, err := s.UpdateReplicaSet(stale, false); reason(err) != "Conflict" {
		t.Fatalf("stale update: %v", err)
	}
	wrongUID := spec.DeepCopy()
	wrongUID.ResourceVersion, wrongUID.UID = "", "other"
	if _, _, err := s.UpdateReplicaSet(wrongUID, false); reason(err) != "Conflict" {
		t.Fatalf("update with another UID: %v", err)
	}
	missing := spec.DeepCopy()
	missing.Name = "web-2"
	if _, _, err := s.UpdateReplicaSet(missing, false); reason(err) != "NotFound" {
		t.Fatalf("update of a missing ReplicaSet: %v", err)
	}

	// an in-place scale writes the stored object itself, only when the
	// owner references are the same array
	stored := r.rs
	scale := *stored
	scale.Spec.Replicas = ptr(int32(5))
	if _, done, err := s.ScaleReplicaSetInPlace(&scale); !done || err != nil || r.rs != stored || *stored.Spec.Replicas != 5 || stored.Generation != 3 || stored.ResourceVersion != "4" {
		t.Fatalf("in-place scale: done %v, %v; stored %p (was %p), generation %d, rv %s", done, err, r.rs, stored, stored.Generation, stored.ResourceVersion)
	}
	newOwners := *stored
	newOwners.OwnerReferences = []metav1.OwnerReference{{Name: "x"}}
	if _, done, _ := s.ScaleReplicaSetInPlace(&newOwners); done {
		t.Fatal("an in-place scale changed the owner references")
	}
	staleScale := *stored
	staleScale.ResourceVersion = "3"
	if _, done, err := s.ScaleReplicaSetInPlace(&staleScale); !done || reason(err) != "Conflict" {
		t.Fatalf("stale in-place scale: %v, %v", done, err)
	}

	if _, err := s.DeleteReplicaSet("", "web-1", "other"); reason(err) != "Conflict" {
		t.Fatalf("delete with another UID: %v", err)
	}
	if d, err := s.DeleteReplicaSet("", "web-1", stored.UID); err != nil || d != r || s.ReplicaSets["default/web-1"] != nil || len(s.RecordsIn("default")) != 0 {
		t.Fatalf("delete: %v", err)
	}
	if _, err := s.DeleteReplicaSet("", "web-1", ""); reason(err) != "NotFound" {
		t.Fatalf("second delete: %v", err)
	}
}

// TestDeploymentWrites: create, replace (generation on spec or
// annotations), status subresource.
func TestDeploymentWrites(t *testing.T) {
	s := New[*rec]()
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}, Status: appsv1.DeploymentStatus{Replicas: 3}}
	key, err := s.CreateDeployment(d, now)
	if err != nil || key != "ns/web" || d.Generation != 1 || d.UID == "" || d.ResourceVersion != "1" || d.Status.Replicas != 0 || s.DeploymentKeys[0] != key {
		t.Fatalf("create: %v %q %+v", err, key, d.ObjectMeta)
	}
	if _, err := s.CreateDeployment(&appsv1.Deployment{ObjectMeta: d.ObjectMeta}, now); reason(err) != "AlreadyExists" {
		t.Fatalf("second create: %v", err)
	}
	d.Status.ObservedGeneration = 1
	for _, c := range []struct {
		name string
		edit func(*appsv1.Deployment)
		gen  int64
	}{
		{"labels", func(x *appsv1.Deployment) { x.Labels = map[string]string{"a": "b"} }, 1},
		{"annotations", func(x *appsv1.Deployment) { x.Annotations = map[string]string{"a": "b"} }, 2},
		{"spec", func(x *appsv1.Deployment) { x.Spec.Paused = true }, 3},
	} {
		old, _, err := s.WritableDeployment(s.Deployments[key])
		if err != nil {
			t.Fatal(err)
		}
		next := old.DeepCopy()
		next.Status, next.UID = appsv1.DeploymentStatus{}, "other"
		c.edit(next)
		s.ReplaceDeployment(old, next)
		if got := s.Deployments[key]; got != next || got.Generation != c.gen || got.UID != d.UID || got.Status.ObservedGeneration != 1 {
			t.Errorf("%s: generation %d (want %d), uid %s, status %+v", c.name, got.Generation, c.gen, got.UID, got.Status)
		}
	}
	stale := s.Deployments[key].DeepCopy()
	stale.ResourceVersion = "1"
	if _, _, err := s.WritableDeployment(stale); reason(err) != "Conflict" {
		t.Fatalf("stale write: %v", err)
	}
	if _, _, err := s.WritableDeployment(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "api"}}); reason(err) != "NotFound" {
		t.Fatalf("write of a missing Deployment: %v", err)
	}
	stored := s.Deployments[key]
	st := stored.DeepCopy()
	st.Status.Replicas, st.Spec.Paused, st.Annotations = 4, false, map[string]string{"rev": "2"}
	conds := []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable}}
	rv := stored.ResourceVersion
	s.WriteDeploymentStatus(stored, st, conds)
	if stored.Status.Replicas != 4 || !stored.Spec.Paused || stored.Annotations["rev"] != "2" || &stored.Status.Conditions[0] != &conds[0] || stored.ResourceVersion == rv {
		t.Fatalf("status write stored %+v, paused %v, annotations %v", stored.Status, stored.Spec.Paused, stored.Annotations)
	}
}
