package sim

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim/internal/cluster"
	"github.com/deploymath/deploymath/sim/internal/correlator"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

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
	// Reconciles counts the reconciles of the controllers of
	// [Options].Controllers.
	Reconciles int
}

// Sim is one run of a scenario: the virtual clock, the event queue, the
// seeded random generator, the store and the controllers. Create it with
// [New], run it with [Sim.Run]. A Sim is single-use and not safe for
// concurrent use.
type Sim struct {
	// rsOwners indexes the ReplicaSets by controller; readBuf and
	// readOut are readableBy's buffers; smallNS is the most ReplicaSets
	// of a namespace it gives whole (smallNamespace; 0 in tests of the
	// index).
	rsOwners replicaSetOwners
	readBuf  []*cluster.ReplicaSet
	readOut  []*appsv1.ReplicaSet
	smallNS  int
	sc       *Scenario
	opts     Options
	rng      *rand.Rand
	seed     uint64
	now      time.Duration
	until    time.Duration
	// wallNow is wall() at wallFor (computed once an instant, not once a
	// sync)
	wallNow time.Time
	wallFor time.Duration

	q  eventQueue
	wq workQueue
	st *store
	// c is the cluster around the Deployment controller: the ReplicaSet
	// controller, scheduler, kubelets, nodes (package cluster).
	c *cluster.Cluster

	stopWhenConverged bool
	// nodesChanged: a node event at this instant (see nodeRows)
	nodesChanged, nodesShown bool
	// byName finds a step's Deployment by name (see target), made for
	// byNameOf Deployments
	byName   map[string]string
	byNameOf int
	// unsettled holds ReplicaSet records that may have pods terminating
	// (see podsSettled), once settledInit
	unsettled   []*cluster.ReplicaSet
	settledInit bool
	settledSeen map[*cluster.ReplicaSet]uint64 // the call that kept it
	settledCall uint64
	lastStepAt  time.Duration
	stepsLeft   int
	instant     uint64 // number of the current instant (for wqItem.syncs)
	progressAt  int    // stats.Events at the last Options.Progress call

	cur       *Frame // frame being built for the current instant
	trace     Trace
	maxFrames int    // MaxTraceFrames (tests lower it)
	prev      string // rendering of the last frame's state, for change detection (FullView)
	// prevObjects is the rendering of the object rows the trace showed
	// last (a trace of changes)
	prevObjects string
	met         metrics
	stats       Stats
	checks      *checker
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
	// kinds are the run's kinds; host its hosted controllers (host.go).
	kinds *kinds
	host  host
	// hostCache is the hosted controllers' informer view, with
	// cluster.informerDelay only (informerview.go).
	hostCache *hostCache
	// custom are the scenario's objects of custom kinds, decoded; loading
	// says the scenario's objects are being stored (the hosted
	// controllers start after, with their informers' first list).
	custom  []Object
	loading bool
	// stepObjs are the custom objects of the apply steps, decoded.
	stepObjs map[*Step]Object
	// userInv checks the invariants of Options.Invariants.
	userInv *userChecks
	// noDeploymentController: cluster.deploymentController is false.
	noDeploymentController bool
	// generic is the built-in Deployment controller as a hosted
	// controller (Options.genericBuiltins), nil on the fast path;
	// viewDelivering says the hosted view is delivering a change.
	generic        *hosted
	viewDelivering bool
	// genericRestart is the built-in restart controller as a hosted
	// controller (Options.genericBuiltins with cluster.restart), nil on
	// the fast path.
	genericRestart *hosted
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
		rsOwners:  replicaSetOwners{},
		smallNS:   smallNamespace,
		maxFrames: MaxTraceFrames,
		sc:        sc,
		opts:      o,
		rng:       rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		seed:      seed,
		until:     until,
		wq:        newWorkQueue(),
		st:        newStore(),
	}
	s.trace.fullStops, s.trace.Full = o.FullStops, o.FullView
	s.q.q.OnInstant = s.q.touchInstant
	// room for a start-up timer per replica, all queued at once when the
	// Deployments are created
	s.q.q.Grow(podsHint(sc) / 2)
	s.c = cluster.New(clusterConfig(sc, o), (*engine)(s), s.rng, s.st)
	for _, n := range sc.Cluster.Nodes {
		s.c.AddNode(n.Name, n.Capacity, true)
	}
	if sc.state != nil {
		s.stateNodes(sc.state)
	}
	if sc.objState != nil {
		s.stateNodes(sc.objState)
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
	if s.kinds, err = newKinds(o.Scheme); err != nil {
		return nil, err
	}
	if s.custom, err = s.decodeCustom(); err != nil {
		return nil, err
	}
	s.noDeploymentController = sc.Cluster.DeploymentController != nil && !*sc.Cluster.DeploymentController
	if err := s.addControllers(o.Controllers); err != nil {
		return nil, err
	}
	if err := s.checkHostedSteps(); err != nil {
		return nil, err
	}
	if s.userInv, err = newUserChecks(o.Invariants); err != nil {
		return nil, err
	}
	s.met.init()
	return s, nil
}

