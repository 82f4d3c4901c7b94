package differential

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/deploymath/deploymath/hashing"
	"pgregory.net/rapid"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/apps"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
)

const (
	ns       = "ns"
	name     = "web"
	dUID     = types.UID("deployment-uid")
	otherUID = types.UID("someone-else")
)

// world is a generated cluster state, with every time an offset from the
// instant the case runs at (the controller reads the wall clock, so the
// state is placed around it; see build).
type world struct {
	d    func(base time.Time) *appsv1.Deployment
	rss  []func(base time.Time) *appsv1.ReplicaSet
	pods []*corev1.Pod
}

// build returns a server holding the world, placed at base.
func (w world) build(base time.Time) *server {
	s := newServer()
	d := w.d(base)
	d.ResourceVersion = s.nextRV()
	s.put("deployments", d, d)
	var rsNames []string
	for _, f := range w.rss {
		rs := f(base)
		rsNames = append(rsNames, rs.Name)
		if _, dup := s.objs[key("replicasets", rs.Namespace, rs.Name)]; dup {
			continue
		}
		rs.ResourceVersion = s.nextRV()
		s.put("replicasets", rs, rs)
	}
	for _, p := range w.pods {
		p := p.DeepCopy()
		for i := range p.OwnerReferences {
			// "owner:N" stands for the name of ReplicaSet N.
			if ref := &p.OwnerReferences[i]; strings.HasPrefix(ref.Name, "owner:") {
				n, _ := strconv.Atoi(ref.Name[len("owner:"):])
				ref.Name = rsNames[n]
			}
		}
		p.ResourceVersion = s.nextRV()
		s.put("pods", p, p)
	}
	return s
}

// templates is the pool of pod templates the Deployment and its
// ReplicaSets draw from, defaulted as the API server stores them.
var templates = func() []corev1.PodTemplateSpec {
	var out []corev1.PodTemplateSpec
	for i, img := range []string{"nginx:1.14.2", "nginx:1.16.1", "nginx:1.25", "busybox"} {
		d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: img}}},
		}}}
		if i == 3 {
			d.Spec.Template.Annotations = map[string]string{"note": "x"}
		}
		legacyscheme.Scheme.Default(d)
		out = append(out, d.Spec.Template)
	}
	return out
}()

func drawInt32(t *rapid.T, label string, small int) int32 {
	return rapid.OneOf(
		rapid.Int32Range(0, int32(small)),
		rapid.Int32Range(0, int32(small)),
		rapid.Int32Range(0, int32(small)),
		rapid.SampledFrom([]int32{1 << 30, 1<<30 + 1, math.MaxInt32 - 1, math.MaxInt32, 1 << 20}),
	).Draw(t, label)
}

func drawIntOrPercent(t *rapid.T, label string) intstr.IntOrString {
	if rapid.Bool().Draw(t, label+"IsPercent") {
		return intstr.FromString(rapid.SampledFrom([]string{"0%", "1%", "10%", "25%", "33%", "50%", "99%", "100%"}).Draw(t, label))
	}
	return intstr.FromInt32(rapid.OneOf(rapid.Int32Range(0, 3), rapid.SampledFrom([]int32{1 << 30, math.MaxInt32})).Draw(t, label))
}

func isZero(v intstr.IntOrString) bool {
	return v.Type == intstr.Int && v.IntVal == 0 || v.Type == intstr.String && v.StrVal == "0%"
}

func condition(t *rapid.T, label string, typ appsv1.DeploymentConditionType, reasons []string, deadline int32) func(time.Time) appsv1.DeploymentCondition {
	reason := rapid.SampledFrom(reasons).Draw(t, label+"Reason")
	status := rapid.SampledFrom([]corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown}).Draw(t, label+"Status")
	// The last update sits around the progress deadline's edge, or anywhere.
	var ago int64
	if rapid.Bool().Draw(t, label+"AtEdge") {
		ago = int64(deadline) + rapid.Int64Range(-2, 2).Draw(t, label+"Edge")
	} else {
		ago = rapid.Int64Range(0, 5000).Draw(t, label+"Ago")
	}
	transitionEarlier := rapid.Int64Range(0, 100).Draw(t, label+"Transition")
	msg := rapid.SampledFrom([]string{"", `ReplicaSet "web-x" is progressing.`, "Deployment has minimum availability."}).Draw(t, label+"Message")
	return func(base time.Time) appsv1.DeploymentCondition {
		upd := metav1.NewTime(base.Add(-time.Duration(ago) * time.Second))
		tr := metav1.NewTime(upd.Add(-time.Duration(transitionEarlier) * time.Second))
		return appsv1.DeploymentCondition{Type: typ, Status: status, Reason: reason, Message: msg, LastUpdateTime: upd, LastTransitionTime: tr}
	}
}

