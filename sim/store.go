package sim

import (
	"slices"
	"time"

	"github.com/deploymath/deploymath/sim/internal/apiserver"
	"github.com/deploymath/deploymath/sim/internal/ranking"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// Epoch is the wall-clock instant of the virtual time 0. Object timestamps
// are Epoch plus the offset; traces print offsets only.
var Epoch = time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)

// rsState is the simulator's runtime bookkeeping of one ReplicaSet: its
// pods and the counts the ReplicaSet controller reports, kept incrementally
// so that a sync costs O(1) unless pods must be created or deleted.
type rsState struct {
	key      string
	rs       *appsv1.ReplicaSet // the stored object
	uid      types.UID
	owner    string  // controller owner UID, or "rs:"+uid for an orphan
	ownerKey string  // namespace/name of the controlling Deployment, "" if none
	item     *wqItem // the ReplicaSet controller's work-queue item of key
	// ownerItem is the Deployment controller's work-queue item of ownerKey.
	ownerItem *wqItem
	pods      []*podState
	meta      []ranking.Pod // meta[i] is the ranking data of pods[i]
	hot       []uint64      // hot[i] is ranking.Word(&meta[i]): scanned first
	colo      []int32       // active pods of the owner per node slot, shared by its ReplicaSets
	minReady  time.Duration

	active, ready, available, terminating int32
	// terminal counts the pods in phase Succeeded or Failed, which stay
	// until deleted but are not counted as replicas
	terminal int32
	failure  string // message of the last pod creation failure, "" when none
}

// store is the in-memory API server (package apiserver): objects by
// "namespace/name", with resourceVersion and generation bookkeeping. Writes of the Deployment
// controller and of users store a new object, so a pointer handed out
// earlier keeps showing the old version. The two exceptions are the most
// frequent writes of a rollout: the ReplicaSet controller model's status
// write changes the stored ReplicaSet in place, and a plan's Deployment
// status write the stored Deployment (replacing, never writing through,
// their pointer, map and slice fields). That is safe because no one keeps a
// stored object across events: a plan's snapshot is used and dropped within
// one sync (what the sync reads of its Deployment after the status write is
// its name), and the invariant checker captures a copy of the Deployment
// and compares ReplicaSets around a single action, during which no
// ReplicaSet status is written.
type store = apiserver.Store[*rsState, *podState]

func newStore() *store { return apiserver.New[*rsState, *podState]() }

// The store's view of a ReplicaSet's state (apiserver.Record).
func (st *rsState) Key() string                { return st.key }
func (st *rsState) Object() *appsv1.ReplicaSet { return st.rs }
func (st *rsState) ControllerUID() string      { return st.owner }

// apiError is an error of the API server (see apiserver.Error).
type apiError = apiserver.Error

func objKey(namespace, name string) string { return namespace + "/" + name }

// sortedKeys returns the keys of m in order: map iteration is never used
// for anything observable.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// truncTime is t as the API server stores it: RFC 3339 with second
// precision.
func truncTime(t metav1.Time) metav1.Time {
	if t.IsZero() {
		return t
	}
	return metav1.NewTime(t.Time.Truncate(time.Second))
}

// deploymentSelects reports whether d's selector selects lbls. Invalid
// selectors select nothing.
func deploymentSelects(d *appsv1.Deployment, lbls map[string]string) bool {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || sel.Empty() {
		return false
	}
	return sel.Matches(labels.Set(lbls))
}
