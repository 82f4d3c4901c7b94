package cluster

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Node is a node: a name, a pod capacity and whether it is down (failed),
// unreachable (its kubelet stopped reporting) or deleted.
type Node struct {
	Name     string
	Capacity int
	// used counts the pods bound to the node that have not finished.
	used int
	// Down: the node failed (its pods lost readiness).
	Down bool
	// Unreachable: the kubelet does not report (pod timers are dropped);
	// tainted: the node controller has marked the node Ready=Unknown and
	// tainted it unreachable (no scheduling); Deleted: the Node object is
	// gone.
	Unreachable, tainted, Deleted bool
	gen                           uint32
	slot                          int32 // index in the co-location counts: position in Cluster.Nodes + 1
}

// schedulable reports whether the scheduler may bind pods to n.
func (n *Node) schedulable() bool { return !n.Down && !n.tainted && !n.Deleted }

// Tainted reports whether the node controller has marked n Ready=Unknown
// and tainted it unreachable (or n was added not schedulable).
func (n *Node) Tainted() bool { return n.tainted }

// Used is the number of pods bound to n that have not finished.
func (n *Node) Used() int { return n.used }

// AddNode adds a node with room for capacity pods; a node that is not
// schedulable (cordoned, or not Ready) takes no new pods.
func (c *Cluster) AddNode(name string, capacity int, schedulable bool) *Node {
	n := &Node{Name: name, Capacity: capacity, tainted: !schedulable, slot: int32(len(c.Nodes) + 1)}
	c.Nodes = append(c.Nodes, n)
	return n
}