// podsHint is twice the room the event queue starts with: twice the
// replicas of the scenario's Deployments (a rollout with maxSurge 100%
// doubles them), at most 524,288 (beyond, the queue grows as before:
// presizing it for a million replicas would cost more peak memory than
// growing costs time).
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
	s.q.push(s.until, event{kind: evUntil})
	for s.q.len() > 0 && s.failed == nil {
		// popped before the instant it opens is closed: closing an instant
		// queues nothing, and the run ends at an event it does not handle
		at, e := s.q.pop()
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
	s.endTrace()
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
	if s.userInv != nil && len(s.userInv.violations) > 0 {
		res.Violations = append(res.Violations, s.userInv.violations...)
		slices.SortStableFunc(res.Violations, func(a, b Violation) int { return cmp.Compare(a.At, b.At) })
	}
	return res, nil
}

// handle dispatches one event.
func (s *Sim) handle(e event) {
	switch e.kind {
	case evStep:
		if s.sc.Steps[e.n].When != nil {
			s.armStep(int(e.n))
		} else {
			s.runStep(int(e.n))
		}
	case evStepTimeout:
		s.stepTimedOut(int(e.n))
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
			if !s.noDeploymentController && s.generic == nil {
				s.syncDeployment(it)
			}
		case ctrlReplicaSet:
			s.syncReplicaSet(it)
		default:
			s.reconcile(it)
		}
	case evCluster:
		if e.node != nil {
			s.nodesChanged = true // a node's lifecycle: the trace shows the nodes
		}
		s.c.Fire(e.timer())
	case evInform:
		s.deliver()
	case evHostInform:
		s.deliverToView()
	case evHostTick:
		s.tick(e.n, s.now)
	case evRestartTick:
		s.restartTick(s.now)
	case evTimer:
		if s.wq.Due(e.item, s.now) {
			s.addItem(e.item)
		}
	}
}

// add puts key in the work queue now (informer-style, deduplicated).
func (s *Sim) add(k queueKey) { s.addItem(s.wq.Item(k)) }

func (s *Sim) addItem(it *wqItem) {
	if s.wq.Add(it) {
		s.q.push(s.now, event{kind: evProcess, item: it})
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
		s.q.push(at, event{kind: evTimer, item: it})
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
func (s *Sim) wall() time.Time {
	if s.wallFor != s.now || s.wallNow.IsZero() {
		s.wallNow, s.wallFor = Epoch.Add(s.now), s.now
	}
	return s.wallNow
}

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
	s.checkUser()
	s.met.observe(s)
	if s.checks != nil {
		s.checks.instant()
	}
	stop := s.stopWhenConverged && s.stepsLeft == 0 && s.converged()
	if !s.opts.NoTrace {
		s.recordFrame(stop)
	}
	s.cur = nil
	if s.opts.Progress != nil && s.stats.Events-s.progressAt >= ProgressEvery {
		s.progressAt = s.stats.Events
		s.opts.Progress(Progress{Now: s.now, Until: s.until, Events: s.stats.Events, Pods: s.c.PodCount()})
	}
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
	// the summary's count, refreshed at the end of the instant, of the
	// Deployments deploymentComplete says are not
	if s.met.nIncomplete > 0 {
		return false
	}
	return s.podsSettled()
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
