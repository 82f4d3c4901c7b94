package sim

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// readableRef is readableBy the simple way: the namespace's ReplicaSets,
// in the store's order, filtered one by one by the rule.
func readableRef(s *Sim, d *appsv1.Deployment) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range s.st.ReplicaSetsOf(s.st.Namespace(d.Namespace)) {
		ref := metav1.GetControllerOfNoCopy(rs)
		if ref == nil || ref.UID == d.UID || strings.HasPrefix(rs.Name, d.Name) {
			out = append(out, rs)
		}
	}
	return out
}

func names(rss []*appsv1.ReplicaSet) string {
	var b strings.Builder
	for _, rs := range rss {
		b.WriteString(rs.Name + " ")
	}
	return b.String()
}

// checkReadable runs sc with the index used for every namespace, however
// small, comparing at every sync of a Deployment the ReplicaSets it was
// given with readableRef, and each Deployment's
// ReplicaSets by the index with the store's OwnedReplicaSets; it returns
// the number of syncs.
func checkReadable(t *testing.T, sc *Scenario) int {
	t.Helper()
	s, err := New(sc, Options{NoTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	s.smallNS = 0
	n := 0
	s.planned = func(snap rollout.Snapshot) {
		n++
		got := make([]string, len(snap.ReplicaSets))
		for i, rs := range snap.ReplicaSets {
			got[i] = rs.Name
		}
		var want []string
		for _, rs := range readableRef(s, snap.Deployment) {
			want = append(want, rs.Name)
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("%s at %v: sync of %s given %q, want %q", sc.Name, s.now, snap.Deployment.Name, got, want)
		}
		for _, d := range s.st.Deployments {
			if got, want := names(s.ownedReplicaSets(d)), names(s.st.OwnedReplicaSets(d)); got != want {
				t.Fatalf("%s at %v: owned by %s: %q, want %q", sc.Name, s.now, d.Name, got, want)
			}
		}
	}
	if _, err := s.Run(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestReadableBy: a sync is given, of its namespace's ReplicaSets, those
// whose controller is the Deployment, the orphans and those whose name
// begins with its name, in the store's order, as the index of
// controllers keeps them through creates, adoptions, releases and
// deletes: the bundled scenarios, and a state with an orphan the
// Deployment adopts, another Deployment's ReplicaSets whose labels the
// selector matches, and a Deployment whose name begins with the other's.
func TestReadableBy(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(scenarioDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatal(err, files)
	}
	for _, file := range files {
		sc, err := LoadScenario(file)
		if err != nil {
			t.Fatal(err)
		}
		checkReadable(t, sc)
	}

	if n := checkReadable(t, adoptionScenario()); n < 4 {
		t.Errorf("%d syncs, want the rollout's", n)
	}
}

// TestReadableSamePlans: a sync given only the ReplicaSets it can read
// plans as one given its whole namespace. Every bundled scenario, and the
// adoption state of TestReadableBy, give the same JSON (frames, summary,
// write log, events) with the index used for every namespace as with
// small namespaces given whole (the default, which the goldens pin).
func TestReadableSamePlans(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(scenarioDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatal(err, files)
	}
	var scs []*Scenario
	for _, file := range files {
		sc, err := LoadScenario(file)
		if err != nil {
			t.Fatal(err)
		}
		scs = append(scs, sc)
	}
	scs = append(scs, adoptionScenario())
	for _, sc := range scs {
		var out [2]string
		for i, small := range []int{smallNamespace, 0} {
			s, err := New(sc, Options{Writes: true, Explain: true})
			if err != nil {
				t.Fatal(err)
			}
			s.smallNS = small
			res, err := s.Run()
			if err != nil {
				t.Fatal(err)
			}
			b, err := res.JSON()
			if err != nil {
				t.Fatal(err)
			}
			out[i] = string(b)
		}
		if out[0] != out[1] {
			t.Errorf("%s: the run differs when each sync is given only what it can read", sc.Name)
		}
	}
}

// adoptionScenario is a state with an orphan the Deployment adopts,
// another Deployment's ReplicaSets whose labels the selector matches, and
// a Deployment whose name begins with the other's.
func adoptionScenario() *Scenario {
	w := newStateWorld(3, 3, 0)
	st := w.state()
	orphan := w.old.DeepCopy()
	orphan.Name, orphan.UID, orphan.OwnerReferences = "stray", "rs-stray", nil
	orphan.Spec.Replicas, orphan.Status = new(int32(0)), appsv1.ReplicaSetStatus{ObservedGeneration: 1}
	other := w.d.DeepCopy()
	other.Name, other.UID = "web-canary", "d-canary" // its name begins with web's
	otherRS := w.cur.DeepCopy()
	otherRS.Name, otherRS.UID = "web-canary-h2", "rs-canary"
	otherRS.OwnerReferences[0].Name, otherRS.OwnerReferences[0].UID = other.Name, types.UID("d-canary")
	otherRS.Spec.Replicas, otherRS.Status = new(int32(0)), appsv1.ReplicaSetStatus{ObservedGeneration: 1}
	other.Status = appsv1.DeploymentStatus{ObservedGeneration: other.Generation}
	st.Deployments = append(st.Deployments, other)
	st.ReplicaSets = append(st.ReplicaSets, orphan, otherRS)
	return NewScenario("adopt").WithState(st)
}
