package sim

import (
	"fmt"
	"slices"
	"time"

	"github.com/deploymath/deploymath/sim/internal/ranking"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// nodeState is a simulated node: a name, a pod capacity and whether it is down
// (failed), unreachable (its kubelet stopped reporting) or deleted.
type nodeState struct {
	Name     string
	Capacity int
	used     int
	down     bool
	// unreachable: the kubelet does not report (pod timers are dropped);
	// tainted: the node controller has marked the node Ready=Unknown and
	// tainted it unreachable (no scheduling); deleted: the Node object is
	// gone.
	unreachable, tainted, deleted bool
	gen                           uint32
	slot                          int32 // index in the co-location counts: position in Sim.nodes + 1
}

// schedulable reports whether the scheduler may bind pods to n.
func (n *nodeState) schedulable() bool { return !n.down && !n.tainted && !n.deleted }

// failureMode is how the containers of a pod behave.
type failureMode uint8

const (
	modeHealthy    failureMode = iota
	modeCrashLoop              // starts, crashes, restarts with back-off, never ready
	modeNeverReady             // runs, readiness probe never passes
	modePullError              // image cannot be pulled: stays Pending
)

// podState is the simulator's model of a pod: only what the controllers look at.
//
// The fields a pod timer, the accounting and the ranking read come first,
// in the first 64 bytes, and pods are allocated in chunks (see newPod) at
// a 64-byte stride: a pod's timer, which lands at a random moment long
// after the pod was last touched, then costs one cache line.
type podState struct {
	gen uint32 // bumped on every state change; stale timers are ignored
	// Terminating is set once the pod is deleted (deletionTimestamp).
	Terminating bool
	gone        bool
	ready       bool
	available   bool
	// lostReady says the node controller marked the pod not ready while
	// its node was unreachable: the kubelet reports it ready again when
	// the node comes back.
	lostReady bool
	mode      failureMode
	restarts  int32
	node      *nodeState
	rs        *rsState
	phase     corev1.PodPhase
	idx       int // index in rs.pods
	readyAt   time.Duration

	created   time.Duration
	deletedAt time.Duration
	uidNum    uint64            // the counter UID was made from: UIDs compare like it
	Labels    map[string]string // shared with the template; never modified
	Name      string
	Namespace string
	UID       types.UID
	_         [48]byte // to a multiple of 64 bytes
}

// podChunk is how many pods newPod allocates at once.
const podChunk = 128

// newPod returns a zero pod from the current chunk (a new chunk when it is
// used up).
func (s *Sim) newPod() *podState {
	if len(s.podFree) == 0 {
		s.podFree = make([]podState, podChunk)
	}
	p := &s.podFree[0]
	s.podFree = s.podFree[1:]
	return p
}

func (p *podState) active() bool { return !p.Terminating && !p.terminal() }

// terminal reports whether the pod's phase is Succeeded or Failed: its
// containers exited for good, the ReplicaSet controller no longer counts
// it, and the node has its room back.
func (p *podState) terminal() bool {
	return p.phase == corev1.PodSucceeded || p.phase == corev1.PodFailed
}

func (p *podState) nodeName() string {
	if p.node == nil {
		return ""
	}
	return p.node.Name
}

// nodeSlot is the pod's index in the co-location counts: 0 when
// unassigned.
func (p *podState) nodeSlot() int32 {
	if p.node == nil {
		return 0
	}
	return p.node.slot
}

// podFlags is the part of a pod's state the ReplicaSet counts depend on.
type podFlags struct {
	active, ready, available, terminating, terminal bool
	slot                                            int32
}

func (p *podState) flags() podFlags {
	if p.gone {
		return podFlags{}
	}
	return podFlags{active: p.active(), ready: p.active() && p.ready, available: p.active() && p.ready && p.available,
		terminating: p.Terminating && !p.terminal(), terminal: p.terminal(), slot: p.nodeSlot()}
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// account updates the ReplicaSet counts and co-location ranks after a pod
// changed from before to its current state, and queues the ReplicaSet as the
// pod informer would.
func (s *Sim) account(p *podState, before podFlags) {
	after := p.flags()
	p.gen++
	if s.quotas != nil {
		s.countQuotaPod(p, before, after)
	}
	if st := p.rs; st != nil {
		st.active += b2i(after.active) - b2i(before.active)
		st.ready += b2i(after.ready) - b2i(before.ready)
		st.available += b2i(after.available) - b2i(before.available)
		st.terminating += b2i(after.terminating) - b2i(before.terminating)
		st.terminal += b2i(after.terminal) - b2i(before.terminal)
		if before.active {
			st.colo[before.slot]--
		}
		if after.active {
			st.colo[after.slot]++
		}
		if !p.gone {
			st.setMeta(p.idx, p.rankMeta())
		}
		if st.item.X.rsState == st { // the ReplicaSet is still stored
			s.notifyItem(st.item)
		}
	}
}

// object renders the pod as an API object (for snapshots).
func (p *podState) object(rs *appsv1.ReplicaSet) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: p.Name, Namespace: p.Namespace, UID: p.UID, Labels: p.Labels,
			CreationTimestamp: truncTime(metav1.NewTime(Epoch.Add(p.created))),
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))},
		},
		Spec:   corev1.PodSpec{NodeName: p.nodeName()},
		Status: corev1.PodStatus{Phase: p.phase},
	}
	if p.Terminating {
		t := truncTime(metav1.NewTime(Epoch.Add(p.deletedAt)))
		pod.DeletionTimestamp = &t
	}
	return pod
}

const podNameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// newPodName is generateName's suffix: 5 characters from the API server's
// alphabet, drawn from the run's generator.
func (s *Sim) newPodName(prefix string) string {
	var buf [64]byte // prefixes are at most 58 bytes (see createPod)
	b := append(append(buf[:0], prefix...), "-xxxxx"...)
	for {
		for i := len(b) - 5; i < len(b); i++ {
			b[i] = podNameAlphabet[s.rng.IntN(len(podNameAlphabet))]
		}
		if _, taken := s.st.Pods[string(b)]; !taken { // no allocation to look up
			return s.st.Str(b)
		}
	}
}

// quotaError is the pod creation failure of a namespace over its pod
// quota: cluster.podQuota, or a ResourceQuota of the state (see
// State.ResourceQuotas).
func (s *Sim) quotaError(name, namespace string) error {
	if err := s.nsQuotaError(name, namespace); err != nil {
		return err
	}
	q := s.sc.Cluster.PodQuota
	if q <= 0 || len(s.st.Pods) < q {
		return nil
	}
	return fmt.Errorf("pods %q is forbidden: exceeded quota: pods, requested: pods=1, used: pods=%d, limited: pods=%d", name, len(s.st.Pods), q)
}

// createPod creates one pod of rs (the ReplicaSet controller's create).
func (s *Sim) createPod(rs *appsv1.ReplicaSet, st *rsState) error {
	// generateName uses the ReplicaSet name plus "-", truncated like the
	// API server does to leave room for the suffix.
	prefix := rs.Name
	if len(prefix) > 58 {
		prefix = prefix[:58]
	}
	name := s.newPodName(prefix)
	if err := s.quotaError(name, rs.Namespace); err != nil {
		return err
	}
	uid, uidNum := s.st.NextUIDNum()
	p := s.newPod()
	*p = podState{
		Name: name, Namespace: rs.Namespace, UID: uid, uidNum: uidNum, Labels: rs.Spec.Template.Labels,
		rs: st, created: s.now, phase: corev1.PodPending, idx: len(st.pods),
	}
	p.mode = s.failureModeFor(&rs.Spec.Template)
	s.st.Pods[name] = p
	st.pods = append(st.pods, p)
	st.meta = append(st.meta, ranking.Pod{})
	st.hot = append(st.hot, 0)
	s.stats.PodsCreated++
	s.account(p, podFlags{})
	s.schedule(p)
	return nil
}

