// Package cluster is the simulator's model of the cluster around the
// Deployment controller: the ReplicaSet controller (pod creation with slow
// start, deletion in upstream's ranking, status), the scheduler
// (round-robin over nodes with room), the kubelets (pods starting, ready,
// available, crash-looping, terminating), the node lifecycle controller
// and its taint eviction, pod GC, and quota admission of pod creations.
//
// The model keeps, for each ReplicaSet the API server stores, a record of
// its pods and the counts its controller reports ([ReplicaSet]), kept
// incrementally as pods change; and for each pod the little a controller
// looks at ([Pod]). It acts only when the engine asks it to (a ReplicaSet
// sync, a timer that comes due, a user's step) and tells the engine what
// follows through [Engine]: timers to schedule, work-queue keys to queue,
// the status writes it makes, notes for the trace.
package cluster

import (
	"math/rand/v2"
	"time"

	"github.com/deploymath/deploymath/sim/internal/apiserver"
	"github.com/deploymath/deploymath/sim/internal/ranking"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Engine is what the cluster model needs of the simulator running it.
type Engine interface {
	// Now is the virtual time.
	Now() time.Duration
	// Schedule queues t to be fired ([Cluster.Fire]) at at.
	Schedule(at time.Duration, t Timer)
	// Note adds a line to the trace of the current instant.
	Note(format string, args ...any)
	// Notify is the pod informer of the ReplicaSet controller: a pod of
	// the ReplicaSet of work-queue item it changed.
	Notify(it *QueueItem)
	// PodDeleted is the Deployment controller's pod informer: a pod of rs
	// is gone from the API server.
	PodDeleted(rs *ReplicaSet)
	// StatusWritten is the API server accepting the status of rs that
	// the ReplicaSet controller set in place in rs's stored object.
	StatusWritten(rs *ReplicaSet)
}

// Range is a range of durations; a draw is uniform over it in whole
// milliseconds.
type Range struct{ Min, Max time.Duration }

// FailureRule gives the pods whose template it matches a failure mode, with
// a probability (nil: always).
type FailureRule struct {
	Matches     func(*corev1.PodTemplateSpec) bool
	Probability *float64
	Mode        FailureMode
}

// Config is the cluster's behaviour.
type Config struct {
	// Epoch is the wall-clock instant of the virtual time 0.
	Epoch time.Time
	// Startup, Readiness and Termination are how long a pod takes to
	// start its containers once bound, to pass its readiness probe once
	// running, and to exit once deleted.
	Startup, Readiness, Termination Range
	// EvictionTimeout is how long the pods of a failed or unreachable
	// node stay before they are evicted; NodeMonitorGracePeriod how long
	// a node's silence lasts before the node controller marks it
	// Ready=Unknown.
	EvictionTimeout, NodeMonitorGracePeriod time.Duration
	// PodQuota, when positive, is the most pods the cluster holds.
	PodQuota int
	// Failures are tried in order on each new pod.
	Failures []FailureRule
	// DisableTerminatingReplicas leaves status.terminatingReplicas unset
	// (the DeploymentReplicaSetTerminatingReplicas feature off).
	DisableTerminatingReplicas bool
}

// Store is the API server's store, with the cluster's record beside each
// ReplicaSet.
type Store = apiserver.Store[*ReplicaSet]

// NewStore returns an empty store.
func NewStore() *Store { return apiserver.New[*ReplicaSet]() }

// Stats count what the cluster did.
type Stats struct {
	// ReplicaSetSyncs counts syncs of the ReplicaSet controller.
	ReplicaSetSyncs int
	// PodsCreated counts pods created by the ReplicaSet controller.
	PodsCreated int
}

// Cluster is the model. Create it with New; not safe for concurrent use.
type Cluster struct {
	cfg Config
	e   Engine
	rng *rand.Rand
	st  *Store

	// Nodes are the nodes, in the order they were added.
	Nodes []*Node
	// Stats count the cluster's work.
	Stats Stats

	next int // round-robin cursor of the scheduler
	// unscheduled[waitHead:] are the pods waiting for room, in creation
	// order (see retrySchedule).
	unscheduled []*Pod
	waitHead    int
	// colo holds, by controller owner, the active pods per node slot (the
	// deletion ranking's co-location rank).
	colo    map[string][]int32
	picker  ranking.Picker // the deletion ranking, with its buffers
	podFree []Pod          // the rest of the current chunk of pods (see newPod)
	names   podNames       // the pods by name
	// quotas are the pod quotas by namespace, nsPods the pods they count
	// (nil without any).
	quotas map[string][]podQuota
	nsPods map[string]int64

	// OnPod, when set, is told of every change of a pod (after the
	// ReplicaSet's counts and its informer notification; a removed pod
	// is Gone), and OnNode of every change of a node: the watches of
	// controllers beyond the Deployment and ReplicaSet controllers.
	OnPod  func(*Pod)
	OnNode func(*Node)
}

// New returns a cluster without nodes that stores its objects in st and
// draws from rng (shared with the engine: the order of draws is part of a
// run).
func New(cfg Config, e Engine, rng *rand.Rand, st *Store) *Cluster {
	return &Cluster{cfg: cfg, e: e, rng: rng, st: st, colo: map[string][]int32{}, names: newPodNames()}
}

// nodeChanged tells OnNode of a change of n.
func (c *Cluster) nodeChanged(n *Node) {
	if c.OnNode != nil {
		c.OnNode(n)
	}
}

// TimerKind says what a timer does when it fires.
type TimerKind uint8

// The timers of pods and nodes.
const (
	PodRunning   TimerKind = iota + 1 // containers started
	PodReady                          // readiness probe passed
	PodAvailable                      // ready for minReadySeconds
	PodCrash                          // a crash-looping container restarts
	PodGone                           // graceful termination finished
	NodeEvict                         // eviction timeout of a failed or unreachable node over
	NodeMonitor                       // node-monitor grace period of an unreachable node over
	NodeGC                            // pod GC's quarantine of a deleted node over
)

// Timer is something the cluster does later: a pod's or a node's next
// step. A timer set before its pod or node changed again is stale and
// does nothing (Gen).
type Timer struct {
	Kind TimerKind
	Gen  uint32
	Pod  *Pod
	Node *Node
}

// Fire runs a timer that came due.
func (c *Cluster) Fire(t Timer) {
	switch t.Kind {
	case NodeEvict:
		c.evictNode(t.Node, t.Gen)
	case NodeMonitor:
		c.markNodeUnknown(t.Node, t.Gen)
	case NodeGC:
		c.collectNodePods(t.Node)
	default:
		c.podTimerFired(t)
	}
}

// podTimer schedules a timer of p after a delay.
func (c *Cluster) podTimer(p *Pod, kind TimerKind, after time.Duration) {
	c.e.Schedule(c.e.Now()+after, Timer{Kind: kind, Pod: p, Gen: p.gen})
}

// nodeTimer schedules a timer of n after a delay.
func (c *Cluster) nodeTimer(n *Node, kind TimerKind, after time.Duration) {
	c.e.Schedule(c.e.Now()+after, Timer{Kind: kind, Node: n, Gen: n.gen})
}

// draw returns a duration uniformly distributed over the range, in whole
// milliseconds.
func (c *Cluster) draw(r Range) time.Duration {
	lo, hi := r.Min, r.Max
	if hi <= lo {
		return lo
	}
	steps := int64((hi - lo) / time.Millisecond)
	return lo + time.Duration(c.rng.Int64N(steps+1))*time.Millisecond
}

// stamp is the virtual now as the API server stores it (seconds).
func (c *Cluster) stamp() metav1.Time {
	return metav1.NewTime(c.cfg.Epoch.Add(c.e.Now()).Truncate(time.Second))
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// PodGen is the generation of the timer's pod (0 without one), and
// RankWord its ranking word: an engine reads them for the timers of an
// instant before firing them, in loops of independent loads, so that the
// cache misses of pods long out of cache overlap.
func (t *Timer) PodGen() uint32 {
	if t.Pod == nil {
		return 0
	}
	return t.Pod.gen
}

// RankWord: see PodGen.
func (t *Timer) RankWord() uint64 {
	if p := t.Pod; p != nil && p.RS != nil && int(p.idx) < len(p.RS.hot) {
		return p.RS.hot[p.idx]
	}
	return 0
}
