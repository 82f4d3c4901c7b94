package differential

// Each building block against upstream's function of the same meaning, in
// one run (BENCHMARKS.md reports the pairs). Where upstream has no
// function for the decision (it is inside a method that also writes), the
// upstream side is that method's arithmetic composed from upstream's own
// exported helpers, without the writes and without the logging: the least
// upstream pays for the same decision.
//
//	go test -run '^$' -bench BenchmarkBlocksVsUpstream -benchmem .

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/klog/v2"
	kcontroller "k8s.io/kubernetes/pkg/controller"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"
)

// benchWorld is n ReplicaSets of a 10·n-replica rollout in flight (the
// newest is the new one), as objects for upstream and as values for the
// blocks.
type benchWorld struct {
	d       *appsv1.Deployment
	rss     []*appsv1.ReplicaSet // oldest first, the new one last
	newRS   *appsv1.ReplicaSet
	old     []*appsv1.ReplicaSet
	p       rollout.Params
	vals    []rollout.ReplicaSet
	newVal  rollout.ReplicaSet
	oldVals []rollout.ReplicaSet
	status  appsv1.DeploymentStatus
	now     time.Time
}

func benchTemplate(image string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "frontend"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "web", Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
				Ports: []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				Env:   []corev1.EnvVar{{Name: "MODE", Value: "prod"}, {Name: "LOG", Value: "info"}},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")},
				},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8080), Scheme: corev1.URISchemeHTTP}},
					TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3},
				TerminationMessagePath: corev1.TerminationMessagePathDefault, TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			}},
			RestartPolicy: corev1.RestartPolicyAlways, DNSPolicy: corev1.DNSClusterFirst, SchedulerName: corev1.DefaultSchedulerName,
			SecurityContext: &corev1.PodSecurityContext{}, TerminationGracePeriodSeconds: ptr(int64(30)),
		},
	}
}

func newBenchWorld(n int) *benchWorld {
	w := &benchWorld{now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	replicas := int32(10 * n)
	surge, unavailable := intstr.FromString("25%"), intstr.FromString("25%")
	w.d = &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns, UID: dUID, Generation: 2},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: benchTemplate(fmt.Sprintf("web:v%d", n)),
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}},
			RevisionHistoryLimit:    ptr(int32(n / 2)),
			ProgressDeadlineSeconds: ptr(int32(600)),
		},
	}
	for i := range n {
		size := int32(10)
		rs := &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("web-%d", i), Namespace: ns, UID: types.UID(fmt.Sprintf("uid-%d", i)), Generation: 1,
				CreationTimestamp: metav1.NewTime(w.now.Add(time.Duration(i-n) * time.Hour)),
				Annotations: map[string]string{
					"deployment.kubernetes.io/revision":         strconv.Itoa(i + 1),
					"deployment.kubernetes.io/desired-replicas": strconv.Itoa(int(replicas)),
					"deployment.kubernetes.io/max-replicas":     strconv.Itoa(int(replicas) + int(replicas+3)/4),
				},
			},
			Spec: appsv1.ReplicaSetSpec{Replicas: &size, Template: benchTemplate(fmt.Sprintf("web:v%d", i+1))},
			Status: appsv1.ReplicaSetStatus{Replicas: 10, ReadyReplicas: 9, AvailableReplicas: 8, ObservedGeneration: 1,
				TerminatingReplicas: ptr(int32(0))},
		}
		w.rss = append(w.rss, rs)
		v, err := rollout.ReplicaSetOf(rs)
		if err != nil {
			panic(err)
		}
		w.vals = append(w.vals, v)
	}
	w.newRS, w.old = w.rss[n-1], w.rss[:n-1]
	w.newVal, w.oldVals = w.vals[n-1], w.vals[:n-1]
	p, err := rollout.ParamsOf(w.d)
	if err != nil {
		panic(err)
	}
	w.p = p
	w.status = appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 10 * int32(n), UpdatedReplicas: 10, ReadyReplicas: 9 * int32(n), AvailableReplicas: 8 * int32(n),
		Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: rollout.ReplicaSetUpdatedReason,
			LastUpdateTime: metav1.NewTime(w.now.Add(-3 * time.Minute)), LastTransitionTime: metav1.NewTime(w.now.Add(-time.Hour))}}}
	w.d.Status = w.status
	return w
}

var (
	sinkI32  int32
	sinkBool bool
	sinkRS   *appsv1.ReplicaSet
	sinkDur  time.Duration
)

// quietCtx carries a logger that discards, so upstream's helpers that log
// at V(4) pay only the check.
var quietCtx = klog.NewContext(context.Background(), logr.Discard())