// Node returns the node of that name, or nil.
func (c *Cluster) Node(name string) *Node {
	for _, n := range c.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// FailNode takes a node down: its pods lose readiness at once; after the
// eviction timeout they are deleted and replaced.
func (c *Cluster) FailNode(n *Node) {
	if n.Down {
		return
	}
	n.Down = true
	n.gen++
	c.nodeChanged(n)
	for _, p := range c.podsOnNode(n) {
		before := p.flags()
		p.Ready, p.Available = false, false
		c.account(p, before) // also invalidates the pod's timers
	}
	c.nodeTimer(n, NodeEvict, c.cfg.EvictionTimeout)
}

// RecoverNode brings a failed node back: the kubelet restarts the
// containers of its pods.
func (c *Cluster) RecoverNode(n *Node) {
	if !n.Down {
		return
	}
	n.Down = false
	n.gen++
	c.nodeChanged(n)
	for _, p := range c.podsOnNode(n) {
		if p.Terminating || p.Terminal() {
			continue
		}
		// the kubelet restarts the containers
		before := p.flags()
		p.Phase = corev1.PodPending
		c.account(p, before)
		if p.Mode != ModePullError {
			c.podTimer(p, PodRunning, c.draw(c.cfg.Startup))
		}
	}
	c.retrySchedule()
}

func (c *Cluster) evictNode(n *Node, gen uint32) {
	if n.gen != gen || n.Deleted {
		return
	}
	if n.Unreachable {
		c.evictUnreachable(n)
		return
	}
	if !n.Down {
		return
	}
	pods := c.podsOnNode(n)
	if len(pods) > 0 {
		c.e.Note("node %s: evicting %d pods (not ready for %s)", n.Name, len(pods), c.cfg.EvictionTimeout)
	}
	for _, p := range pods {
		c.DeletePod(p)
	}
}

// podGCQuarantine is how long PodGC waits after a Node object is deleted
// before it force-deletes the pods bound to it (its check period is not
// modelled).
const podGCQuarantine = 40 * time.Second

// UnreachNode models a node whose kubelet stops reporting (a network
// partition, a hung kubelet): its containers keep running, but nothing
// they do reaches the API server. After the node-monitor grace period the
// node controller sets Ready=Unknown, taints the node unreachable (no more
// scheduling) and marks its pods not ready; after the eviction timeout
// its pods are deleted, and stay Terminating while the node is
// unreachable.
func (c *Cluster) UnreachNode(n *Node) {
	if n.Unreachable || n.Deleted {
		return
	}
	n.Unreachable = true
	n.gen++
	c.nodeTimer(n, NodeMonitor, c.cfg.NodeMonitorGracePeriod)
}

// markNodeUnknown is the node controller after the node-monitor grace
// period: Ready=Unknown, the unreachable taints, pods marked not ready,
// and the eviction timer (the taint's tolerationSeconds).
func (c *Cluster) markNodeUnknown(n *Node, gen uint32) {
	if !n.Unreachable || n.gen != gen || n.Deleted {
		return
	}
	n.tainted = true
	c.nodeChanged(n)
	marked := 0
	for _, p := range c.podsOnNode(n) {
		if !p.Active() || !p.Ready {
			continue
		}
		before := p.flags()
		p.Ready, p.Available, p.lostReady = false, false, true
		c.account(p, before)
		marked++
	}
	c.e.Note("node %s: Ready=Unknown (no status for %s), tainted unreachable; %d pods marked not ready",
		n.Name, c.cfg.NodeMonitorGracePeriod, marked)
	c.nodeTimer(n, NodeEvict, c.cfg.EvictionTimeout)
}

// evictUnreachable is the taint manager's eviction of the pods of an
// unreachable node: they are deleted, and stay Terminating, since no
// kubelet confirms that their containers stopped.
func (c *Cluster) evictUnreachable(n *Node) {
	var pods []*Pod
	for _, p := range c.podsOnNode(n) {
		if !p.Terminating {
			pods = append(pods, p)
		}
	}
	if len(pods) == 0 {
		return
	}
	c.e.Note("node %s: evicting %d pods (unreachable for %s): Terminating until the node is back or deleted",
		n.Name, len(pods), c.cfg.EvictionTimeout)
	for _, p := range pods {
		c.DeletePod(p)
	}
}

// ReconnectNode brings an unreachable node back: the kubelet reports
// again, finishes the termination of deleted pods, reports the ready pods
// the node controller marked not ready, and carries on where its timers
// left off.
func (c *Cluster) ReconnectNode(n *Node) {
	if !n.Unreachable || n.Deleted {
		return
	}
	n.Unreachable, n.tainted = false, false
	n.gen++
	c.nodeChanged(n)
	for _, p := range c.podsOnNode(n) {
		before := p.flags()
		switch {
		case p.Terminating:
			c.account(p, before) // drops the timers of the partition
			if p.Phase == corev1.PodPending {
				c.removePod(p)
				continue
			}
			c.podTimer(p, PodGone, c.draw(c.cfg.Termination))
		case p.Terminal():
		case p.Phase == corev1.PodPending:
			c.account(p, before)
			if p.Mode != ModePullError {
				c.podTimer(p, PodRunning, c.draw(c.cfg.Startup))
			}
		case p.Phase == corev1.PodRunning:
			c.resumeRunning(p, before)
		}
	}
	c.retrySchedule()
}

// resumeRunning drives a running pod of a node that reports again: a
// healthy pod the node controller marked not ready is ready again at
// once (its probe kept passing), one that was not ready yet gets its
// readiness delay, a crash-looping one crashes again.
func (c *Cluster) resumeRunning(p *Pod, before podFlags) {
	now := c.e.Now()
	switch {
	case p.Mode == ModeHealthy && p.lostReady:
		p.Ready, p.ReadyAt, p.lostReady = true, now, false
		p.Available = p.RS == nil || p.RS.minReady == 0
		c.account(p, before)
		if !p.Available {
			c.podTimer(p, PodAvailable, p.RS.minReady)
		}
	case p.Mode == ModeHealthy && !p.Ready:
		c.account(p, before)
		c.podTimer(p, PodReady, c.draw(c.cfg.Readiness))
	case p.Mode == ModeCrashLoop:
		c.account(p, before)
		c.podTimer(p, PodCrash, crashAfter)
	case p.Ready && !p.Available:
		c.account(p, before)
		c.podTimer(p, PodAvailable, max(0, p.ReadyAt+p.RS.minReady-now))
	}
}

// DeleteNode deletes the Node object: the machine is gone. Nothing is
// scheduled there any more, and PodGC force-deletes the pods bound to it
// after its quarantine.
func (c *Cluster) DeleteNode(n *Node) {
	if n.Deleted {
		return
	}
	n.Deleted, n.Unreachable = true, true
	n.gen++
	c.nodeChanged(n)
	c.nodeTimer(n, NodeGC, podGCQuarantine)
}

// collectNodePods is PodGC force-deleting the pods of a deleted node.
func (c *Cluster) collectNodePods(n *Node) {
	pods := c.podsOnNode(n)
	if len(pods) == 0 {
		return
	}
	c.e.Note("pod GC: node %s does not exist: force-deleting its %d pods", n.Name, len(pods))
	for _, p := range pods {
		if !p.Terminating {
			before := p.flags()
			p.Terminating, p.DeletedAt = true, c.e.Now()
			p.Ready, p.Available = false, false
			c.account(p, before)
		}
		c.removePod(p)
	}
}
