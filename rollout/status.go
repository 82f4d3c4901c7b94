package rollout

import (
	"math"
	"reflect"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition reasons and the event reasons of the legacy rollback, with
// upstream's exact strings.
const (
	// ReplicaSetUpdatedReason: Progressing=True while the rollout makes progress.
	ReplicaSetUpdatedReason = "ReplicaSetUpdated"
	// FailedRSCreateReason: Progressing=False when the new ReplicaSet cannot be created.
	FailedRSCreateReason = "ReplicaSetCreateError"
	// NewReplicaSetReason: Progressing=True when the new ReplicaSet was created.
	NewReplicaSetReason = "NewReplicaSetCreated"
	// FoundNewRSReason: Progressing=True when an existing new ReplicaSet is first noticed.
	FoundNewRSReason = "FoundNewReplicaSet"
	// NewRSAvailableReason: Progressing=True when the rollout is complete.
	NewRSAvailableReason = "NewReplicaSetAvailable"
	// TimedOutReason: Progressing=False when no progress was made within progressDeadlineSeconds.
	TimedOutReason = "ProgressDeadlineExceeded"
	// PausedDeployReason: Progressing=Unknown while paused.
	PausedDeployReason = "DeploymentPaused"
	// ResumedDeployReason: Progressing=Unknown after a resume.
	ResumedDeployReason = "DeploymentResumed"
	// MinimumReplicasAvailable: Available=True.
	MinimumReplicasAvailable = "MinimumReplicasAvailable"
	// MinimumReplicasUnavailable: Available=False.
	MinimumReplicasUnavailable = "MinimumReplicasUnavailable"

	// RollbackRevisionNotFound is the event reason when the rollback revision does not exist.
	RollbackRevisionNotFound = "DeploymentRollbackRevisionNotFound"
	// RollbackTemplateUnchanged is the event reason when the rollback target equals the current template.
	RollbackTemplateUnchanged = "DeploymentRollbackTemplateUnchanged"
	// RollbackDone is the event reason of a completed rollback.
	RollbackDone = "DeploymentRollback"
)

// conditionTime is the condition timestamp for now, as the API server
// stores it: second precision (in UTC, without a monotonic reading).
func conditionTime(now time.Time) metav1.Time {
	return metav1.NewTime(now.UTC().Truncate(time.Second))
}

func newCondition(t appsv1.DeploymentConditionType, status corev1.ConditionStatus, reason, message string, now time.Time) appsv1.DeploymentCondition {
	ts := conditionTime(now)
	return appsv1.DeploymentCondition{Type: t, Status: status, LastUpdateTime: ts, LastTransitionTime: ts, Reason: reason, Message: message}
}

// getCondition returns the condition of type t, or nil. The result points
// into s's conditions: read it, never write through it.
func getCondition(s appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			return &s.Conditions[i]
		}
	}
	return nil
}

// setProgressing sets the Deployment's Progressing condition (a copy of the
// Deployment is made first) and records whether its times changed.
func (p *planner) setProgressing(c appsv1.DeploymentCondition) {
	if cur := getCondition(p.d.Status, appsv1.DeploymentProgressing); cur != nil && cur.Status == c.Status && cur.Reason == c.Reason {
		return // upstream leaves it as it is
	}
	setCondition(&p.mut().Status, c)
	p.progressingSet = true
}

// setCondition adds or replaces the condition of c's type. Like upstream it
// does nothing when status and reason are unchanged, and keeps
// lastTransitionTime when only the reason changes. The slice is copied
// before it changes, so a status copied from the input is never modified in
// place.
func setCondition(s *appsv1.DeploymentStatus, c appsv1.DeploymentCondition) {
	setOwnedCondition(s, &condOwner{shared: true}, c)
}

// condOwner says whether a status's conditions are still shared (with the
// Deployment's, read-only) and, with a Planner, lends the array the first
// private copy is made in (the Planner's, reused from plan to plan).
type condOwner struct {
	shared bool
	buf    *[]appsv1.DeploymentCondition
}

// The status calculateStatus builds starts with the Deployment's conditions
// slice, shared (o.shared is true); the first edit that changes something
// replaces it with a copy that has room for one more condition, and later
// edits happen in that copy instead of a new slice each. A sync that changes
// no condition (most syncs that write nothing) copies nothing.
// setOwnedCondition and removeOwnedCondition give upstream's
// SetDeploymentCondition and RemoveDeploymentCondition results, order
// included, and nil once the last condition is removed.

