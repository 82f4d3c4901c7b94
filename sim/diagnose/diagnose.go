package diagnose

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deploymath/deploymath/revision"
	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim/snapshot"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Options select the diagnosis.
type Options struct {
	// Now is the instant of the diagnosis; zero means the latest
	// timestamp in the snapshot (see the package documentation).
	Now time.Time
}

// NowFrom values of [Report].
const (
	NowGiven    = "given"
	NowLatest   = "latest timestamp in the snapshot"
	NowUnknown  = "unknown: the snapshot records no time"
	maxExamples = 3
)

// Report is the diagnosis of every Deployment of a snapshot.
type Report struct {
	// Now is the instant of the diagnosis (RFC 3339 in JSON).
	Now time.Time `json:"now"`
	// NowFrom says where Now comes from: "given", "latest timestamp in the
	// snapshot", or "unknown: the snapshot records no time".
	NowFrom string `json:"nowFrom"`
	// Deployments, by namespace and name.
	Deployments []Deployment `json:"deployments"`
	// Ignored counts the objects of kinds the diagnosis does not use, by
	// kind ([snapshot.Snapshot].Ignored).
	Ignored map[string]int `json:"ignored,omitempty"`
	// OtherNamespaces counts the objects left out because they are not in
	// the namespace asked for ([snapshot.Snapshot].OtherNamespaces).
	OtherNamespaces int `json:"otherNamespaces,omitempty"`
	// Notes say what was done to read the snapshot ([snapshot.Snapshot].Notes):
	// objects of old apiVersions converted, statuses made valid.
	Notes []string `json:"notes,omitempty"`
}

// Deployment is the diagnosis of one Deployment.
type Deployment struct {
	// Namespace and Name identify it.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Strategy is RollingUpdate or Recreate; Replicas is spec.replicas;
	// MaxSurge and MaxUnavailable are the resolved RollingUpdate limits
	// (0 for Recreate); MinReadySeconds is spec.minReadySeconds.
	Strategy       string `json:"strategy"`
	Replicas       int32  `json:"replicas"`
	MaxSurge       int32  `json:"maxSurge"`
	MaxUnavailable int32  `json:"maxUnavailable"`
	// MaxSurgePercent and MaxUnavailablePercent are the limits as written
	// when they are percentages ("25%"), which MaxSurge and MaxUnavailable
	// resolve; "" for integers.
	MaxSurgePercent       string `json:"maxSurgePercent,omitempty"`
	MaxUnavailablePercent string `json:"maxUnavailablePercent,omitempty"`
	MinReadySeconds       int32  `json:"minReadySeconds"`
	// Revision is the revision annotation.
	Revision string `json:"revision,omitempty"`
	// Paused is spec.paused.
	Paused bool `json:"paused,omitempty"`
	// Status is its state as kubectl reports it, and its status counts.
	Status Status `json:"status"`
	// ReplicaSets are the ReplicaSets its controller claims, newest
	// revision first.
	ReplicaSets []ReplicaSet `json:"replicaSets"`
	// NextSync is what the controller does at its next sync.
	NextSync NextSync `json:"nextSync"`
	// Blockers say why the rollout does not move (or moves less than it
	// could); empty for a complete rollout with nothing wrong.
	Blockers []Blocker `json:"blockers,omitempty"`
	// Missing says what the snapshot lacks to explain the Deployment
	// fully: ReplicaSets its status counts pods of, pods its ReplicaSets
	// count. Empty for a whole dump.
	Missing []string `json:"missing,omitempty"`
}

