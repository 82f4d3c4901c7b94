package clientgo

import (
	"context"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
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
// with recorder. Neither may be nil.
func NewWriter(client kubernetes.Interface, recorder record.EventRecorder) *Writer {
	return &Writer{client: client, recorder: recorder}
}

// CreateReplicaSet creates rs in its namespace.
func (w *Writer) CreateReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet) error {
	_, err := w.client.AppsV1().ReplicaSets(rs.Namespace).Create(ctx, rs, metav1.CreateOptions{})
	return err
}

// UpdateReplicaSet replaces rs; the API server rejects it with a Conflict
// when rs's resourceVersion is set and stale.
func (w *Writer) UpdateReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet) error {
	_, err := w.client.AppsV1().ReplicaSets(rs.Namespace).Update(ctx, rs, metav1.UpdateOptions{})
	return err
}

// PatchReplicaSet sends patch to the ReplicaSet namespace/name as a
// strategic merge patch.
func (w *Writer) PatchReplicaSet(ctx context.Context, namespace, name string, patch []byte) error {
	_, err := w.client.AppsV1().ReplicaSets(namespace).Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	return err
}

// DeleteReplicaSet deletes the ReplicaSet namespace/name on condition that
// its UID is uid.
func (w *Writer) DeleteReplicaSet(ctx context.Context, namespace, name string, uid types.UID) error {
	return w.client.AppsV1().ReplicaSets(namespace).Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
}

// UpdateDeployment replaces d (its spec, metadata and annotations).
func (w *Writer) UpdateDeployment(ctx context.Context, d *appsv1.Deployment) error {
	_, err := w.client.AppsV1().Deployments(d.Namespace).Update(ctx, d, metav1.UpdateOptions{})
	return err
}

// UpdateDeploymentStatus writes d's status subresource.
func (w *Writer) UpdateDeploymentStatus(ctx context.Context, d *appsv1.Deployment) error {
	_, err := w.client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{})
	return err
}

// Event records e on d with the recorder: e's Type, Reason and Message.
func (w *Writer) Event(d *appsv1.Deployment, e rollout.Event) {
	w.recorder.Event(d, e.Type, e.Reason, e.Message)
}