// failureModeFor applies the scenario's failure rules to a new pod.
func (s *Sim) failureModeFor(t *corev1.PodTemplateSpec) failureMode {
	for _, r := range s.sc.Cluster.Failures {
		if !r.matches(t) {
			continue
		}
		if r.Probability != nil && *r.Probability < 1 && s.rng.Float64() >= *r.Probability {
			continue
		}
		return r.mode
	}
	return modeHealthy
}

// schedule binds p to a node with room (round-robin over schedulable
// nodes) or leaves it Pending until capacity frees up.
func (s *Sim) schedule(p *podState) bool {
	n := len(s.nodes)
	for i := 0; i < n; i++ {
		node := s.nodes[(s.next+i)%n]
		if !node.schedulable() || node.used >= node.Capacity {
			continue
		}
		s.next = (s.next + i + 1) % n
		before := p.flags()
		node.used++
		p.node = node
		s.account(p, before)
		switch p.mode {
		case modePullError:
			// stays Pending (ErrImagePull / ImagePullBackOff)
		default:
			s.podTimer(p, evPodRunning, s.draw(s.sc.Cluster.Startup))
		}
		return true
	}
	s.unscheduled = append(s.unscheduled, p)
	return false
}

// retrySchedule schedules waiting pods, oldest first, while there is room.
func (s *Sim) retrySchedule() {
	if len(s.unscheduled) == 0 {
		return
	}
	waiting := s.unscheduled
	s.unscheduled = nil
	for i, p := range waiting {
		if p.gone || p.Terminating || p.node != nil {
			continue
		}
		if !s.schedule(p) {
			// no room: keep the rest in order
			for _, q := range waiting[i+1:] {
				if !q.gone && !q.Terminating && q.node == nil {
					s.unscheduled = append(s.unscheduled, q)
				}
			}
			return
		}
	}
}

// draw returns a duration uniformly distributed over the range, in whole
// milliseconds.
func (s *Sim) draw(r Range) time.Duration {
	lo, hi := time.Duration(r.Min), time.Duration(r.Max)
	if hi <= lo {
		return lo
	}
	steps := int64((hi - lo) / time.Millisecond)
	return lo + time.Duration(s.rng.Int64N(steps+1))*time.Millisecond
}

func (s *Sim) podTimer(p *podState, kind eventKind, after time.Duration) {
	s.q.push(event{at: s.now + after, kind: kind, pod: p, gen: p.gen})
}

// crashBackoff is the kubelet's restart back-off: 10s doubling to 5m.
func crashBackoff(restarts int32) time.Duration {
	d := 10 * time.Second
	for i := int32(1); i < restarts && d < 5*time.Minute; i++ {
		d *= 2
	}
	return min(d, 5*time.Minute)
}

// crashAfter is how long a crash-looping container runs before it exits.
const crashAfter = time.Second

// handlePod runs a pod or node timer.
func (s *Sim) handlePod(e event) {
	if e.kind == evNodeEvict {
		s.evictNode(e.node, e.gen)
		return
	}
	if e.kind == evNodeMonitor {
		s.markNodeUnknown(e.node, e.gen)
		return
	}
	if e.kind == evNodeGC {
		s.collectNodePods(e.node)
		return
	}
	p := e.pod
	if p == nil || p.gone || p.gen != e.gen {
		return // stale: the pod changed since the timer was set
	}
	if p.node != nil && p.node.unreachable && e.kind != evPodAvailable {
		return // the kubelet does not report: resumed when the node is back
	}
	before := p.flags()
	switch e.kind {
	case evPodRunning:
		p.phase = corev1.PodRunning
		s.account(p, before)
		switch p.mode {
		case modeHealthy:
			s.podTimer(p, evPodReady, s.draw(s.sc.Cluster.Readiness))
		case modeCrashLoop:
			s.podTimer(p, evPodCrash, crashAfter)
		}
	case evPodCrash:
		p.restarts++
		s.account(p, before)
		s.podTimer(p, evPodCrash, crashBackoff(p.restarts)+crashAfter)
	case evPodReady:
		if p.node != nil && p.node.down {
			return
		}
		p.ready = true
		p.readyAt = s.now
		p.available = p.rs == nil || p.rs.minReady == 0
		s.account(p, before)
		if !p.available {
			s.podTimer(p, evPodAvailable, p.rs.minReady)
		}
	case evPodAvailable:
		p.available = true
		s.account(p, before)
	case evPodGone:
		s.removePod(p)
	}
}

