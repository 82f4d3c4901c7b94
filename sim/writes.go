package sim

import (
	"fmt"
	"slices"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim/internal/apiserver"
	"github.com/deploymath/deploymath/sim/internal/cluster"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The API server's writes of Deployments and ReplicaSets (package
// apiserver) and what their watchers see: the cluster model's record,
// the informers of both controllers, the write log, the metrics, the
// restart controller.

func (s *Sim) createReplicaSet(obj *appsv1.ReplicaSet) error {
	if obj == nil {
		return fmt.Errorf("create replicaset: nil object")
	}
	st, err := s.st.CreateReplicaSet(obj, s.stamp(), func(key string, rs *appsv1.ReplicaSet) *cluster.ReplicaSet {
		return cluster.NewReplicaSet(key, rs, s.wq.Item(queueKey{Ctrl: ctrlReplicaSet, Name: key}))
	})
	if err != nil {
		return err
	}
	s.rsWritten(st, "create", nil)
	return nil
}

// rsWritten is what the watchers see of a create or an update that
// stored st's object in place of old (nil for a create).
func (s *Sim) rsWritten(st *cluster.ReplicaSet, verb string, old *appsv1.ReplicaSet) {
	rs := st.Obj
	s.syncRSState(st, rs)
	s.logReplicaSetWrite(s.by(), verb, rs)
	s.informReplicaSet(rs, false)
	s.rsChanged(old, rs)
	if s.hostObserves(kindReplicaSet) {
		s.hostChanged(s.kinds.builtin[kindReplicaSet], nilIfNone(old), rs)
	}
}

// nilIfNone is rs as an Object, nil for a nil ReplicaSet (not a non-nil
// interface holding a nil pointer).
func nilIfNone(rs *appsv1.ReplicaSet) Object {
	if rs == nil {
		return nil
	}
	return rs
}

// updateReplicaSet writes metadata and spec (the main resource; status is
// kept), with optimistic concurrency on a non-empty resourceVersion. owned
// says obj was allocated for the caller (a plan's ReplicaSet write, see
// rollout.UpdateReplicaSet) and may be stored as it is.
func (s *Sim) updateReplicaSet(obj *appsv1.ReplicaSet, owned bool) error {
	if obj == nil {
		return fmt.Errorf("update replicaset: nil object")
	}
	st, old, err := s.st.UpdateReplicaSet(obj, owned)
	if err != nil {
		return err
	}
	s.rsWritten(st, "update", old)
	return nil
}

// scaleReplicaSet is updateReplicaSet(obj, false) for a plan's scale,
// which changes spec.replicas and the replicas annotations of the stored
// ReplicaSet and nothing else of its metadata: when nothing keeps stored
// ReplicaSets across a write (no invariant checker, whose captures hold
// them, and no informer delay, whose cache holds them), obj is copied into
// the stored object, as the ReplicaSet controller's status writes are,
// instead of a new one.
func (s *Sim) scaleReplicaSet(obj *appsv1.ReplicaSet) error {
	if s.checks != nil || s.delayed() || obj == nil {
		return s.updateReplicaSet(obj, false)
	}
	var st *cluster.ReplicaSet
	var done bool
	var err error
	if rec := s.syncedRecord(obj); rec != nil {
		st, done, err = s.st.ScaleRecordInPlace(rec, obj)
	} else {
		st, done, err = s.st.ScaleReplicaSetInPlace(obj)
	}
	if !done {
		return s.updateReplicaSet(obj, false)
	}
	if err != nil {
		return err
	}
	rs := st.Obj
	s.c.RefreshSpec(st, rs) // the owner references are the same array: so are the owner and its item
	s.logReplicaSetWrite(s.by(), "update", rs)
	// rsChanged(rs, rs): the owner references are the same
	s.rsStatusChanged(rs, st)
	if s.hostObserves(kindReplicaSet) {
		s.hostChanged(s.kinds.builtin[kindReplicaSet], rs, rs)
	}
	return nil
}

// syncedRecord returns the stored record of obj's namespace and name
// when it is one the Deployment being synced read (a plan scales only
// those), found in the sync's list of records instead of by key: nil
// when it is not there (the caller then looks it up by key). A record is
// the stored one of its key as long as its work-queue item points to it.
func (s *Sim) syncedRecord(obj *appsv1.ReplicaSet) *cluster.ReplicaSet {
	it := s.syncItem
	if it == nil || it.X.NS == nil || obj.Namespace == "" {
		return nil
	}
	recs := it.X.NS.Records
	if len(recs) > s.smallNS {
		recs = s.readBuf // readableBy's pick (a later sync's may be stale: checked below)
	}
	for _, st := range recs {
		if o := st.Obj; o.Name == obj.Name && o.Namespace == obj.Namespace {
			if st.Item.X.RS == st {
				return st
			}
			return nil
		}
	}
	return nil
}

// deleteReplicaSet deletes a ReplicaSet with a UID precondition; the garbage
// collector then deletes its pods gracefully (background propagation).
func (s *Sim) deleteReplicaSet(namespace, name string, uid types.UID) error {
	st, err := s.st.DeleteReplicaSet(namespace, name, uid)
	if err != nil {
		return err
	}
	old := st.Obj
	s.rsOwners.remove(ownerOfRecord(old.Namespace, st.Owner), st)
	s.logReplicaSetWrite(s.by(), "delete", old)
	s.informReplicaSet(old, true)
	s.c.Delete(st)
	s.rsChanged(old, nil)
	if s.hostObserves(kindReplicaSet) {
		s.hostChanged(s.kinds.builtin[kindReplicaSet], old, nil)
	}
	return nil
}

// rsChanged is the informer fan-out of a ReplicaSet change: the ReplicaSet
// controller queues the ReplicaSet, the Deployment controller queues the
// owning Deployment(s), or for an orphan every Deployment selecting it.
func (s *Sim) rsChanged(old, cur *appsv1.ReplicaSet) {
	s.touchOwners(old, cur)
	if s.generic != nil {
		s.toGeneric(kindReplicaSet, nilIfNone(old), nilIfNone(cur))
	} else {
		s.notifyOwners(old, cur)
	}
	if cur != nil {
		if st := s.st.ReplicaSets[s.st.Key(cur.Namespace, cur.Name)]; st != nil {
			s.notifyItem(st.Item)
		} else {
			s.notifyRS(s.st.Key(cur.Namespace, cur.Name))
		}
	}
}

// notifyOwners is the Deployment controller's part of a ReplicaSet
// change's fan-out: the Deployment that controls old or cur, or, for an
// orphan, every Deployment whose selector matches it.
func (s *Sim) notifyOwners(old, cur *appsv1.ReplicaSet) {
	var seenBuf [4]string
	seen := seenBuf[:0] // Deployments queued so far (usually one)
	for _, rs := range [2]*appsv1.ReplicaSet{old, cur} {
		if rs == nil {
			continue
		}
		if ref := metav1.GetControllerOfNoCopy(rs); ref != nil {
			if ref.Kind == "Deployment" {
				key := s.st.Key(rs.Namespace, ref.Name)
				if d := s.st.Deployments[key]; d != nil && d.UID == ref.UID && !slices.Contains(seen, key) {
					seen = append(seen, key)
					s.notifyDeployment(key)
				}
			}
			continue
		}
		for _, key := range s.deploymentKeysIn(rs.Namespace) {
			d := s.st.Deployments[key]
			if !slices.Contains(seen, key) && deploymentSelects(d, rs.Labels) {
				seen = append(seen, key)
				s.notifyDeployment(key)
			}
		}
	}
}

// touchOwners marks, for the summary's metrics, the Deployments that
// control old or cur as touched.
func (s *Sim) touchOwners(old, cur *appsv1.ReplicaSet) {
	for _, rs := range [2]*appsv1.ReplicaSet{old, cur} {
		if rs == nil {
			continue
		}
		if ref := metav1.GetControllerOfNoCopy(rs); ref != nil && ref.Kind == "Deployment" {
			s.met.touch(s.wq.Item(queueKey{Ctrl: ctrlDeployment, Name: s.st.Key(rs.Namespace, ref.Name)}))
		}
	}
}

// deploymentKeysIn returns the keys of namespace's Deployments, in order:
// the range of the sorted DeploymentKeys that begin with "namespace/"
// (those below "namespace0", '0' following '/').
func (s *Sim) deploymentKeysIn(namespace string) []string {
	keys := s.st.DeploymentKeys
	lo, _ := slices.BinarySearch(keys, namespace+"/")
	hi, _ := slices.BinarySearch(keys, namespace+"0")
	return keys[lo:hi]
}

// rsStatusChanged is rsChanged(nil, rs) for a write of rs, whose record
// st is current (syncRSState): the controller's UID, the owning
// Deployment's key and work-queue item come from st instead of the owner
// references and map look-ups.
func (s *Sim) rsStatusChanged(rs *appsv1.ReplicaSet, st *cluster.ReplicaSet) {
	if st.OwnerItem == nil { // no controller, or not a Deployment
		s.rsChanged(nil, rs)
		return
	}
	s.met.touch(st.OwnerItem)
	if s.generic != nil {
		s.toGeneric(kindReplicaSet, rs, rs)
	} else if d := st.OwnerItem.X.Dep; d != nil && string(d.UID) == st.Owner && !s.quietForController() {
		s.notifyItem(st.OwnerItem)
	}
	s.notifyItem(st.Item)
}

// syncRSState refreshes the cluster's record of a ReplicaSet after a
// write stored rs (package cluster: its controller, minReadySeconds), and
// the work-queue item of its controlling Deployment.
func (s *Sim) syncRSState(st *cluster.ReplicaSet, rs *appsv1.ReplicaSet) {
	was := st.Owner // "" for a new record, never indexed
	s.c.Refresh(st, rs)
	if st.Owner != was {
		if was != "" {
			s.rsOwners.remove(ownerOfRecord(rs.Namespace, was), st)
		}
		s.rsOwners.add(ownerOfRecord(rs.Namespace, st.Owner), st)
	}
	st.OwnerItem = nil
	if st.OwnerKey != "" {
		st.OwnerItem = s.wq.Item(queueKey{Ctrl: ctrlDeployment, Name: st.OwnerKey})
	}
}

// createDeployment stores a new Deployment, defaulted as the API server
// defaults every write (rollout.Default: the v1.37 defaults, pod template
// included, so ReplicaSet names are a cluster's).
func (s *Sim) createDeployment(d *appsv1.Deployment) error {
	d = rollout.Default(d) // a copy
	key, err := s.st.CreateDeployment(d, s.stamp())
	if err != nil {
		return err
	}
	it := s.wq.Item(queueKey{Ctrl: ctrlDeployment, Name: key})
	it.X.Dep = d
	s.maxSpecReplicas = max(s.maxSpecReplicas, replicas(d))
	s.logDeploymentWrite("create", d)
	s.informDeployment(key, d)
	s.toDeploymentController(kindDeployment, nil, d, key)
	s.met.touch(it)
	s.observeRestart(d)
	if s.checks != nil {
		s.checks.userChange(key)
	}
	if s.hostObserves(kindDeployment) {
		s.hostChanged(s.kinds.builtin[kindDeployment], nil, d)
	}
	return nil
}

// writeDeploymentSpec stores a user's change of a Deployment (metadata and
// spec), defaulted as the API server defaults every write (an edit of a
// stored object changes no default, but an edit may add a container, a
// probe or a volume), bumping generation when the spec or the annotations
// changed (the apps registry's rule: annotations are copied to
// ReplicaSets).
func (s *Sim) writeDeploymentSpec(old, d *appsv1.Deployment) {
	d = rollout.Default(d)
	key := s.st.ReplaceDeployment(old, d)
	it := s.wq.Item(queueKey{Ctrl: ctrlDeployment, Name: key})
	it.X.Dep = d
	s.maxSpecReplicas = max(s.maxSpecReplicas, replicas(d))
	if s.syncDep == old {
		s.syncDep = nil // replaced
	}
	s.logDeploymentWrite("update", d)
	s.informDeployment(key, d)
	s.toDeploymentController(kindDeployment, old, d, key)
	s.met.touch(it)
	s.observeRestart(d)
	if s.hostObserves(kindDeployment) {
		s.hostChanged(s.kinds.builtin[kindDeployment], old, d)
	}
}

// storedForWrite returns the stored Deployment that a write of obj
// replaces, and its key, after the API server's checks.
func (s *Sim) storedForWrite(obj *appsv1.Deployment, verb string) (*appsv1.Deployment, string, error) {
	if obj == nil {
		return nil, "", fmt.Errorf("%s: nil object", verb)
	}
	return s.st.WritableDeployment(obj)
}

func (s *Sim) updateDeployment(obj *appsv1.Deployment) error {
	old, _, err := s.storedForWrite(obj, "update deployment")
	if err != nil {
		return err
	}
	d := rollout.Default(obj)
	s.writeDeploymentSpec(old, d)
	return nil
}

// updateDeploymentStatus writes the status subresource: status and, as the
// apps registry does, metadata.annotations; the rest of obj is ignored. The
// planner ([rollout.Planner]) reuses the Deployment it wrote at its next
// plan, so its status and annotations are copied into the stored
// Deployment, which is updated in place — like the ReplicaSet controller's
// status writes, an exception to "stored objects are never modified in
// place" (see store): nothing keeps a stored Deployment across a write, and
// the invariant checker captures a copy.
func (s *Sim) updateDeploymentStatus(obj *appsv1.Deployment) error {
	var old *appsv1.Deployment
	var key string
	it := s.syncItem
	if d := s.syncDep; it != nil && d != nil && obj != nil && obj.Name == d.Name && obj.Namespace == d.Namespace {
		// the synced Deployment's own write: the sync read the stored object
		old, key = d, it.Key.Name
		if obj.ResourceVersion != "" && obj.ResourceVersion != old.ResourceVersion {
			return apiserver.Conflict("deployments.apps", obj.Name)
		}
	} else {
		var err error
		if old, key, err = s.storedForWrite(obj, "update deployment status"); err != nil {
			return err
		}
		it = s.wq.Item(queueKey{Ctrl: ctrlDeployment, Name: key})
	}
	s.st.WriteDeploymentStatus(old, obj, s.storeConditions(it, old, old.Status.Conditions, obj.Status.Conditions))
	s.logDeploymentWrite("status", old)
	s.informDeployment(key, old)
	switch {
	case s.generic != nil:
		s.toGeneric(kindDeployment, old, old)
	case !s.quietForController():
		s.notifyItem(it)
	}
	s.met.touch(it)
	s.observeRestart(old)
	if s.hostObserves(kindDeployment) {
		s.hostChanged(s.kinds.builtin[kindDeployment], old, old)
	}
	return nil
}

// storeConditions returns the conditions a status write stores in d (the
// Deployment of the work-queue item it), whose conditions were prev, from
// conds: the plan's (which the Planner reuses at its next plan, see
// rollout.Planner) or prev itself. They are copied, times cut to the
// second as the API server stores them, into d's own array, which the
// simulator allocated for this Deployment object and edits in place from
// one status write to the next (the invariant checker captures a copy;
// nothing else keeps a stored Deployment's conditions across a write).
// With an informer delay, whose cache holds shallow copies of the written
// objects, each write gets a new array.
func (s *Sim) storeConditions(it *wqItem, d *appsv1.Deployment, prev, conds []appsv1.DeploymentCondition) []appsv1.DeploymentCondition {
	if len(conds) == 0 {
		return conds
	}
	var out []appsv1.DeploymentCondition
	if !s.delayed() && it.X.CondsOwner == d && cap(prev) >= len(conds) {
		out = prev[:len(conds)]
	} else {
		out = make([]appsv1.DeploymentCondition, len(conds), max(len(conds), 4))
		if !s.delayed() {
			it.X.CondsOwner = d
		}
	}
	if &out[0] == &conds[0] {
		return out // unchanged: the plan shared them (cut already)
	}
	copy(out, conds)
	for i := range out {
		c := &out[i]
		if c.LastUpdateTime.Nanosecond() != 0 {
			c.LastUpdateTime = truncTime(c.LastUpdateTime)
		}
		if c.LastTransitionTime.Nanosecond() != 0 {
			c.LastTransitionTime = truncTime(c.LastTransitionTime)
		}
	}
	return out
}
