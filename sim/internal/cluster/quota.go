package cluster

import "fmt"

// podQuota is one hard limit on the pods of a namespace.
type podQuota struct {
	name, resource string
	limit          int64
}

// AddQuota limits the pods of namespace to limit: quota admission refuses
// a creation beyond it, counting pods that have not finished, in the
// wording of the ResourceQuota name and its resource ("pods" or
// "count/pods").
func (c *Cluster) AddQuota(namespace, name, resource string, limit int64) {
	if c.quotas == nil {
		c.quotas, c.nsPods = map[string][]podQuota{}, map[string]int64{}
	}
	c.quotas[namespace] = append(c.quotas[namespace], podQuota{name: name, resource: resource, limit: limit})
}

// HasQuota reports whether namespace has a quota (AddQuota).
func (c *Cluster) HasQuota(namespace string) bool { return c.quotas[namespace] != nil }

// countQuotaPod keeps the namespace's count of pods that have not
// finished after p changed from before to after.
func (c *Cluster) countQuotaPod(p *Pod, before, after podFlags) {
	live := func(f podFlags) int64 { return int64(b2i(f.active || f.terminating)) }
	if d := live(after) - live(before); d != 0 {
		c.nsPods[p.Namespace] += d
	}
}

// nsQuotaError is quota admission's refusal of one more pod in namespace,
// or nil.
func (c *Cluster) nsQuotaError(name, namespace string) error {
	used := c.nsPods[namespace]
	for _, q := range c.quotas[namespace] {
		if used+1 > q.limit {
			return fmt.Errorf("pods %q is forbidden: exceeded quota: %s, requested: %s=1, used: %s=%d, limited: %s=%d", name, q.name, q.resource, q.resource, used, q.resource, q.limit)
		}
	}
	return nil
}
