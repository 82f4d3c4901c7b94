// Package clientgo applies deploymath plans with client-go.
//
// [Writer] implements [rollout.Writer] on a [kubernetes.Interface] and a
// [record.EventRecorder], making exactly the requests the upstream
// Deployment controller makes. Together with [rollout.Execute] it turns a
// plan into API calls:
//
//	res, err := rollout.Plan(snap)
//	if err != nil {
//		return err // invalid input
//	}
//	err = rollout.Execute(ctx, clientgo.NewWriter(client, recorder), snap, res)
//
// # Requests
//
//   - CreateReplicaSet: ReplicaSets(ns).Create with metav1.CreateOptions{}.
//   - UpdateReplicaSet: ReplicaSets(ns).Update with metav1.UpdateOptions{}
//     (conditional on the object's resourceVersion when it is set).
//   - PatchReplicaSet: ReplicaSets(ns).Patch with
//     types.StrategicMergePatchType and metav1.PatchOptions{}.
//   - DeleteReplicaSet: ReplicaSets(ns).Delete with a UID precondition.
//   - UpdateDeployment: Deployments(ns).Update.
//   - UpdateDeploymentStatus: Deployments(ns).UpdateStatus.
//   - Event: recorder.Event with the Deployment as the object.
//
// Errors are the client's, unchanged, so that [rollout.Execute] can tell a
// NotFound or AlreadyExists from other errors.
//
// # Why a module of its own
//
// The library's packages never import client-go. This package lives in its
// own Go module (github.com/deploymath/deploymath/rollout/clientgo) so that
// importing [rollout] does not pull client-go into a go.mod; only programs
// that use this package depend on it.
package clientgo
