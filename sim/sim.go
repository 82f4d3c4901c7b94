package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim/internal/apiserver"
	"github.com/deploymath/deploymath/sim/internal/cluster"
	"github.com/deploymath/deploymath/sim/internal/correlator"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Options tune one run. The zero value runs the scenario as written.
type Options struct {
	// Seed, when non-nil, replaces the scenario's seed.
	Seed *uint64
	// Until, when positive, replaces the scenario's time limit.
	Until time.Duration
	// Plan is passed to [rollout.PlanWith] on every sync, with Quiet set
	// unless Explain is (the explanations cost time and only Explain reads
	// them).
	Plan rollout.Options
	// Explain plans with explanations and records, in each frame, every
	// sync of the Deployment controller that wrote something, with each
	// write's reason in numbers, and every sync that wrote nothing while
	// its Deployment's rollout was incomplete, with the plan's notes on
	// why nothing moved ([Frame].Syncs). An instant whose only news is a
	// sync that wrote nothing (a retry, a timed requeue) adds no frame.
	// Off by default: a run with it plans more slowly.
	Explain bool
	// NoTrace skips building the trace (frames); the summary is still
	// computed. Benchmarks use it.
	NoTrace bool
	// Check runs the invariants (see [Invariants]) after every write of the
	// Deployment controller and at the end of the run.
	Check bool
	// FullStops makes the text trace ([Result.Text], [DescribeTrace]) show
	// each sync that ended early with the planner's full explanation
	// ("# sync web stopped: ..."), instead of one line saying what kind of
	// requeue it was ([DescribeStop]). The JSON has the full text either
	// way ([Frame].Stops).
	FullStops bool
	// Writes records every accepted write of a Deployment or a ReplicaSet
	// (create, update, status, delete) with the object's size and status
	// after it, in [Result].Writes and the JSON's "writes": the states a
	// watch sees, including those that last no simulated time.
	Writes bool
}

// Result is the outcome of a run.
type Result struct {
	// Scenario is the name of the scenario.
	Scenario string
	// Seed is the seed the run used.
	Seed uint64
	// Trace is the timeline (empty with Options.NoTrace).
	Trace Trace
	// Summary condenses the run.
	Summary Summary
	// Violations are the broken invariants, in order (only with Options.Check).
	Violations []Violation
	// Warnings are states at the end of the run that are legal but most
	// likely not what the scenario's author wants (only with
	// Options.Check); Invariant holds the warning's name, [WarnStuck].
	Warnings []Violation
	// Missed are the steps whose when: never held, in the order the run
	// gave up on them: they did not run, and deploysim exits 1.
	Missed []MissedStep
	// Outcomes are the Deployments' outcomes at the end of the run, by
	// name, with the scenario's expectations (Scenario.Expect); deploysim
	// exits 1 on an unexpected one ([DeploymentOutcome.Unexpected]).
	Outcomes []DeploymentOutcome
	// Events are the Events the API server holds at the end, after
	// client-go's recorder aggregated what the Deployment controller
	// recorded: what `kubectl get events` lists ([DescribeEvents]); empty
	// with Options.NoTrace.
	Events []ClusterEvent
	// Writes are the accepted writes of Deployments and ReplicaSets, in
	// order (only with Options.Writes).
	Writes []Write
	// Stats count the work of the engine.
	Stats Stats
}

// Stats count what the engine did during a run.
type Stats struct {
	// Events is the number of queue events processed.
	Events int
	// DeploymentSyncs and ReplicaSetSyncs count controller syncs.
	DeploymentSyncs, ReplicaSetSyncs int
	// PodsCreated counts pods created by the ReplicaSet controller.
	PodsCreated int
}

