package apiserver

import (
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
)

// Objects holds the stored objects of one kind that has no store of its
// own (a custom kind registered by a user), by "namespace/name" (or
// "name" for a cluster-scoped kind), with the keys in order. The objects
// are typed (the Go type the kind is registered with) and never written
// through: a write stores a new object.
type Objects struct {
	byKey map[string]runtime.Object
	keys  []string // sorted
}

// NewObjects returns an empty store of one kind.
func NewObjects() *Objects { return &Objects{byKey: map[string]runtime.Object{}} }

// Get returns the object stored under key, or nil.
func (o *Objects) Get(key string) runtime.Object { return o.byKey[key] }

// Put stores obj under key, in place of the object stored there.
func (o *Objects) Put(key string, obj runtime.Object) {
	if _, ok := o.byKey[key]; !ok {
		i, _ := slices.BinarySearch(o.keys, key)
		o.keys = slices.Insert(o.keys, i, key)
	}
	o.byKey[key] = obj
}

// Delete removes the object stored under key.
func (o *Objects) Delete(key string) {
	if _, ok := o.byKey[key]; !ok {
		return
	}
	delete(o.byKey, key)
	if i, found := slices.BinarySearch(o.keys, key); found {
		o.keys = slices.Delete(o.keys, i, i+1)
	}
}

// Keys returns the keys in order; the caller must not modify the slice.
func (o *Objects) Keys() []string { return o.keys }

// Len is the number of stored objects.
func (o *Objects) Len() int { return len(o.keys) }
