package cluster

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
)

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

// podTimerFired runs a pod's timer: the kubelet reports what its
// containers did.
func (c *Cluster) podTimerFired(t Timer) {
	p := t.Pod
	if p == nil || p.gone || p.gen != t.Gen {
		return // stale: the pod changed since the timer was set
	}
	if p.Node != nil && p.Node.Unreachable && t.Kind != PodAvailable {
		return // the kubelet does not report: resumed when the node is back
	}
	before := p.flags()
	switch t.Kind {
	case PodRunning:
		p.Phase = corev1.PodRunning
		c.account(p, before)
		switch p.Mode {
		case ModeHealthy:
			c.podTimer(p, PodReady, c.draw(c.cfg.Readiness))
		case ModeCrashLoop:
			c.podTimer(p, PodCrash, crashAfter)
		}
	case PodCrash:
		p.Restarts++
		c.account(p, before)
		c.podTimer(p, PodCrash, crashBackoff(p.Restarts)+crashAfter)
	case PodReady:
		if p.Node != nil && p.Node.Down {
			return
		}
		p.Ready = true
		p.ReadyAt = c.e.Now()
		p.Available = p.RS == nil || p.RS.minReady == 0
		c.account(p, before)
		if !p.Available {
			c.podTimer(p, PodAvailable, p.RS.minReady)
		}
	case PodAvailable:
		p.Available = true
		c.account(p, before)
	case PodGone:
		c.removePod(p)
	}
}

// refreshAvailability recomputes p's availability after its ReplicaSet's
// minReadySeconds changed.
func (c *Cluster) refreshAvailability(p *Pod) {
	if !p.Ready || p.Terminating {
		return
	}
	before := p.flags()
	due := p.ReadyAt + p.RS.minReady
	p.Available = c.e.Now() >= due
	c.account(p, before)
	if !p.Available {
		c.podTimer(p, PodAvailable, due-c.e.Now())
	}
}

// SetPodReady makes p's readiness probe pass or fail from now on.
func (c *Cluster) SetPodReady(p *Pod, ready bool) error {
	if p.Terminal() {
		return fmt.Errorf("pod %s is %s: its containers exited", p.Name, p.Phase)
	}
	now := c.e.Now()
	before := p.flags()
	reporting := p.Node != nil && !p.Node.Unreachable
	if !ready {
		p.Mode = ModeNeverReady
		p.Ready, p.Available = false, false
		c.account(p, before) // drops the pod's timers
		if reporting && p.Phase == corev1.PodPending {
			c.podTimer(p, PodRunning, c.draw(c.cfg.Startup))
		}
		return nil
	}
	p.Mode = ModeHealthy
	c.account(p, before) // drops a crash-loop's timers
	switch {
	case !reporting:
		// scheduled later, or reported when the node is back
	case p.Phase == corev1.PodRunning && !p.Ready:
		before = p.flags()
		p.Ready, p.ReadyAt = true, now
		p.Available = p.RS == nil || p.RS.minReady == 0
		c.account(p, before)
		if !p.Available {
			c.podTimer(p, PodAvailable, p.RS.minReady)
		}
	case p.Phase == corev1.PodRunning && !p.Available:
		c.podTimer(p, PodAvailable, max(0, p.ReadyAt+p.RS.minReady-now))
	case p.Phase == corev1.PodPending && p.Node != nil:
		c.podTimer(p, PodRunning, c.draw(c.cfg.Startup))
	}
	return nil
}

// SetPodPhase sets p's phase as its kubelet would report it. Pending and
// Unknown stay until a later step; Running carries on as the pod's
// failure mode says; Succeeded and Failed are final.
func (c *Cluster) SetPodPhase(p *Pod, phase corev1.PodPhase) error {
	if p.Terminal() {
		return fmt.Errorf("pod %s is %s: a terminal phase is final", p.Name, p.Phase)
	}
	if p.Phase == phase {
		return nil
	}
	if p.Node == nil && phase != corev1.PodPending {
		return fmt.Errorf("pod %s is not scheduled: only the phase Pending fits it", p.Name)
	}
	before := p.flags()
	p.Phase = phase
	switch phase {
	case corev1.PodRunning:
		p.Ready, p.Available = false, false
		c.account(p, before)
		if p.Node == nil || p.Node.Unreachable {
			return nil
		}
		switch p.Mode {
		case ModeHealthy:
			c.podTimer(p, PodReady, c.draw(c.cfg.Readiness))
		case ModeCrashLoop:
			c.podTimer(p, PodCrash, crashAfter)
		}
	case corev1.PodSucceeded, corev1.PodFailed:
		p.Ready, p.Available = false, false
		if p.Node != nil {
			p.Node.used-- // the scheduler ignores terminated pods
		}
		c.account(p, before)
		c.retrySchedule()
	default: // Pending, Unknown
		p.Ready, p.Available = false, false
		c.account(p, before)
	}
	return nil
}
