package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim/snapshot"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

var t0 = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

func deployment(name string, replicas int32, image string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name), Generation: 1,
			CreationTimestamp: metav1.NewTime(t0), Annotations: map[string]string{"deployment.kubernetes.io/revision": "1"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: image}}},
			},
		},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1},
	}
	return rollout.Default(d)
}

// replicaSet is d's ReplicaSet for its current template, owned by d.
func replicaSet(d *appsv1.Deployment, size, ready int32) *appsv1.ReplicaSet {
	hash := hashing.PodTemplateHash(&d.Spec.Template, nil)
	t := hashing.TemplateWithHash(&d.Spec.Template, hash)
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: d.Namespace, Name: d.Name + "-" + hash, UID: types.UID("uid-rs-" + d.Name), Labels: t.Labels,
			CreationTimestamp: metav1.NewTime(t0), Annotations: map[string]string{"deployment.kubernetes.io/revision": "1"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "Deployment", APIVersion: "apps/v1", Name: d.Name, UID: d.UID, Controller: new(true)}}},
		Spec:   appsv1.ReplicaSetSpec{Replicas: &size, Selector: hashing.SelectorWithHash(d.Spec.Selector, hash), Template: *t},
		Status: appsv1.ReplicaSetStatus{Replicas: size, ReadyReplicas: ready, AvailableReplicas: ready, ObservedGeneration: 1},
	}
}

func pod(rs *appsv1.ReplicaSet, name string, edit func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: rs.Namespace, Name: name, Labels: rs.Spec.Template.Labels, CreationTimestamp: metav1.NewTime(t0),
			OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", APIVersion: "apps/v1", Name: rs.Name, UID: rs.UID, Controller: new(true)}}},
		Spec:   *rs.Spec.Template.Spec.DeepCopy(),
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	p.Spec.NodeName = "node-1"
	if edit != nil {
		edit(p)
	}
	return p
}

func find(bs []Blocker, reason string) *Blocker {
	for i := range bs {
		if bs[i].Reason == reason {
			return &bs[i]
		}
	}
	return nil
}

// TestPodReasons: every reason a new pod is not available is read from
// its status, counted, and named with an example.
func TestPodReasons(t *testing.T) {
	d := deployment("web", 6, "web:2")
	d.Spec.MinReadySeconds = 30
	rs := replicaSet(d, 6, 0)
	cond := func(ty corev1.PodConditionType, st corev1.ConditionStatus, reason, msg string, at time.Time) corev1.PodCondition {
		return corev1.PodCondition{Type: ty, Status: st, Reason: reason, Message: msg, LastTransitionTime: metav1.NewTime(at)}
	}
	waiting := func(reason string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "web", Image: "web:2", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: "m"}}}}
		}
	}
	s := &snapshot.Snapshot{
		Deployments: []*appsv1.Deployment{d},
		ReplicaSets: []*appsv1.ReplicaSet{rs},
		Pods: []*corev1.Pod{
			pod(rs, "web-a", waiting("CreateContainerConfigError")),
			pod(rs, "web-b", func(p *corev1.Pod) {
				p.Spec.NodeName = ""
				p.Status.Phase = corev1.PodPending
				p.Status.Conditions = []corev1.PodCondition{cond(corev1.PodScheduled, corev1.ConditionFalse, "Unschedulable", "0/3 nodes are available: 3 Insufficient cpu.", t0)}
			}),
			pod(rs, "web-c", func(p *corev1.Pod) { p.Spec.NodeName = ""; p.Status.Phase = corev1.PodPending }),
			pod(rs, "web-d", func(p *corev1.Pod) {
				p.Status.Conditions = []corev1.PodCondition{cond(corev1.PodReady, corev1.ConditionTrue, "", "", t0.Add(50*time.Second))}
			}),
			pod(rs, "web-e", func(p *corev1.Pod) {
				p.Status.Phase = corev1.PodFailed
				p.Status.Reason = "Evicted"
				p.Status.Message = "low memory"
			}),
			pod(rs, "web-f", func(p *corev1.Pod) {
				p.Status.Conditions = []corev1.PodCondition{cond(corev1.PodReady, corev1.ConditionTrue, "", "", t0)}
			}),
		},
	}
	r := Explain(s, Options{Now: t0.Add(time.Minute)})
	if r.NowFrom != NowGiven || !r.Now.Equal(t0.Add(time.Minute)) {
		t.Errorf("now %v from %q", r.Now, r.NowFrom)
	}
	bs := r.Deployments[0].Blockers
	for reason, want := range map[string]string{
		ContainerWaiting: "1 of 6 new pods (replica set " + rs.Name + ") have containers that cannot start: web-a: container web waiting: CreateContainerConfigError: m",
		Unschedulable:    "web-b: Unschedulable: 0/3 nodes are available: 3 Insufficient cpu.",
		Pending:          "web-c: not bound to a node",
		NotYetAvailable:  "minReadySeconds 30 has not passed: web-d: ready since 2026-11-20T10:00:50Z, available at 2026-11-20T10:01:20Z",
		PodFailed:        "web-e: phase Failed, Evicted: low memory",
	} {
		b := find(bs, reason)
		if b == nil || !strings.Contains(b.Message, want) || b.Count != 1 {
			t.Errorf("%s: got %+v, want a count of 1 and a message containing %q", reason, b, want)
		}
	}
	if b := find(bs, NotReady); b != nil {
		t.Errorf("web-f is available (ready for 60s > 30s): %+v", b)
	}
}