// Sim is one run of a scenario: the virtual clock, the event queue, the
// seeded random generator, the store and the controllers. Create it with
// [New], run it with [Sim.Run]. A Sim is single-use and not safe for
// concurrent use.
type Sim struct {
	sc    *Scenario
	opts  Options
	rng   *rand.Rand
	seed  uint64
	now   time.Duration
	until time.Duration

	q  eventQueue
	wq workQueue
	st *store
	// c is the cluster around the Deployment controller: the ReplicaSet
	// controller, scheduler, kubelets, nodes (package cluster).
	c *cluster.Cluster

	stopWhenConverged bool
	lastStepAt        time.Duration
	stepsLeft         int
	instant           uint64 // number of the current instant (for wqItem.syncs)

	cur       *Frame // frame being built for the current instant
	trace     Trace
	maxFrames int    // MaxTraceFrames (tests lower it)
	prev      string // rendering of the last frame's state, for change detection
	met       metrics
	stats     Stats
	checks    *checker
	// restart is the restart controller, nil unless the scenario enables it
	restart *restarter
	failed  error
	done    bool
	// armedSteps wait for their when:; missed never ran
	armedSteps []armed
	missed     []MissedStep
	// planned, when set (by benchmarks), sees every snapshot planned.
	planned func(rollout.Snapshot)
	// writer is who makes the writes being made (see by); writes is the
	// write log (Options.Writes).
	writer string
	writes []Write
	// cache is the Deployment controller's informer cache, with
	// cluster.informerDelay only.
	cache *informerCache
	// events models client-go's event recorder and the Events it wrote;
	// eventAt and eventSeq give events of one instant distinct nanoseconds.
	events   *correlator.Correlator
	eventAt  time.Duration
	eventSeq int
	// maxSpecReplicas is the largest spec.replicas stored (see syncLimit).
	maxSpecReplicas int32
	// pl plans every sync, reusing its memory (see rollout.Planner).
	pl rollout.Planner
	// syncItem is the work-queue item of the Deployment being synced
	// (during syncDeployment), syncDep the stored Deployment it read
	// (nil with an informer delay, or once a write replaced it).
	syncItem *wqItem
	syncDep  *appsv1.Deployment
}

// New prepares a run of sc. The scenario is not modified. A scenario built
// in Go ([NewScenario]) is checked first as [ParseScenario] checks a file.
func New(sc *Scenario, o Options) (*Sim, error) {
	if sc == nil {
		return nil, fmt.Errorf("scenario: must not be nil")
	}
	sc, err := sc.prepared()
	if err != nil {
		return nil, err
	}
	seed := sc.Seed
	if o.Seed != nil {
		seed = *o.Seed
	}
	until := time.Duration(sc.Until)
	if o.Until > 0 {
		until = o.Until
	}
	if until <= 0 {
		until = DefaultUntil
	}
	if err := sc.CheckUntil(until); err != nil {
		return nil, err
	}
	s := &Sim{
		maxFrames: MaxTraceFrames,
		sc:        sc,
		opts:      o,
		rng:       rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		seed:      seed,
		until:     until,
		wq:        newWorkQueue(),
		st:        newStore(),
	}
	s.trace.fullStops = o.FullStops
	s.q.q.OnInstant = s.q.touchInstant
	hint := podsHint(sc)
	s.st.Pods = make(map[string]*cluster.Pod, hint)
	// room for a start-up timer per replica, all queued at once when the
	// Deployments are created
	s.q.q.Grow(hint / 2)
	s.c = cluster.New(clusterConfig(sc, o), (*engine)(s), s.rng, s.st)
	for _, n := range sc.Cluster.Nodes {
		s.c.AddNode(n.Name, n.Capacity, true)
	}
	if sc.state != nil {
		s.stateNodes(sc.state)
	}
	if len(s.c.Nodes) == 0 {
		s.c.AddNode("node-1", 1<<30, true)
	}
	if o.Check {
		s.checks = newChecker(s)
	}
	if r := sc.Cluster.Restart; r != nil && r.Enabled {
		ro, err := r.options("cluster.restart")
		if err != nil {
			return nil, err
		}
		if s.restart, err = newRestarter(ro); err != nil {
			return nil, err
		}
	}
	s.met.init()
	return s, nil
}

// podsHint is the room the pods map starts with (and half of it the event
// queue's): twice the replicas of the scenario's Deployments (a rollout
// with maxSurge 100% doubles them), at most 524,288 (beyond, the map and
// the queue grow as before: presizing them for a million replicas would
// cost more peak memory than the rehashing costs time). A map sized for
// its pods from the start does not grow while they are created, and
// deletions in its sparse groups leave empty slots instead of tombstones
// that make it rehash again and again (the 150k rollout creates 300,000
// pods and deletes 150,000).
func podsHint(sc *Scenario) int {
	n := 0
	for _, d := range sc.deployments {
		if r := d.Spec.Replicas; r != nil && *r > 0 {
			n += int(*r)
		} else if r == nil {
			n++
		}
	}
	return min(2*n, 1<<19)
}

// Run runs the scenario to its end: the time limit, convergence after a
// stopWhenConverged step, or an empty event queue.
func Run(sc *Scenario, o Options) (*Result, error) {
	s, err := New(sc, o)
	if err != nil {
		return nil, err
	}
	return s.Run()
}

// DefaultUntil is the time limit of a scenario that sets none.
const DefaultUntil = 30 * time.Minute

