package sim

import (
	"time"

	"github.com/deploymath/deploymath/sim/internal/cluster"
	appsv1 "k8s.io/api/apps/v1"
)

// engine is the Sim as the cluster model sees it (cluster.Engine): the
// same object, with the methods the model calls, kept off Sim's exported
// API.
type engine Sim

// Now is the run's virtual time.
func (e *engine) Now() time.Duration { return e.now }

// Schedule queues a cluster timer for time at.
func (e *engine) Schedule(at time.Duration, t cluster.Timer) {
	e.q.push(at, clusterEvent(t))
}

// Note adds a line to the trace's current frame.
func (e *engine) Note(format string, args ...any) { (*Sim)(e).note(format, args...) }

// Notify is the pod informer's handler: the ReplicaSet of the work-queue
// item it is queued after the controllers' reaction latency.
func (e *engine) Notify(it *wqItem) { (*Sim)(e).notifyItem(it) }

// PodDeleted is the Deployment controller's pod handler: a Recreate
// Deployment is queued once the last pod of its ReplicaSets is gone.
func (e *engine) PodDeleted(st *cluster.ReplicaSet) {
	if st.OwnerItem == nil || e.generic != nil {
		return // the generic Deployment controller watches pods (observeCluster)
	}
	s := (*Sim)(e)
	if d := st.OwnerItem.X.Dep; d != nil && d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType && !s.c.HasPods(d.Namespace, objKey(d.Namespace, d.Name)) {
		s.notifyDeployment(st.OwnerKey)
	}
}

// StatusWritten is the API server accepting the ReplicaSet controller's
// status write, which the model made in place in the stored object.
func (e *engine) StatusWritten(st *cluster.ReplicaSet) {
	s := (*Sim)(e)
	rs := st.Obj
	rs.ResourceVersion = s.st.NextRV()
	s.logReplicaSetWrite(writerReplicaSet, "status", rs)
	s.informReplicaSet(rs, false)
	s.rsStatusChanged(rs, st)
	if s.hostObserves(kindReplicaSet) {
		s.hostChanged(s.kinds.builtin[kindReplicaSet], rs, rs)
	}
}

// syncReplicaSet is one sync of the ReplicaSet controller (package
// cluster) for a work-queue item. Upstream's syncReplicaSet returns the
// creation error, and its handleErr requeues the key through the rate
// limiter, without a retry limit; a sync without error forgets the
// failures.
func (s *Sim) syncReplicaSet(it *wqItem) {
	st := it.X.RS
	if st == nil {
		return // deleted
	}
	if err := s.c.SyncReplicaSet(st); err != nil {
		s.addAfterItem(it, it.Backoff())
	} else {
		it.Forget()
	}
}

// clusterConfig is the cluster model's configuration from a scenario.
func clusterConfig(sc *Scenario, o Options) cluster.Config {
	c := sc.Cluster
	cfg := cluster.Config{
		Epoch:                      Epoch,
		Startup:                    c.Startup.cluster(),
		Readiness:                  c.Readiness.cluster(),
		Termination:                c.Termination.cluster(),
		EvictionTimeout:            time.Duration(c.EvictionTimeout),
		NodeMonitorGracePeriod:     time.Duration(c.NodeMonitorGracePeriod),
		PodQuota:                   c.PodQuota,
		DisableTerminatingReplicas: o.Plan.DisableTerminatingReplicas,
	}
	for i := range c.Failures {
		r := &c.Failures[i]
		cfg.Failures = append(cfg.Failures, cluster.FailureRule{Matches: r.matches, Probability: r.Probability, Mode: r.mode})
	}
	return cfg
}

// cluster is the range as the cluster model takes it.
func (r Range) cluster() cluster.Range {
	return cluster.Range{Min: time.Duration(r.Min), Max: time.Duration(r.Max)}
}

var _ cluster.Engine = (*engine)(nil)