// Status is a Deployment's state in kubectl's words, with its counts.
type Status struct {
	// Message is what `kubectl rollout status` prints for the Deployment
	// now (without the trailing newline); for an exceeded progress
	// deadline, kubectl's error message, which it prints after "error: ".
	Message string `json:"message"`
	// Complete is kubectl's "done": the rollout is complete.
	Complete bool `json:"complete"`
	// DeadlineExceeded: the Progressing condition says
	// ProgressDeadlineExceeded, now or after the next sync.
	DeadlineExceeded bool `json:"deadlineExceeded"`
	// Generation and ObservedGeneration are metadata.generation and
	// status.observedGeneration.
	Generation         int64 `json:"generation"`
	ObservedGeneration int64 `json:"observedGeneration"`
	// The status counts, as stored.
	Replicas            int32  `json:"replicas"`
	UpdatedReplicas     int32  `json:"updatedReplicas"`
	ReadyReplicas       int32  `json:"readyReplicas"`
	AvailableReplicas   int32  `json:"availableReplicas"`
	UnavailableReplicas int32  `json:"unavailableReplicas"`
	TerminatingReplicas *int32 `json:"terminatingReplicas,omitempty"`
	// Conditions are the status conditions as "Type=Status Reason".
	Conditions []string `json:"conditions,omitempty"`
}

// ReplicaSet is one ReplicaSet of a Deployment.
type ReplicaSet struct {
	Name     string `json:"name"`
	Revision string `json:"revision,omitempty"`
	// New says it is the new ReplicaSet (its template is the Deployment's).
	New bool `json:"new"`
	// Replicas is spec.replicas; Current, Ready and Available are its
	// status counts; Terminating is status.terminatingReplicas.
	Replicas    int32  `json:"replicas"`
	Current     int32  `json:"current"`
	Ready       int32  `json:"ready"`
	Available   int32  `json:"available"`
	Terminating *int32 `json:"terminating,omitempty"`
	// Images are its containers' images.
	Images []string `json:"images"`
}

// NextSync is what the Deployment controller does at its next sync.
type NextSync struct {
	// Actions are the writes, in order.
	Actions []Action `json:"actions,omitempty"`
	// Events are the events it records, as "Type Reason Message".
	Events []string `json:"events,omitempty"`
	// Notes explain decisions that wrote nothing ([rollout.Result].Notes).
	Notes []string `json:"notes,omitempty"`
	// Requeue says when it looks again even if nothing changes: "after
	// 7m1s", "now, rate-limited", or "" (only on a change).
	Requeue string `json:"requeue,omitempty"`
	// Stop is why the sync ends early with an error, if it does.
	Stop string `json:"stop,omitempty"`
	// Error is why the sync could not be planned, if it could not.
	Error string `json:"error,omitempty"`
	// Assumes is what the plan takes for granted that the snapshot does
	// not say: "no replica set" when the Deployment's status counts pods
	// but the snapshot holds none of its ReplicaSets (the plan is then
	// what the controller would do if there were none).
	Assumes string `json:"assumes,omitempty"`
}

// Action is one write of the next sync.
type Action struct {
	// Kind is the action's type: CreateReplicaSet, UpdateReplicaSet,
	// ScaleReplicaSet, DeleteReplicaSet, AdoptReplicaSet,
	// ReleaseReplicaSet, UpdateDeployment or UpdateDeploymentStatus.
	Kind string `json:"kind"`
	// Text says what it does and why, in numbers ([rollout.Action].Explain).
	Text string `json:"text"`
}

// Blocker reasons: the stable values of [Blocker].Reason.
const (
	Paused                   = "Paused"
	SpecNotObserved          = "SpecNotObserved"
	ProgressDeadlineExceeded = "ProgressDeadlineExceeded"
	CrashLoopBackOff         = "CrashLoopBackOff"
	ImagePullError           = "ImagePullError"
	ContainerWaiting         = "ContainerWaiting"
	PodFailed                = "PodFailed"
	Unschedulable            = "Unschedulable"
	Pending                  = "Pending"
	NotReady                 = "NotReady"
	NotYetAvailable          = "NotYetAvailable"
	ScaleDownBudget          = "ScaleDownBudget"
	RecreateWaiting          = "RecreateWaiting"
	ReplicaFailure           = "ReplicaFailure"
	HashCollision            = "HashCollision"
	// StaleDesiredReplicas: a ReplicaSet's desired-replicas annotation
	// makes every sync a scaling event that writes nothing (stale.go).
	StaleDesiredReplicas = "StaleDesiredReplicas"
	AdoptsReplicaSets    = "AdoptsReplicaSets"
	SelectorOverlap      = "SelectorOverlap"
)

