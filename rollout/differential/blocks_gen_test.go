package differential

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/deploymath/deploymath/hashing"
	"pgregory.net/rapid"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// The building blocks' generator: one Deployment, valid and defaulted as
// the API server stores it, and its ReplicaSets (1 to 5, all owned by it
// and matching its selector, so that a sync claims them all), with
//
//   - replicas, maxSurge, maxUnavailable and ReplicaSet sizes near
//     MaxInt32 as well as small (replicas + maxSurge may exceed it: the API
//     server accepts that);
//   - desired- and max-replicas annotations spelled as users and old
//     tools write them ("+3", "007", "-0", 2³² + n, signs, spaces,
//     garbage), or in sync, or stale;
//   - revision annotations in order, equal, missing or unparsable;
//   - creation times equal or apart (names break the ties);
//   - statuses consistent (available ≤ ready ≤ replicas), terminating
//     counts reported or not, generations observed or not, and some
//     ReplicaSets being deleted.
//
// blockWorld keeps the objects' times relative to a base instant, as the
// real controller reads the wall clock (see world).
type blockWorld struct {
	replicas  int32
	strategy  appsv1.DeploymentStrategy
	limit     *int32
	deadline  *int32
	minReady  int32
	dTemplate int
	status    appsv1.DeploymentStatus
	cond      func(time.Time) *appsv1.DeploymentCondition
	ann       map[string]string
	gen       int64
	rss       []blockRS
}

type blockRS struct {
	template          int
	replicas          int32
	status            appsv1.ReplicaSetStatus
	ann               map[string]string
	createdSecondsAgo int64
	generation        int64
	deleting          bool
}

// annotationSpelling draws a value for a desired- or max-replicas
// annotation meant to be n.
func annotationSpelling(t *rapid.T, label string, n int32) string {
	switch rapid.IntRange(0, 12).Draw(t, label) {
	case 0, 1, 2, 3:
		return strconv.Itoa(int(n)) // in sync
	case 4:
		return strconv.Itoa(int(drawInt32(t, label+" other", 12))) // stale
	case 5:
		return "+" + strconv.Itoa(int(n))
	case 6:
		return "00" + strconv.Itoa(int(n))
	case 7:
		return strconv.FormatInt(int64(n)+1<<32, 10) // wraps to n in int32
	case 8:
		return strconv.FormatInt(int64(n)-1<<32, 10)
	case 9:
		if n == 0 {
			return "-0"
		}
		return "-" + strconv.Itoa(int(n))
	case 10:
		return rapid.SampledFrom([]string{" " + strconv.Itoa(int(n)), strconv.Itoa(int(n)) + " ", "0x" + strconv.FormatInt(int64(n), 16), "1e1", "abc", "", "3.0"}).Draw(t, label+" odd")
	case 11:
		return rapid.SampledFrom([]string{"2147483647", "2147483648", "4294967295", "4294967296", "9223372036854775807", "9223372036854775808", "-2147483648"}).Draw(t, label+" edge")
	}
	return "" // present but empty
}

