package cluster

import (
	"github.com/deploymath/deploymath/sim/internal/apiserver"
	"github.com/deploymath/deploymath/sim/internal/workqueue"
	appsv1 "k8s.io/api/apps/v1"
)

// Controller names the controller a work-queue key belongs to.
type Controller uint8

// The controllers with work-queue keys.
const (
	DeploymentController Controller = iota
	ReplicaSetController
)

// QueueKey is a key of the controllers' work queue: which controller and
// which object ("namespace/name").
type QueueKey struct {
	Ctrl Controller
	Name string
}

// QueueItem is the work-queue state of one key (package workqueue). Each
// ReplicaSet record points to its item, so that a pod change queues its
// ReplicaSet without hashing a key.
type QueueItem = workqueue.Item[QueueKey, QueueData]

// QueueData is what the simulator keeps with a work-queue key.
type QueueData struct {
	// RS is, for a ReplicaSet key, the record of the ReplicaSet stored
	// under it (nil while there is none).
	RS *ReplicaSet
	// Dep is, for a Deployment key, the stored Deployment (nil while
	// there is none), kept by the engine at every write that stores a new
	// object, so that a sync and the informers find it without a look-up.
	Dep *appsv1.Deployment
	// CondsOwner is, for a Deployment key, the stored Deployment whose
	// conditions array the engine allocated (it edits that array in place
	// from one status write to the next).
	CondsOwner *appsv1.Deployment
	// NS is, for a Deployment key, the ReplicaSets of its namespace (set
	// by the engine at first use), read at every sync without a look-up.
	NS *apiserver.Namespace[*ReplicaSet]
	// Slot is, for a Deployment key, the engine's own number for it (0
	// until the engine gives one): where its summary figures are kept.
	Slot int32
}