// Blocker is one reason a rollout does not move, in plain words.
type Blocker struct {
	// Reason is one of the constants above (Paused, CrashLoopBackOff, ...).
	Reason string `json:"reason"`
	// Message says it with the numbers.
	Message string `json:"message"`
	// Count is how many pods (or ReplicaSets) it concerns, when it
	// concerns several.
	Count int `json:"count,omitempty"`
	// Examples name up to three of them.
	Examples []string `json:"examples,omitempty"`
}

// Explain diagnoses every Deployment of s at o.Now. s is not modified.
func Explain(s *snapshot.Snapshot, o Options) *Report {
	r := &Report{Now: o.Now, NowFrom: NowGiven, Deployments: []Deployment{}}
	if len(s.Ignored) > 0 {
		r.Ignored = s.Ignored
	}
	r.OtherNamespaces = s.OtherNamespaces
	r.Notes = s.Notes
	// The instant, the selector index and the grouping read the snapshot
	// alone: all at once.
	var sx *selectorIndex
	var index sync.WaitGroup
	index.Go(func() {
		if r.Now.IsZero() {
			r.Now, r.NowFrom = s.Latest(), NowLatest
			if r.Now.IsZero() {
				r.NowFrom = NowUnknown
			}
		}
		r.Now = r.Now.UTC()
		sx = newSelectorIndex(s)
	})
	ros := s.Rollouts()
	index.Wait()
	r.Deployments = make([]Deployment, len(ros))
	// Each Deployment is explained from the snapshot and the index alone,
	// which nothing writes: on every core, each in its place.
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(ros)/64, 1)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(ros); i = int(next.Add(1) - 1) {
				r.Deployments[i] = explainOne(sx, &ros[i], r.Now)
			}
		})
	}
	wg.Wait()
	return r
}

func explainOne(sx *selectorIndex, ro *snapshot.Rollout, now time.Time) Deployment {
	d := ro.Deployment
	p, _ := rollout.ParamsOf(d) // valid: the snapshot checked it
	surge, unavailable := p.Limits()
	out := Deployment{
		Namespace: d.Namespace, Name: d.Name, Strategy: string(d.Spec.Strategy.Type), Replicas: p.Replicas,
		MaxSurge: surge, MaxUnavailable: unavailable, MinReadySeconds: d.Spec.MinReadySeconds,
		Revision: d.Annotations[revision.RevisionAnnotation], Paused: d.Spec.Paused,
	}
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil && d.Spec.Strategy.Type == "RollingUpdate" {
		if v := ru.MaxSurge; v != nil && v.Type == intstr.String {
			out.MaxSurgePercent = v.StrVal
		}
		if v := ru.MaxUnavailable; v != nil && v.Type == intstr.String {
			out.MaxUnavailablePercent = v.StrVal
		}
	}
	out.Status = statusOf(d)
	newRS := rollout.FindNewReplicaSet(d, ro.ReplicaSets)
	for _, rs := range ro.ReplicaSets {
		out.ReplicaSets = append(out.ReplicaSets, replicaSetOf(rs, rs == newRS))
	}
	slices.SortStableFunc(out.ReplicaSets, func(a, b ReplicaSet) int { return revNum(b.Revision) - revNum(a.Revision) })

	res, err := rollout.PlanWith(ro.Input(now), rollout.Options{})
	if err != nil {
		out.NextSync.Error = err.Error()
	} else {
		out.NextSync = nextSyncOf(res)
		if c := condition(res.Status, appsv1.DeploymentProgressing); c != nil && c.Reason == rollout.TimedOutReason {
			out.Status.DeadlineExceeded = true
		}
	}
	out.Blockers = blockers(sx, ro, &out, p, newRS, res, now)
	out.Missing = missing(ro)
	if len(ro.ReplicaSets) == 0 && countsPods(&d.Status) {
		out.NextSync.Assumes = "no replica set"
	}
	return out
}

// countsPods reports whether a Deployment's status counts pods.
func countsPods(st *appsv1.DeploymentStatus) bool {
	return st.Replicas > 0 || st.UpdatedReplicas > 0 || st.ReadyReplicas > 0 || st.AvailableReplicas > 0
}