// genBlockWorld draws a world for the blocks.
func genBlockWorld(t *rapid.T) *blockWorld {
	w := &blockWorld{}
	w.replicas = drawInt32(t, "replicas", 12)
	if rapid.IntRange(0, 4).Draw(t, "recreate") == 0 {
		w.strategy.Type = appsv1.RecreateDeploymentStrategyType
	} else {
		surge, unavail := drawIntOrPercent(t, "maxSurge"), drawIntOrPercent(t, "maxUnavailable")
		if isZero(surge) && isZero(unavail) {
			unavail = intstr.FromInt32(1)
		}
		w.strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
		w.strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavail}
	}
	w.limit = ptr(rapid.SampledFrom([]int32{0, 1, 2, 3, 10, math.MaxInt32}).Draw(t, "revisionHistoryLimit"))
	w.deadline = ptr(rapid.SampledFrom([]int32{10, 60, 600, math.MaxInt32}).Draw(t, "progressDeadlineSeconds"))
	w.minReady = rapid.Int32Range(0, 5).Draw(t, "minReadySeconds")
	w.dTemplate = rapid.IntRange(0, len(templates)-1).Draw(t, "template")
	w.gen = rapid.Int64Range(1, 3).Draw(t, "generation")
	w.status = appsv1.DeploymentStatus{ObservedGeneration: rapid.Int64Range(0, w.gen).Draw(t, "observed"), Replicas: drawInt32(t, "statusReplicas", 12)}
	w.status.UpdatedReplicas = rapid.Int32Range(0, w.status.Replicas).Draw(t, "statusUpdated")
	w.status.ReadyReplicas = rapid.Int32Range(0, w.status.Replicas).Draw(t, "statusReady")
	w.status.AvailableReplicas = rapid.Int32Range(0, w.status.ReadyReplicas).Draw(t, "statusAvailable")
	if rapid.Bool().Draw(t, "hasProgressing") {
		c := condition(t, "progressing", appsv1.DeploymentProgressing, []string{
			"NewReplicaSetAvailable", "ReplicaSetUpdated", "NewReplicaSetCreated", "FoundNewReplicaSet", "ProgressDeadlineExceeded"}, *w.deadline)
		w.cond = func(base time.Time) *appsv1.DeploymentCondition { v := c(base); return &v }
	}
	n := rapid.IntRange(1, 5).Draw(t, "replicaSets")
	revs := rapid.Permutation([]int{1, 2, 3, 4, 5}).Draw(t, "revisions")
	maxRev := 0
	for i := range n {
		l := func(s string) string { return fmt.Sprintf("rs%d %s", i, s) }
		rs := blockRS{template: rapid.IntRange(0, len(templates)-1).Draw(t, l("template")), ann: map[string]string{}}
		rs.replicas = drawInt32(t, l("replicas"), 8)
		rs.status.Replicas = rapid.OneOf(rapid.Just(rs.replicas), rapid.Int32Range(0, 8)).Draw(t, l("statusReplicas"))
		rs.status.ReadyReplicas = rapid.Int32Range(0, rs.status.Replicas).Draw(t, l("ready"))
		rs.status.AvailableReplicas = rapid.Int32Range(0, rs.status.ReadyReplicas).Draw(t, l("available"))
		rs.status.FullyLabeledReplicas = rs.status.Replicas
		rs.generation = rapid.Int64Range(1, 3).Draw(t, l("generation"))
		rs.status.ObservedGeneration = rapid.Int64Range(0, rs.generation).Draw(t, l("observed"))
		if rapid.Bool().Draw(t, l("terminatingReported")) {
			rs.status.TerminatingReplicas = ptr(rapid.Int32Range(0, 3).Draw(t, l("terminating")))
		}
		switch rapid.IntRange(0, 6).Draw(t, l("revisionKind")) {
		case 0:
		case 1:
			rs.ann["deployment.kubernetes.io/revision"] = "x" // unparsable
		default:
			rs.ann["deployment.kubernetes.io/revision"] = strconv.Itoa(revs[i])
			maxRev = max(maxRev, revs[i])
		}
		if rapid.IntRange(0, 5).Draw(t, l("desiredMissing")) > 0 {
			rs.ann["deployment.kubernetes.io/desired-replicas"] = annotationSpelling(t, l("desired"), w.replicas)
		}
		if rapid.IntRange(0, 5).Draw(t, l("maxMissing")) > 0 {
			surge := int64(0)
			if ru := w.strategy.RollingUpdate; ru != nil && ru.MaxSurge.Type == intstr.Int {
				surge = int64(ru.MaxSurge.IntVal)
			}
			rs.ann["deployment.kubernetes.io/max-replicas"] = annotationSpelling(t, l("max"), int32(int64(w.replicas)+surge))
		}
		rs.createdSecondsAgo = rapid.SampledFrom([]int64{0, 60, 60, 120, 3600}).Draw(t, l("created"))
		rs.deleting = rapid.IntRange(0, 15).Draw(t, l("deleting")) == 0
		w.rss = append(w.rss, rs)
	}
	w.ann = map[string]string{}
	if maxRev > 0 && rapid.Bool().Draw(t, "dRevisionInSync") {
		w.ann["deployment.kubernetes.io/revision"] = strconv.Itoa(maxRev)
	}
	return w
}

