package rollout_test

// Builders and assertions shared by the upstream-conformance tests
// (upstream_*_test.go). Each of those tests re-expresses a case of the
// upstream Deployment controller's test suite (kubernetes/kubernetes,
// pkg/controller/deployment) as a Snapshot whose Plan reaches the function
// the upstream case exercises, and checks the outcome upstream expects.

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/deploymath/deploymath/fencepost"
	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/rollout"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Annotation keys, spelled out here on purpose: they are part of the
// contract with upstream and must not follow a rename in our code.
const (
	annRevision        = "deployment.kubernetes.io/revision"
	annRevisionHistory = "deployment.kubernetes.io/revision-history"
	annDesired         = "deployment.kubernetes.io/desired-replicas"
	annMax             = "deployment.kubernetes.io/max-replicas"
	annRollbackTo      = "deprecated.deployment.rollback.to"
	hashLabel          = "pod-template-hash"
)

const upNS = "default"

// Instants used by the tables (the upstream sync_test timestamps).
var (
	upOlder = time.Date(2016, 5, 20, 0, 0, 0, 0, time.UTC)
	upOld   = time.Date(2016, 5, 20, 1, 0, 0, 0, time.UTC)
	upNew   = time.Date(2016, 5, 20, 2, 0, 0, 0, time.UTC)
	upNow   = time.Date(2016, 5, 20, 3, 0, 0, 0, time.UTC)
)

func i32(v int32) *int32 { return &v }

func intOrStr(v int) *intstr.IntOrString {
	x := intstr.FromInt32(int32(v))
	return &x
}

// upDeployment mirrors upstream's newDeployment helper: name "foo",
// selector and template labels foo=bar, image foo/bar, RollingUpdate with
// maxSurge 0 and maxUnavailable 0 (which resolves to maxUnavailable 1), then
// apps/v1 defaulting. It is observed (observedGeneration == generation).
//
// Upstream's fixtures use maxSurge 0 with maxUnavailable 0, which the API
// server rejects and Plan refuses (Validate); the controller resolves it to
// maxUnavailable 1, so that is what we write.
func upDeployment(replicas int32, maxSurge, maxUnavailable int) *appsv1.Deployment {
	if maxSurge == 0 && maxUnavailable == 0 {
		maxUnavailable = 1
	}
	labels := map[string]string{"foo": "bar"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name: "foo", Namespace: upNS, UID: "uid-foo", Generation: 1, ResourceVersion: "100",
			Annotations: map[string]string{},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"foo": "bar"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "foo", Image: "foo/bar"}}},
			},
			Strategy: appsv1.DeploymentStrategy{
				Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxSurge:       intOrStr(maxSurge),
					MaxUnavailable: intOrStr(maxUnavailable),
				},
			},
		},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1},
	}
	return rollout.Default(d)
}

// recreate turns d into a Recreate Deployment.
func recreate(d *appsv1.Deployment) *appsv1.Deployment {
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	return d
}

// withImage returns a copy of template t with another image.
func withImage(t corev1.PodTemplateSpec, image string) corev1.PodTemplateSpec {
	t = *t.DeepCopy()
	t.Spec.Containers[0].Image = image
	return t
}

// upRS builds a ReplicaSet controlled by d. image "" gives d's own template
// (the new ReplicaSet); any other image gives an old one. The pod-template-hash
// label is the name's suffix. The ReplicaSet is healthy (status replicas,
// ready and available = spec), observed, carries revision rev and the
// desired-/max-replicas annotations of d as it is now.
func upRS(d *appsv1.Deployment, name string, rev int, replicas int32, created time.Time, image string) *appsv1.ReplicaSet {
	tmpl := *d.Spec.Template.DeepCopy()
	if image != "" {
		tmpl = withImage(tmpl, image)
	}
	hash := name
	tmpl.Labels = hashing.LabelsWithHash(tmpl.Labels, hash)
	annotations := map[string]string{
		annDesired: strconv.Itoa(int(*d.Spec.Replicas)),
		annMax:     strconv.Itoa(int(*d.Spec.Replicas + fencepost.MaxSurge(d))),
	}
	if rev > 0 {
		annotations[annRevision] = strconv.Itoa(rev)
	}
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: upNS, UID: types.UID("uid-" + name), ResourceVersion: "10",
			Generation: 1, CreationTimestamp: metav1.NewTime(created),
			Labels:          tmpl.Labels,
			Annotations:     annotations,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: i32(replicas),
			Selector: hashing.SelectorWithHash(d.Spec.Selector, hash),
			Template: tmpl,
		},
		Status: appsv1.ReplicaSetStatus{
			Replicas: replicas, FullyLabeledReplicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas,
			ObservedGeneration: 1, TerminatingReplicas: i32(0),
		},
	}
}