// maxSyncsPerInstant guards against controllers that never settle: a
// controller that syncs one key more often than this at one instant is
// stopped. Large Deployments legitimately sync many times at an instant
// (the ReplicaSet controller creates at most 500 pods per sync, upstream's
// burstReplicas, and each of its status writes queues the Deployment), so
// the limit grows with the largest spec.replicas stored: see syncLimit.
const maxSyncsPerInstant = 1000

// syncLimit is the number of syncs of one key at one instant beyond which
// the run fails: maxSyncsPerInstant, plus one for every 100 replicas of the
// largest Deployment stored so far (five times the ReplicaSet syncs needed
// to create or delete all its pods at once).
func (s *Sim) syncLimit() int {
	return maxSyncsPerInstant + int(s.maxSpecReplicas/100)
}

// Run executes the run. It returns an error only when the scenario cannot be
// simulated (an object the API server would refuse at load time, or a
// controller that keeps writing without settling).
func (s *Sim) Run() (*Result, error) {
	if err := s.load(); err != nil {
		return nil, err
	}
	s.q.push(event{at: s.until, kind: evUntil})
	for s.q.len() > 0 && s.failed == nil {
		at, _ := s.q.peekTime()
		if at > s.until {
			break
		}
		if at != s.now {
			if s.endInstant() {
				s.done = true
				break
			}
			s.now = at
			s.instant++
		}
		e := s.q.pop()
		if e.kind == evUntil {
			break
		}
		s.stats.Events++
		s.handle(e)
		if len(s.armedSteps) > 0 && s.failed == nil {
			s.checkArmed()
		}
	}
	if s.failed != nil {
		return nil, s.failed
	}
	s.missRemaining()
	if !s.done {
		s.endInstant()
	}
	s.stats.ReplicaSetSyncs, s.stats.PodsCreated = s.c.Stats.ReplicaSetSyncs, s.c.Stats.PodsCreated
	res := &Result{Scenario: s.sc.Name, Seed: s.seed, Trace: s.trace, Stats: s.stats, Missed: s.missed}
	res.Summary = s.met.summary(s)
	res.Outcomes = s.outcomes()
	res.Writes = s.writes
	res.Events = s.clusterEvents()
	if s.checks != nil {
		s.checks.final()
		res.Violations = s.checks.violations
		res.Warnings = s.stuck()
	}
	return res, nil
}

// handle dispatches one event.
func (s *Sim) handle(e event) {
	switch e.kind {
	case evStep:
		if s.sc.Steps[e.idx].When != nil {
			s.armStep(int(e.idx))
		} else {
			s.runStep(int(e.idx))
		}
	case evStepTimeout:
		s.stepTimedOut(int(e.idx))
	case evProcess:
		it := e.item
		syncs, ok := s.wq.Take(it, s.instant)
		if !ok {
			return
		}
		if limit := s.syncLimit(); syncs > limit {
			s.failed = fmt.Errorf("t=%s: %s keeps syncing without settling (more than %d syncs at one instant)", s.now, it.Key.Name, limit)
			return
		}
		switch it.Key.Ctrl {
		case ctrlDeployment:
			s.syncDeployment(it)
		case ctrlReplicaSet:
			s.syncReplicaSet(it)
		}
	case evCluster:
		s.c.Fire(e.t)
	case evInform:
		s.deliver()
	case evRestartTick:
		s.restartTick(e.at)
	case evTimer:
		if s.wq.Due(e.item, e.at) {
			s.addItem(e.item)
		}
	}
}

// add puts key in the work queue now (informer-style, deduplicated).
func (s *Sim) add(k queueKey) { s.addItem(s.wq.Item(k)) }

func (s *Sim) addItem(it *wqItem) {
	if s.wq.Add(it) {
		s.q.push(event{at: s.now, kind: evProcess, item: it})
	}
}

// addAfter puts key in the work queue after d, keeping only the earliest
// pending delay per key (client-go's delaying queue).
func (s *Sim) addAfter(k queueKey, d time.Duration) { s.addAfterItem(s.wq.Item(k), d) }

func (s *Sim) addAfterItem(it *wqItem, d time.Duration) {
	if d <= 0 {
		s.addItem(it)
		return
	}
	if at := s.now + d; s.wq.AddAfter(it, at) {
		s.q.push(event{at: at, kind: evTimer, item: it})
	}
}

// notify is how informers react to a change: the key is queued after the
// controller reaction latency of the cluster.
func (s *Sim) notify(k queueKey) {
	s.addAfter(k, time.Duration(s.sc.Cluster.ControllerLatency))
}