func setOwnedCondition(s *appsv1.DeploymentStatus, o *condOwner, c appsv1.DeploymentCondition) {
	if cur := getCondition(*s, c.Type); cur != nil && cur.Status == c.Status {
		if cur.Reason == c.Reason {
			return
		}
		c.LastTransitionTime = cur.LastTransitionTime
	}
	ownConditions(s, o)
	removeOwnedCondition(s, o, c.Type)
	s.Conditions = append(s.Conditions, c)
}

func removeOwnedCondition(s *appsv1.DeploymentStatus, o *condOwner, t appsv1.DeploymentConditionType) {
	if getCondition(*s, t) == nil {
		return
	}
	ownConditions(s, o)
	cs := s.Conditions
	n := 0
	for i := range cs {
		if cs[i].Type != t {
			cs[n] = cs[i]
			n++
		}
	}
	clear(cs[n:])
	if n == 0 {
		s.Conditions = nil
		return
	}
	s.Conditions = cs[:n]
}

// ownConditions replaces shared conditions with a private copy: in the
// lent array, once, unless the conditions are that array already (a
// caller that kept a written Deployment's conditions), else a new one.
func ownConditions(s *appsv1.DeploymentStatus, o *condOwner) {
	if !o.shared {
		return
	}
	o.shared = false
	n := len(s.Conditions)
	if n == 0 {
		return
	}
	if b := o.buf; b != nil {
		o.buf = nil
		if cap(*b) < n+1 {
			*b = make([]appsv1.DeploymentCondition, 0, max(n+1, 4))
		}
		if &(*b)[:1][0] != &s.Conditions[0] {
			s.Conditions = append((*b)[:0], s.Conditions...)
			return
		}
	}
	s.Conditions = append(make([]appsv1.DeploymentCondition, 0, n+1), s.Conditions...)
}

func hasProgressDeadline(d *appsv1.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}

// calculateStatus is the Deployment status the ReplicaSets imply.
func (p *planner) calculateStatus(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) appsv1.DeploymentStatus {
	d := p.d
	// Sums in int32, as upstream (a negative status is refused at the write).
	var t tally
	for _, rs := range allRSs {
		if rs != nil {
			t.add(*rs.Spec.Replicas, rs.Status.Replicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas, rs.Status.TerminatingReplicas, rs.Status.ObservedGeneration)
		}
	}
	var updated int32
	if newRS != nil {
		updated = newRS.Status.Replicas
	}
	var c StatusCounts
	t.result(&c, updated)
	s := appsv1.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            c.Replicas,
		UpdatedReplicas:     c.UpdatedReplicas,
		ReadyReplicas:       c.ReadyReplicas,
		AvailableReplicas:   c.AvailableReplicas,
		UnavailableReplicas: c.UnavailableReplicas,
		CollisionCount:      d.Status.CollisionCount,
	}
	if !p.w.opts.DisableTerminatingReplicas && c.Terminating {
		// An unchanged count reuses the Deployment's (read-only).
		if old := d.Status.TerminatingReplicas; old != nil && *old == c.TerminatingReplicas {
			s.TerminatingReplicas = old
		} else {
			n := c.TerminatingReplicas
			s.TerminatingReplicas = &n
		}
	}
	available := c.AvailableReplicas
	if len(d.Status.Conditions) > 0 {
		s.Conditions = d.Status.Conditions
		p.conds.shared = true
	}
	if available >= *d.Spec.Replicas-p.maxUnavailable() {
		setOwnedCondition(&s, &p.conds, newCondition(appsv1.DeploymentAvailable, corev1.ConditionTrue, MinimumReplicasAvailable, "Deployment has minimum availability.", p.w.snap.Now))
	} else {
		setOwnedCondition(&s, &p.conds, newCondition(appsv1.DeploymentAvailable, corev1.ConditionFalse, MinimumReplicasUnavailable, "Deployment does not have minimum availability.", p.w.snap.Now))
	}
	return s
}

// deploymentComplete is [Complete] for d.
func deploymentComplete(d *appsv1.Deployment, s *appsv1.DeploymentStatus) bool {
	return Complete(&Params{Replicas: *d.Spec.Replicas}, d.Generation, s)
}