// setStatus sets a ReplicaSet's status replicas and available (= ready) replicas.
func setStatus(rs *appsv1.ReplicaSet, replicas, available int32) *appsv1.ReplicaSet {
	rs.Status.Replicas = replicas
	rs.Status.FullyLabeledReplicas = replicas
	rs.Status.ReadyReplicas = available
	rs.Status.AvailableReplicas = available
	return rs
}

// setReplicaAnnotations records the size of the Deployment the ReplicaSet
// was last scaled for.
func setReplicaAnnotations(rs *appsv1.ReplicaSet, desired, max int32) *appsv1.ReplicaSet {
	rs.Annotations[annDesired] = strconv.Itoa(int(desired))
	rs.Annotations[annMax] = strconv.Itoa(int(max))
	return rs
}

// inSync makes d look like a Deployment its controller has synced before
// with newRev as the new ReplicaSet's revision: the revision annotation is
// copied and a Progressing condition exists, so that Plan has no reason to
// write the Deployment before the step under test.
func inSync(d *appsv1.Deployment, newRev int) *appsv1.Deployment {
	if newRev > 0 {
		d.Annotations[annRevision] = strconv.Itoa(newRev)
	}
	cond := appsv1.DeploymentCondition{
		Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated",
		Message: "ReplicaSet is progressing.", LastUpdateTime: metav1.NewTime(upNow), LastTransitionTime: metav1.NewTime(upOlder),
	}
	if d.Spec.Paused {
		cond.Status, cond.Reason, cond.Message = corev1.ConditionUnknown, "DeploymentPaused", "Deployment is paused"
	}
	d.Status.Conditions = []appsv1.DeploymentCondition{cond}
	return d
}

func snapshot(d *appsv1.Deployment, rss ...*appsv1.ReplicaSet) rollout.Snapshot {
	return rollout.Snapshot{Deployment: d, ReplicaSets: rss, Now: upNow}
}

// mustPlan plans s and fails the test on an error. It also checks that
// Plan left the snapshot untouched.
func mustPlan(t *testing.T, s rollout.Snapshot) *rollout.Result {
	t.Helper()
	before := deepCopySnapshot(s)
	res, err := rollout.Plan(s)
	if err != nil {
		t.Fatalf("Plan: unexpected error: %v", err)
	}
	if diff := cmp.Diff(before, s); diff != "" {
		t.Errorf("Plan mutated its input (-before +after):\n%s", diff)
	}
	return res
}

func deepCopySnapshot(s rollout.Snapshot) rollout.Snapshot {
	out := rollout.Snapshot{Deployment: s.Deployment.DeepCopy(), Now: s.Now}
	for _, rs := range s.ReplicaSets {
		out.ReplicaSets = append(out.ReplicaSets, rs.DeepCopy())
	}
	for _, p := range s.Pods {
		out.Pods = append(out.Pods, p.DeepCopy())
	}
	return out
}

// actionStrings renders each action in one short line:
//
//	create NAME (N)       update-rs NAME        scale NAME A->B
//	delete NAME           adopt NAME            release NAME
//	update-deployment     update-status
func actionStrings(r *rollout.Result) []string {
	var out []string
	for _, a := range r.Actions {
		out = append(out, actionString(a))
	}
	return out
}

