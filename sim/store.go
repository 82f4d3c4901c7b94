package sim

import (
	"slices"
	"time"

	"github.com/deploymath/deploymath/sim/internal/cluster"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Epoch is the wall-clock instant of the virtual time 0. Object timestamps
// are Epoch plus the offset; traces print offsets only.
var Epoch = time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)

// store is the in-memory API server (package apiserver, with the cluster
// model's record beside each ReplicaSet; pods are the model's): objects by
// "namespace/name", with resourceVersion and generation bookkeeping.
// Writes of the Deployment
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
type store = cluster.Store

func newStore() *store { return cluster.NewStore() }

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