// upstreamCounts is calculateStatus's counting, from upstream's helpers.
func upstreamCounts(all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) appsv1.DeploymentStatus {
	available := deploymentutil.GetAvailableReplicaCountForReplicaSets(all)
	unavailable := deploymentutil.GetReplicaCountForReplicaSets(all) - available
	if unavailable < 0 {
		unavailable = 0
	}
	return appsv1.DeploymentStatus{
		Replicas:            deploymentutil.GetActualReplicaCountForReplicaSets(all),
		UpdatedReplicas:     deploymentutil.GetActualReplicaCountForReplicaSets([]*appsv1.ReplicaSet{newRS}),
		ReadyReplicas:       deploymentutil.GetReadyReplicaCountForReplicaSets(all),
		AvailableReplicas:   available,
		UnavailableReplicas: unavailable,
		TerminatingReplicas: deploymentutil.GetTerminatingReplicaCountForReplicaSets(all),
	}
}

// upstreamProportions is the arithmetic of upstream's scale for a
// RollingUpdate scaling event (the part after FindActiveOrLatest and
// IsSaturated), without the writes.
func upstreamProportions(d *appsv1.Deployment, newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) map[string]int32 {
	all := kcontroller.FilterActiveReplicaSets(append(oldRSs, newRS))
	current := deploymentutil.GetReplicaCountForReplicaSets(all)
	allowed := int32(0)
	if *d.Spec.Replicas > 0 {
		allowed = *d.Spec.Replicas + deploymentutil.MaxSurge(*d)
	}
	toAdd := allowed - current
	switch {
	case toAdd > 0:
		sort.Sort(kcontroller.ReplicaSetsBySizeNewer(all))
	case toAdd < 0:
		sort.Sort(kcontroller.ReplicaSetsBySizeOlder(all))
	}
	added := int32(0)
	sizes := make(map[string]int32)
	logger := klog.FromContext(quietCtx)
	for _, rs := range all {
		if toAdd != 0 {
			prop := deploymentutil.GetReplicaSetProportion(logger, rs, *d, toAdd, added)
			sizes[rs.Name] = *rs.Spec.Replicas + prop
			added += prop
		} else {
			sizes[rs.Name] = *rs.Spec.Replicas
		}
	}
	if len(all) > 0 && toAdd != 0 {
		first := all[0].Name
		sizes[first] = max(sizes[first]+toAdd-added, 0)
	}
	return sizes
}

// upstreamMaxScaledDown is reconcileOldReplicaSets' budget.
func upstreamMaxScaledDown(d *appsv1.Deployment, all, activeOld []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) int32 {
	if deploymentutil.GetReplicaCountForReplicaSets(activeOld) == 0 {
		return 0
	}
	minAvailable := *d.Spec.Replicas - deploymentutil.MaxUnavailable(*d)
	return deploymentutil.GetReplicaCountForReplicaSets(all) - minAvailable - (*newRS.Spec.Replicas - newRS.Status.AvailableReplicas)
}

// upstreamCleanup is cleanupUnhealthyReplicas' decisions (new sizes into
// to), without the writes.
func upstreamCleanup(oldRSs []*appsv1.ReplicaSet, maxCleanup int32, to []int32) int32 {
	sort.Sort(kcontroller.ReplicaSetsByCreationTimestamp(oldRSs))
	total := int32(0)
	for i, rs := range oldRSs {
		if total >= maxCleanup {
			break
		}
		if *rs.Spec.Replicas == 0 || *rs.Spec.Replicas == rs.Status.AvailableReplicas {
			continue
		}
		n := min(maxCleanup-total, *rs.Spec.Replicas-rs.Status.AvailableReplicas)
		to[i] = *rs.Spec.Replicas - n
		total += n
	}
	return total
}

// upstreamScaleDown is scaleDownOldReplicaSetsForRollingUpdate's decisions.
func upstreamScaleDown(d *appsv1.Deployment, all, oldRSs []*appsv1.ReplicaSet, to []int32) int32 {
	minAvailable := *d.Spec.Replicas - deploymentutil.MaxUnavailable(*d)
	available := deploymentutil.GetAvailableReplicaCountForReplicaSets(all)
	if available <= minAvailable {
		return 0
	}
	sort.Sort(kcontroller.ReplicaSetsByCreationTimestamp(oldRSs))
	total, limit := int32(0), available-minAvailable
	for i, rs := range oldRSs {
		if total >= limit {
			break
		}
		if *rs.Spec.Replicas == 0 {
			continue
		}
		n := min(*rs.Spec.Replicas, limit-total)
		to[i] = *rs.Spec.Replicas - n
		total += n
	}
	return total
}