// deployment builds the Deployment at base.
func (w *blockWorld) deployment(base time.Time) *appsv1.Deployment {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: dUID, Generation: w.gen, Annotations: copyMap(w.ann),
			CreationTimestamp: metav1.NewTime(base.Add(-2 * time.Hour))},
		Spec: appsv1.DeploymentSpec{
			Replicas:                ptr(w.replicas),
			Selector:                &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template:                *templates[w.dTemplate].DeepCopy(),
			Strategy:                *w.strategy.DeepCopy(),
			MinReadySeconds:         w.minReady,
			RevisionHistoryLimit:    ptr(*w.limit),
			ProgressDeadlineSeconds: ptr(*w.deadline),
		},
		Status: *w.status.DeepCopy(),
	}
	if w.cond != nil {
		d.Status.Conditions = []appsv1.DeploymentCondition{*w.cond(base)}
	}
	legacyscheme.Scheme.Default(d)
	mustValid(d)
	return d
}

// replicaSets builds the ReplicaSets at base. Each is named after its
// template's hash and its position, so names are unique even when two
// share a template.
func (w *blockWorld) replicaSets(base time.Time) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for i, b := range w.rss {
		tpl := templates[b.template].DeepCopy()
		hash := hashing.PodTemplateHash(tpl, nil)
		tpl.Labels = map[string]string{"app": name, "pod-template-hash": hash}
		rs := &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("%s-%s%d", name, hash, i), Namespace: ns, UID: types.UID(fmt.Sprintf("rs-%d", i)), Generation: b.generation,
				Labels:            map[string]string{"app": name, "pod-template-hash": hash},
				Annotations:       copyMap(b.ann),
				CreationTimestamp: metav1.NewTime(base.Add(-time.Duration(b.createdSecondsAgo) * time.Second)),
				OwnerReferences:   []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: name, UID: dUID, Controller: ptr(true), BlockOwnerDeletion: ptr(true)}},
			},
			Spec: appsv1.ReplicaSetSpec{
				Replicas:        ptr(b.replicas),
				MinReadySeconds: w.minReady,
				Selector:        &metav1.LabelSelector{MatchLabels: map[string]string{"app": name, "pod-template-hash": hash}},
				Template:        *tpl,
			},
			Status: *b.status.DeepCopy(),
		}
		if b.deleting {
			ts := metav1.NewTime(base.Add(-time.Minute))
			rs.DeletionTimestamp = &ts
			rs.Finalizers = []string{"foregroundDeletion"}
		}
		mustValidRS(rs)
		out = append(out, rs)
	}
	return out
}

// newIndex is the position of the new ReplicaSet (the oldest with the
// Deployment's template; names break ties), or -1.
func (w *blockWorld) newIndex() int {
	base := time.Unix(1e9, 0)
	best := -1
	rss := w.replicaSets(base)
	for i := range w.rss {
		if w.rss[i].template != w.dTemplate {
			continue
		}
		if best < 0 || rss[i].CreationTimestamp.Before(&rss[best].CreationTimestamp) ||
			rss[i].CreationTimestamp.Equal(&rss[best].CreationTimestamp) && rss[i].Name < rss[best].Name {
			best = i
		}
	}
	return best
}

// world is the blockWorld for the sync harness (world.build).
func (w *blockWorld) world() world {
	out := world{d: w.deployment}
	for i := range w.rss {
		out.rss = append(out.rss, func(base time.Time) *appsv1.ReplicaSet { return w.replicaSets(base)[i] })
	}
	return out
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
