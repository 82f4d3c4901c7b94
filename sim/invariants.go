package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/deploymath/deploymath/fencepost"
	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/restart"
	"github.com/deploymath/deploymath/revision"
	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim/internal/cluster"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The invariants checked by [Options].Check, by name. Each is a law over
// (state before, action, state after) or over the state at the end of an
// instant.
const (
	// InvSurge: an action that grows the ReplicaSets never takes their sum
	// of spec.replicas above replicas + maxSurge (Recreate: replicas).
	InvSurge = "surge-bound"
	// InvAvailability: a rolling-update scale-down outside a scaling event
	// never takes Σ min(spec, available) below replicas − maxUnavailable
	// (unless it already was below, then it must not drop further), while
	// every ReplicaSet's status has caught up with its size (upstream counts
	// the available pods a just-shrunk ReplicaSet is still deleting).
	InvAvailability = "availability-bound"
	// InvRecreate: a Recreate Deployment never has running (non-terminating)
	// pods of two ReplicaSets. Terminating pods of a ReplicaSet that becomes
	// the new one again (a quick v1 -> v2 -> v1) may overlap, as upstream
	// only waits for the pods of the old ReplicaSets.
	InvRecreate = "recreate-exclusive"
	// InvDeleteEmpty: a ReplicaSet is deleted only when it has no active pod.
	InvDeleteEmpty = "delete-only-empty"
	// InvHistory: what upstream's cleanup guarantees for a Deployment with
	// a revisionHistoryLimit, once its controller has settled. Cleanup runs
	// only in a sync of a paused Deployment, or of a complete one (for
	// Recreate, once no pod of an old ReplicaSet is left: the rollout
	// returns before cleanup while one is). It sorts the old ReplicaSets
	// not being deleted by revision and looks at the oldest
	// len(old) − revisionHistoryLimit of them; it deletes those with spec
	// and status replicas 0 and generation ≤ observedGeneration, and skips
	// the others without looking further. So the law is: when cleanup
	// would run, none of those oldest ReplicaSets is deletable. A
	// ReplicaSet may outlive the limit while it still has replicas or its
	// status lags its spec; it may not once it has neither.
	InvHistory = "history-limit"
	// InvDeadline: ProgressDeadlineExceeded is set only when the deadline
	// passed, and is set (within 2s) once it passed.
	InvDeadline = "progress-deadline"
	// InvConvergence: without injected faults or failure rules, every
	// Deployment is complete at the end of the run.
	InvConvergence = "convergence"
	// InvRestart: the restart controller restarts a workload only for
	// configs the workload tracks (its template references them and it opts
	// in), whose checksum is the stored config's and differs from the one
	// recorded; a decision without a restart leaves the pod template alone.
	InvRestart = "restart-scope"
)

// WarnStuck names the warning (see [Result].Warnings) for a Deployment that
// ends the run with fewer available pods than spec.replicas while nothing
// is in flight: no sync queued, every ReplicaSet's pods created and none
// starting, unready or terminating. Nothing in the simulated cluster would
// change that state. Upstream gets there, among other ways, through a
// quirk that the warning names when it sees its traces (a paused
// Deployment left without any ReplicaSet that has replicas; scenario
// paused-scale-up-deleted): a paused Deployment whose template changed
// while every ReplicaSet was at 0 scales the newest old ReplicaSet up and,
// with revisionHistoryLimit below the number of old ReplicaSets, deletes
// it in the same sync.
const WarnStuck = "stuck-below-replicas"

// rollbackAnnotation is the legacy rollback request of extensions/v1beta1
// (kubectl rollout undo of old clients); a paused Deployment carrying it
// is not cleaned up.
const rollbackAnnotation = "deprecated.deployment.rollback.to"

// Violation is a broken invariant.
type Violation struct {
	At        time.Duration `json:"at"`
	Step      int           `json:"step"` // 1-based number of the last step run, 0 before any
	Invariant string        `json:"invariant"`
	Detail    string        `json:"detail"`
}

// String renders the violation as the -check flag prints it.
func (v Violation) String() string {
	return fmt.Sprintf("%s after step %d at %s: %s", v.Invariant, v.Step, offset(v.At), v.Detail)
}

// checkState is what the action-level invariants compare.
type checkState struct {
	d   *appsv1.Deployment
	rss []*appsv1.ReplicaSet
	act map[string]int32 // active pods by ReplicaSet name
}

