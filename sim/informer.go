package sim

import (
	"cmp"
	"slices"
	"time"

	"github.com/deploymath/deploymath/sim/internal/apiserver"
	"github.com/deploymath/deploymath/sim/internal/cluster"
	appsv1 "k8s.io/api/apps/v1"
)

// The Deployment controller's informer delay (cluster.informerDelay).
//
// With a delay, the Deployment controller no longer reads the store: it
// reads its informer cache, which receives each write of a Deployment or a
// ReplicaSet the delay after the API server accepted it, in the order of
// the writes, and it is notified (its work queue gets the key) when the
// cache receives the change, not when the write happens. A sync that runs
// before the controller's own previous write reached its cache plans from
// the older object, and the API server refuses its writes with 409
// Conflict, as happens in a real cluster. Pods (read by the Recreate
// strategy) and the ReplicaSet controller are not delayed.
//
// Without a delay (the default) none of this runs: the controller reads
// the store and is notified at the write.

// delivery is one change on its way to the cache.
type delivery struct {
	key string
	dep *appsv1.Deployment // a Deployment's new version
	rs  *appsv1.ReplicaSet // a ReplicaSet's new version
	// old is the ReplicaSet's previous cached version (for the fan-out
	// to the Deployments that owned or selected it).
	gone bool // the ReplicaSet (the Deployment, with depGone) was deleted
	// depGone: a Deployment was deleted
	depGone bool
}

// informerCache is the Deployment controller's view.
type informerCache struct {
	deployments map[string]*appsv1.Deployment
	rss         map[string]*appsv1.ReplicaSet
	pending     []delivery // in write order; all arrive after the same delay
	delivering  bool       // notifications come from the cache now
}

// delayed reports whether the Deployment controller reads a delayed cache.
func (s *Sim) delayed() bool { return s.sc.Cluster.InformerDelay > 0 }

// informDeployment sends d's new version towards the cache. The copy is
// shallow: the store replaces, never writes through, a stored object's
// pointer, map and slice fields (see store).
func (s *Sim) informDeployment(key string, d *appsv1.Deployment) {
	if !s.delayed() || s.generic != nil {
		return
	}
	c := *d
	s.send(delivery{key: key, dep: &c})
}

// informDeploymentGone sends the deletion of the Deployment of key
// towards the cache.
func (s *Sim) informDeploymentGone(key string) {
	if !s.delayed() || s.generic != nil {
		return
	}
	s.send(delivery{key: key, gone: true, depGone: true})
}

// informReplicaSet sends rs's new version (or its deletion) towards the
// cache.
func (s *Sim) informReplicaSet(rs *appsv1.ReplicaSet, gone bool) {
	if !s.delayed() || s.generic != nil {
		return
	}
	c := *rs
	s.send(delivery{key: objKey(rs.Namespace, rs.Name), rs: &c, gone: gone})
}

func (s *Sim) send(d delivery) {
	if s.cache == nil {
		s.cache = &informerCache{deployments: map[string]*appsv1.Deployment{}, rss: map[string]*appsv1.ReplicaSet{}}
	}
	s.cache.pending = append(s.cache.pending, d)
	s.q.push(s.now+time.Duration(s.sc.Cluster.InformerDelay), event{kind: evInform})
}

// deliver hands the oldest pending change to the cache and notifies the
// Deployment controller as its event handlers would.
func (s *Sim) deliver() {
	c := s.cache
	d := c.pending[0]
	c.pending[0] = delivery{}
	c.pending = c.pending[1:]
	c.delivering = true
	defer func() { c.delivering = false }()
	switch {
	case d.depGone:
		delete(c.deployments, d.key)
		s.notifyDeployment(d.key)
	case d.dep != nil:
		c.deployments[d.key] = d.dep
		s.notifyDeployment(d.key)
	case d.gone:
		old := c.rss[d.key]
		delete(c.rss, d.key)
		s.touchOwners(old, nil)
		s.notifyOwners(old, nil)
	default:
		old := c.rss[d.key]
		c.rss[d.key] = d.rs
		s.touchOwners(old, d.rs)
		s.notifyOwners(old, d.rs)
	}
}

// quietForController reports whether a notification of the Deployment
// controller is to wait for the cache (see informerCache).
func (s *Sim) quietForController() bool {
	return s.delayed() && (s.cache == nil || !s.cache.delivering)
}

// namespaceOf returns the ReplicaSets of the namespace of the Deployment
// of the work-queue item it (which has one stored), kept in the item.
func (s *Sim) namespaceOf(it *wqItem) *apiserver.Namespace[*cluster.ReplicaSet] {
	if it.X.NS == nil {
		it.X.NS = s.st.Namespace(it.X.Dep.Namespace)
	}
	return it.X.NS
}

// controllerView returns the Deployment of the work-queue item it and the
// ReplicaSets of its namespace the Deployment controller sees: the
// store's, or with a delay the cache's (ReplicaSets by name).
func (s *Sim) controllerView(it *wqItem) (*appsv1.Deployment, []*appsv1.ReplicaSet) {
	key := it.Key.Name
	if !s.delayed() {
		d := it.X.Dep // the stored Deployment
		if d == nil {
			return nil, nil
		}
		return d, s.readableBy(d, s.namespaceOf(it))
	}
	if s.cache == nil {
		return nil, nil
	}
	d := s.cache.deployments[key]
	if d == nil {
		return nil, nil
	}
	var rss []*appsv1.ReplicaSet
	for _, rs := range s.cache.rss {
		if rs.Namespace == d.Namespace {
			rss = append(rss, rs)
		}
	}
	slices.SortFunc(rss, func(a, b *appsv1.ReplicaSet) int { return cmp.Compare(a.Name, b.Name) })
	return d, rss
}
