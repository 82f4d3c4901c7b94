package cluster

import (
	"math/bits"
	"slices"
	"time"

	"github.com/deploymath/deploymath/sim/internal/ranking"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReplicaSet is the record the cluster keeps beside a stored ReplicaSet:
// its pods and the counts the ReplicaSet controller reports, kept
// incrementally so that a sync costs O(1) unless pods must be created or
// deleted.
type ReplicaSet struct {
	key string
	// Obj is the stored object (also Object, for the store).
	Obj *appsv1.ReplicaSet
	// Owner is the UID of the controller owner, or "rs:"+UID for an
	// orphan; OwnerKey the "namespace/name" of the controlling
	// Deployment, "" if none.
	Owner, OwnerKey string
	// Item is the ReplicaSet controller's work-queue item of the
	// ReplicaSet; OwnerItem the Deployment controller's item of OwnerKey
	// (set by the engine).
	Item, OwnerItem *QueueItem
	// Pods are the pods the ReplicaSet controls, in no particular order.
	Pods []*Pod
	meta []ranking.Pod // meta[i] is the ranking data of Pods[i]
	// hot[i] is ranking.Word(&meta[i]): scanned first by the ranking.
	hot []uint64
	// index orders the active pods for the ranking once the ReplicaSet
	// was large enough for Pick's heap (nil before; see podsToDelete).
	index    *ranking.Index
	colo     []int32 // active pods of the owner per node slot, shared by its ReplicaSets
	minReady time.Duration
	// names are the pod names of the generateName prefix of the
	// ReplicaSet's pods (set at its first pod creation).
	names *nameSet

	// The counts of the ReplicaSet's pods: Active (replicas), Ready,
	// Available and Terminating ones, as the controller reports them.
	Active, Ready, Available, Terminating int32
	// Terminal counts the pods in phase Succeeded or Failed, which stay
	// until deleted but are not counted as replicas.
	Terminal int32
}

// NewReplicaSet returns the record of the stored ReplicaSet obj under key,
// whose work-queue item is item (which then points to the record). Call
// Refresh before it is used.
func NewReplicaSet(key string, obj *appsv1.ReplicaSet, item *QueueItem) *ReplicaSet {
	st := &ReplicaSet{key: key, Obj: obj, Item: item}
	item.X.RS = st
	return st
}

// The store's view of the record (apiserver.Record).

// Key is the ReplicaSet's "namespace/name".
func (st *ReplicaSet) Key() string { return st.key }

// Object is the stored ReplicaSet.
func (st *ReplicaSet) Object() *appsv1.ReplicaSet { return st.Obj }

// ControllerUID is the UID of the ReplicaSet's controller ("rs:"+UID for
// an orphan).
func (st *ReplicaSet) ControllerUID() string { return st.Owner }

// Replicas is spec.replicas of rs, 1 when unset.
func Replicas(rs *appsv1.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return *rs.Spec.Replicas
}

// Refresh updates the record after a write stored obj: its controller
// (for the co-location ranks) and minReadySeconds (availability).
func (c *Cluster) Refresh(st *ReplicaSet, obj *appsv1.ReplicaSet) {
	var owner, ownerKey string
	if ref := metav1.GetControllerOfNoCopy(obj); ref != nil {
		owner = string(ref.UID)
		if ref.Kind == "Deployment" {
			ownerKey = c.st.Key(obj.Namespace, ref.Name)
		}
	} else {
		owner = "rs:" + string(obj.UID)
	}
	if owner != st.Owner || st.colo == nil {
		next := c.colo[owner]
		if next == nil {
			// slots 0 to len(c.Nodes), in a power-of-two length, which
			// ranking.Picker.Pick scans without a bounds check or a copy
			next = make([]int32, 1<<bits.Len(uint(len(c.Nodes))))
			c.colo[owner] = next
		}
		for _, p := range st.Pods {
			if p.Active() {
				if st.colo != nil {
					st.colo[p.nodeSlot()]--
				}
				next[p.nodeSlot()]++
			}
		}
		st.Owner, st.colo = owner, next
	}
	st.OwnerKey = ownerKey
	c.RefreshSpec(st, obj)
}

// RefreshSpec is Refresh after a write that kept obj's owner references
// (the same array: an in-place scale), so its controller is the same:
// only minReadySeconds (availability) is read again.
func (c *Cluster) RefreshSpec(st *ReplicaSet, obj *appsv1.ReplicaSet) {
	minReady := time.Duration(obj.Spec.MinReadySeconds) * time.Second
	if minReady != st.minReady {
		st.minReady = minReady
		for _, p := range st.Pods {
			c.refreshAvailability(p)
		}
	}
}

// Delete is the garbage collector after the ReplicaSet of st was deleted
// (background propagation): its pods are deleted gracefully.
func (c *Cluster) Delete(st *ReplicaSet) {
	st.Item.X.RS = nil
	for _, p := range slices.Clone(st.Pods) { // DeletePod changes st.Pods
		if !p.Terminating {
			c.DeletePod(p)
		}
	}
}

// HasPods reports whether any ReplicaSet of namespace controlled by the
// Deployment of key has pods.
func (c *Cluster) HasPods(namespace, key string) bool {
	for _, st := range c.st.RecordsIn(namespace) {
		if st.OwnerKey == key && len(st.Pods) > 0 {
			return true
		}
	}
	return false
}

// burstReplicas caps the pods created or deleted in one sync.
const burstReplicas = 500

// SyncReplicaSet is one sync of the ReplicaSet controller: pods created or
// deleted towards spec.replicas, then the status written when it changed.
// It returns the error of a failed pod creation, which upstream's handleErr
// requeues through the rate limiter.
func (c *Cluster) SyncReplicaSet(st *ReplicaSet) error {
	rs := st.Obj
	c.Stats.ReplicaSetSyncs++
	diff := st.Active - Replicas(rs)
	var createErr error
	switch {
	case diff < 0:
		n := min(-diff, burstReplicas)
		st.reserve(int(Replicas(rs)) + int(st.Terminating) + int(st.Terminal))
		_, createErr = slowStart(int(n), func() error { return c.createPod(rs, st) })
	case diff > 0:
		n := min(diff, burstReplicas)
		for _, p := range c.podsToDelete(st, int(n)) {
			c.DeletePod(p)
		}
	}
	c.writeStatus(rs, st, createErr)
	return createErr
}

// reserve makes room for n pods in st's lists, so that a ReplicaSet
// growing pod by pod to n pods allocates its lists once instead of
// doubling them again and again.
func (st *ReplicaSet) reserve(n int) {
	if n <= cap(st.Pods) {
		return
	}
	st.Pods = slices.Grow(st.Pods, n-len(st.Pods))
	st.meta = slices.Grow(st.meta, n-len(st.meta))
	st.hot = slices.Grow(st.hot, n-len(st.hot))
}

// slowStart calls fn n times in batches of 1, 2, 4, … and stops after the
// first batch with a failure. It returns the number of successes.
func slowStart(n int, fn func() error) (int, error) {
	done := 0
	for batch := 1; done < n; batch *= 2 {
		size := min(batch, n-done)
		var first error
		for i := 0; i < size; i++ {
			if err := fn(); err != nil {
				if first == nil {
					first = err
				}
				continue
			}
			done++
		}
		if first != nil {
			return done, first
		}
	}
	return done, nil
}

// writeStatus computes the ReplicaSet status from the pod counts and writes
// it when it changed.
func (c *Cluster) writeStatus(rs *appsv1.ReplicaSet, st *ReplicaSet, createErr error) {
	cur := &rs.Status
	conds := rs.Status.Conditions
	failure := ReplicaFailure(rs.Status.Conditions)
	switch {
	case createErr != nil && failure == nil:
		conds = append(slices.Clone(rs.Status.Conditions), appsv1.ReplicaSetCondition{
			Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate",
			Message: createErr.Error(), LastTransitionTime: c.stamp(),
		})
	case createErr == nil && failure != nil:
		conds = slices.DeleteFunc(slices.Clone(rs.Status.Conditions), func(c appsv1.ReplicaSetCondition) bool {
			return c.Type == appsv1.ReplicaSetReplicaFailure
		})
		if len(conds) == 0 {
			conds = nil
		}
	}
	terminating := !c.cfg.DisableTerminatingReplicas
	// the common case: nothing changed; compare without building the status
	if cur.Replicas == st.Active && cur.FullyLabeledReplicas == st.Active && cur.ReadyReplicas == st.Ready &&
		cur.AvailableReplicas == st.Available && cur.ObservedGeneration == rs.Generation &&
		(cur.TerminatingReplicas != nil) == terminating && (!terminating || *cur.TerminatingReplicas == st.Terminating) &&
		rsConditionsEqual(cur.Conditions, conds) {
		return
	}
	// The status write changes the stored object in place (see the
	// engine's store): scalar fields are overwritten, the pointer and the
	// conditions slice are replaced, never written through, since copies
	// of the object made before share them.
	cur.Replicas = st.Active
	cur.FullyLabeledReplicas = st.Active
	cur.ReadyReplicas = st.Ready
	cur.AvailableReplicas = st.Available
	cur.ObservedGeneration = rs.Generation
	cur.Conditions = conds
	switch {
	case !terminating:
		cur.TerminatingReplicas = nil
	case cur.TerminatingReplicas == nil || *cur.TerminatingReplicas != st.Terminating:
		t := st.Terminating
		cur.TerminatingReplicas = &t
	}
	c.e.StatusWritten(st)
}

// rsConditionsEqual compares two ReplicaSet condition lists field by field.
func rsConditionsEqual(a, b []appsv1.ReplicaSetCondition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message || !x.LastTransitionTime.Equal(&y.LastTransitionTime) {
			return false
		}
	}
	return true
}

