package apiserver

import (
	"slices"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// rec is a test record.
type rec struct {
	key, owner string
	rs         *appsv1.ReplicaSet
}

func (r *rec) Key() string                     { return r.key }
func (r *rec) Object() *appsv1.ReplicaSet      { return r.rs }
func (r *rec) ControllerUID() string           { return r.owner }
func (r *rec) SetObject(rs *appsv1.ReplicaSet) { r.rs = rs }

func newRec(ns, name, owner string, created time.Duration) *rec {
	return &rec{key: ns + "/" + name, owner: owner, rs: &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{
		Namespace: ns, Name: name, CreationTimestamp: metav1.NewTime(time.Unix(0, 0).Add(created))}}}
}

// TestUIDOrder: UIDs compare as strings like the counters they are made
// from, which the simulator's deletion ranking relies on.
func TestUIDOrder(t *testing.T) {
	s := New[*rec]()
	var prev types.UID
	for i := 0; i < 5000; i++ {
		uid, n := s.NextUIDNum()
		if n != uint64(i+1) || (i > 0 && uid <= prev) || len(uid) != 36 {
			t.Fatalf("uid %d: %q after %q", n, uid, prev)
		}
		prev = uid
	}
	if prev != "00000000-0000-4000-8000-000000001388" {
		t.Fatalf("uid 5000 = %q", prev)
	}
	if rv1, rv2 := s.NextRV(), s.NextRV(); rv1 != "1" || rv2 != "2" {
		t.Errorf("resourceVersions %q, %q", rv1, rv2)
	}
}

// TestKeysAndIndexes: keys are interned, Deployment keys kept sorted and
// unique, a namespace's ReplicaSets kept by key, the owned ones oldest
// first.
func TestKeysAndIndexes(t *testing.T) {
	s := New[*rec]()
	if a, b := s.Key("ns", "web"), s.Key("ns", "web"); a != "ns/web" || a != b {
		t.Errorf("Key = %q, %q", a, b)
	}
	for _, k := range []string{"b/x", "a/y", "b/x", "a/a"} {
		s.AddDeploymentKey(k)
	}
	if !slices.Equal(s.DeploymentKeys, []string{"a/a", "a/y", "b/x"}) {
		t.Errorf("DeploymentKeys %v", s.DeploymentKeys)
	}
	for _, r := range []*rec{newRec("ns", "web-2", "d1", 2*time.Second), newRec("ns", "web-1", "d1", 5*time.Second), newRec("ns", "api-1", "d2", time.Second), newRec("other", "web-1", "d1", 0)} {
		s.ReplicaSets[r.key] = r
		s.Index(r.rs.Namespace, r)
	}
	names := func(rss []*appsv1.ReplicaSet) (out []string) {
		for _, rs := range rss {
			out = append(out, rs.Name)
		}
		return out
	}
	if got := names(s.ReplicaSetsIn("ns")); !slices.Equal(got, []string{"api-1", "web-1", "web-2"}) {
		t.Errorf("ReplicaSetsIn = %v", got)
	}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", UID: "d1"}}
	if got := names(s.OwnedReplicaSets(d)); !slices.Equal(got, []string{"web-2", "web-1"}) {
		t.Errorf("OwnedReplicaSets = %v (oldest first)", got)
	}
	s.Unindex("ns", "ns/web-1")
	if got := names(s.ReplicaSetsIn("ns")); !slices.Equal(got, []string{"api-1", "web-2"}) {
		t.Errorf("after Unindex: %v", got)
	}
	if s.ReplicaSet("ns/api-1") == nil || s.ReplicaSet("ns/none") != nil {
		t.Error("ReplicaSet look-up")
	}
}

// TestErrors: the API server's wording.
func TestErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{NotFound("replicasets.apps", "web"), `replicasets.apps "web" not found`},
		{AlreadyExists("deployments.apps", "web"), `deployments.apps "web" already exists`},
		{Conflict("deployments.apps", "web"), `Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again`},
	} {
		if c.err.Error() != c.want {
			t.Errorf("%q, want %q", c.err, c.want)
		}
	}
}

// TestNextRV: resourceVersions counted up in their digits are the
// counter's decimal form, across every carry up to a million, and the
// strings handed out earlier keep their value.
func TestNextRV(t *testing.T) {
	s := New[*rec]()
	var kept []string
	for i := int64(1); i <= 1_000_000; i++ {
		rv := s.NextRV()
		if want := strconv.FormatInt(i, 10); rv != want {
			t.Fatalf("resourceVersion %d = %q, want %q", i, rv, want)
		}
		if i%99_991 == 0 {
			kept = append(kept, rv)
		}
	}
	for j, rv := range kept {
		if want := strconv.FormatInt(int64(j+1)*99_991, 10); rv != want {
			t.Fatalf("kept resourceVersion %d changed to %q, want %q", j, rv, want)
		}
	}
}