// upstreamHistory is cleanupDeployment's choice of ReplicaSets to delete.
func upstreamHistory(d *appsv1.Deployment, oldRSs []*appsv1.ReplicaSet, del []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	if !deploymentutil.HasRevisionHistoryLimit(d) {
		return del
	}
	alive := kcontroller.FilterReplicaSets(oldRSs, func(rs *appsv1.ReplicaSet) bool { return rs != nil && rs.DeletionTimestamp == nil })
	diff := int32(len(alive)) - *d.Spec.RevisionHistoryLimit
	if diff <= 0 {
		return del
	}
	sort.Sort(deploymentutil.ReplicaSetsByRevision(alive))
	for _, rs := range alive[:diff] {
		if rs.Status.Replicas != 0 || *rs.Spec.Replicas != 0 || rs.Generation > rs.Status.ObservedGeneration || rs.DeletionTimestamp != nil {
			continue
		}
		del = append(del, rs)
	}
	return del
}

// upstreamRequeue is requeueStuckDeployment's delay.
func upstreamRequeue(d *appsv1.Deployment, s *appsv1.DeploymentStatus, now time.Time) time.Duration {
	cond := deploymentutil.GetDeploymentCondition(d.Status, appsv1.DeploymentProgressing)
	if !deploymentutil.HasProgressDeadline(d) || cond == nil {
		return -1
	}
	if deploymentutil.DeploymentComplete(d, s) || cond.Reason == deploymentutil.TimedOutReason {
		return -1
	}
	after := cond.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second).Sub(now)
	if after < time.Second {
		return 0
	}
	return after + time.Second
}

// blockPair is one block and upstream's function of the same meaning,
// each a closure over one benchWorld.
type blockPair struct {
	name           string
	ours, upstream func()
}

func BenchmarkBlocksVsUpstream(b *testing.B) {
	for _, n := range []int{1, 5, 10} {
		for _, p := range blockPairs(newBenchWorld(n), n) {
			for _, side := range []struct {
				name string
				f    func()
			}{{"ours", p.ours}, {"upstream", p.upstream}} {
				b.Run(fmt.Sprintf("%s/rs=%d/%s", p.name, n, side.name), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						side.f()
					}
				})
			}
		}
	}
}