func (s *Sim) notifyDeployment(key string) {
	if key != "" && !s.quietForController() {
		s.notify(queueKey{Ctrl: ctrlDeployment, Name: key})
	}
}

func (s *Sim) notifyRS(key string) { s.notify(queueKey{Ctrl: ctrlReplicaSet, Name: key}) }

// notifyItem is notify for a key whose work-queue item is at hand.
func (s *Sim) notifyItem(it *wqItem) {
	s.addAfterItem(it, time.Duration(s.sc.Cluster.ControllerLatency))
}

// wall is the wall-clock instant of the virtual now.
func (s *Sim) wall() time.Time { return Epoch.Add(s.now) }

// stamp is the virtual now as the API server stores it (seconds).
func (s *Sim) stamp() metav1.Time { return truncTime(metav1.NewTime(s.wall())) }

// note adds a line to the current frame.
func (s *Sim) note(format string, args ...any) {
	if s.opts.NoTrace {
		return
	}
	f := s.frame()
	f.Notes = append(f.Notes, fmt.Sprintf(format, args...))
}

// stopped records a sync of the Deployment name that ended early
// (res.Stop).
func (s *Sim) stopped(name string, res *rollout.Result) {
	if s.opts.NoTrace {
		return
	}
	f := s.frame()
	st := Stop{Deployment: name, Kind: classifyStop(res.Stop), Text: res.Stop, AfterNotes: len(f.Notes), seq: f.nextSeq()}
	if st.Kind == StopStaleDeployment {
		for _, a := range res.Actions {
			switch a := a.(type) {
			case rollout.UpdateDeploymentStatus:
				st.FirstWrite = a.Why
			case rollout.UpdateDeployment:
				st.FirstWrite = a.Why
			}
			if st.FirstWrite != "" {
				break
			}
		}
	}
	f.Stops = append(f.Stops, st)
}

func (s *Sim) frame() *Frame {
	if s.cur == nil {
		s.cur = &Frame{At: s.now}
	}
	return s.cur
}

// endInstant closes the current instant: metrics, the trace frame and the
// convergence check. It reports whether the run should stop.
func (s *Sim) endInstant() bool {
	s.met.observe(s)
	if s.checks != nil {
		s.checks.instant()
	}
	stop := s.stopWhenConverged && s.stepsLeft == 0 && s.converged()
	if !s.opts.NoTrace {
		f := s.frame()
		if stop {
			f.Notes = append(f.Notes, "converged: stopping")
		}
		s.fillState(f)
		state := describeState(f)
		if len(f.Notes) > 0 || len(f.Stops) > 0 || wroteSomething(f.Syncs) || len(f.Restarts) > 0 || len(f.Events) > 0 || state != s.prev {
			s.keepFrame(f)
			s.prev = state
		}
	}
	s.cur = nil
	return stop
}

// keepFrame adds f to the trace; beyond maxFrames it replaces the last
// frame, which is then counted as dropped.
func (s *Sim) keepFrame(f *Frame) {
	if n := len(s.trace.Frames); n >= s.maxFrames {
		s.trace.Frames[n-1] = *f
		s.trace.Dropped++
		return
	}
	s.trace.Frames = append(s.trace.Frames, *f)
}

// converged reports whether every Deployment is complete, no pod is
// terminating and no controller has work queued.
func (s *Sim) converged() bool {
	if s.wq.Dirty() > 0 || s.restartWaiting() {
		return false
	}
	for _, k := range s.st.DeploymentKeys {
		if !s.deploymentComplete(s.st.Deployments[k]) {
			return false
		}
	}
	for _, st := range s.st.ReplicaSets {
		if st.Terminating > 0 || int32(len(st.Pods)) != st.Active+st.Terminal {
			return false
		}
	}
	return true
}

// deploymentComplete is upstream's DeploymentComplete plus "no old pods":
// every replica updated and available, and the status observed.
func (s *Sim) deploymentComplete(d *appsv1.Deployment) bool {
	want := replicas(d)
	st := d.Status
	return st.UpdatedReplicas == want && st.Replicas == want && st.AvailableReplicas == want && st.ObservedGeneration >= d.Generation
}

