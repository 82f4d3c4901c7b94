package main

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"

	"github.com/deploymath/deploymath/revision"
	"github.com/deploymath/deploymath/rollout"
)

var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// rollingSync is one RollingUpdate sync composed from the building blocks
// the way rollout.Plan composes them (upstream's reconcileNewReplicaSet,
// then reconcileOldReplicaSets, returning after any scaling). It returns
// every ReplicaSet's size afterwards, in the order of all. all[newRS] is
// the new ReplicaSet.
func rollingSync(p rollout.Params, all []rollout.ReplicaSet, newRS int) ([]int32, error) {
	sizes := make([]int32, len(all))
	for i := range all {
		sizes[i] = all[i].Replicas
	}
	n := all[newRS]

	// The new ReplicaSet: down to replicas if above, else grown by the room
	// under replicas + maxSurge. A change ends the sync.
	switch {
	case n.Replicas > p.Replicas:
		sizes[newRS] = p.Replicas
		return sizes, nil
	case n.Replicas < p.Replicas:
		s, err := rollout.NewRSNewReplicas(&p, all, newRS)
		if err != nil {
			return nil, err
		}
		if s.Size != n.Replicas {
			sizes[newRS] = s.Size
			return sizes, nil
		}
	}

	// The old ReplicaSets that still have a size.
	var old []rollout.ReplicaSet
	var at []int // their positions in all
	for i := range all {
		if i != newRS && all[i].Replicas > 0 {
			old, at = append(old, all[i]), append(at, i)
		}
	}
	if len(old) == 0 {
		return sizes, nil
	}
	b, err := rollout.MaxScaledDown(&p, all, newRS)
	if err != nil {
		return nil, err
	}
	if b.MaxScaledDown() <= 0 {
		return sizes, nil
	}
	cleaned, cerr := rollout.CleanupUnhealthy(nil, old, b.MaxScaledDown())
	for _, st := range cleaned.Steps {
		old[st.Index].Replicas = st.To
		sizes[at[st.Index]] = st.To
	}
	if cerr != nil {
		return sizes, nil // upstream stops here, keeping the steps before
	}
	// The available pods counted are the active old ReplicaSets' and the
	// new one's (not of old ones already at 0): upstream's
	// reconcileOldReplicaSets passes only those on.
	down, _ := rollout.ScaleDownOld(nil, &p, old, &n)
	for _, st := range down.Steps {
		sizes[at[st.Index]] = st.To
	}
	return sizes, nil
}

// world is a Deployment and its ReplicaSets, all[newRS] the new one.
type world struct {
	d     *appsv1.Deployment
	rss   []*appsv1.ReplicaSet
	newRS int
}

// genWorld draws a RollingUpdate Deployment mid-rollout: random replicas,
// maxSurge and maxUnavailable; 1 to 5 owned ReplicaSets, one of them with
// the Deployment's template; statuses that may lag their specs (ready ≤
// pods, available ≤ ready); revisions set and annotations in sync so that
// Plan goes straight to the rollout.
func genWorld(t *rapid.T) world {
	replicas := rapid.Int32Range(0, 30).Draw(t, "replicas")
	surge := rapid.IntRange(0, 6).Draw(t, "maxSurge")
	unavailable := rapid.IntRange(0, 6).Draw(t, "maxUnavailable")
	if surge == 0 && unavailable == 0 {
		unavailable = 1 // both 0 is invalid
	}
	ms, mu := intstr.FromInt(surge), intstr.FromInt(unavailable)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "d-uid", Generation: 1, ResourceVersion: "10"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web:new"}}},
			},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &ms, MaxUnavailable: &mu}},
		},
	}
	d = rollout.Default(d)
	p, err := rollout.ParamsOf(d)
	if err != nil {
		t.Fatal(err)
	}
	maxSurge, _ := p.Limits()

	n := rapid.IntRange(1, 5).Draw(t, "replicaSets")
	w := world{d: d, newRS: rapid.IntRange(0, n-1).Draw(t, "new")}
	rev := int64(0)
	for i := range n {
		name, image := fmt.Sprintf("web-old%d", i), fmt.Sprintf("web:old%d", i)
		if i == w.newRS {
			name, image = "web-new", "web:new"
		} else {
			rev++
		}
		spec := rapid.Int32Range(0, 30).Draw(t, "spec")
		pods := rapid.Int32Range(0, spec+4).Draw(t, "pods") // may lag the spec either way
		ready := rapid.Int32Range(0, pods).Draw(t, "ready")
		available := rapid.Int32Range(0, ready).Draw(t, "available")
		tmpl := d.Spec.Template.DeepCopy()
		tmpl.Spec.Containers[0].Image = image
		tmpl.Labels["pod-template-hash"] = strconv.Itoa(i)
		w.rss = append(w.rss, &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{
				Name: name, Namespace: "default", UID: types.UID("uid-" + name), ResourceVersion: "5", Generation: 1,
				// Equal creation times happen; the name breaks the tie.
				CreationTimestamp: metav1.NewTime(t0.Add(time.Duration(rapid.IntRange(0, 4).Draw(t, "created")) * time.Minute)),
				Labels:            tmpl.Labels,
				Annotations: map[string]string{
					revision.DesiredReplicasAnnotation: strconv.Itoa(int(replicas)),
					revision.MaxReplicasAnnotation:     strconv.Itoa(int(replicas + maxSurge)),
				},
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))},
			},
			Spec: appsv1.ReplicaSetSpec{Replicas: &spec, Selector: &metav1.LabelSelector{MatchLabels: tmpl.Labels}, Template: *tmpl},
			Status: appsv1.ReplicaSetStatus{Replicas: pods, FullyLabeledReplicas: pods, ReadyReplicas: ready, AvailableReplicas: available,
				ObservedGeneration: 1, TerminatingReplicas: new(int32)},
		})
	}
	// Old ReplicaSets have revisions 1, 2, ...; the new one the highest,
	// which the Deployment records; a Progressing condition is there
	// already.
	for i, rs := range w.rss {
		r := int64(i + 1)
		switch {
		case i == w.newRS:
			r = rev + 1
		case i > w.newRS:
			r = int64(i)
		}
		rs.Annotations[revision.RevisionAnnotation] = strconv.FormatInt(r, 10)
	}
	d.Annotations = map[string]string{revision.RevisionAnnotation: strconv.FormatInt(rev+1, 10)}
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Conditions: []appsv1.DeploymentCondition{{
		Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: rollout.ReplicaSetUpdatedReason,
		LastUpdateTime: metav1.NewTime(t0), LastTransitionTime: metav1.NewTime(t0),
	}}}
	return w
}