// missing says what the snapshot lacks of ro: ReplicaSets its status
// counts pods of, pods its ReplicaSets count (as when it was taken with
// kubectl get deploy, or deploy,rs, instead of deploy,rs,pods).
func missing(ro *snapshot.Rollout) []string {
	d := ro.Deployment
	get := fmt.Sprintf("kubectl get deploy,rs,pods -n %s -o yaml", d.Namespace)
	if len(ro.ReplicaSets) == 0 {
		if !countsPods(&d.Status) {
			return nil
		}
		return []string{fmt.Sprintf("the snapshot holds none of its replica sets, but its status counts %d pods (updated %d, available %d): "+
			"it is incomplete, and the next sync below is what the controller would do if there were none; for the real one: %s",
			d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.AvailableReplicas, get)}
	}
	have := map[string]int{}
	for _, p := range ro.Pods {
		have[metav1.GetControllerOfNoCopy(p).Name]++
	}
	var without []string
	for _, rs := range ro.ReplicaSets {
		if rs.Status.Replicas > 0 && have[rs.Name] == 0 {
			without = append(without, fmt.Sprintf("%s (%d)", rs.Name, rs.Status.Replicas))
		}
	}
	if len(without) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("the snapshot holds no pod of replica sets that count pods: %s: why pods are not available cannot be read from them; for the pods: %s",
		strings.Join(without, ", "), get)}
}

func revNum(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' || n > 1<<40 {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// statusOf is the Deployment's state as `kubectl rollout status` (v0.37.2)
// reports it, and its counts.
func statusOf(d *appsv1.Deployment) Status {
	st := d.Status
	out := Status{
		Generation: d.Generation, ObservedGeneration: st.ObservedGeneration,
		Replicas: st.Replicas, UpdatedReplicas: st.UpdatedReplicas, ReadyReplicas: st.ReadyReplicas,
		AvailableReplicas: st.AvailableReplicas, UnavailableReplicas: st.UnavailableReplicas, TerminatingReplicas: st.TerminatingReplicas,
	}
	for _, c := range st.Conditions {
		out.Conditions = append(out.Conditions, fmt.Sprintf("%s=%s %s", c.Type, c.Status, c.Reason))
	}
	switch c := condition(st, appsv1.DeploymentProgressing); {
	case d.Generation > st.ObservedGeneration:
		out.Message = "Waiting for deployment spec update to be observed..."
	case c != nil && c.Reason == rollout.TimedOutReason:
		out.Message = fmt.Sprintf("deployment %q exceeded its progress deadline", d.Name)
		out.DeadlineExceeded = true
	case st.UpdatedReplicas < *d.Spec.Replicas:
		out.Message = fmt.Sprintf("Waiting for deployment %q rollout to finish: %d out of %d new replicas have been updated...", d.Name, st.UpdatedReplicas, *d.Spec.Replicas)
	case st.Replicas > st.UpdatedReplicas:
		out.Message = fmt.Sprintf("Waiting for deployment %q rollout to finish: %d old replicas are pending termination...", d.Name, st.Replicas-st.UpdatedReplicas)
	case st.AvailableReplicas < st.UpdatedReplicas:
		out.Message = fmt.Sprintf("Waiting for deployment %q rollout to finish: %d of %d updated replicas are available...", d.Name, st.AvailableReplicas, st.UpdatedReplicas)
	default:
		out.Message = fmt.Sprintf("deployment %q successfully rolled out", d.Name)
		out.Complete = true
	}
	return out
}

func condition(s appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			return &s.Conditions[i]
		}
	}
	return nil
}

func replicaSetOf(rs *appsv1.ReplicaSet, isNew bool) ReplicaSet {
	out := ReplicaSet{
		Name: rs.Name, Revision: rs.Annotations[revision.RevisionAnnotation], New: isNew, Replicas: *rs.Spec.Replicas,
		Current: rs.Status.Replicas, Ready: rs.Status.ReadyReplicas, Available: rs.Status.AvailableReplicas,
		Terminating: rs.Status.TerminatingReplicas, Images: []string{},
	}
	for _, c := range rs.Spec.Template.Spec.Containers {
		out.Images = append(out.Images, c.Image)
	}
	return out
}