// syncRolloutStatus updates the status and the Progressing condition during
// a rollout, and requeues a Deployment that might time out.
func (p *planner) syncRolloutStatus(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) error {
	d, now := p.d, p.w.snap.Now
	p.rolloutStatus = true
	s := p.calculateStatus(allRSs, newRS)
	if !hasProgressDeadline(d) {
		removeOwnedCondition(&s, &p.conds, appsv1.DeploymentProgressing)
	}
	cur := getCondition(d.Status, appsv1.DeploymentProgressing)
	isComplete := s.Replicas == s.UpdatedReplicas && cur != nil && cur.Reason == NewRSAvailableReason
	if hasProgressDeadline(d) && !isComplete {
		subject := func(rest string) string {
			kind, name := "Deployment ", d.Name
			if newRS != nil {
				kind, name = "ReplicaSet ", newRS.Name
			}
			// The message of the current condition, when it is this one, saves
			// building the same string again.
			if cur != nil && isQuotedMessage(cur.Message, kind, name, rest) {
				return cur.Message
			}
			return kind + strconv.Quote(name) + " " + rest
		}
		switch {
		case deploymentComplete(d, &s):
			setOwnedCondition(&s, &p.conds, newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, NewRSAvailableReason, subject("has successfully progressed."), now))
		case Progressing(&d.Status, &s):
			c := newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReplicaSetUpdatedReason, subject("is progressing."), now)
			if cur != nil {
				if cur.Status == corev1.ConditionTrue {
					c.LastTransitionTime = cur.LastTransitionTime
				}
				removeOwnedCondition(&s, &p.conds, appsv1.DeploymentProgressing)
			}
			setOwnedCondition(&s, &p.conds, c)
		case TimedOut(&p.params, &s, now):
			setOwnedCondition(&s, &p.conds, newCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, TimedOutReason, subject("has timed out progressing."), now))
		}
	}
	if failure, ok := replicaFailure(allRSs, newRS); ok {
		setOwnedCondition(&s, &p.conds, failure)
	} else {
		removeOwnedCondition(&s, &p.conds, appsv1.DeploymentReplicaFailure)
	}

	if statusEqual(&d.Status, &s) {
		p.w.res.Requeue = p.requeueStuck(s)
		return nil
	}
	why := p.statusWhy(d.Status, s)
	p.mut().Status = s
	return p.writeDeployment(true, why)
}