type checker struct {
	s          *Sim
	violations []Violation
	step       int
	faults     bool
	// recreateClean marks Recreate Deployments that were never anything else
	recreateClean map[string]bool
}

func newChecker(s *Sim) *checker {
	return &checker{s: s, recreateClean: map[string]bool{}}
}

func (c *checker) fail(inv, format string, args ...any) {
	c.violations = append(c.violations, Violation{At: c.s.now, Step: c.step, Invariant: inv, Detail: fmt.Sprintf(format, args...)})
}

func (c *checker) stepDone(i int, _ *Step) { c.step = i + 1 }

func (c *checker) fault() { c.faults = true }

// userChange records a user's write of a Deployment.
func (c *checker) userChange(key string) {
	d := c.s.st.Deployments[key]
	recreate := d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType
	if _, seen := c.recreateClean[key]; !seen {
		c.recreateClean[key] = recreate
		return
	}
	if !recreate {
		c.recreateClean[key] = false
	}
}

func (c *checker) capture(namespace, name string) *checkState {
	d := c.s.st.Deployments[objKey(namespace, name)]
	if d == nil {
		return nil
	}
	// A copy: a plan's status write updates the stored Deployment in place.
	dc := *d
	dc.Status.Conditions = slices.Clone(d.Status.Conditions) // edited in place too
	cs := &checkState{d: &dc, rss: c.s.ownedReplicaSets(d), act: map[string]int32{}}
	for _, rs := range cs.rss {
		cs.act[rs.Name] = c.s.st.ReplicaSets[objKey(rs.Namespace, rs.Name)].Active
	}
	return cs
}

func sumSpec(rss []*appsv1.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		n += cluster.Replicas(rs)
	}
	return n
}

func availableWithin(rss []*appsv1.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		n += min(cluster.Replicas(rs), rs.Status.AvailableReplicas)
	}
	return n
}

func maxUnavailable(d *appsv1.Deployment) int32 { return fencepost.MaxUnavailable(d) }
func maxSurge(d *appsv1.Deployment) int32       { return fencepost.MaxSurge(d) }

// afterAction checks the action-level laws.
func (c *checker) afterAction(before *checkState, a rollout.Action, after *checkState) {
	if before == nil || after == nil {
		return
	}
	d := after.d
	// surge bound
	if grow := sumSpec(after.rss) - sumSpec(before.rss); grow > 0 {
		limit := replicas(d) + maxSurge(d)
		if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
			limit = replicas(d)
		}
		if sumSpec(after.rss) > limit {
			c.fail(InvSurge, "%s: %s took the sum of replicas to %d > %d", d.Name, actionName(a), sumSpec(after.rss), limit)
		}
	}
	switch a := a.(type) {
	case rollout.ScaleReplicaSet:
		if a.To >= a.From || d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || d.Spec.Paused {
			return
		}
		for _, rs := range before.rss {
			if rs.Name == a.ReplicaSet.Name && rs.Annotations["deployment.kubernetes.io/desired-replicas"] != fmt.Sprint(replicas(d)) {
				return // a scaling event: the user asked for fewer pods
			}
			if rs.Status.AvailableReplicas > cluster.Replicas(rs) {
				// A ReplicaSet just scaled down still reports the available
				// pods it is deleting, and upstream counts them: the bound
				// holds only once statuses have caught up (scenario
				// scale-down-stale-status, rollout's
				// TestStaleStatusCanDropAvailability).
				return
			}
		}
		minAvail := minAvailable(d)
		b, n := availableWithin(before.rss), availableWithin(after.rss)
		if n < min(minAvail, b) {
			c.fail(InvAvailability, "%s: %s took available-within-spec from %d to %d (minAvailable %d)", d.Name, actionName(a), b, n, minAvail)
		}
	case rollout.DeleteReplicaSet:
		if n := before.act[a.Name]; n > 0 {
			c.fail(InvDeleteEmpty, "%s: replica set %s deleted with %d active pods", d.Name, a.Name, n)
		}
	case rollout.UpdateDeploymentStatus:
		was := progressing(before.d)
		now := progressingOf(a.Deployment.Status.Conditions)
		if now != nil && now.Reason == "ProgressDeadlineExceeded" && (was == nil || was.Reason != "ProgressDeadlineExceeded") {
			if d.Spec.ProgressDeadlineSeconds == nil || was == nil {
				c.fail(InvDeadline, "%s: ProgressDeadlineExceeded without a deadline or a previous Progressing condition", d.Name)
				return
			}
			due := was.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second)
			if !c.s.wall().After(due) {
				c.fail(InvDeadline, "%s: ProgressDeadlineExceeded at %s, before the deadline %s", d.Name, offset(c.s.now), offset(due.Sub(Epoch)))
			}
		}
	}
}

