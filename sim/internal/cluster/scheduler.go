package cluster

// schedule binds p to a node with room (round-robin over schedulable
// nodes) or leaves it Pending, at the end of the waiting pods, until
// capacity frees up.
func (c *Cluster) schedule(p *Pod) bool {
	if c.bind(p) {
		return true
	}
	c.unscheduled = append(c.unscheduled, p)
	return false
}

// bind binds p to the next schedulable node with room, round-robin, and
// starts its containers; it reports false, changing nothing, when no node
// has room.
func (c *Cluster) bind(p *Pod) bool {
	n := len(c.Nodes)
	for i := 0; i < n; i++ {
		node := c.Nodes[(c.next+i)%n]
		if !node.schedulable() || node.used >= node.Capacity {
			continue
		}
		c.next = (c.next + i + 1) % n
		before := p.flags()
		node.used++
		p.Node = node
		c.account(p, before)
		switch p.Mode {
		case ModePullError:
			// stays Pending (ErrImagePull / ImagePullBackOff)
		default:
			c.podTimer(p, PodRunning, c.draw(c.cfg.Startup))
		}
		return true
	}
	return false
}

// retrySchedule schedules waiting pods, oldest first, while there is room.
//
// The waiting pods are a queue: c.unscheduled[c.waitHead:] in creation
// order. A pod deleted or bound since it was queued is dropped when it
// reaches the head; the queue is compacted once its dead head is at
// least half of it. A freed slot thus costs O(1) (amortized) instead of a
// copy of every waiting pod: with a million replicas on two full nodes,
// 50,000 pods wait, and every terminated pod frees a slot.
func (c *Cluster) retrySchedule() {
	if c.waitHead < len(c.unscheduled) { // (small enough to inline: no pod waits, most often)
		c.bindWaiting()
	}
}

// bindWaiting is retrySchedule with pods waiting.
func (c *Cluster) bindWaiting() {
	for c.waitHead < len(c.unscheduled) {
		p := c.unscheduled[c.waitHead]
		if !p.gone && !p.Terminating && p.Node == nil && !c.bind(p) {
			break // no room: p and the rest stay in order
		}
		c.unscheduled[c.waitHead] = nil
		c.waitHead++
	}
	switch {
	case c.waitHead == len(c.unscheduled):
		c.unscheduled, c.waitHead = c.unscheduled[:0], 0
	case c.waitHead >= 1024 && 2*c.waitHead >= len(c.unscheduled):
		n := copy(c.unscheduled, c.unscheduled[c.waitHead:])
		clear(c.unscheduled[n:])
		c.unscheduled, c.waitHead = c.unscheduled[:n], 0
	}
}
