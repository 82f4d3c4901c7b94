package clientgo

import (
	"context"
	"errors"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	appsclient "k8s.io/client-go/kubernetes/typed/apps/v1"
	"k8s.io/client-go/tools/record"
)

// Writer is a [rollout.Writer] that sends each call with a client-go
// clientset and records events with an event recorder. It keeps no state
// besides the two, so one Writer may serve any number of workers.
type Writer struct {
	client   kubernetes.Interface
	recorder record.EventRecorder
}

var _ rollout.Writer = (*Writer)(nil)

// NewWriter returns a Writer that writes with client and records events
// with recorder. Neither should be nil: with a nil client every write
// returns [ErrNoClient] (so [rollout.Execute] stops at the first action),
// and with a nil recorder events are dropped.
func NewWriter(client kubernetes.Interface, recorder record.EventRecorder) *Writer {
	return &Writer{client: client, recorder: recorder}
}

// ErrNoClient is returned by every write of a Writer made with a nil
// client (or of a nil or zero Writer).
var ErrNoClient = errors.New("clientgo.Writer: client: must not be nil (see NewWriter)")

func (w *Writer) apps() (appsclient.AppsV1Interface, error) {
	if w == nil || w.client == nil {
		return nil, ErrNoClient
	}
	return w.client.AppsV1(), nil
}

// CreateReplicaSet creates rs in its namespace.
func (w *Writer) CreateReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet) error {
	apps, err := w.apps()
	if err != nil {
		return err
	}
	_, err = apps.ReplicaSets(rs.Namespace).Create(ctx, rs, metav1.CreateOptions{})
	return err
}

// UpdateReplicaSet replaces rs; the API server rejects it with a Conflict
// when rs's resourceVersion is set and stale.
func (w *Writer) UpdateReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet) error {
	apps, err := w.apps()
	if err != nil {
		return err
	}
	_, err = apps.ReplicaSets(rs.Namespace).Update(ctx, rs, metav1.UpdateOptions{})
	return err
}

// PatchReplicaSet sends patch to the ReplicaSet namespace/name as a
// strategic merge patch.
func (w *Writer) PatchReplicaSet(ctx context.Context, namespace, name string, patch []byte) error {
	apps, err := w.apps()
	if err != nil {
		return err
	}
	_, err = apps.ReplicaSets(namespace).Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	return err
}

// DeleteReplicaSet deletes the ReplicaSet namespace/name on condition that
// its UID is uid.
func (w *Writer) DeleteReplicaSet(ctx context.Context, namespace, name string, uid types.UID) error {
	apps, err := w.apps()
	if err != nil {
		return err
	}
	return apps.ReplicaSets(namespace).Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
}

// UpdateDeployment replaces d (its spec, metadata and annotations).
func (w *Writer) UpdateDeployment(ctx context.Context, d *appsv1.Deployment) error {
	apps, err := w.apps()
	if err != nil {
		return err
	}
	_, err = apps.Deployments(d.Namespace).Update(ctx, d, metav1.UpdateOptions{})
	return err
}

// UpdateDeploymentStatus writes d's status subresource.
func (w *Writer) UpdateDeploymentStatus(ctx context.Context, d *appsv1.Deployment) error {
	apps, err := w.apps()
	if err != nil {
		return err
	}
	_, err = apps.Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{})
	return err
}

// Event records e on d with the recorder: e's Type, Reason and Message.
// Without a recorder it does nothing.
func (w *Writer) Event(d *appsv1.Deployment, e rollout.Event) {
	if w == nil || w.recorder == nil {
		return
	}
	w.recorder.Event(d, e.Type, e.Reason, e.Message)
}