// blockPairs are the pairs BenchmarkBlocksVsUpstream runs on w, a world of
// n ReplicaSets.
func blockPairs(w *benchWorld, n int) []blockPair {
	var pairs []blockPair
	pair := func(block string, ours, upstream func()) {
		pairs = append(pairs, blockPair{block, ours, upstream})
	}
	ru := w.d.Spec.Strategy.RollingUpdate
	pair("Limits", func() { s, u := w.p.Limits(); sinkI32 = s + u }, func() {
		s, u, _ := deploymentutil.ResolveFenceposts(ru.MaxSurge, ru.MaxUnavailable, *w.d.Spec.Replicas)
		sinkI32 = s + u
	})
	pair("MinAvailable", func() { sinkI32 = w.p.MinAvailable() }, func() { sinkI32 = deploymentutil.MinAvailable(w.d) })
	pair("NewRSNewReplicas", func() {
		s, _ := rollout.NewRSNewReplicas(&w.p, w.vals, n-1)
		sinkI32 = s.Size
	}, func() { sinkI32, _ = deploymentutil.NewRSNewReplicas(w.d, w.rss, w.newRS) })
	pair("FindNewReplicaSet", func() { sinkRS = rollout.FindNewReplicaSet(w.d, w.rss) }, func() { sinkRS = deploymentutil.FindNewReplicaSet(w.d, w.rss) })
	pair("FindOldReplicaSets", func() {
		a, _ := rollout.FindOldReplicaSets(w.d, w.rss)
		sinkI32 = int32(len(a))
	}, func() {
		a, _ := deploymentutil.FindOldReplicaSets(w.d, w.rss)
		sinkI32 = int32(len(a))
	})
	oldCopy := make([]*appsv1.ReplicaSet, len(w.old))
	pair("ActiveOrLatest", func() { sinkI32 = int32(rollout.ActiveOrLatest(w.vals, n-1)) }, func() {
		copy(oldCopy, w.old)
		sinkRS = deploymentutil.FindActiveOrLatest(w.newRS, oldCopy[:len(oldCopy):len(oldCopy)])
	})
	pair("IsSaturated", func() { sinkBool = rollout.IsSaturated(&w.p, &w.newVal) }, func() { sinkBool = deploymentutil.IsSaturated(w.d, w.newRS) })
	up := w.p
	up.Replicas *= 2
	dUp := w.d.DeepCopy()
	*dUp.Spec.Replicas *= 2
	shares := rollout.ProportionOptions{Shares: make([]rollout.Share, 0, n)}
	pair("Proportions", func() {
		props, _ := rollout.Proportions(&up, w.status.Replicas, w.vals, shares)
		sinkI32 = int32(props.Added)
	}, func() {
		copy(oldCopy, w.old)
		sinkI32 = int32(len(upstreamProportions(dUp, w.newRS, oldCopy[:len(oldCopy):len(oldCopy)])))
	})
	pair("Counts", func() {
		c, _ := rollout.Counts(w.vals, n-1)
		sinkI32 = c.AvailableReplicas
	}, func() { sinkI32 = upstreamCounts(w.rss, w.newRS).AvailableReplicas })
	pair("Complete", func() { sinkBool = rollout.Complete(&w.p, w.d.Generation, &w.status) }, func() { sinkBool = deploymentutil.DeploymentComplete(w.d, &w.status) })
	pair("Progressing", func() { sinkBool = rollout.Progressing(&w.d.Status, &w.status) }, func() { sinkBool = deploymentutil.DeploymentProgressing(w.d, &w.status) })
	pair("TimedOut", func() { sinkBool = rollout.TimedOut(&w.p, &w.status, w.now) }, func() { sinkBool = deploymentutil.DeploymentTimedOut(quietCtx, w.d, &w.status) })
	cond := &w.d.Status.Conditions[0]
	pair("RequeueAfter", func() { sinkDur = rollout.RequeueAfter(&w.p, false, cond, w.now).After }, func() { sinkDur = upstreamRequeue(w.d, &w.status, w.now) })
	pair("MaxScaledDown", func() {
		bu, _ := rollout.MaxScaledDown(&w.p, w.vals, n-1)
		sinkI32 = bu.MaxScaledDown()
	}, func() {
		// The active old ReplicaSets as upstream's rolloutRolling passes
		// them to reconcileOldReplicaSets.
		copy(oldCopy, w.old)
		sinkI32 = upstreamMaxScaledDown(w.d, w.rss, kcontroller.FilterActiveReplicaSets(oldCopy), w.newRS)
	})
	to := make([]int32, n)
	// Each side writes its steps into memory of its own kept across
	// calls, as a controller would: our Steps, upstream's sizes.
	var steps []rollout.Step
	pair("CleanupUnhealthy", func() {
		s, _ := rollout.CleanupUnhealthy(steps, w.oldVals, 5)
		steps = s.Steps
		sinkI32 = s.Total
	}, func() {
		copy(oldCopy, w.old)
		sinkI32 = upstreamCleanup(oldCopy, 5, to)
	})
	pair("ScaleDownOld", func() {
		s, _ := rollout.ScaleDownOld(steps, &w.p, w.oldVals, &w.newVal)
		steps = s.Steps
		sinkI32 = s.Total
	}, func() {
		copy(oldCopy, w.old)
		sinkI32 = upstreamScaleDown(w.d, w.rss, oldCopy, to)
	})
	del := make([]*appsv1.ReplicaSet, 0, n)
	pair("HistoryToDelete", func() {
		h, _ := rollout.HistoryToDelete(&w.p, w.oldVals)
		sinkI32 = h.Excess()
	}, func() {
		copy(oldCopy, w.old)
		sinkI32 = int32(len(upstreamHistory(w.d, oldCopy, del[:0])))
	})
	var r rollout.Rolling
	pair("RollingStep", func() {
		_ = rollout.RollingStep(&r, &w.p, w.vals, n-1)
		sinkI32 = r.ScaleDown.Total
	}, func() {
		size, _ := deploymentutil.NewRSNewReplicas(w.d, w.rss, w.newRS)
		if size != *w.newRS.Spec.Replicas {
			sinkI32 = size
			return
		}
		copy(oldCopy, w.old)
		active := kcontroller.FilterActiveReplicaSets(oldCopy)
		budget := upstreamMaxScaledDown(w.d, w.rss, active, w.newRS)
		if budget <= 0 {
			return
		}
		c := upstreamCleanup(active, budget, to)
		sinkI32 = c + upstreamScaleDown(w.d, w.rss, active, to)
	})
	return pairs
}

// BenchmarkReplicaSetOf is what reading an apps/v1 ReplicaSet into the
// blocks' value costs (no upstream counterpart: upstream reads the object's
// fields where it needs them).
func BenchmarkReplicaSetOf(b *testing.B) {
	w := newBenchWorld(1)
	b.ReportAllocs()
	for b.Loop() {
		v, _ := rollout.ReplicaSetOf(w.newRS)
		sinkI32 = v.Replicas
	}
}