func replicas(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

// ---- Deployment controller ----

// syncDeployment is one sync of the Deployment controller: rollout.Plan on
// the store as of now, then the plan applied as the API server would.
func (s *Sim) syncDeployment(k *wqItem) {
	d, rss := s.controllerView(k)
	if d == nil {
		return
	}
	s.stats.DeploymentSyncs++
	s.writer = writerDeployment
	s.syncItem, s.syncDep = k, nil
	if !s.delayed() {
		s.syncDep = d
	}
	defer func() { s.writer, s.syncItem, s.syncDep = "", nil, nil }()
	snap := rollout.Snapshot{Deployment: d, ReplicaSets: rss, Now: s.wall()}
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		snap.Pods = s.podsOf(d)
	}
	// Only Explain reads the explanations: otherwise skip building them.
	planOpts := s.opts.Plan
	planOpts.Quiet = !s.opts.Explain
	if s.planned != nil {
		s.planned(snap)
	}
	s.pl.Options = planOpts
	res, err := s.pl.Plan(snap)
	if err != nil {
		s.note("sync %s failed: %v", d.Name, err)
		s.syncFailed(k)
		return
	}
	for i, a := range res.Actions {
		var before *checkState
		if s.checks != nil {
			before = s.checks.capture(d.Namespace, d.Name)
		}
		if err := s.apply(a); err != nil {
			s.explainSync(d, res, i)
			// upstream recorded the events that precede the failed write
			s.recordEvents(d, res.Events, i)
			s.note("sync %s: action %d of %d (%s) failed: %v", d.Name, i+1, len(res.Actions), actionName(a), err)
			s.syncFailed(k)
			return
		}
		if s.checks != nil {
			s.checks.afterAction(before, a, s.checks.capture(d.Namespace, d.Name))
		}
	}
	s.explainSync(d, res, len(res.Actions))
	s.recordEvents(d, res.Events, len(res.Actions))
	if res.Stop != "" {
		s.stopped(d.Name, res)
		s.syncFailed(k)
		return
	}
	if res.Requeue.RateLimited {
		s.addAfterItem(k, k.Backoff())
	}
	if res.Requeue.After > 0 {
		s.addAfterItem(k, res.Requeue.After)
	}
	k.Forget() // the sync succeeded
}

// syncFailed requeues k through the rate limiter, as upstream's handleErr
// does, and drops it after maxRetries failures.
func (s *Sim) syncFailed(k *wqItem) {
	if k.Failures() < maxRetries {
		s.addAfterItem(k, k.Backoff())
		return
	}
	k.Forget()
	s.note("dropping deployment %q out of the queue after %d retries", k.Key.Name, maxRetries)
}

// recordEvents records the events of a plan that upstream emits once the
// first applied actions have been written: those with Event.After ≤ applied.
func (s *Sim) recordEvents(d *appsv1.Deployment, evs []rollout.Event, applied int) {
	var f *Frame
	for _, e := range evs {
		if e.After > applied {
			continue
		}
		s.met.event(e)
		if s.opts.NoTrace {
			continue
		}
		if f == nil {
			f = s.frame()
		}
		f.Events = append(f.Events, TraceEvent{Object: d.Name, Type: e.Type, Reason: e.Reason, Message: e.Message,
			Write: s.recordEvent(d, e)})
	}
}

func actionName(a rollout.Action) string {
	switch a := a.(type) {
	case rollout.CreateReplicaSet:
		return "create replicaset " + a.ReplicaSet.Name
	case rollout.UpdateReplicaSet:
		return "update replicaset " + a.ReplicaSet.Name
	case rollout.ScaleReplicaSet:
		return "scale replicaset " + a.ReplicaSet.Name
	case rollout.DeleteReplicaSet:
		return "delete replicaset " + a.Name
	case rollout.AdoptReplicaSet:
		return "adopt replicaset " + a.ReplicaSet.Name
	case rollout.ReleaseReplicaSet:
		return "release replicaset " + a.ReplicaSet.Name
	case rollout.UpdateDeployment:
		return "update deployment " + a.Deployment.Name
	case rollout.UpdateDeploymentStatus:
		return "update status of deployment " + a.Deployment.Name
	}
	return fmt.Sprintf("%T", a)
}

// apply performs one action against the store.
func (s *Sim) apply(a rollout.Action) error {
	switch a := a.(type) {
	case rollout.CreateReplicaSet:
		return s.createReplicaSet(a.ReplicaSet)
	case rollout.UpdateReplicaSet:
		// The Planner reuses the ReplicaSets of updates and scales at its
		// next plan: they are copied.
		return s.updateReplicaSet(a.ReplicaSet, false)
	case rollout.ScaleReplicaSet:
		return s.scaleReplicaSet(a.ReplicaSet)
	case rollout.AdoptReplicaSet:
		return s.updateReplicaSet(a.ReplicaSet, true)
	case rollout.ReleaseReplicaSet:
		return s.updateReplicaSet(a.ReplicaSet, true)
	case rollout.DeleteReplicaSet:
		return s.deleteReplicaSet(a.Namespace, a.Name, a.UID)
	case rollout.UpdateDeployment:
		return s.updateDeployment(a.Deployment)
	case rollout.UpdateDeploymentStatus:
		return s.updateDeploymentStatus(a.Deployment)
	}
	return fmt.Errorf("unknown action %T", a)
}

