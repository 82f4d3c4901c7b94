package rollout

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/deploymath/deploymath/revision"
	appsv1 "k8s.io/api/apps/v1"
)

// ReplicaSet is a ReplicaSet as the rollout arithmetic sees it: its size,
// its pods' counts, and what orders it among the others. [ReplicaSetOf]
// takes one from an apps/v1 ReplicaSet; a controller managing ReplicaSets of
// its own kind (or anything else with a size) fills the fields in directly.
type ReplicaSet struct {
	// Name identifies the ReplicaSet in results and breaks ties in orders.
	Name string
	// Created is the creation time: older ReplicaSets are scaled down first.
	Created time.Time
	// Revision is the revision annotation's value; BadRevision says the
	// annotation is present but not an integer (upstream then orders by
	// creation time).
	Revision    int64
	BadRevision bool

	// Replicas is spec.replicas.
	Replicas int32
	// StatusReplicas, ReadyReplicas and AvailableReplicas are the pod
	// counts of its status; TerminatingReplicas is nil when not reported.
	StatusReplicas, ReadyReplicas, AvailableReplicas int32
	TerminatingReplicas                              *int32
	// Generation and ObservedGeneration: a ReplicaSet whose controller has
	// not observed its latest spec is never deleted.
	Generation, ObservedGeneration int64
	// Deleting says it has a deletionTimestamp.
	Deleting bool

	// DesiredReplicas is the desired-replicas annotation (the
	// Deployment's replicas when the ReplicaSet was last scaled) as
	// upstream's IsSaturated reads it, the one block that reads it
	// ([IsSaturated]): a decimal integer, sign allowed, taken in 64 bits
	// and then cut to int32 as upstream's int32(strconv.Atoi) does, so
	// "+3" reads 3, "-0" reads 0 and "4294967305" (2³² + 9) reads 9; nil
	// when missing or not such a number. (Upstream's scaling-event check
	// reads the annotation strictly instead, see
	// [revision.DesiredReplicas]; Plan does.)
	DesiredReplicas *int32
	// MaxReplicas is the max-replicas annotation (replicas + maxSurge
	// when the ReplicaSet was last scaled) as upstream reads it for
	// proportional scaling: a non-negative int32 without a sign, else nil
	// (see [revision.MaxReplicas]).
	MaxReplicas *int32
}

// ReplicaSetOf reads rs: its sizes and pod counts, creation time,
// revision, and its desired- and max-replicas annotations each as
// upstream's reader of it reads it. A nil rs or spec.replicas is an error.
func ReplicaSetOf(rs *appsv1.ReplicaSet) (ReplicaSet, error) {
	if rs == nil {
		return ReplicaSet{}, errors.New("replica set: must not be nil")
	}
	if rs.Spec.Replicas == nil {
		return ReplicaSet{}, fmt.Errorf("replica set %s: spec.replicas: required value", rs.Name)
	}
	var out ReplicaSet
	countsInto(&out, rs)
	if v, ok := rs.Annotations[revision.RevisionAnnotation]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		out.Revision, out.BadRevision = n, err != nil
	}
	if n, ok := saturationDesired(rs); ok {
		out.DesiredReplicas = &n
	}
	if n, ok := revision.MaxReplicas(rs); ok {
		out.MaxReplicas = &n
	}
	return out, nil
}

// saturationDesired reads the desired-replicas annotation as upstream's
// IsSaturated does: strconv.Atoi (64 bits where upstream runs), then int32.
func saturationDesired(rs *appsv1.ReplicaSet) (int32, bool) {
	s, ok := rs.Annotations[revision.DesiredReplicasAnnotation]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false
	}
	return int32(n), true
}

// ErrOverflow is returned (wrapped) by a building block whose arithmetic
// leaves the int32 range. Upstream computes in int32 and wraps around; the
// block's result then holds what upstream's int32 arithmetic gives, so a
// caller reproducing upstream (as [Plan] does) can still use it, and any
// other caller knows the number is not a count.
var ErrOverflow = errors.New("the result does not fit in an int32")

// sum32 adds in int32 as upstream does, and reports whether the exact sum
// left the int32 range at any step.
type sum32 struct {
	v        int32
	overflow bool
}

func (s *sum32) add(n int32) {
	exact := int64(s.v) + int64(n)
	s.v += n
	if exact > math.MaxInt32 || exact < math.MinInt32 {
		s.overflow = true
	}
}

// fitSum is an exact sum of int32s as upstream's int32 sum gives it
// (wrapped), with whether it left the int32 range. For non-negative
// addends that is whether any partial sum did, as sum32 reports it.
func fitSum(exact int64) sum32 {
	return sum32{v: int32(exact), overflow: exact > math.MaxInt32 || exact < math.MinInt32}
}

// sub32 is a − b in int32, and whether the exact difference does not fit.
func sub32(a, b int32) (int32, bool) {
	exact := int64(a) - int64(b)
	return a - b, exact > math.MaxInt32 || exact < math.MinInt32
}

// add32 is a + b in int32, and whether the exact sum does not fit.
func add32(a, b int32) (int32, bool) {
	exact := int64(a) + int64(b)
	return a + b, exact > math.MaxInt32 || exact < math.MinInt32
}

// checkReplicaSets rejects negative sizes: the API server never stores one.
// errNilParams is the error of every block given a nil *Params.
var errNilParams = errors.New("params: must not be nil")

func checkReplicaSets(arg string, rss []ReplicaSet) error {
	for i := range rss {
		if rss[i].Replicas < 0 {
			return fmt.Errorf("%s[%d] (%s): replicas: invalid value %d: must be greater than or equal to 0", arg, i, rss[i].Name, rss[i].Replicas)
		}
	}
	return nil
}

// checkParams refuses a nil p and negative replicas.
func checkParams(p *Params) error {
	if p == nil {
		return errNilParams
	}
	if p.Replicas < 0 {
		return fmt.Errorf("params: replicas: invalid value %d: must be greater than or equal to 0", p.Replicas)
	}
	return nil
}