// refreshAvailability recomputes p's availability after its ReplicaSet's
// minReadySeconds changed.
func (s *Sim) refreshAvailability(p *podState) {
	if !p.ready || p.Terminating {
		return
	}
	before := p.flags()
	due := p.readyAt + p.rs.minReady
	p.available = s.now >= due
	s.account(p, before)
	if !p.available {
		s.podTimer(p, evPodAvailable, due-s.now)
	}
}

// deletePod deletes p gracefully: it is terminating (not counted as a
// replica) until its containers exit, then it is gone.
func (s *Sim) deletePod(p *podState, why string) {
	if p.gone || p.Terminating {
		return
	}
	before := p.flags()
	p.Terminating = true
	p.deletedAt = s.now
	p.ready, p.available = false, false
	s.account(p, before)
	if p.node == nil || p.terminal() {
		// not scheduled, or its containers exited: the API server
		// deletes it at once (grace period 0)
		s.removePod(p)
		return
	}
	if p.node.unreachable || p.node.deleted {
		return // Terminating until the kubelet confirms or PodGC removes it
	}
	grace := s.draw(s.sc.Cluster.Termination)
	if p.phase == corev1.PodPending {
		grace = 0 // nothing runs yet: the kubelet removes it at once
	}
	if grace == 0 {
		s.removePod(p)
		return
	}
	s.podTimer(p, evPodGone, grace)
}

// removePod removes a pod from the store (its containers exited).
func (s *Sim) removePod(p *podState) {
	if p.gone {
		return
	}
	before := p.flags()
	p.gone = true
	delete(s.st.Pods, p.Name)
	if st := p.rs; st != nil {
		last := len(st.pods) - 1
		moved := st.pods[last]
		st.pods[p.idx] = moved
		moved.idx = p.idx
		st.pods[last] = nil
		st.pods = st.pods[:last]
		st.meta[p.idx] = st.meta[last]
		st.meta = st.meta[:last]
		st.hot[p.idx] = st.hot[last]
		st.hot = st.hot[:last]
	}
	if p.node != nil && !before.terminal {
		p.node.used-- // a terminal pod gave its room back already
	}
	s.account(p, before)
	if st := p.rs; st != nil && st.ownerKey != "" {
		// upstream's deletePod handler: a Recreate Deployment is queued
		// once its last pod is gone
		if d := s.st.Deployments[st.ownerKey]; d != nil && d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType && !s.hasPods(d) {
			s.notifyDeployment(st.ownerKey)
		}
	}
	s.retrySchedule()
}

func (s *Sim) hasPods(d *appsv1.Deployment) bool {
	key := objKey(d.Namespace, d.Name)
	for _, st := range s.st.ByNamespace[d.Namespace] {
		if st.ownerKey == key && len(st.pods) > 0 {
			return true
		}
	}
	return false
}

