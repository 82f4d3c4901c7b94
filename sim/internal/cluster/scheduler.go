package cluster

// schedule binds p to a node with room (round-robin over schedulable
// nodes) or leaves it Pending until capacity frees up.
func (c *Cluster) schedule(p *Pod) bool {
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
	c.unscheduled = append(c.unscheduled, p)
	return false
}

// retrySchedule schedules waiting pods, oldest first, while there is room.
func (c *Cluster) retrySchedule() {
	if len(c.unscheduled) == 0 {
		return
	}
	waiting := c.unscheduled
	c.unscheduled = nil
	for i, p := range waiting {
		if p.gone || p.Terminating || p.Node != nil {
			continue
		}
		if !c.schedule(p) {
			// no room: keep the rest in order
			for _, q := range waiting[i+1:] {
				if !q.gone && !q.Terminating && q.Node == nil {
					c.unscheduled = append(c.unscheduled, q)
				}
			}
			return
		}
	}
}
