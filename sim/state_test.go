package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim/internal/cluster"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// stateNow is when the test states are taken.
var stateNow = time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)

// ago is an API time d before stateNow.
func ago(d time.Duration) metav1.Time { return metav1.NewTime(stateNow.Add(-d)) }

// stateWorld builds a Deployment "web" mid-rollout from image v1
// (revision 1) to v2 (revision 2), its ReplicaSets and their pods.
type stateWorld struct {
	d        *appsv1.Deployment
	old, cur *appsv1.ReplicaSet
	pods     []*corev1.Pod
}

func newStateWorld(replicas, oldSize, newSize int32) *stateWorld {
	one, zero := intstr.FromInt32(1), intstr.FromInt32(0)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "d-uid", Generation: 2,
			CreationTimestamp: ago(time.Hour), Annotations: map[string]string{"deployment.kubernetes.io/revision": "2"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web:v2"}}},
			},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &one, MaxUnavailable: &zero}},
		},
	}
	d = rollout.Default(d)
	rsOf := func(rev string, image string, size int32) *appsv1.ReplicaSet {
		t := *d.Spec.Template.DeepCopy()
		t.Spec.Containers[0].Image = image
		hash := "h" + rev
		t.Labels = map[string]string{"app": "web", "pod-template-hash": hash}
		return &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: "web-" + hash, Namespace: "default", UID: types.UID("rs-" + rev), Generation: 1,
				CreationTimestamp: ago(time.Hour), Labels: t.Labels,
				Annotations:     map[string]string{"deployment.kubernetes.io/revision": rev},
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))}},
			Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(size), Template: t,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "pod-template-hash": hash}}},
			Status: appsv1.ReplicaSetStatus{Replicas: size, ReadyReplicas: size, AvailableReplicas: size, ObservedGeneration: 1},
		}
	}
	w := &stateWorld{d: d, old: rsOf("1", "web:v1", oldSize), cur: rsOf("2", "web:v2", newSize)}
	w.d.Status = appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: oldSize + newSize, UpdatedReplicas: newSize,
		ReadyReplicas: oldSize + newSize, AvailableReplicas: oldSize + newSize,
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability.", LastUpdateTime: ago(time.Hour), LastTransitionTime: ago(time.Hour)},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated", Message: `ReplicaSet "web-h2" is progressing.`, LastUpdateTime: ago(time.Minute), LastTransitionTime: ago(time.Hour)},
		}}
	for i := range oldSize {
		w.pods = append(w.pods, readyPod(w.old, i, "node-a"))
	}
	for i := range newSize {
		w.pods = append(w.pods, readyPod(w.cur, i, "node-b"))
	}
	return w
}

// readyPod is pod i of rs, running and ready for ten minutes on node.
func readyPod(rs *appsv1.ReplicaSet, i int32, node string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: rs.Name + "-p" + string(rune('a'+i)), Namespace: rs.Namespace,
			UID: types.UID(rs.Name + "-uid-" + string(rune('a'+i))), Labels: rs.Spec.Template.Labels, CreationTimestamp: ago(20 * time.Minute),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}},
		Spec: corev1.PodSpec{NodeName: node},
		Status: corev1.PodStatus{Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: ago(10 * time.Minute)}}},
	}
}

func (w *stateWorld) state() *State {
	return &State{Now: stateNow, Deployments: []*appsv1.Deployment{w.d}, ReplicaSets: []*appsv1.ReplicaSet{w.old, w.cur}, Pods: w.pods}
}