// ---- API server writes (package apiserver) and what watchers see ----

func (s *Sim) createReplicaSet(obj *appsv1.ReplicaSet) error {
	if obj == nil {
		return fmt.Errorf("create replicaset: nil object")
	}
	st, err := s.st.CreateReplicaSet(obj, s.stamp(), func(key string, rs *appsv1.ReplicaSet) *cluster.ReplicaSet {
		return cluster.NewReplicaSet(key, rs, s.wq.Item(queueKey{Ctrl: ctrlReplicaSet, Name: key}))
	})
	if err != nil {
		return err
	}
	rs := st.Obj
	s.syncRSState(st, rs)
	s.logReplicaSetWrite(s.by(), "create", rs)
	s.informReplicaSet(rs, false)
	s.rsChanged(nil, rs)
	return nil
}

// updateReplicaSet writes metadata and spec (the main resource; status is
// kept), with optimistic concurrency on a non-empty resourceVersion. owned
// says obj was allocated for the caller (a plan's ReplicaSet write, see
// rollout.UpdateReplicaSet) and may be stored as it is.
func (s *Sim) updateReplicaSet(obj *appsv1.ReplicaSet, owned bool) error {
	if obj == nil {
		return fmt.Errorf("update replicaset: nil object")
	}
	st, old, err := s.st.UpdateReplicaSet(obj, owned)
	if err != nil {
		return err
	}
	rs := st.Obj
	s.syncRSState(st, rs)
	s.logReplicaSetWrite(s.by(), "update", rs)
	s.informReplicaSet(rs, false)
	s.rsChanged(old, rs)
	return nil
}

// scaleReplicaSet is updateReplicaSet(obj, false) for a plan's scale,
// which changes spec.replicas and the replicas annotations of the stored
// ReplicaSet and nothing else of its metadata: when nothing keeps stored
// ReplicaSets across a write (no invariant checker, whose captures hold
// them, and no informer delay, whose cache holds them), obj is copied into
// the stored object, as the ReplicaSet controller's status writes are,
// instead of a new one.
func (s *Sim) scaleReplicaSet(obj *appsv1.ReplicaSet) error {
	if s.checks != nil || s.delayed() || obj == nil {
		return s.updateReplicaSet(obj, false)
	}
	st, done, err := s.st.ScaleReplicaSetInPlace(obj)
	if !done {
		return s.updateReplicaSet(obj, false)
	}
	if err != nil {
		return err
	}
	rs := st.Obj
	s.syncRSState(st, rs)
	s.logReplicaSetWrite(s.by(), "update", rs)
	// rsChanged(rs, rs): the owner references are the same
	s.rsStatusChanged(rs, st)
	return nil
}

// deleteReplicaSet deletes a ReplicaSet with a UID precondition; the garbage
// collector then deletes its pods gracefully (background propagation).
func (s *Sim) deleteReplicaSet(namespace, name string, uid types.UID) error {
	st, err := s.st.DeleteReplicaSet(namespace, name, uid)
	if err != nil {
		return err
	}
	old := st.Obj
	s.logReplicaSetWrite(s.by(), "delete", old)
	s.informReplicaSet(old, true)
	s.c.Delete(st)
	s.rsChanged(old, nil)
	return nil
}

// rsChanged is the informer fan-out of a ReplicaSet change: the ReplicaSet
// controller queues the ReplicaSet, the Deployment controller queues the
// owning Deployment(s), or for an orphan every Deployment selecting it.
func (s *Sim) rsChanged(old, cur *appsv1.ReplicaSet) {
	s.notifyOwners(old, cur)
	if cur != nil {
		if st := s.st.ReplicaSets[s.st.Key(cur.Namespace, cur.Name)]; st != nil {
			s.notifyItem(st.Item)
		} else {
			s.notifyRS(s.st.Key(cur.Namespace, cur.Name))
		}
	}
}

