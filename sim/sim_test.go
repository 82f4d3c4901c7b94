package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim/internal/cluster"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func newTestSim(t *testing.T) *Sim {
	t.Helper()
	sc, err := ParseScenario([]byte("name: t\nseed: 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestWorkQueueDedupe(t *testing.T) {
	s := newTestSim(t)
	k := queueKey{Ctrl: ctrlDeployment, Name: "default/web"}
	s.add(k)
	s.add(k)
	if n := s.q.len(); n != 1 {
		t.Fatalf("queued %d process events for one key, want 1", n)
	}
	s.addAfter(k, 10*time.Second)
	s.addAfter(k, 20*time.Second) // later than the pending timer: dropped
	s.addAfter(k, 5*time.Second)  // earlier: replaces
	if n := s.q.len(); n != 3 {
		t.Fatalf("queued %d events, want the process event and timers at 10s and 5s", n)
	}
	if it := s.wq.Item(k); !s.wq.IsWaiting(k) || s.wq.Due(it, 10*time.Second) || !s.wq.Due(it, 5*time.Second) {
		t.Fatal("the delayed add pending is not the one at 5s")
	}
}

func TestParseScenarioErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"unknown top-level field", "name: x\nsed: 1\n", `line 2: unknown field "sed"`},
		{"unknown nested field", "name: x\nsteps:\n- at: 1s\n  scale: 2\n- at: 2s\n  setImage: {container: a, imgae: b}\n", `line 6: unknown field "steps[1].setImage.imgae"`},
		{"bad duration", "name: x\nuntil: 5x\n", `invalid duration "5x"`},
		{"two actions", "name: x\nsteps:\n- at: 1s\n  scale: 2\n  pause: true\n", `line 3: field "steps[0]": a step needs exactly one action, found 2`},
		{"unknown mode", "name: x\ncluster:\n  failures:\n  - image: a\n    mode: explode\n", `line 5: field "cluster.failures[0].mode": unknown mode "explode"`},
		{"steps out of order", "name: x\nsteps:\n- at: 10s\n  pause: true\n- at: 5s\n  resume: true\n", `line 5: field "steps[1].at": steps must be in time order`},
		{"unknown manifest field", "name: x\nobjects:\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: a}\n  spec:\n    replica: 3\n", `line 7: unknown field "objects[0].spec.replica"`},
		{"unsupported kind", "name: x\nobjects:\n- apiVersion: v1\n  kind: Service\n", `line 4: field "objects[0].kind": unsupported object`},
		{"unknown node", "name: x\nsteps:\n- at: 1s\n  failNode: n9\n", `line 4: field "steps[0].failNode": unknown node "n9"`},
	}
	for _, c := range cases {
		_, err := ParseScenario([]byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

// twoRuns runs sc twice and returns both traces as text.
func twoRuns(t interface {
	Helper()
	Fatal(...any)
}, sc *Scenario) (string, string) {
	t.Helper()
	var out [2]string
	for i := range out {
		res, err := Run(sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = res.Text()
	}
	return out[0], out[1]
}

func TestDeterminism(t *testing.T) {
	sc, err := LoadScenario(scenarioDir + "/nginx-rolling-update.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a, b := twoRuns(t, sc)
	if a != b {
		t.Fatal("two runs of the same scenario and seed differ")
	}
	seed := uint64(99)
	c, err := Run(sc, Options{Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	if c.Text() == a {
		t.Error("another seed gave the same trace; the seed is not used")
	}
}

// TestStoreConcurrency checks the API server model: stale resourceVersions
// conflict, status writes keep the spec, spec writes bump generation.
func TestStoreConcurrency(t *testing.T) {
	s := newTestSim(t)
	d := rollout.Default(&appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i:1"}}}},
		},
	})
	if err := s.createDeployment(d); err != nil {
		t.Fatal(err)
	}
	stored := s.st.Deployments["default/web"]
	stale := stored.DeepCopy()
	w := stored.DeepCopy()
	w.Status.ObservedGeneration = 1
	w.Spec.Paused = true // ignored by a status write
	if err := s.updateDeploymentStatus(w); err != nil {
		t.Fatal(err)
	}
	got := s.st.Deployments["default/web"]
	if got.Spec.Paused || got.Status.ObservedGeneration != 1 || got.Generation != 1 {
		t.Fatalf("status write: paused=%v observedGeneration=%d generation=%d", got.Spec.Paused, got.Status.ObservedGeneration, got.Generation)
	}
	// The planner reuses the object it wrote: what it holds after the write
	// does not reach the store, and still only status and annotations count.
	owned := got.DeepCopy()
	owned.Status.Replicas = 7
	owned.Spec.Paused = true
	owned.Annotations = map[string]string{"a": "b"}
	if err := s.updateDeploymentStatus(owned); err != nil {
		t.Fatal(err)
	}
	owned.Status.Replicas = 99
	got = s.st.Deployments["default/web"]
	if got.Spec.Paused || got.Status.Replicas != 7 || got.Annotations["a"] != "b" || got.ResourceVersion == stale.ResourceVersion {
		t.Fatalf("owned status write: paused=%v replicas=%d annotations=%v rv=%s", got.Spec.Paused, got.Status.Replicas, got.Annotations, got.ResourceVersion)
	}
	// The invariant checker's state before an action is a copy: the status
	// write of the action must not change it.
	before := newChecker(s).capture("default", "web")
	st := got.DeepCopy()
	st.Status.Replicas = 8
	if err := s.updateDeploymentStatus(st); err != nil {
		t.Fatal(err)
	}
	if before.d.Status.Replicas != 7 || s.st.Deployments["default/web"].Status.Replicas != 8 {
		t.Fatalf("captured status replicas %d after a status write (want 7, stored 8)", before.d.Status.Replicas)
	}
	got = s.st.Deployments["default/web"]
	stale.Spec.Paused = true
	if err := s.updateDeployment(stale); err == nil || !strings.Contains(err.Error(), "the object has been modified") {
		t.Fatalf("stale write: err = %v, want a conflict", err)
	}
	fresh := got.DeepCopy()
	fresh.Spec.Paused = true
	if err := s.updateDeployment(fresh); err != nil {
		t.Fatal(err)
	}
	if g := s.st.Deployments["default/web"]; g.Generation != 2 || g.Status.ObservedGeneration != 1 {
		t.Fatalf("spec write: generation %d observedGeneration %d, want 2 and 1", g.Generation, g.Status.ObservedGeneration)
	}
	if stored.Spec.Paused {
		t.Fatal("a stored object was modified in place")
	}
}

// TestReplicaSetController drives the RS model without the Deployment
// controller: pods are created, become ready, and surplus pods are deleted
// not-ready first.
func TestReplicaSetController(t *testing.T) {
	s := newTestSim(t)
	three := int32(3)
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "default"},
		Spec: appsv1.ReplicaSetSpec{Replicas: &three,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}}},
	}
	if err := s.createReplicaSet(rs); err != nil {
		t.Fatal(err)
	}
	s.runUntil(time.Minute)
	got := s.st.ReplicaSet("default/web-1")
	if st := got.Status; st.Replicas != 3 || st.ReadyReplicas != 3 || st.AvailableReplicas != 3 || st.ObservedGeneration != 1 {
		t.Fatalf("status after a minute: %+v", st)
	}
	// a fourth pod that never becomes ready is deleted first on scale-down
	s.sc.Cluster.Failures = []FailureRule{{Labels: map[string]string{"app": "web"}, mode: cluster.ModeNeverReady}}
	s.c.SetFailures(clusterConfig(s.sc, s.opts).Failures)
	four := got.DeepCopy()
	four.Spec.Replicas = ptrTo(int32(4))
	if err := s.updateReplicaSet(four, false); err != nil {
		t.Fatal(err)
	}
	s.runUntil(2 * time.Minute)
	var notReady string
	for _, p := range s.st.ReplicaSets["default/web-1"].Pods {
		if !p.Ready {
			notReady = p.Name
		}
	}
	if notReady == "" {
		t.Fatal("no not-ready pod")
	}
	back := s.st.ReplicaSet("default/web-1").DeepCopy()
	back.Spec.Replicas = &three
	if err := s.updateReplicaSet(back, false); err != nil {
		t.Fatal(err)
	}
	s.runUntil(3 * time.Minute)
	if s.c.Pod(notReady) != nil {
		t.Fatalf("scale-down kept the not-ready pod %s", notReady)
	}
	if st := s.st.ReplicaSet("default/web-1").Status; st.Replicas != 3 || st.AvailableReplicas != 3 {
		t.Fatalf("status after scale-down: %+v", st)
	}
}

