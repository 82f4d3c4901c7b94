package rollout

import (
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// CreateFailed is the rest of a sync whose [CreateReplicaSet] action the API
// server refused with cause (other than AlreadyExists, for which the caller
// should simply plan again with a fresh snapshot, and a terminating
// namespace, for which upstream does nothing). Upstream then records
// Progressing=False with reason ReplicaSetCreateError (when the Deployment
// has a progress deadline), writes the status ignoring any error, records a
// Warning event with the same message, and ends the sync with the error.
//
// s is the snapshot the plan was made from and rsName the name of the
// ReplicaSet that could not be created.
func CreateFailed(s Snapshot, rsName string, cause error) (*Result, error) {
	if s.Deployment == nil {
		return nil, errors.New("deployment: must not be nil")
	}
	if cause == nil {
		return nil, errors.New("cause: must not be nil")
	}
	p := &planner{d: s.Deployment}
	p.w.init(s, Options{})
	return p.w.finish(p.createFailed(rsName, cause)), nil
}

// createFailed is upstream's answer to a refused create of the new
// ReplicaSet: Progressing=False ReplicaSetCreateError (with a progress
// deadline), a status write whose error is ignored, a Warning event, and
// the sync ends with cause.
func (p *planner) createFailed(rsName string, cause error) error {
	msg := fmt.Sprintf("Failed to create new replica set %q: %v", rsName, cause)
	if hasProgressDeadline(p.d) {
		p.setProgressing(newCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, FailedRSCreateReason, msg, p.w.snap.Now))
		_ = p.writeDeployment(true, "the new replica set could not be created: Progressing=False ReplicaSetCreateError")
	}
	p.w.warning(FailedRSCreateReason, "%s", msg)
	return cause
}