// notifyOwners is the Deployment controller's part of a ReplicaSet
// change's fan-out: the Deployment that controls old or cur, or, for an
// orphan, every Deployment whose selector matches it.
func (s *Sim) notifyOwners(old, cur *appsv1.ReplicaSet) {
	var seenBuf [4]string
	seen := seenBuf[:0] // Deployments queued so far (usually one)
	for _, rs := range [2]*appsv1.ReplicaSet{old, cur} {
		if rs == nil {
			continue
		}
		if ref := metav1.GetControllerOfNoCopy(rs); ref != nil {
			if ref.Kind == "Deployment" {
				key := s.st.Key(rs.Namespace, ref.Name)
				s.met.touch(key)
				if d := s.st.Deployments[key]; d != nil && d.UID == ref.UID && !slices.Contains(seen, key) {
					seen = append(seen, key)
					s.notifyDeployment(key)
				}
			}
			continue
		}
		for _, key := range sortedKeys(s.st.Deployments) {
			d := s.st.Deployments[key]
			if d.Namespace == rs.Namespace && !slices.Contains(seen, key) && deploymentSelects(d, rs.Labels) {
				seen = append(seen, key)
				s.notifyDeployment(key)
			}
		}
	}
}

// rsStatusChanged is rsChanged(nil, rs) for a status write of rs, whose
// state is st: the owner's key and work-queue item come from st (a status
// write changes no owner reference) instead of map look-ups.
func (s *Sim) rsStatusChanged(rs *appsv1.ReplicaSet, st *cluster.ReplicaSet) {
	ref := metav1.GetControllerOfNoCopy(rs)
	if ref == nil || ref.Kind != "Deployment" || st.OwnerItem == nil {
		s.rsChanged(nil, rs)
		return
	}
	s.met.touch(st.OwnerKey)
	if d := s.st.Deployments[st.OwnerKey]; d != nil && d.UID == ref.UID && !s.quietForController() {
		s.notifyItem(st.OwnerItem)
	}
	s.notifyItem(st.Item)
}

// syncRSState refreshes the cluster's record of a ReplicaSet after a
// write stored rs (package cluster: its controller, minReadySeconds), and
// the work-queue item of its controlling Deployment.
func (s *Sim) syncRSState(st *cluster.ReplicaSet, rs *appsv1.ReplicaSet) {
	s.c.Refresh(st, rs)
	st.OwnerItem = nil
	if st.OwnerKey != "" {
		st.OwnerItem = s.wq.Item(queueKey{Ctrl: ctrlDeployment, Name: st.OwnerKey})
	}
}

// createDeployment stores a new Deployment, defaulted as the API server
// defaults every write (rollout.Default: the v1.37 defaults, pod template
// included, so ReplicaSet names are a cluster's).
func (s *Sim) createDeployment(d *appsv1.Deployment) error {
	d = rollout.Default(d) // a copy
	key, err := s.st.CreateDeployment(d, s.stamp())
	if err != nil {
		return err
	}
	s.maxSpecReplicas = max(s.maxSpecReplicas, replicas(d))
	s.logDeploymentWrite("create", d)
	s.informDeployment(key, d)
	s.notifyDeployment(key)
	s.met.touch(key)
	s.observeRestart(d)
	if s.checks != nil {
		s.checks.userChange(key)
	}
	return nil
}

// writeDeploymentSpec stores a user's change of a Deployment (metadata and
// spec), defaulted as the API server defaults every write (an edit of a
// stored object changes no default, but an edit may add a container, a
// probe or a volume), bumping generation when the spec or the annotations
// changed (the apps registry's rule: annotations are copied to
// ReplicaSets).
func (s *Sim) writeDeploymentSpec(old, d *appsv1.Deployment) {
	d = rollout.Default(d)
	key := s.st.ReplaceDeployment(old, d)
	s.maxSpecReplicas = max(s.maxSpecReplicas, replicas(d))
	if s.syncDep == old {
		s.syncDep = nil // replaced
	}
	s.logDeploymentWrite("update", d)
	s.informDeployment(key, d)
	s.notifyDeployment(key)
	s.met.touch(key)
	s.observeRestart(d)
}

// storedForWrite returns the stored Deployment that a write of obj
// replaces, and its key, after the API server's checks.
func (s *Sim) storedForWrite(obj *appsv1.Deployment, verb string) (*appsv1.Deployment, string, error) {
	if obj == nil {
		return nil, "", fmt.Errorf("%s: nil object", verb)
	}
	return s.st.WritableDeployment(obj)
}

func (s *Sim) updateDeployment(obj *appsv1.Deployment) error {
	old, _, err := s.storedForWrite(obj, "update deployment")
	if err != nil {
		return err
	}
	d := rollout.Default(obj)
	s.writeDeploymentSpec(old, d)
	return nil
}

