// Package apiserver is the simulator's in-memory API server store:
// Deployments, ReplicaSets, ConfigMaps and Secrets by "namespace/name",
// with the identities the API server gives them (resourceVersions from one
// counter, UIDs that compare like their counter), its error wording, and
// the indexes the controllers read (the ReplicaSets of a namespace by
// name, the Deployment keys in order). Pods are the cluster model's (with
// their names: see sim/internal/cluster), which draws their UIDs and
// resourceVersions from this store's counters.
//
// The store keeps, for each ReplicaSet, the record the simulator's
// cluster model keeps for it (type parameter R): one look-up finds both
// the stored object and the runtime state beside it.
//
// The writes of Deployments and ReplicaSets (writes.go) are the API
// server's: existence, resourceVersion and UID preconditions, what a write
// may change and when the generation moves (package internal/apirules,
// shared with rollout.Apply), the status subresource. Each returns what
// it stored; telling the watchers (informers, the write log) is the
// caller's.
package apiserver

import (
	"cmp"
	"fmt"
	"slices"
	"unsafe"

	"github.com/deploymath/deploymath/internal/apirules"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Record is what the store reads of the record kept for a ReplicaSet.
type Record interface {
	// Key is the ReplicaSet's "namespace/name".
	Key() string
	// Object is the stored ReplicaSet.
	Object() *appsv1.ReplicaSet
	// ControllerUID is the UID of the ReplicaSet's controller ("" or
	// another string for none).
	ControllerUID() string
	// SetObject replaces the stored ReplicaSet (an update stored a new
	// object).
	SetObject(*appsv1.ReplicaSet)
}

// Store holds the objects. Create it with New. Its maps are the stored
// state: the simulator reads and writes them directly, and keeps
// DeploymentKeys and ByNamespace in step through AddDeploymentKey, Index
// and Unindex.
type Store[R Record] struct {
	Deployments map[string]*appsv1.Deployment
	// DeploymentKeys are the keys of Deployments, sorted.
	DeploymentKeys []string
	// ReplicaSets are the records of the stored ReplicaSets by key.
	ReplicaSets map[string]R
	// ByNamespace holds each namespace's ReplicaSets (see Namespace).
	ByNamespace map[string]*Namespace[R]
	ConfigMaps  map[string]*corev1.ConfigMap
	Secrets     map[string]*corev1.Secret

	uid int64
	// rvDigits is the last resourceVersion handed out, in decimal (empty
	// before the first)
	rvDigits []byte
	keys     map[nsName]string // interned "namespace/name" keys
	rsBuf    []*appsv1.ReplicaSet
	strBuf   []byte // the unused end of the current chunk of string bytes (see Str)
}

// Namespace holds the records of one namespace's ReplicaSets. A
// namespace's is made at its first look-up and never replaced, so that a
// caller may keep it (the Deployment controller's work-queue item does)
// instead of looking it up again.
type Namespace[R Record] struct {
	// Records are the namespace's ReplicaSets, sorted by key.
	Records []R
}

// Namespace returns the ReplicaSets of namespace, made empty the first
// time.
func (s *Store[R]) Namespace(namespace string) *Namespace[R] {
	ns := s.ByNamespace[namespace]
	if ns == nil {
		ns = &Namespace[R]{}
		s.ByNamespace[namespace] = ns
	}
	return ns
}

// RecordsIn returns the records of namespace's ReplicaSets, sorted by
// key (nil for none).
func (s *Store[R]) RecordsIn(namespace string) []R {
	if ns := s.ByNamespace[namespace]; ns != nil {
		return ns.Records
	}
	return nil
}

// nsName is a namespace and a name: the key of the key intern table.
type nsName struct{ namespace, name string }

// New returns an empty store.
func New[R Record]() *Store[R] {
	return &Store[R]{
		Deployments: map[string]*appsv1.Deployment{},
		ReplicaSets: map[string]R{},
		ConfigMaps:  map[string]*corev1.ConfigMap{},
		Secrets:     map[string]*corev1.Secret{},
		ByNamespace: map[string]*Namespace[R]{},
		keys:        map[nsName]string{},
	}
}

// Key returns "namespace/name", interned: looking a key up allocates
// nothing once it has been made.
func (s *Store[R]) Key(namespace, name string) string {
	if k, ok := s.keys[nsName{namespace, name}]; ok {
		return k
	}
	k := namespace + "/" + name
	s.keys[nsName{namespace, name}] = k
	return k
}

// AddDeploymentKey adds k to DeploymentKeys (once).
func (s *Store[R]) AddDeploymentKey(k string) {
	i, found := slices.BinarySearch(s.DeploymentKeys, k)
	if !found {
		s.DeploymentKeys = slices.Insert(s.DeploymentKeys, i, k)
	}
}

// ReplicaSet returns the stored ReplicaSet under key, or nil.
func (s *Store[R]) ReplicaSet(key string) *appsv1.ReplicaSet {
	if r, ok := s.ReplicaSets[key]; ok {
		return r.Object()
	}
	return nil
}

// Index adds r to its namespace's ReplicaSets; Unindex removes the one of
// key.
func (s *Store[R]) Index(namespace string, r R) {
	ns := s.Namespace(namespace)
	i, _ := slices.BinarySearchFunc(ns.Records, r.Key(), func(e R, k string) int { return cmp.Compare(e.Key(), k) })
	ns.Records = slices.Insert(ns.Records, i, r)
}

// Unindex removes the ReplicaSet of key from its namespace's.
func (s *Store[R]) Unindex(namespace, key string) {
	ns := s.Namespace(namespace)
	if i, found := slices.BinarySearchFunc(ns.Records, key, func(e R, k string) int { return cmp.Compare(e.Key(), k) }); found {
		ns.Records = slices.Delete(ns.Records, i, i+1)
	}
}

// ReplicaSetsIn returns the ReplicaSets of a namespace sorted by name, in
// a buffer that the next call reuses: the caller must be done with the
// slice before it calls again (a plan does not keep its snapshot).
func (s *Store[R]) ReplicaSetsIn(namespace string) []*appsv1.ReplicaSet {
	return s.ReplicaSetsOf(s.ByNamespace[namespace])
}

// ReplicaSetsOf is ReplicaSetsIn for a namespace's records at hand (ns
// may be nil: none).
func (s *Store[R]) ReplicaSetsOf(ns *Namespace[R]) []*appsv1.ReplicaSet {
	if ns == nil || len(ns.Records) == 0 {
		return nil
	}
	records := ns.Records
	clear(s.rsBuf)
	out := s.rsBuf[:0]
	for _, r := range records {
		out = append(out, r.Object())
	}
	s.rsBuf = out
	return out
}

// OwnedReplicaSets returns the ReplicaSets whose controller is d, oldest
// first (creation time, then name).
func (s *Store[R]) OwnedReplicaSets(d *appsv1.Deployment) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, r := range s.RecordsIn(d.Namespace) {
		if r.ControllerUID() == string(d.UID) {
			out = append(out, r.Object())
		}
	}
	slices.SortStableFunc(out, func(a, b *appsv1.ReplicaSet) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return out
}

// NextRV returns the next resourceVersion: the counter's decimal digits,
// kept as digits and counted up in place (usually one digit changes)
// instead of formatted anew at every write.
func (s *Store[R]) NextRV() string {
	d := s.rvDigits
	i := len(d) - 1
	for ; i >= 0 && d[i] == '9'; i-- {
		d[i] = '0'
	}
	if i < 0 {
		d = append([]byte{'1'}, d...)
	} else {
		d[i]++
	}
	s.rvDigits = d
	return s.Str(d)
}

// strChunk is the size of the chunks Str copies strings into.
const strChunk = 4096

// Str returns b as a string copied into the store's current chunk of
// string bytes (a new chunk when it is used up): one allocation for many
// resourceVersions, UIDs and pod names instead of one each. The bytes of a
// returned string are never written again.
func (s *Store[R]) Str(b []byte) string {
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

// NextUID returns the next UID.
func (s *Store[R]) NextUID() types.UID {
	uid, _ := s.NextUIDNum()
	return uid
}

// NextUIDNum returns the next UID and the counter it is made from; UIDs
// compare as strings like their counters (fixed-width hex).
func (s *Store[R]) NextUIDNum() (types.UID, uint64) {
	s.uid++
	var b [36]byte
	copy(b[:], "00000000-0000-4000-8000-")
	v := uint64(s.uid)
	for i := 35; i >= 24; i-- {
		b[i] = "0123456789abcdef"[v&15]
		v >>= 4
	}
	return types.UID(s.Str(b[:])), uint64(s.uid)
}

// Error is an error of the API server. Its text follows the API server's
// wording.
type Error struct {
	Reason string // Conflict, NotFound, AlreadyExists, Forbidden
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// Conflict is the 409 of a write whose resourceVersion or UID precondition
// is not the stored one.
func Conflict(resource, name string) error {
	return &Error{"Conflict", apirules.ConflictMessage(resource, name)}
}

// NotFound is the 404 of a write to an object that is not stored.
func NotFound(resource, name string) error {
	return &Error{"NotFound", fmt.Sprintf("%s %q not found", resource, name)}
}

// AlreadyExists is the 409 of a create of an object that is stored.
func AlreadyExists(resource, name string) error {
	return &Error{"AlreadyExists", fmt.Sprintf("%s %q already exists", resource, name)}
}