// TestStatusMessages: kubectl rollout status's messages, in its order.
func TestStatusMessages(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(*appsv1.Deployment)
		want   string
		done   bool
		failed bool
	}{
		{"spec not observed", func(d *appsv1.Deployment) { d.Generation = 2 }, "Waiting for deployment spec update to be observed...", false, false},
		{"deadline", func(d *appsv1.Deployment) {
			d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Reason: "ProgressDeadlineExceeded"}}
		}, `deployment "web" exceeded its progress deadline`, false, true},
		{"updated", func(d *appsv1.Deployment) { d.Status.UpdatedReplicas = 1 }, `Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated...`, false, false},
		{"old", func(d *appsv1.Deployment) { d.Status.UpdatedReplicas, d.Status.Replicas = 3, 5 }, `Waiting for deployment "web" rollout to finish: 2 old replicas are pending termination...`, false, false},
		{"available", func(d *appsv1.Deployment) {
			d.Status.UpdatedReplicas, d.Status.Replicas, d.Status.AvailableReplicas = 3, 3, 1
		}, `Waiting for deployment "web" rollout to finish: 1 of 3 updated replicas are available...`, false, false},
		{"done", func(d *appsv1.Deployment) {
			d.Status.UpdatedReplicas, d.Status.Replicas, d.Status.AvailableReplicas = 3, 3, 3
		}, `deployment "web" successfully rolled out`, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := deployment("web", 3, "web:1")
			tc.edit(d)
			st := statusOf(d)
			if st.Message != tc.want || st.Complete != tc.done || st.DeadlineExceeded != tc.failed {
				t.Errorf("got %q complete %v exceeded %v; want %q %v %v", st.Message, st.Complete, st.DeadlineExceeded, tc.want, tc.done, tc.failed)
			}
		})
	}
}