func ptrTo[T any](v T) *T { return &v }

// runUntil processes events up to the given time (test helper).
func (s *Sim) runUntil(until time.Duration) {
	for s.q.len() > 0 {
		at, _ := s.q.q.PeekTime()
		if at > until {
			break
		}
		s.now = at
		_, e := s.q.pop()
		s.handle(e)
	}
	s.now = until
}

// TestRecordEventsAfter: a sync whose second write fails records only the
// events upstream emitted before that write.
func TestRecordEventsAfter(t *testing.T) {
	evs := []rollout.Event{
		{Type: "Normal", Reason: "ScalingReplicaSet", Message: "a", After: 0},
		{Type: "Normal", Reason: "ScalingReplicaSet", Message: "b", After: 1},
		{Type: "Normal", Reason: "ScalingReplicaSet", Message: "c", After: 2},
	}
	for applied, want := range []string{"a", "ab", "abc", "abc"} {
		s := newTestSim(t)
		s.recordEvents(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}}, evs, applied)
		got := ""
		if s.cur != nil {
			for _, e := range s.cur.Events {
				got += e.Message
			}
		}
		if got != want || s.met.scaling != len(want) {
			t.Errorf("applied %d: recorded %q (%d scaling steps), want %q", applied, got, s.met.scaling, want)
		}
	}
}

// TestUndoKubectl: undo follows kubectl (revision.RollbackTarget): a
// rollback to the current template sends no write, and errors use kubectl's
// wording.
func TestUndoKubectl(t *testing.T) {
	sc, err := ParseScenario([]byte(`name: undo-skip
seed: 1
objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: 2
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec: {containers: [{name: c, image: "i:1"}]}
steps:
- {at: 30s, undo: {}}
- {at: 31s, undo: {toRevision: 1}}
- {at: 32s, pause: true}
- {at: 33s, setImage: {container: c, image: "i:2"}}
- {at: 34s, undo: {toRevision: 1}}
`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(sc, Options{Until: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Text()
	for _, want := range []string{
		`step 1: rollout undo web: no rollout history found for deployment "web"`,
		"step 2: rollout undo web: skipped rollback (current template already matches revision 1)",
		"step 5: rollout undo web: you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("trace lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(text, "deployment web gen 3/3") || strings.Contains(text, "gen 4/4") {
		t.Errorf("skipped or refused undos wrote the Deployment:\n%s", text)
	}
}