func nextSyncOf(res *rollout.Result) NextSync {
	var n NextSync
	for _, a := range res.Actions {
		n.Actions = append(n.Actions, Action{Kind: reflect.TypeOf(a).Name(), Text: a.Explain()})
	}
	for _, e := range res.Events {
		n.Events = append(n.Events, e.String())
	}
	n.Notes = res.Notes
	n.Stop = res.Stop
	switch {
	case res.Stop != "" || res.Requeue.RateLimited:
		n.Requeue = "now, rate-limited"
	case res.Requeue.After > 0:
		n.Requeue = "after " + res.Requeue.After.String()
	}
	return n
}

// blockers says why the rollout of ro does not move.
func blockers(sx *selectorIndex, ro *snapshot.Rollout, out *Deployment, p rollout.Params, newRS *appsv1.ReplicaSet, res *rollout.Result, now time.Time) []Blocker {
	d := ro.Deployment
	var bs []Blocker
	add := func(b Blocker) { bs = append(bs, b) }
	incomplete := !out.Status.Complete || newRS == nil || res != nil && !rollout.Complete(&p, d.Generation, &res.Status)

	if d.Spec.Paused && incomplete {
		add(Blocker{Reason: Paused, Message: fmt.Sprintf("the Deployment is paused (spec.paused): the controller keeps the ReplicaSets' sizes and only scales them proportionally when spec.replicas changes; `kubectl rollout resume deployment/%s -n %s` lets the rollout go on", d.Name, d.Namespace)})
	}
	if d.Generation > d.Status.ObservedGeneration {
		add(Blocker{Reason: SpecNotObserved, Message: fmt.Sprintf("generation %d is not observed yet (status.observedGeneration %d): the controller has not synced the latest spec", d.Generation, d.Status.ObservedGeneration)})
	}
	if out.Status.DeadlineExceeded {
		add(deadlineBlocker(d, p, res, now))
	}
	if res != nil {
		for _, a := range res.Actions {
			if t := a.Explain(); strings.Contains(t, "hash collision") {
				add(Blocker{Reason: HashCollision, Message: t})
			}
		}
	}
	if incomplete {
		if b, ok := staleBlocker(d, ro.ReplicaSets, newRS); ok {
			add(b)
		}
	}
	if incomplete && newRS != nil {
		bs = append(bs, podBlockers(d, newRS, ro.Pods, now)...)
	}
	if incomplete && !d.Spec.Paused && res != nil && onlyStatus(res) {
		if b, ok := budgetBlocker(d, p, ro.ReplicaSets, newRS); ok {
			add(b)
		}
	}
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType && incomplete {
		if b, ok := recreateBlocker(ro, newRS, now); ok {
			add(b)
		}
	}
	for _, rs := range ro.ReplicaSets {
		for _, c := range rs.Status.Conditions {
			if c.Type == appsv1.ReplicaSetReplicaFailure && c.Status == corev1.ConditionTrue {
				add(Blocker{Reason: ReplicaFailure, Message: fmt.Sprintf("replica set %s cannot create pods (%s since %s): %s", rs.Name, c.Reason, stamp(c.LastTransitionTime), c.Message), Examples: []string{rs.Name}})
			}
		}
	}
	bs = append(bs, sx.blockers(ro, res)...)
	return bs
}

// onlyStatus reports whether the plan writes nothing but the status.
func onlyStatus(res *rollout.Result) bool {
	for _, a := range res.Actions {
		if _, ok := a.(rollout.UpdateDeploymentStatus); !ok {
			return false
		}
	}
	return true
}

func stamp(t metav1.Time) string { return t.UTC().Format(time.RFC3339) }