func progressing(d *appsv1.Deployment) *appsv1.DeploymentCondition {
	return progressingOf(d.Status.Conditions)
}

func progressingOf(conds []appsv1.DeploymentCondition) *appsv1.DeploymentCondition {
	for i := range conds {
		if conds[i].Type == appsv1.DeploymentProgressing {
			return &conds[i]
		}
	}
	return nil
}

// restartDecision checks a restart decision against the Deployment it
// patches (before the patch) and the stored configs.
func (c *checker) restartDecision(d *appsv1.Deployment, dec restart.Decision) {
	s := c.s
	name := dec.Key()
	if !dec.Restart {
		if dec.Patch.TemplateAnnotations != nil {
			c.fail(InvRestart, "%s: a decision without a restart changes the pod template", name)
		}
		return
	}
	w, err := restart.WorkloadOf(d)
	if err != nil {
		c.fail(InvRestart, "%s: %v", name, err)
		return
	}
	refs, ok := s.restart.eng.Options().Tracked(w)
	if !ok {
		c.fail(InvRestart, "%s: restarted but it does not opt in", name)
		return
	}
	tracked := map[string]bool{}
	for _, r := range refs {
		tracked[r.Key()] = true
	}
	for _, t := range dec.Triggers {
		if !tracked[t.Config] {
			c.fail(InvRestart, "%s: restarted for %s, which it does not reference", name, t.Config)
			continue
		}
		if t.Recorded == t.Current {
			c.fail(InvRestart, "%s: restarted for %s whose checksum %s did not change", name, t.Config, t.Current)
		}
		if cur := s.storedChecksum(t.Config); cur != t.Current {
			c.fail(InvRestart, "%s: restarted for %s with checksum %s, the stored config has %q", name, t.Config, t.Current, cur)
		}
	}
}

// storedChecksum is the checksum of the stored config with key
// "kind/namespace/name" by the restart controller's algorithm, "" if none.
func (s *Sim) storedChecksum(key string) string {
	kind, rest, _ := strings.Cut(key, "/")
	var obj runtime.Object
	switch restart.Kind(kind) {
	case restart.KindConfigMap:
		if cm := s.st.ConfigMaps[rest]; cm != nil {
			obj = cm
		}
	case restart.KindSecret:
		if sec := s.st.Secrets[rest]; sec != nil {
			obj = sec
		}
	}
	if obj == nil {
		return ""
	}
	cfg, err := restart.ConfigOf(obj, s.restart.eng.Options().Checksum)
	if err != nil {
		return ""
	}
	return cfg.Checksum
}

// instant checks the state laws at the end of an instant.
func (c *checker) instant() {
	s := c.s
	for _, key := range sortedKeys(s.st.Deployments) {
		d := s.st.Deployments[key]
		rss := s.ownedReplicaSets(d)
		if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType && c.recreateClean[key] {
			withPods := 0
			for _, rs := range rss {
				if s.st.ReplicaSets[objKey(rs.Namespace, rs.Name)].Active > 0 {
					withPods++
				}
			}
			if withPods > 1 {
				c.fail(InvRecreate, "%s: %d replica sets have pods at once", d.Name, withPods)
			}
		}
		settled := !s.wq.IsDirty(queueKey{Ctrl: ctrlDeployment, Name: key})
		if s.wq.IsWaiting(queueKey{Ctrl: ctrlDeployment, Name: key}) && s.sc.Cluster.ControllerLatency > 0 {
			settled = false
		}
		if settled {
			c.history(d, rss)
		}
		if pd := d.Spec.ProgressDeadlineSeconds; pd != nil && !d.Spec.Paused && d.Status.ObservedGeneration >= d.Generation {
			if p := progressing(d); p != nil && p.Status == corev1.ConditionTrue && p.Reason == "ReplicaSetUpdated" {
				due := p.LastUpdateTime.Add(time.Duration(*pd)*time.Second + 2*time.Second)
				if s.wall().After(due) && !s.deploymentComplete(d) {
					c.fail(InvDeadline, "%s: progress deadline passed at %s but Progressing is still %s", d.Name, offset(due.Sub(Epoch)-2*time.Second), p.Reason)
				}
			}
		}
	}
}

