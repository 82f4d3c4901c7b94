package sim

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// podGCQuarantine is how long PodGC waits after a Node object is deleted
// before it force-deletes the pods bound to it (its check period is not
// modelled).
const podGCQuarantine = 40 * time.Second

// unreachNode models a node whose kubelet stops reporting (a network
// partition, a hung kubelet): its containers keep running, but nothing
// they do reaches the API server. After the node-monitor grace period the
// node controller sets Ready=Unknown, taints the node unreachable (no more
// scheduling) and marks its pods not ready; after the eviction timeout
// its pods are deleted, and stay Terminating while the node is
// unreachable.
func (s *Sim) unreachNode(n *nodeState) {
	if n.unreachable || n.deleted {
		return
	}
	n.unreachable = true
	n.gen++
	s.q.push(event{at: s.now + time.Duration(s.sc.Cluster.NodeMonitorGracePeriod), kind: evNodeMonitor, node: n, gen: n.gen})
}

// markNodeUnknown is the node controller after the node-monitor grace
// period: Ready=Unknown, the unreachable taints, pods marked not ready,
// and the eviction timer (the taint's tolerationSeconds).
func (s *Sim) markNodeUnknown(n *nodeState, gen uint32) {
	if !n.unreachable || n.gen != gen || n.deleted {
		return
	}
	n.tainted = true
	marked := 0
	for _, p := range s.podsOnNode(n) {
		if !p.active() || !p.ready {
			continue
		}
		before := p.flags()
		p.ready, p.available, p.lostReady = false, false, true
		s.account(p, before)
		marked++
	}
	s.note("node %s: Ready=Unknown (no status for %s), tainted unreachable; %d pods marked not ready",
		n.Name, time.Duration(s.sc.Cluster.NodeMonitorGracePeriod), marked)
	s.q.push(event{at: s.now + time.Duration(s.sc.Cluster.EvictionTimeout), kind: evNodeEvict, node: n, gen: n.gen})
}

// evictUnreachable is the taint manager's eviction of the pods of an
// unreachable node: they are deleted, and stay Terminating, since no
// kubelet confirms that their containers stopped.
func (s *Sim) evictUnreachable(n *nodeState) {
	var pods []*podState
	for _, p := range s.podsOnNode(n) {
		if !p.Terminating {
			pods = append(pods, p)
		}
	}
	if len(pods) == 0 {
		return
	}
	s.note("node %s: evicting %d pods (unreachable for %s): Terminating until the node is back or deleted",
		n.Name, len(pods), time.Duration(s.sc.Cluster.EvictionTimeout))
	for _, p := range pods {
		s.deletePod(p, "evicted")
	}
}

// reconnectNode brings an unreachable node back: the kubelet reports
// again, finishes the termination of deleted pods, reports the ready pods
// the node controller marked not ready, and carries on where its timers
// left off.
func (s *Sim) reconnectNode(n *nodeState) {
	if !n.unreachable || n.deleted {
		return
	}
	n.unreachable, n.tainted = false, false
	n.gen++
	for _, p := range s.podsOnNode(n) {
		before := p.flags()
		switch {
		case p.Terminating:
			s.account(p, before) // drops the timers of the partition
			if p.phase == corev1.PodPending {
				s.removePod(p)
				continue
			}
			s.podTimer(p, evPodGone, s.draw(s.sc.Cluster.Termination))
		case p.terminal():
		case p.phase == corev1.PodPending:
			s.account(p, before)
			if p.mode != modePullError {
				s.podTimer(p, evPodRunning, s.draw(s.sc.Cluster.Startup))
			}
		case p.phase == corev1.PodRunning:
			s.resumeRunning(p, before)
		}
	}
	s.retrySchedule()
}

// resumeRunning drives a running pod of a node that reports again: a
// healthy pod the node controller marked not ready is ready again at
// once (its probe kept passing), one that was not ready yet gets its
// readiness delay, a crash-looping one crashes again.
func (s *Sim) resumeRunning(p *podState, before podFlags) {
	switch {
	case p.mode == modeHealthy && p.lostReady:
		p.ready, p.readyAt, p.lostReady = true, s.now, false
		p.available = p.rs == nil || p.rs.minReady == 0
		s.account(p, before)
		if !p.available {
			s.podTimer(p, evPodAvailable, p.rs.minReady)
		}
	case p.mode == modeHealthy && !p.ready:
		s.account(p, before)
		s.podTimer(p, evPodReady, s.draw(s.sc.Cluster.Readiness))
	case p.mode == modeCrashLoop:
		s.account(p, before)
		s.podTimer(p, evPodCrash, crashAfter)
	case p.ready && !p.available:
		s.account(p, before)
		s.podTimer(p, evPodAvailable, max(0, p.readyAt+p.rs.minReady-s.now))
	}
}

// deleteNode deletes the Node object: the machine is gone. Nothing is
// scheduled there any more, and PodGC force-deletes the pods bound to it
// after its quarantine.
func (s *Sim) deleteNode(n *nodeState) {
	if n.deleted {
		return
	}
	n.deleted, n.unreachable = true, true
	n.gen++
	s.q.push(event{at: s.now + podGCQuarantine, kind: evNodeGC, node: n})
}

// collectNodePods is PodGC force-deleting the pods of a deleted node.
func (s *Sim) collectNodePods(n *nodeState) {
	pods := s.podsOnNode(n)
	if len(pods) == 0 {
		return
	}
	s.note("pod GC: node %s does not exist: force-deleting its %d pods", n.Name, len(pods))
	for _, p := range pods {
		if !p.Terminating {
			before := p.flags()
			p.Terminating, p.deletedAt = true, s.now
			p.ready, p.available = false, false
			s.account(p, before)
		}
		s.removePod(p)
	}
}