// updateDeploymentStatus writes the status subresource: status and, as the
// apps registry does, metadata.annotations; the rest of obj is ignored. The
// planner ([rollout.Planner]) reuses the Deployment it wrote at its next
// plan, so its status and annotations are copied into the stored
// Deployment, which is updated in place — like the ReplicaSet controller's
// status writes, an exception to "stored objects are never modified in
// place" (see store): nothing keeps a stored Deployment across a write, and
// the invariant checker captures a copy.
func (s *Sim) updateDeploymentStatus(obj *appsv1.Deployment) error {
	var old *appsv1.Deployment
	var key string
	it := s.syncItem
	if d := s.syncDep; it != nil && d != nil && obj != nil && obj.Name == d.Name && obj.Namespace == d.Namespace {
		// the synced Deployment's own write: the sync read the stored object
		old, key = d, it.Key.Name
		if obj.ResourceVersion != "" && obj.ResourceVersion != old.ResourceVersion {
			return apiserver.Conflict("deployments.apps", obj.Name)
		}
	} else {
		var err error
		if old, key, err = s.storedForWrite(obj, "update deployment status"); err != nil {
			return err
		}
		it = s.wq.Item(queueKey{Ctrl: ctrlDeployment, Name: key})
	}
	s.st.WriteDeploymentStatus(old, obj, s.storeConditions(it, old, old.Status.Conditions, obj.Status.Conditions))
	s.logDeploymentWrite("status", old)
	s.informDeployment(key, old)
	if !s.quietForController() {
		s.notifyItem(it)
	}
	s.met.touch(key)
	s.observeRestart(old)
	return nil
}

// storeConditions returns the conditions a status write stores in d (the
// Deployment of the work-queue item it), whose conditions were prev, from
// conds: the plan's (which the Planner reuses at its next plan, see
// rollout.Planner) or prev itself. They are copied, times cut to the
// second as the API server stores them, into d's own array, which the
// simulator allocated for this Deployment object and edits in place from
// one status write to the next (the invariant checker captures a copy;
// nothing else keeps a stored Deployment's conditions across a write).
// With an informer delay, whose cache holds shallow copies of the written
// objects, each write gets a new array.
func (s *Sim) storeConditions(it *wqItem, d *appsv1.Deployment, prev, conds []appsv1.DeploymentCondition) []appsv1.DeploymentCondition {
	if len(conds) == 0 {
		return conds
	}
	var out []appsv1.DeploymentCondition
	if !s.delayed() && it.X.CondsOwner == d && cap(prev) >= len(conds) {
		out = prev[:len(conds)]
	} else {
		out = make([]appsv1.DeploymentCondition, len(conds), max(len(conds), 4))
		if !s.delayed() {
			it.X.CondsOwner = d
		}
	}
	if &out[0] == &conds[0] {
		return out // unchanged: the plan shared them (cut already)
	}
	copy(out, conds)
	for i := range out {
		c := &out[i]
		if c.LastUpdateTime.Nanosecond() != 0 {
			c.LastUpdateTime = truncTime(c.LastUpdateTime)
		}
		if c.LastTransitionTime.Nanosecond() != 0 {
			c.LastTransitionTime = truncTime(c.LastTransitionTime)
		}
	}
	return out
}

// podsOf returns the pods of d's ReplicaSets as API objects (for the
// Recreate strategy, which checks that no old pod is still running).
func (s *Sim) podsOf(d *appsv1.Deployment) []*corev1.Pod {
	var out []*corev1.Pod
	for _, rs := range s.st.OwnedReplicaSets(d) {
		st := s.st.ReplicaSets[objKey(rs.Namespace, rs.Name)]
		for _, p := range st.Pods {
			out = append(out, podObject(p, rs))
		}
	}
	return out
}

// podObject renders the pod p of rs as an API object (for snapshots).
func podObject(p *cluster.Pod, rs *appsv1.ReplicaSet) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: p.Name, Namespace: p.Namespace, UID: p.UID, Labels: p.Labels,
			CreationTimestamp: truncTime(metav1.NewTime(Epoch.Add(p.Created))),
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))},
		},
		Spec:   corev1.PodSpec{NodeName: p.NodeName()},
		Status: corev1.PodStatus{Phase: p.Phase},
	}
	if p.Terminating {
		t := truncTime(metav1.NewTime(Epoch.Add(p.DeletedAt)))
		pod.DeletionTimestamp = &t
	}
	return pod
}
