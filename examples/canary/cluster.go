package main

import (
	"fmt"
	"slices"
	"time"

	"github.com/deploymath/deploymath/rollout"
)

// Cluster is a tiny deterministic stand-in for a cluster: ReplicaSets and
// their pods, on a clock that moves in ticks. A ReplicaSet controller runs
// at every tick: it creates missing pods at once (they become available
// ReadyAfter ticks later) and deletes surplus ones at once, unavailable
// ones first, then the newest.
type Cluster struct {
	Now  time.Time
	Tick time.Duration
	// ReadyAfter is how many ticks a new pod of a ReplicaSet takes to become
	// available (by name; Default for the others). A negative value: never.
	ReadyAfter map[string]int
	Default    int

	tick int
	rss  []*fakeRS // in creation order
}

type fakeRS struct {
	name                 string
	created              time.Time
	revision             int64
	spec                 int32
	generation, observed int64
	pods                 []int // the tick each pod is available from; -1: never
}

// Create adds a ReplicaSet of size replicas whose pods are all available.
func (c *Cluster) Create(name string, revision int64, replicas int32) {
	rs := &fakeRS{name: name, created: c.Now, revision: revision, spec: replicas, generation: 1, observed: 1}
	for range replicas {
		rs.pods = append(rs.pods, c.tick)
	}
	c.rss = append(c.rss, rs)
}

// Scale sets a ReplicaSet's size; its pods follow at the next tick.
func (c *Cluster) Scale(name string, to int32) error {
	rs := c.find(name)
	if rs == nil {
		return fmt.Errorf("scale %s: not found", name)
	}
	rs.spec = to
	rs.generation++
	return nil
}

// Delete removes a ReplicaSet.
func (c *Cluster) Delete(name string) error {
	i := slices.IndexFunc(c.rss, func(rs *fakeRS) bool { return rs.name == name })
	if i < 0 {
		return fmt.Errorf("delete %s: not found", name)
	}
	c.rss = slices.Delete(c.rss, i, i+1)
	return nil
}

// Names lists the ReplicaSets, oldest first.
func (c *Cluster) Names() []string {
	var out []string
	for _, rs := range c.rss {
		out = append(out, rs.name)
	}
	return out
}

// Step moves the clock one tick and lets the ReplicaSet controller act.
func (c *Cluster) Step() {
	c.tick++
	c.Now = c.Now.Add(c.Tick)
	for _, rs := range c.rss {
		delay, ok := c.ReadyAfter[rs.name]
		if !ok {
			delay = c.Default
		}
		for int32(len(rs.pods)) < rs.spec {
			at := c.tick + delay
			if delay < 0 {
				at = -1
			}
			rs.pods = append(rs.pods, at)
		}
		if surplus := len(rs.pods) - int(rs.spec); surplus > 0 {
			// Unavailable pods first, then the newest: stable sort by
			// availability, latest last.
			slices.SortStableFunc(rs.pods, func(a, b int) int { return availableRank(c.tick, a) - availableRank(c.tick, b) })
			rs.pods = rs.pods[:rs.spec]
		}
		rs.observed = rs.generation
	}
}

// availableRank orders available pods before unavailable ones.
func availableRank(tick, at int) int {
	if at >= 0 && at <= tick {
		return 0
	}
	return 1
}

// Get is a ReplicaSet as the rollout arithmetic sees it; the zero value if
// there is none.
func (c *Cluster) Get(name string) rollout.ReplicaSet {
	rs := c.find(name)
	if rs == nil {
		return rollout.ReplicaSet{}
	}
	var available int32
	for _, at := range rs.pods {
		if availableRank(c.tick, at) == 0 {
			available++
		}
	}
	return rollout.ReplicaSet{
		Name: rs.name, Created: rs.created, Revision: rs.revision,
		Replicas: rs.spec, StatusReplicas: int32(len(rs.pods)), ReadyReplicas: available, AvailableReplicas: available,
		TerminatingReplicas: new(int32), Generation: rs.generation, ObservedGeneration: rs.observed,
	}
}

func (c *Cluster) find(name string) *fakeRS {
	for _, rs := range c.rss {
		if rs.name == name {
			return rs
		}
	}
	return nil
}

// Observe fills in the canary's ReplicaSets from the cluster.
func (c *Cluster) Observe(k Canary) Canary {
	k.Stable = c.Get(k.Stable.Name)
	if k.Canary.Name != "" {
		k.Canary = c.Get(k.Canary.Name)
	}
	history := make([]rollout.ReplicaSet, len(k.History))
	for i, rs := range k.History {
		history[i] = c.Get(rs.Name)
	}
	k.History = history
	return k
}
