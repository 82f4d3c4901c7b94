package sim

import (
	"fmt"
	"slices"
	"strconv"
	"time"
	"unsafe"

	"github.com/deploymath/deploymath/internal/apirules"
	"github.com/deploymath/deploymath/sim/internal/ranking"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// Epoch is the wall-clock instant of the virtual time 0. Object timestamps
// are Epoch plus the offset; traces print offsets only.
var Epoch = time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)

// apiError is an error of the in-memory API server. Its text follows the
// API server's wording.
type apiError struct {
	reason string // Conflict, NotFound, AlreadyExists, Forbidden
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func conflictError(resource, name string) error {
	return &apiError{"Conflict", apirules.ConflictMessage(resource, name)}
}

func notFoundError(resource, name string) error {
	return &apiError{"NotFound", fmt.Sprintf("%s %q not found", resource, name)}
}

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

// store is the in-memory API server: objects by "namespace/name", with
// resourceVersion and generation bookkeeping. Writes of the Deployment
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
type store struct {
	rv          int64
	uid         int64
	deployments map[string]*appsv1.Deployment
	rsState     map[string]*rsState // the ReplicaSets by key: their state holds the stored object
	configMaps  map[string]*corev1.ConfigMap
	secrets     map[string]*corev1.Secret
	pods        map[string]*podState
	rsByNS      map[string][]*rsState // the ReplicaSets of each namespace, by key
	depKeys     []string              // sorted keys of deployments
	keys        map[nsName]string     // interned "namespace/name" keys
	rsBuf       []*appsv1.ReplicaSet
	strBuf      []byte // the unused end of the current chunk of string bytes (see str)
}

// nsName is a namespace and a name: the key of the key intern table.
type nsName struct{ namespace, name string }

// key returns "namespace/name", interned: looking a key up allocates
// nothing once it has been made.
func (s *store) key(namespace, name string) string {
	if k, ok := s.keys[nsName{namespace, name}]; ok {
		return k
	}
	k := objKey(namespace, name)
	s.keys[nsName{namespace, name}] = k
	return k
}

// addKey and removeKey keep a sorted key index.
func addKey(keys []string, k string) []string {
	i, found := slices.BinarySearch(keys, k)
	if found {
		return keys
	}
	return slices.Insert(keys, i, k)
}

func newStore() *store {
	return &store{
		deployments: map[string]*appsv1.Deployment{},
		rsState:     map[string]*rsState{},
		configMaps:  map[string]*corev1.ConfigMap{},
		secrets:     map[string]*corev1.Secret{},
		pods:        map[string]*podState{},
		rsByNS:      map[string][]*rsState{},
		keys:        map[nsName]string{},
	}
}

// replicaSet returns the stored ReplicaSet under key, or nil.
func (s *store) replicaSet(key string) *appsv1.ReplicaSet {
	if st := s.rsState[key]; st != nil {
		return st.rs
	}
	return nil
}

// indexRS and unindexRS maintain the ReplicaSets-by-namespace index.
func (s *store) indexRS(namespace string, st *rsState) {
	ns := s.rsByNS[namespace]
	i, _ := slices.BinarySearchFunc(ns, st.key, func(e *rsState, k string) int { return compareStrings(e.key, k) })
	s.rsByNS[namespace] = slices.Insert(ns, i, st)
}

func (s *store) unindexRS(namespace, key string) {
	ns := s.rsByNS[namespace]
	if i, found := slices.BinarySearchFunc(ns, key, func(e *rsState, k string) int { return compareStrings(e.key, k) }); found {
		s.rsByNS[namespace] = slices.Delete(ns, i, i+1)
	}
}

func (s *store) nextRV() string {
	s.rv++
	var b [20]byte
	return s.str(strconv.AppendInt(b[:0], s.rv, 10))
}

// strChunk is the size of the chunks str copies strings into.
const strChunk = 4096

// str returns b as a string copied into the store's current chunk of
// string bytes (a new chunk when it is used up): one allocation for many
// resourceVersions, UIDs and pod names instead of one each. The bytes of a
// returned string are never written again.
func (s *store) str(b []byte) string {
	if len(b) == 0 || len(b) > strChunk/4 {
		return string(b)
	}
	if len(s.strBuf) < len(b) {
		s.strBuf = make([]byte, strChunk)
	}
	n := copy(s.strBuf, b)
	out := unsafe.String(&s.strBuf[0], n)
	s.strBuf = s.strBuf[n:]
	return out
}

func (s *store) nextUID() types.UID {
	uid, _ := s.nextUIDNum()
	return uid
}

// nextUIDNum returns the next UID and the counter it is made from; UIDs
// compare as strings like their counters (fixed-width hex).
func (s *store) nextUIDNum() (types.UID, uint64) {
	s.uid++
	var b [36]byte
	copy(b[:], "00000000-0000-4000-8000-")
	v := uint64(s.uid)
	for i := 35; i >= 24; i-- {
		b[i] = "0123456789abcdef"[v&15]
		v >>= 4
	}
	return types.UID(s.str(b[:])), uint64(s.uid)
}

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

// replicaSetsIn returns the ReplicaSets of a namespace sorted by name, in a
// buffer that the next call reuses: the caller must be done with the slice
// before it calls again (a plan does not keep its snapshot).
func (s *store) replicaSetsIn(namespace string) []*appsv1.ReplicaSet {
	states := s.rsByNS[namespace]
	if len(states) == 0 {
		return nil
	}
	clear(s.rsBuf)
	out := s.rsBuf[:0]
	for _, st := range states {
		out = append(out, st.rs)
	}
	s.rsBuf = out
	return out
}

// ownedReplicaSets returns the ReplicaSets whose controller is d, oldest
// first (creation time, then name).
func (s *store) ownedReplicaSets(d *appsv1.Deployment) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, st := range s.rsByNS[d.Namespace] {
		if st.owner == string(d.UID) {
			out = append(out, st.rs)
		}
	}
	slices.SortStableFunc(out, func(a, b *appsv1.ReplicaSet) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return compareStrings(a.Name, b.Name)
	})
	return out
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
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