func actionString(a rollout.Action) string {
	switch a := a.(type) {
	case rollout.CreateReplicaSet:
		return fmt.Sprintf("create %s (%d)", a.ReplicaSet.Name, *a.ReplicaSet.Spec.Replicas)
	case rollout.UpdateReplicaSet:
		return "update-rs " + a.ReplicaSet.Name
	case rollout.ScaleReplicaSet:
		return fmt.Sprintf("scale %s %d->%d", a.ReplicaSet.Name, a.From, a.To)
	case rollout.DeleteReplicaSet:
		return "delete " + a.Name
	case rollout.AdoptReplicaSet:
		return "adopt " + a.ReplicaSet.Name
	case rollout.ReleaseReplicaSet:
		return "release " + a.ReplicaSet.Name
	case rollout.UpdateDeployment:
		return "update-deployment"
	case rollout.UpdateDeploymentStatus:
		return "update-status"
	}
	return fmt.Sprintf("unknown %T", a)
}

// rsActions keeps the ReplicaSet writes only (no Deployment writes).
func rsActions(r *rollout.Result) []string {
	var out []string
	for _, a := range r.Actions {
		switch a.(type) {
		case rollout.UpdateDeployment, rollout.UpdateDeploymentStatus:
			continue
		}
		out = append(out, actionString(a))
	}
	return out
}

func eventStrings(r *rollout.Result) []string {
	var out []string
	for _, e := range r.Events {
		out = append(out, e.String())
	}
	return out
}

// sizesAfter is the spec.replicas of every ReplicaSet once the plan's
// writes are applied (later writes of the same ReplicaSet win).
func sizesAfter(s rollout.Snapshot, r *rollout.Result) map[string]int32 {
	sizes := map[string]int32{}
	for _, rs := range s.ReplicaSets {
		sizes[rs.Name] = *rs.Spec.Replicas
	}
	for _, a := range r.Actions {
		switch a := a.(type) {
		case rollout.ScaleReplicaSet:
			sizes[a.ReplicaSet.Name] = *a.ReplicaSet.Spec.Replicas
		case rollout.CreateReplicaSet:
			sizes[a.ReplicaSet.Name] = *a.ReplicaSet.Spec.Replicas
		case rollout.DeleteReplicaSet:
			delete(sizes, a.Name)
		}
	}
	return sizes
}

// condition returns the condition of type t in s, or nil.
func condition(s appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			return &s.Conditions[i]
		}
	}
	return nil
}

// wantCond describes an expected condition; zero times are not checked.
type wantCond struct {
	Status         corev1.ConditionStatus
	Reason         string
	Message        string
	LastUpdate     time.Time
	LastTransition time.Time
}

func checkCond(t *testing.T, s appsv1.DeploymentStatus, typ appsv1.DeploymentConditionType, want *wantCond) {
	t.Helper()
	got := condition(s, typ)
	switch {
	case want == nil && got == nil:
		return
	case want == nil:
		t.Errorf("condition %s: got %s/%s %q, want none", typ, got.Status, got.Reason, got.Message)
		return
	case got == nil:
		t.Errorf("condition %s: missing, want %s/%s %q", typ, want.Status, want.Reason, want.Message)
		return
	}
	if got.Status != want.Status || got.Reason != want.Reason {
		t.Errorf("condition %s: got %s/%s, want %s/%s", typ, got.Status, got.Reason, want.Status, want.Reason)
	}
	if want.Message != "" && got.Message != want.Message {
		t.Errorf("condition %s: message %q, want %q", typ, got.Message, want.Message)
	}
	if !want.LastUpdate.IsZero() && !got.LastUpdateTime.Time.Equal(want.LastUpdate) {
		t.Errorf("condition %s: lastUpdateTime %s, want %s", typ, got.LastUpdateTime.UTC(), want.LastUpdate)
	}
	if !want.LastTransition.IsZero() && !got.LastTransitionTime.Time.Equal(want.LastTransition) {
		t.Errorf("condition %s: lastTransitionTime %s, want %s", typ, got.LastTransitionTime.UTC(), want.LastTransition)
	}
}

func diffStrings(t *testing.T, what string, want, got []string) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

// ownedPod is a pod controlled by rs in the given phase.
func ownedPod(rs *appsv1.ReplicaSet, name string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: rs.Namespace, Labels: rs.Spec.Template.Labels,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))},
		},
		Status: corev1.PodStatus{Phase: phase},
	}
}