// replicaFailure is the first ReplicaFailure condition of the new
// ReplicaSet, else of any ReplicaSet, as a Deployment condition.
func replicaFailure(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (appsv1.DeploymentCondition, bool) {
	for _, rss := range [][]*appsv1.ReplicaSet{{newRS}, allRSs} {
		for _, rs := range rss {
			if rs == nil {
				continue
			}
			for _, c := range rs.Status.Conditions {
				if c.Type == appsv1.ReplicaSetReplicaFailure {
					return appsv1.DeploymentCondition{
						Type:               appsv1.DeploymentConditionType(c.Type),
						Status:             c.Status,
						LastTransitionTime: c.LastTransitionTime,
						LastUpdateTime:     c.LastTransitionTime,
						Reason:             c.Reason,
						Message:            c.Message,
					}, true
				}
			}
		}
	}
	return appsv1.DeploymentCondition{}, false
}

// requeueStuck is upstream's requeueStuckDeployment: when nothing changed
// and the rollout is neither complete nor timed out, check again when the
// progress deadline passes (plus a second against clock skew), or now,
// rate-limited, when less than a second is left.
func (p *planner) requeueStuck(s appsv1.DeploymentStatus) Requeue {
	cur := getCondition(p.d.Status, appsv1.DeploymentProgressing)
	if cur == nil {
		return Requeue{}
	}
	if p.progressingSet {
		// Set in this sync: upstream still holds it in memory with the
		// clock's full precision, not cut to the second as stored.
		c := *cur
		c.LastUpdateTime = metav1.Time{Time: p.w.snap.Now}
		return RequeueAfter(&p.params, deploymentComplete(p.d, &s), &c, p.w.snap.Now)
	}
	return RequeueAfter(&p.params, deploymentComplete(p.d, &s), cur, p.w.snap.Now)
}

// describeStatusChange lists what differs between two statuses, for Explain.
func describeStatusChange(old, s appsv1.DeploymentStatus) string {
	var b []byte
	sep := func() {
		if len(b) > 0 {
			b = append(b, ", "...)
		}
	}
	num := func(name string, x, y int64) {
		if x != y {
			sep()
			b = append(b, name...)
			b = append(b, ' ')
			b = strconv.AppendInt(b, x, 10)
			b = append(b, "->"...)
			b = strconv.AppendInt(b, y, 10)
		}
	}
	num("replicas", int64(old.Replicas), int64(s.Replicas))
	num("updated", int64(old.UpdatedReplicas), int64(s.UpdatedReplicas))
	num("ready", int64(old.ReadyReplicas), int64(s.ReadyReplicas))
	num("available", int64(old.AvailableReplicas), int64(s.AvailableReplicas))
	num("unavailable", int64(old.UnavailableReplicas), int64(s.UnavailableReplicas))
	num("observedGeneration", old.ObservedGeneration, s.ObservedGeneration)
	if !int32PtrEqual(old.TerminatingReplicas, s.TerminatingReplicas) {
		sep()
		b = append(b, "terminating "+ptrString(old.TerminatingReplicas)+"->"+ptrString(s.TerminatingReplicas)...)
	}
	for _, c := range s.Conditions {
		o := getCondition(old, c.Type)
		if o == nil || o.Status != c.Status || o.Reason != c.Reason || !o.LastUpdateTime.Equal(&c.LastUpdateTime) {
			sep()
			b = append(b, string(c.Type)+"="+string(c.Status)+" "+c.Reason...)
		}
	}
	for _, o := range old.Conditions {
		if getCondition(s, o.Type) == nil {
			sep()
			b = append(b, string(o.Type)+" removed"...)
		}
	}
	if len(b) == 0 {
		return "status fields changed"
	}
	return string(b)
}

func ptrString(p *int32) string {
	if p == nil {
		return "nil"
	}
	return strconv.Itoa(int(*p))
}

// statusEqual is reflect.DeepEqual for Deployment statuses (upstream's test
// for "nothing to write"), without reflection.
func statusEqual(a, b *appsv1.DeploymentStatus) bool {
	if a.ObservedGeneration != b.ObservedGeneration || a.Replicas != b.Replicas || a.UpdatedReplicas != b.UpdatedReplicas ||
		a.ReadyReplicas != b.ReadyReplicas || a.AvailableReplicas != b.AvailableReplicas || a.UnavailableReplicas != b.UnavailableReplicas ||
		!int32PtrEqual(a.TerminatingReplicas, b.TerminatingReplicas) || !int32PtrEqual(a.CollisionCount, b.CollisionCount) ||
		(a.Conditions == nil) != (b.Conditions == nil) || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for i := range a.Conditions {
		x, y := &a.Conditions[i], &b.Conditions[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message ||
			!timeDeepEqual(x.LastUpdateTime, y.LastUpdateTime) || !timeDeepEqual(x.LastTransitionTime, y.LastTransitionTime) {
			return false
		}
	}
	return true
}

func int32PtrEqual(a, b *int32) bool {
	return a == b || a != nil && b != nil && *a == *b
}

// timeDeepEqual compares like reflect.DeepEqual: the same instant, wall and
// monotonic readings and an equal location.
func timeDeepEqual(a, b metav1.Time) bool {
	return a == b || reflect.DeepEqual(a, b)
}

// statusWhy explains a status write. Quiet plans skip it unless the write
// will be refused, since Stop quotes it.
func (p *planner) statusWhy(old, s appsv1.DeploymentStatus) string {
	if p.w.opts.Quiet && p.w.deploymentWrites == 0 {
		return ""
	}
	return describeStatusChange(old, s)
}

// isQuotedMessage reports whether msg is kind + strconv.Quote(name) + " " +
// rest, for a name that needs no escapes (object names never do; other
// names are not recognised, and the caller builds the message).
func isQuotedMessage(msg, kind, name, rest string) bool {
	if len(msg) != len(kind)+len(name)+3+len(rest) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	i := len(kind)
	return msg[:i] == kind && msg[i] == '"' && msg[i+1:i+1+len(name)] == name &&
		msg[i+1+len(name):i+3+len(name)] == "\" " && msg[i+3+len(name):] == rest
}