// genWorld draws a cluster state the API server could hold: a defaulted,
// valid Deployment, ReplicaSets (owned, orphaned, someone else's, matching
// its selector or not, with consistent statuses and any annotations) and
// pods of every phase.
func genWorld(t *rapid.T) world {
	var w world
	replicas := drawInt32(t, "replicas", 10)
	recreate := rapid.IntRange(0, 3).Draw(t, "recreate") == 0
	var strategy appsv1.DeploymentStrategy
	if recreate {
		strategy.Type = appsv1.RecreateDeploymentStrategyType
	} else {
		surge, unavail := drawIntOrPercent(t, "maxSurge"), drawIntOrPercent(t, "maxUnavailable")
		if isZero(surge) && isZero(unavail) {
			unavail = intstr.FromInt32(1)
		}
		strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
		strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavail}
	}
	paused := rapid.IntRange(0, 4).Draw(t, "paused") == 0
	minReady := rapid.Int32Range(0, 5).Draw(t, "minReadySeconds")
	deadline := rapid.SampledFrom([]int32{10, 60, 600, math.MaxInt32}).Draw(t, "progressDeadlineSeconds")
	limit := rapid.SampledFrom([]int32{0, 0, 1, 1, 2, 3, 5, 10, math.MaxInt32}).Draw(t, "revisionHistoryLimit")
	tmpl := rapid.IntRange(0, len(templates)-1).Draw(t, "template")
	generation := rapid.Int64Range(1, 4).Draw(t, "generation")
	observed := rapid.Int64Range(0, generation).Draw(t, "observedGeneration")
	var collision *int32
	if rapid.Bool().Draw(t, "hasCollisionCount") {
		c := rapid.Int32Range(0, 3).Draw(t, "collisionCount")
		collision = &c
	}
	ann := map[string]string{}
	if v := rapid.SampledFrom([]string{"", "1", "2", "3", "5", "x2"}).Draw(t, "revision"); v != "" {
		ann["deployment.kubernetes.io/revision"] = v
	}
	if rapid.Bool().Draw(t, "changeCause") {
		ann["kubernetes.io/change-cause"] = "kubectl set image"
	}
	if v := rapid.SampledFrom([]string{"", "", "", "0", "1", "2", "4"}).Draw(t, "rollbackTo"); v != "" {
		ann["deprecated.deployment.rollback.to"] = v
	}
	if len(ann) == 0 && rapid.Bool().Draw(t, "nilAnnotations") {
		ann = nil
	}
	st := appsv1.DeploymentStatus{
		ObservedGeneration: observed,
		Replicas:           rapid.Int32Range(0, 12).Draw(t, "statusReplicas"),
		CollisionCount:     collision,
	}
	st.UpdatedReplicas = rapid.Int32Range(0, st.Replicas).Draw(t, "statusUpdated")
	st.ReadyReplicas = rapid.Int32Range(0, st.Replicas).Draw(t, "statusReady")
	st.AvailableReplicas = rapid.Int32Range(0, st.ReadyReplicas).Draw(t, "statusAvailable")
	st.UnavailableReplicas = rapid.Int32Range(0, 5).Draw(t, "statusUnavailable")
	if rapid.Bool().Draw(t, "statusTerminating") {
		n := rapid.Int32Range(0, 3).Draw(t, "terminating")
		st.TerminatingReplicas = &n
	}
	var conds []func(time.Time) appsv1.DeploymentCondition
	if rapid.IntRange(0, 3).Draw(t, "hasProgressing") > 0 {
		conds = append(conds, condition(t, "progressing", appsv1.DeploymentProgressing, []string{
			"NewReplicaSetAvailable", "ReplicaSetUpdated", "NewReplicaSetCreated", "FoundNewReplicaSet",
			"ProgressDeadlineExceeded", "DeploymentPaused", "DeploymentResumed", "ReplicaSetCreateError"}, deadline))
	}
	if rapid.Bool().Draw(t, "hasAvailable") {
		conds = append(conds, condition(t, "available", appsv1.DeploymentAvailable, []string{"MinimumReplicasAvailable", "MinimumReplicasUnavailable"}, deadline))
	}
	if rapid.Bool().Draw(t, "availableFirst") && len(conds) == 2 {
		conds[0], conds[1] = conds[1], conds[0]
	}
	deleting := rapid.IntRange(0, 15).Draw(t, "deleting") == 0
	w.d = func(base time.Time) *appsv1.Deployment {
		d := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: dUID, Generation: generation, Annotations: ann,
				CreationTimestamp: metav1.NewTime(base.Add(-time.Hour))},
			Spec: appsv1.DeploymentSpec{
				Replicas:                &replicas,
				Selector:                &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
				Template:                *templates[tmpl].DeepCopy(),
				Strategy:                strategy,
				MinReadySeconds:         minReady,
				RevisionHistoryLimit:    &limit,
				Paused:                  paused,
				ProgressDeadlineSeconds: &deadline,
			},
			Status: *st.DeepCopy(),
		}
		for _, c := range conds {
			d.Status.Conditions = append(d.Status.Conditions, c(base))
		}
		if deleting {
			ts := metav1.NewTime(base.Add(-time.Minute))
			d.DeletionTimestamp = &ts
			d.Finalizers = []string{"foregroundDeletion"}
		}
		legacyscheme.Scheme.Default(d)
		mustValid(d)
		return d
	}

	n := rapid.IntRange(0, 5).Draw(t, "replicaSets")
	rsUIDs := make([]types.UID, n)
	for i := range n {
		rsUIDs[i] = types.UID(fmt.Sprintf("rs-%d", i))
		w.rss = append(w.rss, genReplicaSet(t, i, rsUIDs[i], tmpl, collision, replicas))
	}
	if recreate {
		for i := range rapid.IntRange(0, 4).Draw(t, "pods") {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%d", i), Namespace: ns,
				Labels: map[string]string{"app": rapid.SampledFrom([]string{name, name, "other"}).Draw(t, "podApp")}}}
			if n > 0 && rapid.IntRange(0, 4).Draw(t, "podOrphan") > 0 {
				owner := rapid.IntRange(0, n-1).Draw(t, "podOwner")
				// The owner's name is known once the world is built; a few
				// references are off in name or kind.
				p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", UID: rsUIDs[owner], Controller: ptr(true)}}
				switch rapid.IntRange(0, 9).Draw(t, "podRefOff") {
				case 0:
					p.OwnerReferences[0].Kind = "StatefulSet"
				case 1:
					p.OwnerReferences[0].Name = "renamed"
				default:
					p.OwnerReferences[0].Name = "owner:" + strconv.Itoa(owner)
				}
			}
			p.Status.Phase = rapid.SampledFrom([]corev1.PodPhase{"", corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed, corev1.PodUnknown}).Draw(t, "podPhase")
			w.pods = append(w.pods, p)
		}
	}
	return w
}