// failNode takes a node down: its pods lose readiness at once; after the
// eviction timeout they are deleted and replaced.
func (s *Sim) failNode(n *nodeState) {
	if n.down {
		return
	}
	n.down = true
	n.gen++
	for _, p := range s.podsOnNode(n) {
		before := p.flags()
		p.ready, p.available = false, false
		s.account(p, before) // also invalidates the pod's timers
	}
	s.q.push(event{at: s.now + time.Duration(s.sc.Cluster.EvictionTimeout), kind: evNodeEvict, node: n, gen: n.gen})
}

func (s *Sim) recoverNode(n *nodeState) {
	if !n.down {
		return
	}
	n.down = false
	n.gen++
	for _, p := range s.podsOnNode(n) {
		if p.Terminating || p.terminal() {
			continue
		}
		// the kubelet restarts the containers
		before := p.flags()
		p.phase = corev1.PodPending
		s.account(p, before)
		if p.mode != modePullError {
			s.podTimer(p, evPodRunning, s.draw(s.sc.Cluster.Startup))
		}
	}
	s.retrySchedule()
}

func (s *Sim) evictNode(n *nodeState, gen uint32) {
	if n.gen != gen || n.deleted {
		return
	}
	if n.unreachable {
		s.evictUnreachable(n)
		return
	}
	if !n.down {
		return
	}
	pods := s.podsOnNode(n)
	if len(pods) > 0 {
		s.note("node %s: evicting %d pods (not ready for %s)", n.Name, len(pods), time.Duration(s.sc.Cluster.EvictionTimeout))
	}
	for _, p := range pods {
		s.deletePod(p, "evicted")
	}
}

// podsOnNode lists the pods bound to n in name order.
func (s *Sim) podsOnNode(n *nodeState) []*podState {
	var out []*podState
	for _, k := range sortedKeys(s.st.Pods) {
		if p := s.st.Pods[k]; p.node == n {
			out = append(out, p)
		}
	}
	return out
}

// ---- ReplicaSet controller ----

// burstReplicas caps the pods created or deleted in one sync.
const burstReplicas = 500

// syncReplicaSet is one sync of the ReplicaSet controller.
func (s *Sim) syncReplicaSet(it *wqItem) {
	st := it.X.rsState
	if st == nil {
		return // deleted
	}
	rs := st.rs
	s.stats.ReplicaSetSyncs++
	diff := st.active - rsReplicas(rs)
	var createErr error
	switch {
	case diff < 0:
		n := min(-diff, burstReplicas)
		_, createErr = slowStart(int(n), func() error { return s.createPod(rs, st) })
	case diff > 0:
		n := min(diff, burstReplicas)
		for _, p := range s.podsToDelete(st, int(n)) {
			s.deletePod(p, "scaled down")
		}
	}
	if createErr != nil {
		st.failure = createErr.Error()
	} else if diff <= 0 {
		st.failure = ""
	}
	s.writeRSStatus(rs, st, createErr)
	// Upstream's syncReplicaSet returns the creation error, and its
	// handleErr requeues the key through the rate limiter, without a
	// retry limit; a sync without error forgets the failures.
	if createErr != nil {
		s.addAfterItem(it, it.Backoff())
	} else {
		it.Forget()
	}
}

// slowStart calls fn n times in batches of 1, 2, 4, … and stops after the
// first batch with a failure. It returns the number of successes.
func slowStart(n int, fn func() error) (int, error) {
	done := 0
	for batch := 1; done < n; batch *= 2 {
		size := min(batch, n-done)
		var first error
		for i := 0; i < size; i++ {
			if err := fn(); err != nil {
				if first == nil {
					first = err
				}
				continue
			}
			done++
		}
		if first != nil {
			return done, first
		}
	}
	return done, nil
}