// TestStateFirstSyncIsPlan: a run from a state starts where the cluster
// is: its first sync is what rollout.Plan computes from the same objects
// (here: the new ReplicaSet's pod is available, so one old pod goes), the
// rollout then completes from there, and the state's objects are left
// as they were.
func TestStateFirstSyncIsPlan(t *testing.T) {
	w := newStateWorld(4, 4, 1)
	before := w.state()
	deep := []any{w.d.DeepCopy(), w.old.DeepCopy(), w.cur.DeepCopy(), w.pods[0].DeepCopy()}

	plan, err := rollout.Plan(rollout.Snapshot{Deployment: w.d, ReplicaSets: []*appsv1.ReplicaSet{w.old, w.cur}, Now: stateNow})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range plan.Events {
		want = append(want, e.Message)
	}
	if len(want) != 1 || want[0] != "Scaled down replica set web-h1 from 4 to 3" {
		t.Fatalf("the plan (the test's premise): %q", want)
	}

	res, err := Run(NewScenario("mid-rollout").WithState(before), Options{Writes: true})
	if err != nil {
		t.Fatal(err)
	}
	first := res.Trace.Frames[0]
	if first.At != 0 {
		t.Fatalf("first frame at %v", first.At)
	}
	var got []string
	for _, e := range first.Events {
		got = append(got, e.Message)
	}
	if len(got) > len(want) {
		got = got[:len(want)] // the syncs that follow at the same instant
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events of the first sync differ from rollout.Plan's (-plan +sim):\n%s", diff)
	}
	if !strings.Contains(strings.Join(first.Notes, "\n"), "state: deployment web (replicas 4, RollingUpdate maxSurge 1 maxUnavailable 0, web=web:v2; revision 2, generation 2 observed 2)") {
		t.Errorf("first frame's notes: %q", first.Notes)
	}
	if o := res.Outcomes[0]; o.Outcome != OutcomeComplete {
		t.Errorf("outcome %+v, want Complete", o)
	}
	for _, wr := range res.Writes {
		if wr.Kind == "ReplicaSet" && wr.Verb == "create" {
			t.Errorf("the run created ReplicaSet %s: the state's were not used", wr.Name)
		}
	}
	if diff := cmp.Diff(deep, []any{w.d, w.old, w.cur, w.pods[0]}); diff != "" {
		t.Errorf("the state's objects changed:\n%s", diff)
	}
}

// TestStateTimes: the state's times are shifted so that its moment is
// t=0: a Progressing condition last updated 5 minutes before, with a new
// pod crash-looping, exceeds a 10 minute progress deadline at t=5m.
func TestStateTimes(t *testing.T) {
	w := newStateWorld(2, 2, 1)
	p := w.pods[2]
	p.Status.Conditions[0].Status = corev1.ConditionFalse
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "web", RestartCount: 4,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}
	w.cur.Status.ReadyReplicas, w.cur.Status.AvailableReplicas = 0, 0
	w.d.Status.Conditions[1].LastUpdateTime = ago(5 * time.Minute)
	res, err := Run(NewScenario("deadline").WithState(w.state()), Options{Until: 15 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var at time.Duration = -1
	for _, f := range res.Trace.Frames {
		for _, d := range f.Deployments {
			for _, c := range d.Conditions {
				if c.Type == string(appsv1.DeploymentProgressing) && c.Reason == "ProgressDeadlineExceeded" && at < 0 {
					at = f.At
				}
			}
		}
	}
	if at < 5*time.Minute || at > 5*time.Minute+2*time.Second {
		t.Errorf("ProgressDeadlineExceeded at %v, want 5m (the condition was updated 5m before the state's moment)", at)
	}
	if o := res.Outcomes[0]; o.Outcome != OutcomeProgressDeadlineExceeded {
		t.Errorf("outcome %s", o.Outcome)
	}
}

// TestStatePods: what each pod of the state does next (see State).
func TestStatePods(t *testing.T) {
	w := newStateWorld(3, 0, 3)
	w.old.Spec.Replicas = ptr.To(int32(0))
	w.old.Status = appsv1.ReplicaSetStatus{ObservedGeneration: 1}
	w.d.Spec.MinReadySeconds, w.cur.Spec.MinReadySeconds = 10, 10
	pods := w.pods
	// pod a: ready 5 s ago: available at t=5s.
	pods[0].Status.Conditions[0].LastTransitionTime = ago(5 * time.Second)
	// pod b: Pending on its node: starts and becomes ready later.
	pods[1].Status = corev1.PodStatus{Phase: corev1.PodPending}
	// pod c: image pull back-off: stays Pending.
	pods[2].Status = corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "web",
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff"}}}}}
	// an old pod terminating, due 20 s from now, on a node of its own.
	old := readyPod(w.old, 0, "node-c")
	del := ago(-20 * time.Second)
	old.DeletionTimestamp, old.DeletionGracePeriodSeconds = &del, ptr.To(int64(30))
	// a pod no ReplicaSet of the state controls.
	orphan := readyPod(w.old, 1, "node-c")
	orphan.OwnerReferences = nil
	st := w.state()
	st.Pods = append(st.Pods, old, orphan)
	st.Nodes = []*corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "node-b"}, Status: corev1.NodeStatus{
		Allocatable: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("5")},
		Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}}
	sc := NewScenario("pods").WithState(st)
	sc.Cluster.Startup = Range{Duration(time.Second), Duration(time.Second)}
	sc.Cluster.Readiness = Range{Duration(time.Second), Duration(time.Second)}

	at := func(until time.Duration) *Sim {
		t.Helper()
		s, err := New(sc, Options{Until: until})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(); err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := at(4 * time.Second)
	a, b, c, o := s.c.Pod(pods[0].Name), s.c.Pod(pods[1].Name), s.c.Pod(pods[2].Name), s.c.Pod(old.Name)
	if a == nil || b == nil || c == nil || o == nil || s.c.Pod(orphan.Name) != nil {
		t.Fatalf("loaded pods: %d", s.c.PodCount())
	}
	if a.Created != -20*time.Minute || !a.Ready || a.Available || a.ReadyAt != -5*time.Second {
		t.Errorf("pod a at 4s: created %v ready %v (at %v) available %v; want created -20m, ready at -5s, not yet available", a.Created, a.Ready, a.ReadyAt, a.Available)
	}
	if b.Phase != corev1.PodRunning || !b.Ready || b.Available {
		t.Errorf("pod b at 4s: %s ready %v available %v; want Running, ready since 2s, available at 12s", b.Phase, b.Ready, b.Available)
	}
	if c.Phase != corev1.PodPending || c.Mode != cluster.ModePullError {
		t.Errorf("pod c: %s, mode %d; want Pending, pull error", c.Phase, c.Mode)
	}
	if !o.Terminating || o.DeletedAt != 20*time.Second-30*time.Second {
		t.Errorf("terminating pod: terminating %v, deleted at %v (want -10s: due at 20s, grace 30s)", o.Terminating, o.DeletedAt)
	}
	var names []string
	for _, n := range s.c.Nodes {
		names = append(names, n.Name)
	}
	if diff := cmp.Diff([]string{"node-b", "node-c"}, names); diff != "" || s.c.Nodes[0].Capacity != 5 || s.c.Nodes[1].Capacity != 1<<30 {
		t.Errorf("nodes (-want +got):\n%s capacity %d, %d", diff, s.c.Nodes[0].Capacity, s.c.Nodes[1].Capacity)
	}
	if !strings.Contains(strings.Join(s.trace.Frames[0].Notes, "\n"), "state: 1 pods left out") {
		t.Errorf("notes: %q", s.trace.Frames[0].Notes)
	}

	s = at(30 * time.Second)
	a, b, c = s.c.Pod(pods[0].Name), s.c.Pod(pods[1].Name), s.c.Pod(pods[2].Name)
	if !a.Available || !b.Available || c.Phase != corev1.PodPending || s.c.Pod(old.Name) != nil {
		t.Errorf("at 30s: a available %v, b available %v, c %s, terminating pod still there %v", a.Available, b.Available, c.Phase, s.c.Pod(old.Name) != nil)
	}
}