func ptr[T any](v T) *T { return &v }

func genReplicaSet(t *rapid.T, i int, uid types.UID, dTemplate int, dCollision *int32, dReplicas int32) func(time.Time) *appsv1.ReplicaSet {
	label := func(s string) string { return fmt.Sprintf("rs%d%s", i, s) }
	tmpl := rapid.IntRange(0, len(templates)-1).Draw(t, label("Template"))
	// Usually the hash of its own template; sometimes the name the
	// Deployment's new ReplicaSet would get (a collision), or another count.
	var cc *int32
	if rapid.Bool().Draw(t, label("HashCount")) {
		c := rapid.Int32Range(0, 2).Draw(t, label("HashCollisionCount"))
		cc = &c
	}
	hashFor := tmpl
	if rapid.IntRange(0, 5).Draw(t, label("Collides")) == 0 {
		hashFor, cc = dTemplate, dCollision
	}
	tpl := templates[tmpl]
	hash := hashing.PodTemplateHash(&tpl, cc)
	if hashFor != tmpl {
		t2 := templates[hashFor]
		hash = hashing.PodTemplateHash(&t2, cc)
	}
	app := name
	if rapid.IntRange(0, 6).Draw(t, label("OtherApp")) == 0 {
		app = "other"
	}
	owner := rapid.SampledFrom([]string{"deployment", "deployment", "deployment", "orphan", "other"}).Draw(t, label("Owner"))
	replicas := drawInt32(t, label("Replicas"), 6)
	var st appsv1.ReplicaSetStatus
	if rapid.IntRange(0, 9).Draw(t, label("HugeStatus")) == 0 {
		st.Replicas = replicas
	} else {
		st.Replicas = rapid.Int32Range(0, 8).Draw(t, label("StatusReplicas"))
	}
	st.ReadyReplicas = rapid.Int32Range(0, st.Replicas).Draw(t, label("Ready"))
	st.AvailableReplicas = rapid.Int32Range(0, st.ReadyReplicas).Draw(t, label("Available"))
	st.FullyLabeledReplicas = st.Replicas
	generation := rapid.Int64Range(1, 3).Draw(t, label("Generation"))
	st.ObservedGeneration = rapid.Int64Range(0, generation).Draw(t, label("ObservedGeneration"))
	if st.ObservedGeneration > 0 && rapid.Bool().Draw(t, label("HasTerminating")) {
		st.TerminatingReplicas = ptr(rapid.Int32Range(0, 2).Draw(t, label("Terminating")))
	}
	if rapid.IntRange(0, 10).Draw(t, label("Failure")) == 0 {
		st.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: "quota exceeded"}}
	}
	ann := map[string]string{}
	if v := rapid.SampledFrom([]string{"", "1", "2", "3", "4", "5", "x2", "0"}).Draw(t, label("Revision")); v != "" {
		ann["deployment.kubernetes.io/revision"] = v
	}
	if v := rapid.SampledFrom([]string{"", "same", "other", "garbage"}).Draw(t, label("Desired")); v != "" {
		ann["deployment.kubernetes.io/desired-replicas"] = annotationValue(v, dReplicas, t, label("DesiredValue"))
	}
	if v := rapid.SampledFrom([]string{"", "same", "other", "garbage"}).Draw(t, label("Max")); v != "" {
		ann["deployment.kubernetes.io/max-replicas"] = annotationValue(v, dReplicas, t, label("MaxValue"))
	}
	if rapid.IntRange(0, 4).Draw(t, label("History")) == 0 {
		ann["deployment.kubernetes.io/revision-history"] = "1,2"
	}
	if rapid.IntRange(0, 4).Draw(t, label("ChangeCause")) == 0 {
		ann["kubernetes.io/change-cause"] = "old cause"
	}
	created := rapid.IntRange(0, 5).Draw(t, label("CreatedMinutesAgo"))
	deleting := rapid.IntRange(0, 12).Draw(t, label("Deleting")) == 0
	minReady := rapid.Int32Range(0, 5).Draw(t, label("MinReadySeconds"))
	return func(base time.Time) *appsv1.ReplicaSet {
		template := *tpl.DeepCopy()
		template.Labels = map[string]string{"app": app, "pod-template-hash": hash}
		rs := &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{
				Name: name + "-" + hash, Namespace: ns, UID: uid, Generation: generation,
				Labels:            map[string]string{"app": app, "pod-template-hash": hash},
				Annotations:       ann,
				CreationTimestamp: metav1.NewTime(base.Add(-time.Duration(created) * time.Minute)),
			},
			Spec: appsv1.ReplicaSetSpec{
				Replicas:        &replicas,
				MinReadySeconds: minReady,
				Selector:        &metav1.LabelSelector{MatchLabels: map[string]string{"app": app, "pod-template-hash": hash}},
				Template:        template,
			},
			Status: st,
		}
		switch owner {
		case "deployment":
			rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: name, UID: dUID, Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}
		case "other":
			rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "other", UID: otherUID, Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}
		}
		if deleting {
			ts := metav1.NewTime(base.Add(-time.Minute))
			rs.DeletionTimestamp = &ts
			rs.Finalizers = []string{"foregroundDeletion"}
		}
		mustValidRS(rs)
		return rs
	}
}

func annotationValue(kind string, replicas int32, t *rapid.T, label string) string {
	switch kind {
	case "same":
		return strconv.Itoa(int(replicas))
	case "other":
		return strconv.Itoa(int(drawInt32(t, label, 12)))
	}
	return rapid.SampledFrom([]string{"abc", "-1", "", "99999999999"}).Draw(t, label)
}

// mustValid panics when the generator made an object the API server would
// not store: the test must only ask about states a cluster can be in.
func mustValid(d *appsv1.Deployment) {
	in := toInternal(d).(*apps.Deployment)
	if errs := deployment.Strategy.Validate(context.Background(), in); len(errs) > 0 {
		panic(fmt.Sprintf("generated an invalid deployment: %v", errs))
	}
}

func mustValidRS(rs *appsv1.ReplicaSet) {
	in := toInternal(rs).(*apps.ReplicaSet)
	if errs := replicaset.Strategy.Validate(context.Background(), in); len(errs) > 0 {
		panic(fmt.Sprintf("generated an invalid replica set: %v", errs))
	}
}
