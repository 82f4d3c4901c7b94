package sim

import (
	"reflect"
	"time"
)

// The hosted controllers' informer view with cluster.informerDelay: each
// change of a stored object (of every kind, as a controller-runtime
// manager's cache holds every kind its client reads) reaches the view the
// delay after the API server accepted it, in the order of the writes, and
// the controllers' watches see it then. Their client reads the view; its
// APIReader reads the API server. Without a delay the view is the store
// and the watches see a change at the write.

// hostCache is the informer view.
type hostCache struct {
	objs    map[*kindInfo]map[string]Object
	pending []hostDelivery
}

// hostDelivery is one change on its way to the view.
type hostDelivery struct {
	ki       *kindInfo
	old, cur Object
}

// hostObserves reports whether the host is told of changes of the
// built-in kind k: a hosted controller watches it, or the hosted
// controllers read through a delayed view, which must see every change.
func (s *Sim) hostObserves(k builtinKind) bool { return s.host.observe[k] }

// hostChanged is a change the host observes: with a delay it travels to
// the view, otherwise the watches see it now.
func (s *Sim) hostChanged(ki *kindInfo, old, cur Object) {
	if s.loading {
		return // the first list, when the hosted controllers start, has it
	}
	if s.hostCache == nil {
		s.changed(ki, old, cur)
		return
	}
	if cur != nil {
		cur = frozen(ki, cur)
	}
	s.hostCache.pending = append(s.hostCache.pending, hostDelivery{ki: ki, old: old, cur: cur})
	s.q.push(s.now+time.Duration(s.sc.Cluster.InformerDelay), event{kind: evHostInform})
}

// frozen returns a copy of a stored object that later writes in place
// (of Deployments' and ReplicaSets' status, of a plan's scale) do not
// change: a shallow copy is enough, since those writes replace, never
// write through, a stored object's pointer, map and slice fields.
func frozen(ki *kindInfo, o Object) Object {
	switch ki.builtin {
	case kindDeployment, kindReplicaSet:
		v := reflect.New(reflect.TypeOf(o).Elem())
		v.Elem().Set(reflect.ValueOf(o).Elem())
		return v.Interface().(Object)
	}
	return o // custom objects are never written in place; pods and nodes are rendered anew
}

// deliverToView hands the oldest pending change to the view and tells the
// watches, as the informers' event handlers would.
func (s *Sim) deliverToView() {
	c := s.hostCache
	d := c.pending[0]
	c.pending[0] = hostDelivery{}
	c.pending = c.pending[1:]
	m := c.objs[d.ki]
	if m == nil {
		m = map[string]Object{}
		c.objs[d.ki] = m
	}
	o := d.cur
	if o == nil {
		o = d.old
	}
	key := d.ki.key(o.GetNamespace(), o.GetName())
	old := m[key]
	if d.cur == nil {
		delete(m, key)
	} else {
		m[key] = d.cur
	}
	s.viewDelivering = true
	s.changed(d.ki, old, d.cur)
	s.viewDelivering = false
}

// deliveringToGeneric says the generic built-in Deployment controller's
// watches take a change of ki now: when its view delivers a change of a
// Deployment or a ReplicaSet (what the engine's own controller's cache
// delivers; pods reach it undelayed).
func (s *Sim) deliveringToGeneric(ki *kindInfo) bool {
	return s.viewDelivering && (ki.builtin == kindDeployment || ki.builtin == kindReplicaSet)
}

// get returns the view's object of kind ki under key, or nil.
func (c *hostCache) get(ki *kindInfo, key string) Object { return c.objs[ki][key] }

// list returns the view's objects of kind ki in key order.
func (c *hostCache) list(ki *kindInfo) []Object {
	m := c.objs[ki]
	out := make([]Object, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, m[k])
	}
	return out
}

// startHosted starts the hosted controllers once the scenario's objects
// are stored: their informers' first list fills the view with every
// stored object (with a delay too: a controller starts once its caches
// have synced) and queues, through the watches, the keys of every object
// of a watched kind, kind by kind in the order of the run's kinds.
func (s *Sim) startHosted() {
	if len(s.host.ctrls) == 0 {
		return
	}
	for _, ki := range s.kinds.all() {
		objs := s.storedAll(ki)
		if s.hostCache != nil && len(objs) > 0 {
			m := map[string]Object{}
			for _, o := range objs {
				m[ki.key(o.GetNamespace(), o.GetName())] = frozen(ki, o)
			}
			s.hostCache.objs[ki] = m
		}
		for _, o := range objs {
			s.changed(ki, nil, o)
		}
	}
}
