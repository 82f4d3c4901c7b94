package cluster

import (
	"fmt"
	"time"

	"github.com/deploymath/deploymath/sim/internal/ranking"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// FailureMode is how the containers of a pod behave.
type FailureMode uint8

// The failure modes.
const (
	ModeHealthy    FailureMode = iota // starts, becomes ready, keeps running
	ModeCrashLoop                     // starts, crashes, restarts with back-off, never ready
	ModeNeverReady                    // runs, readiness probe never passes
	ModePullError                     // image cannot be pulled: stays Pending
)

// Pod is the model of a pod: only what the controllers look at.
//
// The fields a pod timer, the accounting and the ranking read come first,
// in the first 64 bytes, and pods are allocated in chunks (see newPod) at
// a 64-byte stride: a pod's timer, which lands at a random moment long
// after the pod was last touched, then costs one cache line.
type Pod struct {
	// gen is bumped on every state change; timers set before are stale.
	gen uint32
	// Terminating is set once the pod is deleted (deletionTimestamp).
	Terminating bool
	gone        bool
	Ready       bool
	Available   bool
	// lostReady says the node controller marked the pod not ready while
	// its node was unreachable: the kubelet reports it ready again when
	// the node comes back.
	lostReady bool
	inRS      bool
	Mode      FailureMode
	Restarts  int32
	Node      *Node
	RS        *ReplicaSet
	Phase     corev1.PodPhase
	idx       int32 // index in RS.Pods
	// code is the suffix code of the pod's name in its set of names:
	// RS.names when inRS (a pod the ReplicaSet controller created), names
	// otherwise (see podNames).
	code    uint32
	ReadyAt time.Duration

	Created   time.Duration
	DeletedAt time.Duration
	uidNum    uint64            // the counter UID was made from: UIDs compare like it
	Labels    map[string]string // shared with the template; never modified
	Name      string
	Namespace string
	UID       types.UID
	// names is the set of generated names the pod's name is in, unless
	// inRS (nil: a name of another shape).
	names *nameSet
	_     [40]byte // to a multiple of 64 bytes
}

// podChunk is how many pods newPod allocates at once.
const podChunk = 128

// newPod returns a zero pod from the current chunk (a new chunk when it is
// used up).
func (c *Cluster) newPod() *Pod {
	if len(c.podFree) == 0 {
		c.podFree = make([]Pod, podChunk)
	}
	p := &c.podFree[0]
	c.podFree = c.podFree[1:]
	return p
}

// Gone reports whether p was removed from the API server.
func (p *Pod) Gone() bool { return p.gone }

// Active reports whether the pod counts as a replica: not deleted, not
// terminal.
func (p *Pod) Active() bool { return !p.Terminating && !p.Terminal() }

// Terminal reports whether the pod's phase is Succeeded or Failed: its
// containers exited for good, the ReplicaSet controller no longer counts
// it, and the node has its room back.
func (p *Pod) Terminal() bool {
	return p.Phase == corev1.PodSucceeded || p.Phase == corev1.PodFailed
}

// NodeName is the name of the pod's node, "" when unassigned.
func (p *Pod) NodeName() string {
	if p.Node == nil {
		return ""
	}
	return p.Node.Name
}

// nodeSlot is the pod's index in the co-location counts: 0 when
// unassigned.
func (p *Pod) nodeSlot() int32 {
	if p.Node == nil {
		return 0
	}
	return p.Node.slot
}

// podFlags is the part of a pod's state the ReplicaSet counts depend on.
type podFlags struct {
	active, ready, available, terminating, terminal bool
	slot                                            int32
}

func (p *Pod) flags() podFlags {
	if p.gone {
		return podFlags{}
	}
	terminal := p.Terminal()
	active := !p.Terminating && !terminal // Active, with the phase compared once
	ready := active && p.Ready
	return podFlags{active: active, ready: ready, available: ready && p.Available,
		terminating: p.Terminating && !terminal, terminal: terminal, slot: p.nodeSlot()}
}

// account updates the ReplicaSet counts and co-location ranks after a pod
// changed from before to its current state, and queues the ReplicaSet as the
// pod informer would.
func (c *Cluster) account(p *Pod, before podFlags) {
	after := p.flags()
	p.gen++
	if c.quotas != nil {
		c.countQuotaPod(p, before, after)
	}
	if st := p.RS; st != nil {
		st.Active += b2i(after.active) - b2i(before.active)
		st.Ready += b2i(after.ready) - b2i(before.ready)
		st.Available += b2i(after.available) - b2i(before.available)
		st.Terminating += b2i(after.terminating) - b2i(before.terminating)
		st.Terminal += b2i(after.terminal) - b2i(before.terminal)
		if before.active {
			st.colo[before.slot]--
		}
		if after.active {
			st.colo[after.slot]++
		}
		switch {
		case p.gone:
		case st.index != nil:
			st.setIndexedMeta(p)
		default:
			st.setMeta(int(p.idx), p.rankMeta())
		}
		if st.Item.X.RS == st { // the ReplicaSet is still stored
			c.e.Notify(st.Item)
		}
	}
	if c.OnPod != nil {
		c.OnPod(p)
	}
}

// newPodName is generateName's suffix: 5 characters from the API server's
// alphabet, drawn from the run's generator until the name is free. It
// returns the name and its suffix code in set, the names of prefix.
func (c *Cluster) newPodName(prefix string, set *nameSet) (string, uint32) {
	var buf [64]byte // prefixes are at most 58 bytes (see createPod)
	b := append(append(buf[:0], prefix...), "-xxxxx"...)
	for {
		var code uint32
		for i := len(b) - suffixLen; i < len(b); i++ {
			d := c.rng.IntN(len(podNameAlphabet))
			b[i] = podNameAlphabet[d]
			code = code*uint32(len(podNameAlphabet)) + uint32(d)
		}
		if set.get(code) == nil {
			return c.st.Str(b), code
		}
	}
}

// Pod returns the pod of that name, or nil.
func (c *Cluster) Pod(name string) *Pod { return c.names.get(name) }

// Pods returns every pod, in name order.
func (c *Cluster) Pods() []*Pod { return c.names.sorted() }

// PodCount is the number of pods (terminating ones included).
func (c *Cluster) PodCount() int { return c.names.n }

// createPod creates one pod of rs (the ReplicaSet controller's create).
func (c *Cluster) createPod(rs *appsv1.ReplicaSet, st *ReplicaSet) error {
	// generateName uses the ReplicaSet name plus "-", truncated like the
	// API server does to leave room for the suffix.
	prefix := rs.Name
	if len(prefix) > 58 {
		prefix = prefix[:58]
	}
	if st.names == nil {
		st.names = c.names.set(prefix)
		st.names.reserve(cap(st.Pods)) // the room reserve made for the ReplicaSet's pods
	}
	name, code := c.newPodName(prefix, st.names)
	if err := c.quotaError(name, rs.Namespace); err != nil {
		return err
	}
	uid, uidNum := c.st.NextUIDNum()
	p := c.newPod()
	*p = Pod{
		Name: name, Namespace: rs.Namespace, UID: uid, uidNum: uidNum, Labels: rs.Spec.Template.Labels,
		RS: st, Created: c.e.Now(), Phase: corev1.PodPending, idx: int32(len(st.Pods)),
	}
	p.Mode = c.failureModeFor(&rs.Spec.Template)
	p.inRS, p.code = true, code
	st.names.put(code, p)
	c.names.n++
	st.Pods = append(st.Pods, p)
	st.meta = append(st.meta, ranking.Pod{})
	st.hot = append(st.hot, 0)
	c.Stats.PodsCreated++
	c.account(p, podFlags{})
	c.schedule(p)
	return nil
}

// failureModeFor applies the failure rules to a new pod.
func (c *Cluster) failureModeFor(t *corev1.PodTemplateSpec) FailureMode {
	for _, r := range c.cfg.Failures {
		if !r.Matches(t) {
			continue
		}
		if r.Probability != nil && *r.Probability < 1 && c.rng.Float64() >= *r.Probability {
			continue
		}
		return r.Mode
	}
	return ModeHealthy
}

// DeletePod deletes p gracefully: it is terminating (not counted as a
// replica) until its containers exit, then it is gone.
func (c *Cluster) DeletePod(p *Pod) {
	if p.gone || p.Terminating {
		return
	}
	before := p.flags()
	p.Terminating = true
	p.DeletedAt = c.e.Now()
	p.Ready, p.Available = false, false
	c.account(p, before)
	if p.Node == nil || p.Terminal() {
		// not scheduled, or its containers exited: the API server
		// deletes it at once (grace period 0)
		c.removePod(p)
		return
	}
	if p.Node.Unreachable || p.Node.Deleted {
		return // Terminating until the kubelet confirms or PodGC removes it
	}
	grace := c.draw(c.cfg.Termination)
	if p.Phase == corev1.PodPending {
		grace = 0 // nothing runs yet: the kubelet removes it at once
	}
	if grace == 0 {
		c.removePod(p)
		return
	}
	c.podTimer(p, PodGone, grace)
}

// removePod removes a pod from the store (its containers exited).
func (c *Cluster) removePod(p *Pod) {
	if p.gone {
		return
	}
	before := p.flags()
	p.gone = true
	c.names.remove(p)
	if st := p.RS; st != nil {
		if st.index != nil {
			st.index.Remove(int(p.idx), &st.meta[p.idx])
		}
		last := len(st.Pods) - 1
		moved := st.Pods[last]
		st.Pods[p.idx] = moved
		moved.idx = p.idx
		st.Pods[last] = nil
		st.Pods = st.Pods[:last]
		st.meta[p.idx] = st.meta[last]
		st.meta = st.meta[:last]
		st.hot[p.idx] = st.hot[last]
		st.hot = st.hot[:last]
	}
	if p.Node != nil && !before.terminal {
		p.Node.used-- // a terminal pod gave its room back already
	}
	c.account(p, before)
	if st := p.RS; st != nil {
		c.e.PodDeleted(st)
	}
	c.retrySchedule()
}

// podsOnNode lists the pods bound to n in name order.
func (c *Cluster) podsOnNode(n *Node) []*Pod {
	var out []*Pod
	for _, p := range c.names.sorted() {
		if p.Node == n {
			out = append(out, p)
		}
	}
	return out
}

// quotaError is the pod creation failure of a namespace over its pod
// quota: Config.PodQuota, or a quota of the namespace (see AddQuota).
func (c *Cluster) quotaError(name, namespace string) error {
	if err := c.nsQuotaError(name, namespace); err != nil {
		return err
	}
	q := c.cfg.PodQuota
	if q <= 0 || c.names.n < q {
		return nil
	}
	return fmt.Errorf("pods %q is forbidden: exceeded quota: pods, requested: pods=1, used: pods=%d, limited: pods=%d", name, c.names.n, q)
}

// SetFailures replaces the failure rules for the pods created from now on.
func (c *Cluster) SetFailures(rules []FailureRule) { c.cfg.Failures = rules }