func deadlineBlocker(d *appsv1.Deployment, p rollout.Params, res *rollout.Result, now time.Time) Blocker {
	c := condition(d.Status, appsv1.DeploymentProgressing)
	marked := c != nil && c.Reason == rollout.TimedOutReason
	if !marked && res != nil {
		c = condition(res.Status, appsv1.DeploymentProgressing)
	}
	msg := "no progress within the progress deadline"
	if p.ProgressDeadlineSeconds != nil {
		msg = fmt.Sprintf("no progress within progressDeadlineSeconds %d", *p.ProgressDeadlineSeconds)
	}
	if c != nil {
		if marked {
			msg += fmt.Sprintf(": the Progressing condition says %s since %s (%s)", c.Reason, stamp(c.LastTransitionTime), c.Message)
		} else {
			msg += fmt.Sprintf(": the next sync marks it (%s)", c.Message)
		}
	}
	msg += "; the controller does not roll back or stop: the rollout goes on as soon as pods become available, and `kubectl rollout status` fails until then"
	return Blocker{Reason: ProgressDeadlineExceeded, Message: msg}
}

// budgetBlocker explains, for a RollingUpdate with old pods left, why the
// new ReplicaSet cannot grow and the old ones cannot shrink.
func budgetBlocker(d *appsv1.Deployment, p rollout.Params, rss []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (Blocker, bool) {
	if d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || newRS == nil {
		return Blocker{}, false
	}
	var all []rollout.ReplicaSet
	var nrs rollout.ReplicaSet
	newIdx := -1
	oldPods := int32(0)
	for _, rs := range rss {
		v, err := rollout.ReplicaSetOf(rs)
		if err != nil {
			return Blocker{}, false
		}
		all = append(all, v)
		if rs == newRS {
			nrs, newIdx = v, len(all)-1
		} else {
			oldPods += v.Replicas
		}
	}
	if oldPods == 0 {
		return Blocker{}, false
	}
	b, err := rollout.MaxScaledDown(&p, all, newIdx)
	if err != nil || b.MaxScaledDown() > 0 {
		return Blocker{}, false
	}
	sz, err := rollout.NewRSNewReplicas(&p, all, newIdx)
	if err != nil || sz.Size > nrs.Replicas {
		return Blocker{}, false
	}
	available := int32(0)
	for _, v := range all {
		available += v.AvailableReplicas
	}
	msg := fmt.Sprintf("the old replica sets (%d pods) cannot be scaled down: %s; and the new replica set cannot grow: %s. "+
		"%d pods are available and minAvailable is %d (replicas %d - maxUnavailable %d): nothing moves until new pods become available",
		oldPods, b, sz, available, b.MinAvailable, p.Replicas, p.Replicas-b.MinAvailable)
	return Blocker{Reason: ScaleDownBudget, Message: msg}, true
}

// recreateBlocker names the old pods a Recreate rollout waits for.
func recreateBlocker(ro *snapshot.Rollout, newRS *appsv1.ReplicaSet, now time.Time) (Blocker, bool) {
	var names []string
	terminating := 0
	for _, pod := range ro.Pods {
		ref := metav1.GetControllerOfNoCopy(pod)
		if newRS != nil && ref.UID == newRS.UID && ref.Name == newRS.Name {
			continue
		}
		if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			continue
		}
		names = append(names, pod.Name)
		if pod.DeletionTimestamp != nil {
			terminating++
		}
	}
	if len(names) == 0 {
		return Blocker{}, false
	}
	msg := fmt.Sprintf("the Recreate strategy waits until no old pod runs before it creates the new replica set: %d old pods are not terminal", len(names))
	if terminating > 0 {
		msg += fmt.Sprintf(", %d of them terminating", terminating)
		for _, pod := range ro.Pods {
			if pod.DeletionTimestamp != nil {
				msg += fmt.Sprintf(" (%s: deletion requested with a grace period of %ds, due %s, %s from now; a pod still there after that is held by its kubelet or a finalizer)",
					pod.Name, grace(pod), stamp(*pod.DeletionTimestamp), pod.DeletionTimestamp.Sub(now).Round(time.Second))
				break
			}
		}
	}
	return Blocker{Reason: RecreateWaiting, Message: msg, Count: len(names), Examples: first(names)}, true
}

func grace(p *corev1.Pod) int64 {
	if p.DeletionGracePeriodSeconds != nil {
		return *p.DeletionGracePeriodSeconds
	}
	return 0
}

func first(names []string) []string {
	slices.Sort(names)
	return names[:min(len(names), maxExamples)]
}
