package rollout

import (
	"errors"
	"fmt"
	"math"

	"github.com/deploymath/deploymath/fencepost"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Params are a rollout's parameters: the part of a Deployment's spec the
// rollout arithmetic reads. A controller with a workload type of its own
// fills one in directly; [ParamsOf] takes it from a Deployment.
type Params struct {
	// Replicas is the desired number of pods.
	Replicas int32
	// Strategy is RollingUpdate or Recreate.
	Strategy appsv1.DeploymentStrategyType
	// MaxSurge and MaxUnavailable are the RollingUpdate fenceposts, an
	// integer or a percent of Replicas (nil counts as 0).
	MaxSurge, MaxUnavailable *intstr.IntOrString
	// MinReadySeconds is how long a ready pod must stay ready to count as
	// available.
	MinReadySeconds int32
	// ProgressDeadlineSeconds is the progress deadline; nil or MaxInt32
	// means none.
	ProgressDeadlineSeconds *int32
	// RevisionHistoryLimit is how many old ReplicaSets to keep; nil or
	// MaxInt32 means all.
	RevisionHistoryLimit *int32
}

// ParamsOf returns the parameters of a Deployment (defaulted, as the API
// server stores it). It refuses what the blocks refuse, each error naming
// the field: a nil Deployment, a missing or negative spec.replicas and a
// negative spec.revisionHistoryLimit. The result shares the pointers of
// d's spec: read-only.
func ParamsOf(d *appsv1.Deployment) (Params, error) {
	if d == nil {
		return Params{}, errors.New("deployment: must not be nil")
	}
	if d.Spec.Replicas == nil {
		return Params{}, errors.New("spec.replicas: required value (see rollout.Default)")
	}
	if r := *d.Spec.Replicas; r < 0 {
		return Params{}, fmt.Errorf("spec.replicas: invalid value %d: must be greater than or equal to 0", r)
	}
	if l := d.Spec.RevisionHistoryLimit; l != nil && *l < 0 {
		return Params{}, fmt.Errorf("spec.revisionHistoryLimit: invalid value %d: must be greater than or equal to 0", *l)
	}
	p := Params{
		Replicas:                *d.Spec.Replicas,
		Strategy:                d.Spec.Strategy.Type,
		MinReadySeconds:         d.Spec.MinReadySeconds,
		ProgressDeadlineSeconds: d.Spec.ProgressDeadlineSeconds,
		RevisionHistoryLimit:    d.Spec.RevisionHistoryLimit,
	}
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		p.MaxSurge, p.MaxUnavailable = ru.MaxSurge, ru.MaxUnavailable
	}
	return p, nil
}

// Limits resolves maxSurge and maxUnavailable as upstream does (see
// [fencepost.Resolve]): 0 and 0 unless the strategy is RollingUpdate;
// percents of Replicas, surge rounded up and unavailable down; both 0
// becomes unavailable 1; unavailable capped at Replicas. For example 10
// replicas with 25% and 25% give surge 3 and unavailable 2.
func (p Params) Limits() (maxSurge, maxUnavailable int32) {
	return fencepost.Resolve(p.Strategy, p.Replicas, p.MaxSurge, p.MaxUnavailable)
}

// MinAvailable is how many pods must stay available during a
// RollingUpdate: Replicas − maxUnavailable (10 replicas with
// maxUnavailable 25%: 8). It is 0 for any other strategy, as upstream's
// MinAvailable and [fencepost.MinAvailable] are: Recreate keeps no pod
// available. (The Available condition is another test: available ≥
// Replicas − maxUnavailable for every strategy, so Replicas for Recreate.)
func (p Params) MinAvailable() int32 {
	if p.Strategy != appsv1.RollingUpdateDeploymentStrategyType {
		return 0
	}
	_, u := p.Limits()
	return p.Replicas - u
}

// minAvailableRolling is Replicas − maxUnavailable whatever the strategy:
// the scale-down blocks' minAvailable, as upstream computes it in its
// RollingUpdate code (for a Params that says Recreate, maxUnavailable is 0).
func (p Params) minAvailableRolling() int32 {
	_, u := p.Limits()
	return p.Replicas - u
}

// HasProgressDeadline reports whether the rollout has a progress deadline.
func (p Params) HasProgressDeadline() bool {
	return p.ProgressDeadlineSeconds != nil && *p.ProgressDeadlineSeconds != math.MaxInt32
}

// HasHistoryLimit reports whether old ReplicaSets beyond a limit are
// deleted.
func (p Params) HasHistoryLimit() bool {
	return p.RevisionHistoryLimit != nil && *p.RevisionHistoryLimit != math.MaxInt32
}
