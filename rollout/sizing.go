package rollout

import (
	"fmt"
	"math"

	"github.com/deploymath/deploymath/fencepost"
	appsv1 "k8s.io/api/apps/v1"
)

// Sizing is the decision of [NewRSNewReplicas], with its numbers.
type Sizing struct {
	// Size is the new ReplicaSet's size from now on.
	Size int32
	// Recreate: the strategy is Recreate, so Size is simply Replicas.
	Recreate bool
	// Replicas, MaxSurge: the rollout's; MaxTotal = Replicas + MaxSurge.
	Replicas, MaxSurge, MaxTotal int32
	// Total is the size of all ReplicaSets together, the new one included.
	Total int32
	// Was is the new ReplicaSet's size before.
	Was int32
	// Overflow says that upstream's int32 arithmetic wrapped around
	// (NewRSNewReplicas then also returns [ErrOverflow]): Replicas +
	// maxSurge, the sizes' total, or the room between them. The numbers
	// are upstream's wrapped ones, and Size may be negative.
	Overflow bool
}

// String explains the decision in numbers, e.g. "total 12 < replicas 10 +
// maxSurge 3, room for 1, capped by 8 still missing", saying so when
// upstream's int32 arithmetic wrapped around.
func (s Sizing) String() string {
	if s.Recreate {
		return fmt.Sprintf("Recreate: the new replica set gets all %d replicas", s.Replicas)
	}
	limit := fmt.Sprintf("replicas %d + maxSurge %d", s.Replicas, s.MaxSurge)
	if exact := int64(s.Replicas) + int64(s.MaxSurge); exact != int64(s.MaxTotal) {
		limit = fmt.Sprintf("replicas %d + maxSurge %d = %d, wrapped around to %d in int32", s.Replicas, s.MaxSurge, exact, s.MaxTotal)
	}
	total := fmt.Sprintf("total %d", s.Total)
	var out string
	if s.Total >= s.MaxTotal {
		out = fmt.Sprintf("%s already at %s", total, limit)
	} else {
		out = fmt.Sprintf("%s < %s, room for %d, capped by %d still missing", total, limit, s.MaxTotal-s.Total, s.Replicas-s.Was)
	}
	if s.Overflow {
		out += "; int32 overflow: upstream computes these sums in int32 and they wrapped around, so the numbers are not counts"
		if s.Size < 0 {
			out += fmt.Sprintf(" (the size %d among them: the API server refuses a negative size)", s.Size)
		}
	}
	return out
}

// NewRSNewReplicas is how large the new ReplicaSet may be now (upstream's
// NewRSNewReplicas). Recreate: Replicas. RollingUpdate: grow it by the room
// left under Replicas + maxSurge across all ReplicaSets, but never beyond
// Replicas. For example 10 replicas with maxSurge 3, an old ReplicaSet of 10
// and a new one of 2: total 12, room for 1, so the new one goes to 3.
//
// all holds every ReplicaSet of the rollout and newRS is the new one's
// position in it. A negative size, or a position outside all, is an error
// naming it; when a sum leaves the int32 range the error wraps
// [ErrOverflow] and Size is upstream's wrapped int32 result (see
// [Sizing.Overflow]). As upstream, the strategy must be RollingUpdate or
// Recreate, and only maxSurge is read.
func NewRSNewReplicas(p *Params, all []ReplicaSet, newRS int) (s Sizing, err error) {
	if p == nil || p.Replicas < 0 {
		return Sizing{}, checkParams(p)
	}
	if uint(newRS) >= uint(len(all)) {
		return Sizing{}, fmt.Errorf("newRS: index %d out of range [0, %d)", newRS, len(all))
	}
	// One pass: the sizes' exact total, and their sign bits together (a
	// negative size: the loop that names it).
	var total int64
	var sign int32
	for i := range all {
		r := all[i].Replicas
		total += int64(r)
		sign |= r
	}
	if sign < 0 {
		return Sizing{}, checkReplicaSets("all", all)
	}
	if p.Strategy != appsv1.RollingUpdateDeploymentStrategyType {
		if p.Strategy == appsv1.RecreateDeploymentStrategyType {
			return Sizing{Size: p.Replicas, Recreate: true, Replicas: p.Replicas, Total: int32(total), Was: all[newRS].Replicas}, nil
		}
		return Sizing{}, fmt.Errorf("params: strategy: unsupported value %q: want %q or %q", p.Strategy, appsv1.RollingUpdateDeploymentStrategyType, appsv1.RecreateDeploymentStrategyType)
	}
	// Upstream resolves maxSurge alone here (maxUnavailable is not read).
	surge, err := fencepost.Scaled(p.MaxSurge, p.Replicas, true)
	if err != nil {
		return Sizing{}, fmt.Errorf("params: maxSurge: %w", err)
	}
	was := all[newRS].Replicas
	// Into the named result, in place (see plainSizing).
	if !plainSizing(&s, p, surge, total, was) && newRSSize(&s, p, surge, fitSum(total), was) {
		return s, fmt.Errorf("new replica set size: replicas %d + maxSurge %d against a total of %d: %w", s.Replicas, s.MaxSurge, s.Total, ErrOverflow)
	}
	return s, nil
}