// TestSelectors: an orphan the selector matches is adopted, a ReplicaSet
// of another Deployment and another Deployment's pods are an overlap.
func TestSelectors(t *testing.T) {
	web := deployment("web", 1, "web:1")
	webRS := replicaSet(web, 1, 1)
	orphan := replicaSet(web, 0, 0)
	orphan.Name, orphan.UID, orphan.OwnerReferences = "web-orphan", "uid-orphan", nil
	orphan.Spec.Template.Spec.Containers[0].Image = "web:0"
	other := deployment("web-canary", 1, "web:1")
	other.Spec.Template.Labels = map[string]string{"app": "web", "track": "canary"}
	other.Spec.Selector.MatchLabels = other.Spec.Template.Labels
	otherRS := replicaSet(other, 1, 1)
	web.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1, ReadyReplicas: 1}
	s := &snapshot.Snapshot{Deployments: []*appsv1.Deployment{web, other}, ReplicaSets: []*appsv1.ReplicaSet{webRS, orphan, otherRS}}
	r := Explain(s, Options{Now: t0})
	bs := r.Deployments[0].Blockers
	if b := find(bs, AdoptsReplicaSets); b == nil || !strings.Contains(b.Message, "the selector app=web matches 1 replica sets that no controller owns") || b.Examples[0] != "web-orphan" {
		t.Errorf("adoption: %+v", b)
	}
	if b := find(bs, SelectorOverlap); b == nil || !strings.Contains(b.Message, "also matches the pods of Deployment web-canary (template labels app=web,track=canary), "+otherRS.Name+" (controlled by Deployment web-canary)") {
		t.Errorf("overlap: %+v", b)
	}
	if b := find(r.Deployments[1].Blockers, SelectorOverlap); b != nil {
		t.Errorf("web-canary's selector matches nothing of web's: %+v", b)
	}
}

// TestHashCollision: a ReplicaSet of another owner holds the name the new
// template hashes to; the next sync bumps collisionCount.
func TestHashCollision(t *testing.T) {
	d := deployment("web", 1, "web:1")
	squatter := replicaSet(d, 1, 1)
	squatter.OwnerReferences[0].UID, squatter.OwnerReferences[0].Name = "uid-someone", "someone"
	squatter.Spec.Template.Spec.Containers[0].Image = "other:1"
	s := &snapshot.Snapshot{Deployments: []*appsv1.Deployment{d}, ReplicaSets: []*appsv1.ReplicaSet{squatter}}
	r := Explain(s, Options{Now: t0})
	if b := find(r.Deployments[0].Blockers, HashCollision); b == nil || !strings.Contains(b.Message, "hash collision: replica set "+squatter.Name) {
		t.Errorf("collision: %+v\n%s", b, r.Text())
	}
}

// TestNowFromSnapshot: without Options.Now the latest timestamp is used,
// and a snapshot without any time says so.
func TestNowFromSnapshot(t *testing.T) {
	d := deployment("web", 1, "web:1")
	s := &snapshot.Snapshot{Deployments: []*appsv1.Deployment{d}}
	if r := Explain(s, Options{}); r.NowFrom != NowLatest || !r.Now.Equal(t0) {
		t.Errorf("now %v from %q", r.Now, r.NowFrom)
	}
	d.CreationTimestamp = metav1.Time{}
	r := Explain(s, Options{})
	if r.NowFrom != NowUnknown || !strings.HasPrefix(r.Text(), "now: unknown") {
		t.Errorf("now %v from %q:\n%s", r.Now, r.NowFrom, r.Text())
	}
}

// TestNoMutation: Explain leaves the snapshot as it was.
func TestNoMutation(t *testing.T) {
	s, err := snapshot.ReadFile(clusters+"/rolling.yaml", snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := s.Deployments[1].DeepCopy()
	rsBefore := s.ReplicaSets[1].DeepCopy()
	Explain(s, Options{})
	if !equalJSON(t, before, s.Deployments[1]) || !equalJSON(t, rsBefore, s.ReplicaSets[1]) {
		t.Error("snapshot modified")
	}
}

// TestExplainOnEveryCore: Explain, which explains the Deployments of a
// large snapshot on every core, gives what explaining them one by one in
// order gives (run with -race, it also finds any write the workers
// share).
func TestExplainOnEveryCore(t *testing.T) {
	s, err := snapshot.Parse(genDump(300, false), "gen.yaml", snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := Explain(s, Options{})
	want := &Report{Now: s.Latest().UTC(), NowFrom: NowLatest, Deployments: []Deployment{}, Notes: s.Notes}
	sx := newSelectorIndex(s)
	for _, ro := range s.Rollouts() {
		want.Deployments = append(want.Deployments, explainOne(sx, &ro, want.Now))
	}
	if len(want.Deployments) != 300 {
		t.Fatalf("%d Deployments, want 300", len(want.Deployments))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-one by one +Explain)\n%s", diff)
	}
}