// TestStateRefused: a state the simulator cannot load is refused before
// the run, naming the object and the field.
func TestStateRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*State)
		want string
	}{
		{"no time", func(s *State) { s.Now = time.Time{} }, `state: field "now": required`},
		{"twice", func(s *State) { s.Deployments = append(s.Deployments, s.Deployments[0]) }, "state: Deployment default/web: given twice"},
		{"invalid", func(s *State) {
			d := s.Deployments[0].DeepCopy()
			d.Spec.Selector.MatchLabels = map[string]string{"app": "other"}
			s.Deployments[0] = d
		}, "state: Deployment default/web: spec.template.metadata.labels"},
		{"too large", func(s *State) {
			d := s.Deployments[0].DeepCopy()
			d.Spec.Replicas = ptr.To(int32(MaxReplicas + 1))
			s.Deployments[0] = d
		}, "state: Deployment default/web: field \"spec.replicas\""},
		{"selector", func(s *State) {
			rs := s.ReplicaSets[0].DeepCopy()
			rs.Spec.Selector = nil
			s.ReplicaSets[0] = rs
		}, `state: ReplicaSet default/web-h1: spec.selector: Required value (the API server refuses such an object)`},
		{"template labels", func(s *State) {
			rs := s.ReplicaSets[0].DeepCopy()
			rs.Spec.Template.Labels = map[string]string{"app": "web"}
			s.ReplicaSets[0] = rs
		}, "state: ReplicaSet default/web-h1: spec.template.metadata.labels: Invalid value: app=web: `selector` does not match template `labels`"},
		{"no containers", func(s *State) {
			d := s.Deployments[0].DeepCopy()
			d.Spec.Template.Spec.Containers = nil
			s.Deployments[0] = d
		}, "state: Deployment default/web: spec.template.spec.containers: Required value (the API server refuses such an object)"},
		{"status", func(s *State) {
			rs := s.ReplicaSets[0].DeepCopy()
			rs.Status.AvailableReplicas = rs.Status.ReadyReplicas + 1
			s.ReplicaSets[0] = rs
		}, "state: ReplicaSet default/web-h1: status.availableReplicas: Invalid value: 3: cannot be greater than status.replicas; status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas"},
		{"no replica sets", func(s *State) { s.ReplicaSets, s.Pods = nil, nil },
			"state: Deployment default/web: status.replicas: the status counts 2 pods (available 2), but the state holds none of its ReplicaSets"},
		{"where it was read", func(s *State) {
			s.ReplicaSets, s.Pods = nil, nil
			s.Source = func(kind, ns, name string) string { return fmt.Sprintf("state.yaml: line %d", len(kind+ns+name)) }
		}, "state.yaml: line 20: Deployment default/web: status.replicas: the status counts 2 pods"},
		{"pod names", func(s *State) {
			p := s.Pods[0].DeepCopy()
			p.Namespace = "other"
			s.Pods = append(s.Pods, p)
		}, "state: Pod other/web-h1-pa: the simulator keys pods by name, and state: Pod default/web-h1-pa has the same one"},
	} {
		st := newStateWorld(2, 2, 0).state()
		tc.edit(st)
		_, err := New(NewScenario(tc.name).WithState(st), Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestStateVariant: a variant of a run from a state edits the state's
// Deployments as an apply just before its moment would: a new generation
// the controller has not observed; the state is left as it was.
func TestStateVariant(t *testing.T) {
	w := newStateWorld(4, 4, 1)
	sc := NewScenario("variant").WithState(w.state())
	two := intstr.FromInt32(2)
	v, err := sc.Variant(func(d *appsv1.Deployment) *appsv1.Deployment {
		d.Spec.Strategy.RollingUpdate.MaxSurge = &two
		return d
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g := v.state.Deployments[0].Generation; g != 3 || w.d.Generation != 2 || w.d.Spec.Strategy.RollingUpdate.MaxSurge.IntValue() != 1 {
		t.Errorf("variant generation %d (want 3), state's %d (want 2)", g, w.d.Generation)
	}
	peak := func(sc *Scenario) int {
		res, err := Run(sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if o := res.Outcomes[0]; o.Outcome != OutcomeComplete {
			t.Errorf("%s: %s", sc.Name, o.Outcome)
		}
		return res.Summary.PeakPods
	}
	if a, b := peak(sc), peak(v); b <= a {
		t.Errorf("peak pods %d with maxSurge 1, %d with maxSurge 2: the variant's strategy was not used", a, b)
	}
}

// TestStateDeterministicAndDelayed: the same state gives the same trace,
// and with an informer delay the controller's cache starts with the state
// (its first list), so the rollout still completes.
func TestStateDeterministicAndDelayed(t *testing.T) {
	run := func(delay time.Duration) string {
		sc := NewScenario("again").WithState(newStateWorld(4, 4, 1).state())
		sc.Cluster.InformerDelay = Duration(delay)
		res, err := Run(sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if o := res.Outcomes[0]; o.Outcome != OutcomeComplete {
			t.Fatalf("delay %v: outcome %s", delay, o.Outcome)
		}
		return res.Text()
	}
	if a, b := run(0), run(0); a != b {
		t.Errorf("two runs differ:\n%s", cmp.Diff(a, b))
	}
	run(10 * time.Millisecond)
}

// TestStateOddObjects: objects a cluster would not hold in that form (a
// ReplicaSet without replicas, a pod without a phase or
// times, one owned by a ReplicaSet the state lacks) are run without a
// panic, as the API server's defaults would have them.
func TestStateOddObjects(t *testing.T) {
	w := newStateWorld(2, 2, 1)
	w.old.Spec.Replicas = nil // 1, as the API server defaults it
	w.cur.Status = appsv1.ReplicaSetStatus{}
	p := w.pods[2]
	p.Status = corev1.PodStatus{}
	p.CreationTimestamp = metav1.Time{}
	lost := readyPod(w.cur, 7, "")
	lost.OwnerReferences[0].UID = "elsewhere"
	st := w.state()
	st.Pods = append(st.Pods, lost)
	res, err := Run(NewScenario("odd").WithState(st), Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outcomes) != 1 || len(res.Violations) > 0 {
		t.Errorf("outcomes %v, violations %v", res.Outcomes, res.Violations)
	}
}

// TestStateResourceQuota: a ResourceQuota of the state limits the pods of
// its namespace as quota admission does (pods that finished do not
// count, other namespaces are not limited); a surge pod is refused,
// and with maxUnavailable 0 the rollout cannot move.
func TestStateResourceQuota(t *testing.T) {
	w := newStateWorld(3, 3, 1)
	w.pods = w.pods[:3] // the new ReplicaSet's pod was refused
	w.cur.Status = appsv1.ReplicaSetStatus{ObservedGeneration: 1}
	done := readyPod(w.old, 5, "node-a")
	done.Status.Phase = corev1.PodSucceeded
	st := w.state()
	st.Pods = append(st.Pods, done)
	st.ResourceQuotas = []*corev1.ResourceQuota{{ObjectMeta: metav1.ObjectMeta{Name: "pods", Namespace: "default"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("3")}}}}
	res, err := Run(NewScenario("quota").WithState(st), Options{Until: 11 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	last := res.Trace.Final()[0]
	rs := last.ReplicaSets
	var msg string
	for _, r := range rs {
		if r.Name == "web-h2" {
			msg = r.Failure
		}
	}
	if want := `exceeded quota: pods, requested: pods=1, used: pods=3, limited: pods=3`; !strings.Contains(msg, want) {
		t.Errorf("new ReplicaSet's failure %q, want %q", msg, want)
	}
	if o := res.Outcomes[0]; o.Outcome != OutcomeProgressDeadlineExceeded {
		t.Errorf("outcome %s", o.Outcome)
	}
	// The same quota in another namespace limits nothing here.
	st.ResourceQuotas[0] = st.ResourceQuotas[0].DeepCopy()
	st.ResourceQuotas[0].Namespace = "other"
	res, err = Run(NewScenario("quota elsewhere").WithState(st), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if o := res.Outcomes[0]; o.Outcome != OutcomeComplete {
		t.Errorf("quota in another namespace: %s", o.Outcome)
	}
	// A negative limit is refused.
	st.ResourceQuotas[0].Spec.Hard[corev1.ResourcePods] = resource.MustParse("-1")
	if _, err := New(NewScenario("bad").WithState(st), Options{}); err == nil || !strings.Contains(err.Error(), `state: ResourceQuota other/pods: field "spec.hard.pods": must not be negative`) {
		t.Errorf("negative quota: %v", err)
	}
}

// BenchmarkStateRollout: a run from the state of a Deployment of 10,000
// replicas in the middle of a rolling update (6,000 old pods, 4,000 new,
// all ready; 25%/25%) to its end: loading the state and finishing the
// rollout. See sim/BENCHMARKS.md.
func BenchmarkStateRollout(b *testing.B) {
	w := newStateWorld(10000, 6000, 4000)
	pct := intstr.FromString("25%")
	w.d.Spec.Strategy.RollingUpdate.MaxSurge, w.d.Spec.Strategy.RollingUpdate.MaxUnavailable = &pct, &pct
	st := w.state()
	b.ReportAllocs()
	for b.Loop() {
		res, err := Run(NewScenario("bench").WithState(st), Options{NoTrace: true})
		if err != nil {
			b.Fatal(err)
		}
		if o := res.Outcomes[0]; o.Outcome != OutcomeComplete {
			b.Fatalf("outcome %s", o.Outcome)
		}
	}
}

// TestStateFarTimes: a condition time the state leaves unset (year 1)
// prints as never set, not as the saturated difference from year 1
// (t=-2562047h47m16.854775808s); one set 100 years or more from the
// state's moment is taken as 100 years before it, with a note.
func TestStateFarTimes(t *testing.T) {
	for _, tc := range []struct {
		at   metav1.Time
		want []string
	}{
		{metav1.Time{}, []string{"(updated t=0s, changed never (unset))"}},
		{metav1.NewTime(time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC)), []string{
			"# state: deployment web: condition Progressing's lastTransitionTime 0001-01-01T00:00:01Z is 100 years or more from the state's moment: taken as 100 years before it",
			"(updated t=0s, changed t=-876000h0m0s)"}},
	} {
		w := newStateWorld(2, 2, 0)
		w.d.Status.Conditions[1].LastTransitionTime = tc.at
		sc := NewScenario("far").WithState(w.state())
		sc.Until = Duration(time.Second)
		res, err := Run(sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range tc.want {
			if text := res.Text(); !strings.Contains(text, want) || strings.Contains(text, "2562047h") {
				t.Errorf("trace lacks %q:\n%s", want, text)
			}
		}
	}
}