// planSizes applies Plan's scalings to the ReplicaSets' sizes. Any write
// but a scale or the final status means the fixture is not what the test
// means.
func planSizes(t *rapid.T, w world) []int32 {
	res, err := rollout.Plan(rollout.Snapshot{Deployment: w.d, ReplicaSets: w.rss, Now: t0.Add(time.Minute)})
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	if res.Stop != "" {
		t.Fatalf("Plan stopped: %s\n%s", res.Stop, res.Explain())
	}
	sizes := make([]int32, len(w.rss))
	index := map[string]int{}
	for i, rs := range w.rss {
		sizes[i], index[rs.Name] = *rs.Spec.Replicas, i
	}
	for _, a := range res.Actions {
		switch a := a.(type) {
		case rollout.ScaleReplicaSet:
			sizes[index[a.ReplicaSet.Name]] = a.To
		case rollout.UpdateDeploymentStatus:
		default:
			t.Fatalf("unexpected action %s\n%s", a.Explain(), res.Explain())
		}
	}
	return sizes
}

// The blocks composed as a RollingUpdate sync give the same sizes as
// rollout.Plan for the equivalent Deployment.
func TestBlocksMatchPlan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := genWorld(t)
		p, err := rollout.ParamsOf(w.d)
		if err != nil {
			t.Fatal(err)
		}
		all := make([]rollout.ReplicaSet, len(w.rss))
		for i, rs := range w.rss {
			if all[i], err = rollout.ReplicaSetOf(rs); err != nil {
				t.Fatal(err)
			}
		}
		got, err := rollingSync(p, all, w.newRS)
		if err != nil {
			t.Fatal(err)
		}
		want := planSizes(t, w)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("sizes (-Plan +blocks):\n%s\nstate: %s", diff, describeAll(all, w.newRS))
		}
	})
}

// describeAll renders the ReplicaSets for a failure message.
func describeAll(all []rollout.ReplicaSet, newRS int) string {
	out := ""
	for i, rs := range all {
		mark := ""
		if i == newRS {
			mark = " (new)"
		}
		out += fmt.Sprintf("\n  %s%s created %v: spec %d, pods %d, ready %d, available %d", rs.Name, mark, rs.Created.Format("15:04"), rs.Replicas, rs.StatusReplicas, rs.ReadyReplicas, rs.AvailableReplicas)
	}
	return out
}

// ScaleDownOld counts the available pods of the old ReplicaSets it is
// given and of the new one, as Plan (and upstream) do: an old ReplicaSet
// already at 0 that still reports available pods is not among them, so it
// cannot make the scale-down go further. The state is one rapid found when
// the signature still took a separate list to count.
func TestScaleDownOldCountsActiveOldAndNew(t *testing.T) {
	one, zero := intstr.FromInt(1), intstr.FromInt(0)
	p := rollout.Params{Replicas: 2, Strategy: appsv1.RollingUpdateDeploymentStrategyType, MaxSurge: &zero, MaxUnavailable: &one} // minAvailable 1
	newRS := rollout.ReplicaSet{Name: "web-new", Created: t0}
	old := []rollout.ReplicaSet{{Name: "web-old3", Created: t0, Replicas: 1, StatusReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1}} // after CleanupUnhealthy 2 -> 1

	down, err := rollout.ScaleDownOld(nil, &p, old, &newRS)
	if err != nil || len(down.Steps) != 0 {
		t.Errorf("ScaleDownOld = %v, %v; want no step (available 1 = minAvailable 1)", down, err)
	}
}