// cluster is a tiny in-test model of the API server plus a ReplicaSet
// controller, for the multi-step worked examples: apply writes a plan's
// actions (until the first conflict, which is where upstream's sync stops),
// and the test then decides how many pods of each ReplicaSet are available.
type cluster struct {
	d   *appsv1.Deployment
	rss []*appsv1.ReplicaSet
	now time.Time
	seq int
}

func (c *cluster) snapshot() rollout.Snapshot {
	return rollout.Snapshot{Deployment: c.d, ReplicaSets: c.rss, Now: c.now}
}

func (c *cluster) find(name string) *appsv1.ReplicaSet {
	for _, rs := range c.rss {
		if rs.Name == name {
			return rs
		}
	}
	return nil
}

// apply applies every action of r. Objects are replaced by copies; the
// status of ReplicaSets is kept (the ReplicaSet controller owns it: see run).
func (c *cluster) apply(t *testing.T, r *rollout.Result) {
	t.Helper()
	c.seq++
	for _, a := range r.Actions {
		switch a := a.(type) {
		case rollout.CreateReplicaSet:
			rs := a.ReplicaSet.DeepCopy()
			rs.UID = types.UID("uid-" + rs.Name)
			rs.CreationTimestamp = metav1.NewTime(c.now)
			rs.Generation = 1
			rs.Status = appsv1.ReplicaSetStatus{ObservedGeneration: 1, TerminatingReplicas: i32(0)}
			c.rss = append(c.rss, rs)
		case rollout.ScaleReplicaSet, rollout.UpdateReplicaSet, rollout.AdoptReplicaSet, rollout.ReleaseReplicaSet:
			var rs *appsv1.ReplicaSet
			switch a := a.(type) {
			case rollout.ScaleReplicaSet:
				rs = a.ReplicaSet
			case rollout.UpdateReplicaSet:
				rs = a.ReplicaSet
			case rollout.AdoptReplicaSet:
				rs = a.ReplicaSet
			case rollout.ReleaseReplicaSet:
				rs = a.ReplicaSet
			}
			for i, cur := range c.rss {
				if cur.Name != rs.Name {
					continue
				}
				next := rs.DeepCopy()
				next.UID, next.CreationTimestamp, next.Status = cur.UID, cur.CreationTimestamp, *cur.Status.DeepCopy()
				next.Generation = cur.Generation
				if *next.Spec.Replicas != *cur.Spec.Replicas {
					next.Generation++
				}
				c.rss[i] = next
			}
		case rollout.DeleteReplicaSet:
			var kept []*appsv1.ReplicaSet
			for _, rs := range c.rss {
				if rs.Name != a.Name {
					kept = append(kept, rs)
				}
			}
			c.rss = kept
		case rollout.UpdateDeployment:
			d := a.Deployment.DeepCopy()
			d.Status = *c.d.Status.DeepCopy()
			d.Generation = c.d.Generation + 1
			c.d = d
		case rollout.UpdateDeploymentStatus:
			d := c.d.DeepCopy()
			d.Annotations = a.Deployment.DeepCopy().Annotations
			d.Status = *a.Deployment.Status.DeepCopy()
			c.d = d
		}
	}
}

// run sets the status of ReplicaSet name: spec.replicas pods of which
// available are available; the controller has observed its generation.
func (c *cluster) run(name string, available int32) {
	for i, rs := range c.rss {
		if rs.Name == name {
			rs = rs.DeepCopy()
			setStatus(rs, *rs.Spec.Replicas, min(available, *rs.Spec.Replicas))
			rs.Status.ObservedGeneration = rs.Generation
			c.rss[i] = rs
		}
	}
}

// settle runs every ReplicaSet at full availability.
func (c *cluster) settle() {
	for _, rs := range c.rss {
		c.run(rs.Name, *rs.Spec.Replicas)
	}
}

// sizes renders "name=spec/available" for every ReplicaSet, oldest first.
func (c *cluster) sizes() string {
	s := ""
	for _, rs := range c.rss {
		if s != "" {
			s += " "
		}
		s += fmt.Sprintf("%s=%d/%d", rs.Name, *rs.Spec.Replicas, rs.Status.AvailableReplicas)
	}
	return s
}