// ReplicaFailure returns the ReplicaFailure condition of conds, or nil.
func ReplicaFailure(conds []appsv1.ReplicaSetCondition) *appsv1.ReplicaSetCondition {
	for i := range conds {
		if conds[i].Type == appsv1.ReplicaSetReplicaFailure {
			return &conds[i]
		}
	}
	return nil
}

// podsToDelete picks n active pods of st to delete, in the ReplicaSet
// controller's order (package ranking).
func (c *Cluster) podsToDelete(st *ReplicaSet, n int) []*Pod {
	if st.index == nil && ranking.Heaped(int(st.Active), n) {
		// large: indexed from now on (the index serves every later pick,
		// down to the last pods)
		st.index = ranking.NewIndex(st.meta)
	}
	idx := c.picker.Pick(st.meta, st.hot, st.colo, int(st.Active), n, c.e.Now(), st.index)
	out := make([]*Pod, len(idx))
	for i, j := range idx {
		out[i] = st.Pods[j]
	}
	return out
}

// setIndexedMeta is setMeta of p's ranking data for a ReplicaSet with an
// index, which it tells first.
func (st *ReplicaSet) setIndexedMeta(p *Pod) {
	m := p.rankMeta()
	st.index.Set(int(p.idx), &st.meta[p.idx], &m)
	st.setMeta(int(p.idx), m)
}

// setMeta stores the ranking data of Pods[i] (see setIndexedMeta for a
// ReplicaSet with an index).
func (st *ReplicaSet) setMeta(i int, m ranking.Pod) {
	st.meta[i] = m
	st.hot[i] = ranking.Word(&m)
}

// rankMeta is what the deletion ranking reads of p.
func (p *Pod) rankMeta() ranking.Pod {
	var phase uint8
	switch {
	case p.Phase == corev1.PodPending:
		phase = 0
	case p.Phase == corev1.PodUnknown || p.Node != nil && p.Node.Down:
		phase = 1 // the node controller marks pods of an unreachable node Unknown
	default:
		phase = 2
	}
	m := ranking.Pod{UID: p.uidNum, Created: p.Created.Truncate(time.Second), Restarts: p.Restarts, Slot: p.nodeSlot(),
		Class: ranking.Class(p.Node != nil, phase, p.Ready), Active: p.Active(), Ready: p.Ready}
	if p.Ready {
		m.ReadyAt = p.ReadyAt.Truncate(time.Second)
	}
	return m
}

// SetObject replaces the stored object (apiserver.Record).
func (st *ReplicaSet) SetObject(rs *appsv1.ReplicaSet) { st.Obj = rs }