// writeRSStatus computes the ReplicaSet status from the pod counts and writes
// it when it changed.
func (s *Sim) writeRSStatus(rs *appsv1.ReplicaSet, st *rsState, createErr error) {
	cur := &rs.Status
	conds := rs.Status.Conditions
	failure := replicaFailure(rs.Status.Conditions)
	switch {
	case createErr != nil && failure == nil:
		conds = append(slices.Clone(rs.Status.Conditions), appsv1.ReplicaSetCondition{
			Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate",
			Message: createErr.Error(), LastTransitionTime: s.stamp(),
		})
	case createErr == nil && failure != nil:
		conds = slices.DeleteFunc(slices.Clone(rs.Status.Conditions), func(c appsv1.ReplicaSetCondition) bool {
			return c.Type == appsv1.ReplicaSetReplicaFailure
		})
		if len(conds) == 0 {
			conds = nil
		}
	}
	terminating := !s.opts.Plan.DisableTerminatingReplicas
	// the common case: nothing changed; compare without building the status
	if cur.Replicas == st.active && cur.FullyLabeledReplicas == st.active && cur.ReadyReplicas == st.ready &&
		cur.AvailableReplicas == st.available && cur.ObservedGeneration == rs.Generation &&
		(cur.TerminatingReplicas != nil) == terminating && (!terminating || *cur.TerminatingReplicas == st.terminating) &&
		rsConditionsEqual(cur.Conditions, conds) {
		return
	}
	// The status write changes the stored object in place (see store):
	// scalar fields are overwritten, the pointer and the conditions slice
	// are replaced, never written through, since copies of the object made
	// before share them.
	cur.Replicas = st.active
	cur.FullyLabeledReplicas = st.active
	cur.ReadyReplicas = st.ready
	cur.AvailableReplicas = st.available
	cur.ObservedGeneration = rs.Generation
	cur.Conditions = conds
	switch {
	case !terminating:
		cur.TerminatingReplicas = nil
	case cur.TerminatingReplicas == nil || *cur.TerminatingReplicas != st.terminating:
		t := st.terminating
		cur.TerminatingReplicas = &t
	}
	rs.ResourceVersion = s.st.NextRV()
	s.logReplicaSetWrite(writerReplicaSet, "status", rs)
	s.informReplicaSet(rs, false)
	s.rsStatusChanged(rs, st)
}

// rsConditionsEqual compares two ReplicaSet condition lists field by field.
func rsConditionsEqual(a, b []appsv1.ReplicaSetCondition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message || !x.LastTransitionTime.Equal(&y.LastTransitionTime) {
			return false
		}
	}
	return true
}

func replicaFailure(conds []appsv1.ReplicaSetCondition) *appsv1.ReplicaSetCondition {
	for i := range conds {
		if conds[i].Type == appsv1.ReplicaSetReplicaFailure {
			return &conds[i]
		}
	}
	return nil
}

// podsToDelete picks n active pods of st to delete, in the ReplicaSet
// controller's order (package ranking).
func (s *Sim) podsToDelete(st *rsState, n int) []*podState {
	idx := s.picker.Pick(st.meta, st.hot, st.colo, int(st.active), n, s.now)
	out := make([]*podState, len(idx))
	for i, j := range idx {
		out[i] = st.pods[j]
	}
	return out
}

// setMeta stores the ranking data of pods[i].
func (st *rsState) setMeta(i int, m ranking.Pod) {
	st.meta[i] = m
	st.hot[i] = ranking.Word(&m)
}

// rankMeta is what the deletion ranking reads of p.
func (p *podState) rankMeta() ranking.Pod {
	var phase uint8
	switch {
	case p.phase == corev1.PodPending:
		phase = 0
	case p.phase == corev1.PodUnknown || p.node != nil && p.node.down:
		phase = 1 // the node controller marks pods of an unreachable node Unknown
	default:
		phase = 2
	}
	m := ranking.Pod{UID: p.uidNum, Created: p.created.Truncate(time.Second), Restarts: p.restarts, Slot: p.nodeSlot(),
		Class: ranking.Class(p.node != nil, phase, p.ready), Active: p.active(), Ready: p.ready}
	if p.ready {
		m.ReadyAt = p.readyAt.Truncate(time.Second)
	}
	return m
}