// history checks [InvHistory] for d, whose ReplicaSets are rss, at a
// settled instant.
func (c *checker) history(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
	s := c.s
	limit := d.Spec.RevisionHistoryLimit
	if limit == nil {
		return
	}
	var newRS *appsv1.ReplicaSet
	for _, rs := range rss { // oldest first: upstream's FindNewReplicaSet
		if hashing.EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			newRS = rs
			break
		}
	}
	var old []*appsv1.ReplicaSet
	oldPods := 0
	for _, rs := range rss {
		if rs == newRS {
			continue
		}
		if st := s.st.ReplicaSets[objKey(rs.Namespace, rs.Name)]; st != nil {
			oldPods += len(st.Pods)
		}
		if rs.DeletionTimestamp == nil {
			old = append(old, rs)
		}
	}
	paused := d.Spec.Paused && d.Annotations[rollbackAnnotation] == ""
	complete := s.deploymentComplete(d)
	if complete && d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType && oldPods > 0 {
		complete = false // the Recreate rollout waits for these pods before cleanup
	}
	if !paused && !complete {
		return
	}
	diff := len(old) - int(*limit)
	if diff <= 0 {
		return
	}
	for _, rs := range revision.ByRevision(old)[:diff] {
		if cluster.Replicas(rs) == 0 && rs.Status.Replicas == 0 && rs.Generation <= rs.Status.ObservedGeneration {
			why := "complete"
			if paused {
				why = "paused"
			}
			c.fail(InvHistory, "%s: %s with %d old replica sets (revisionHistoryLimit %d) and %s, among the oldest %d, could be deleted (spec and status replicas 0, generation %d, observedGeneration %d)",
				d.Name, why, len(old), *limit, rs.Name, diff, rs.Generation, rs.Status.ObservedGeneration)
			return
		}
	}
}

// stuck lists the [WarnStuck] warnings at the end of the run.
func (s *Sim) stuck() []Violation {
	var out []Violation
	for _, key := range sortedKeys(s.st.Deployments) {
		d := s.st.Deployments[key]
		want := replicas(d)
		if s.wq.IsDirty(queueKey{Ctrl: ctrlDeployment, Name: key}) {
			continue // a sync is queued
		}
		var available, size int32
		inFlight := false
		for _, rs := range s.ownedReplicaSets(d) {
			st := s.st.ReplicaSets[objKey(rs.Namespace, rs.Name)]
			size += cluster.Replicas(rs)
			available += st.Available
			if cluster.Replicas(rs) != st.Active || st.Active != st.Available || st.Terminating > 0 {
				inFlight = true
			}
		}
		if inFlight || available >= want {
			continue
		}
		detail := fmt.Sprintf("%s: ends with %d of %d pods available and nothing in flight", d.Name, available, want)
		if d.Spec.Paused && size == 0 {
			detail += "; paused without a ReplicaSet that has replicas: upstream v1.37's paused-cleanup quirk " +
				"(a paused Deployment whose template changed while every ReplicaSet was at 0 scales the newest old ReplicaSet up " +
				"and, with revisionHistoryLimit below the number of old ReplicaSets, deletes it in the same sync; " +
				"see scenario paused-scale-up-deleted); resuming rolls out the current template"
		} else if d.Spec.Paused {
			detail += " (paused)"
		}
		out = append(out, Violation{At: s.now, Step: s.checks.step, Invariant: WarnStuck, Detail: detail})
	}
	return out
}

// final checks convergence at the end of the run.
func (c *checker) final() {
	s := c.s
	if c.faults || len(s.sc.Cluster.Failures) > 0 || s.sc.Cluster.PodQuota > 0 {
		return
	}
	for _, key := range sortedKeys(s.st.Deployments) {
		d := s.st.Deployments[key]
		if d.Spec.Paused {
			continue
		}
		if !s.deploymentComplete(d) {
			c.fail(InvConvergence, "%s: not complete at the end (%s): replicas %d updated %d available %d of %d", d.Name, offset(s.now), d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.AvailableReplicas, replicas(d))
		}
	}
}