// plainSizing writes the Sizing into s when nothing can wrap around (the
// sizes, Replicas and maxSurge are not negative and their sums fit, so
// the room and the missing pods do), and reports whether nothing can: was
// plus the room under Replicas + maxSurge, at most the pods missing to
// Replicas. Where it cannot, newRSSize does. Field by field, in
// place: a Sizing has more fields than the Go compiler keeps in registers,
// and copying one just built reads back stores the processor cannot yet
// forward (a stall of about a dozen cycles).
func plainSizing(s *Sizing, p *Params, surge int32, total int64, was int32) bool {
	maxTotal := int64(p.Replicas) + int64(surge)
	if surge < 0 || maxTotal > math.MaxInt32 || total > math.MaxInt32 {
		return false
	}
	size := was
	if total < maxTotal {
		size += min(int32(maxTotal-total), p.Replicas-was)
	}
	s.Size, s.Recreate, s.Replicas, s.MaxSurge = size, false, p.Replicas, surge
	s.MaxTotal, s.Total, s.Was, s.Overflow = int32(maxTotal), int32(total), was, false
	return true
}

// newRSSize is NewRSNewReplicas for a total the caller summed (in int32,
// as upstream: total.overflow says the exact sum did not fit), into s. It
// reports whether upstream's int32 arithmetic wrapped around.
func newRSSize(s *Sizing, p *Params, surge int32, total sum32, was int32) bool {
	*s = Sizing{Replicas: p.Replicas, Total: total.v, Was: was}
	if p.Strategy == appsv1.RecreateDeploymentStrategyType {
		s.Recreate, s.Size = true, p.Replicas
		return false
	}
	s.MaxSurge = surge
	var o1, o2, o3, o4 bool
	s.MaxTotal, o1 = add32(p.Replicas, s.MaxSurge)
	if s.Total >= s.MaxTotal {
		s.Size = was
		s.Overflow = total.overflow || o1
		return s.Overflow
	}
	room, o2 := sub32(s.MaxTotal, s.Total)
	missing, o3 := sub32(p.Replicas, was)
	s.Size, o4 = add32(was, min(room, missing))
	s.Overflow = total.overflow || o1 || o2 || o3 || o4
	return s.Overflow
}

// newRSSize is NewRSNewReplicas for the planner's ReplicaSets, with the
// reasoning in words unless quiet.
func (p *planner) newRSSize(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (int32, string) {
	var total sum32
	for _, rs := range allRSs {
		if rs != nil {
			total.add(*rs.Spec.Replicas)
		}
	}
	var s Sizing
	newRSSize(&s, &p.params, p.maxSurge(), total, *newRS.Spec.Replicas)
	if p.w.opts.Quiet {
		return s.Size, ""
	}
	return s.Size, s.String()
}
