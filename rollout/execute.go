package rollout

import (
	"context"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
)

// Writer performs the API calls of a plan, one method per kind of call.
// [Execute] drives it; an implementation only sends the request and returns
// the API server's error unchanged (so that [Execute] can tell a NotFound
// or AlreadyExists from other errors with k8s.io/apimachinery/pkg/api/errors).
//
// The module github.com/deploymath/deploymath/rollout/clientgo implements
// it with a client-go clientset and event recorder; a controller built on
// controller-runtime or a test double implements the seven methods itself.
type Writer interface {
	// CreateReplicaSet creates rs (POST).
	CreateReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet) error
	// UpdateReplicaSet replaces rs (PUT), conditional on rs's
	// resourceVersion when it is set.
	UpdateReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet) error
	// PatchReplicaSet sends a strategic merge patch (adoption, release).
	PatchReplicaSet(ctx context.Context, namespace, name string, patch []byte) error
	// DeleteReplicaSet deletes a ReplicaSet with a UID precondition.
	DeleteReplicaSet(ctx context.Context, namespace, name string, uid types.UID) error
	// UpdateDeployment replaces d (PUT), conditional on its resourceVersion.
	UpdateDeployment(ctx context.Context, d *appsv1.Deployment) error
	// UpdateDeploymentStatus writes d's status subresource, conditional on
	// its resourceVersion.
	UpdateDeploymentStatus(ctx context.Context, d *appsv1.Deployment) error
	// Event records an event on d.
	Event(d *appsv1.Deployment, e Event)
}

// ErrStopped is returned (wrapped) by [Execute] when every action was
// applied but the sync ended early as upstream's does ([Result.Stop]):
// requeue the Deployment with rate limiting.
var ErrStopped = errors.New("sync stopped early")

// Execute applies a plan made from s the way the upstream controller makes
// its writes: the actions in order, stopping at the first error; an event
// only once the actions before it (see [Event.After]) have succeeded. Like
// upstream it treats a ReplicaSet that is already gone as released or
// deleted, and when the API server refuses to create the new ReplicaSet
// (other than AlreadyExists, or because the namespace is terminating) it
// goes on as upstream does: [CreateFailed]'s status write and warning.
//
// It returns nil when every action was applied and the sync ran to its
// end; otherwise an error naming the action that failed (wrapping the API
// server's error), or wrapping [ErrStopped] with [Result.Stop]. Either way
// the caller requeues as res.Requeue says (rate-limited after an error).
func Execute(ctx context.Context, w Writer, s Snapshot, res *Result) error {
	if w == nil || res == nil {
		return errors.New("rollout.Execute: writer and result must not be nil")
	}
	if err := checkActions("rollout.Execute", res.Actions); err != nil {
		return err
	}
	applied, err := writeAll(ctx, w, s.Deployment, res.Actions, res.Events)
	var failed Action
	if err != nil {
		failed = res.Actions[applied]
	}
	if err != nil {
		cause := err
		err = fmt.Errorf("action %d of %d (%s): %w", applied+1, len(res.Actions), failed.Explain(), err)
		if create, ok := failed.(CreateReplicaSet); ok && !apierrors.IsAlreadyExists(cause) &&
			!apierrors.HasStatusCause(cause, corev1.NamespaceTerminatingCause) {
			if r, ferr := CreateFailed(s, create.ReplicaSet.Name, cause); ferr == nil {
				// Upstream ignores the error of this status write.
				_, _ = writeAll(ctx, w, s.Deployment, r.Actions, r.Events)
			}
		}
		return err
	}
	if res.Stop != "" {
		return fmt.Errorf("%w: %s", ErrStopped, res.Stop)
	}
	return nil
}

// writeAll writes the actions in order until one fails, recording each
// event as soon as the actions before it have succeeded, so events and
// writes interleave as in upstream. It returns how many actions succeeded.
func writeAll(ctx context.Context, w Writer, d *appsv1.Deployment, actions []Action, events []Event) (int, error) {
	next := 0
	record := func(done int) {
		for ; next < len(events) && events[next].After <= done; next++ {
			w.Event(d, events[next])
		}
	}
	for i, a := range actions {
		record(i)
		if err := write(ctx, w, a); err != nil {
			return i, err
		}
	}
	record(len(actions))
	return len(actions), nil
}

// write performs one action.
func write(ctx context.Context, w Writer, a Action) error {
	switch a := a.(type) {
	case CreateReplicaSet:
		return w.CreateReplicaSet(ctx, a.ReplicaSet)
	case UpdateReplicaSet:
		return w.UpdateReplicaSet(ctx, a.ReplicaSet)
	case ScaleReplicaSet:
		return w.UpdateReplicaSet(ctx, a.ReplicaSet)
	case AdoptReplicaSet:
		return w.PatchReplicaSet(ctx, a.ReplicaSet.Namespace, a.ReplicaSet.Name, a.Patch)
	case ReleaseReplicaSet:
		err := w.PatchReplicaSet(ctx, a.ReplicaSet.Namespace, a.ReplicaSet.Name, a.Patch)
		if apierrors.IsNotFound(err) {
			return nil // gone already: nothing to release, as upstream
		}
		return err
	case DeleteReplicaSet:
		err := w.DeleteReplicaSet(ctx, a.Namespace, a.Name, a.UID)
		if apierrors.IsNotFound(err) {
			return nil // as upstream
		}
		return err
	case UpdateDeployment:
		return w.UpdateDeployment(ctx, a.Deployment)
	case UpdateDeploymentStatus:
		return w.UpdateDeploymentStatus(ctx, a.Deployment)
	}
	return fmt.Errorf("unknown action %T", a)
}

// checkActions refuses, before anything is written, a Result whose actions
// lack the object they write (Plan never makes one; a hand-built Result
// may), naming the action and its field.
func checkActions(who string, actions []Action) error {
	for i, a := range actions {
		var field string
		switch a := a.(type) {
		case CreateReplicaSet:
			if a.ReplicaSet == nil {
				field = "CreateReplicaSet.ReplicaSet"
			}
		case UpdateReplicaSet:
			if a.ReplicaSet == nil {
				field = "UpdateReplicaSet.ReplicaSet"
			}
		case ScaleReplicaSet:
			if a.ReplicaSet == nil {
				field = "ScaleReplicaSet.ReplicaSet"
			}
		case AdoptReplicaSet:
			if a.ReplicaSet == nil {
				field = "AdoptReplicaSet.ReplicaSet"
			}
		case ReleaseReplicaSet:
			if a.ReplicaSet == nil {
				field = "ReleaseReplicaSet.ReplicaSet"
			}
		case UpdateDeployment:
			if a.Deployment == nil {
				field = "UpdateDeployment.Deployment"
			}
		case UpdateDeploymentStatus:
			if a.Deployment == nil {
				field = "UpdateDeploymentStatus.Deployment"
			}
		case DeleteReplicaSet, nil:
			if a == nil {
				return fmt.Errorf("%s: actions[%d] is nil", who, i)
			}
		}
		if field != "" {
			return fmt.Errorf("%s: actions[%d]: %s must not be nil", who, i, field)
		}
	}
	return nil
}
