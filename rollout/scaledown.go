package rollout

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Budget is the old ReplicaSets' scale-down budget of [MaxScaledDown].
//
// The budget itself is the method [Budget.MaxScaledDown], worked out from
// the fields: four int32 are what the Go compiler keeps in registers, so a
// caller gets a Budget as cheaply as upstream's one number.
type Budget struct {
	// AllPods is the size of all ReplicaSets together; MinAvailable is
	// Replicas − maxUnavailable (left 0 when OldPods is 0: upstream does
	// not get that far); NewUnavailable is the new ReplicaSet's size minus
	// its available pods.
	AllPods, MinAvailable, NewUnavailable int32
	// OldPods is the old ReplicaSets' sizes together (AllPods less the new
	// ReplicaSet's size), in int32 as upstream sums them. When it is 0
	// upstream scales no old ReplicaSet down and computes no budget, even
	// when the sizes are not all 0 but wrap around to 0 (their exact sum is
	// a multiple of 2³²).
	OldPods int32
}

// MaxScaledDown is how many old pods may go now: AllPods − MinAvailable −
// NewUnavailable, in int32 as upstream computes it (wrapped around where
// [MaxScaledDown] reports [ErrOverflow]); ≤ 0 means none. It is 0 when
// OldPods is 0.
func (b Budget) MaxScaledDown() int32 {
	if b.OldPods == 0 {
		return 0
	}
	return b.AllPods - b.MinAvailable - b.NewUnavailable
}

// String explains the budget, e.g. "maxScaledDown 2 = all pods 13 -
// minAvailable 8 - unavailable new pods 3".
func (b Budget) String() string {
	if b.OldPods == 0 {
		return "no old pods to scale down (the old replica sets' sizes add up to 0 in int32)"
	}
	return fmt.Sprintf("maxScaledDown %d = all pods %d - minAvailable %d - unavailable new pods %d", b.MaxScaledDown(), b.AllPods, b.MinAvailable, b.NewUnavailable)
}

// MaxScaledDown is how many pods the old ReplicaSets may lose now without
// counting on the new ReplicaSet's unavailable pods (upstream's
// reconcileOldReplicaSets): all pods − minAvailable − (new size − new
// available). For example 10 replicas, maxUnavailable 2 (minAvailable 8),
// an old ReplicaSet of 10 and a new one of 3 with none available: 13 − 8 −
// 3 = 2. When the old ReplicaSets' sizes add up to 0 in int32 (all 0, or
// wrapping around to 0) it is 0, as upstream returns before the budget.
//
// all holds every ReplicaSet and newRS is the new one's position in it.
// Negative sizes, and a position outside all, are an error; a sum beyond
// the int32 range wraps [ErrOverflow] (the Budget then holds upstream's
// wrapped numbers).
func MaxScaledDown(p *Params, all []ReplicaSet, newRS int) (Budget, error) {
	if p == nil || p.Replicas < 0 || uint(newRS) >= uint(len(all)) {
		return Budget{}, badArgs(p, all, newRS)
	}
	var total int64
	var sign int32 // the sizes' sign bits together
	for i := range all {
		r := all[i].Replicas
		total += int64(r)
		sign |= r
	}
	nrs := &all[newRS]
	if sign >= 0 && total == int64(nrs.Replicas) && uint32(nrs.AvailableReplicas) <= uint32(nrs.Replicas) {
		// No old pods (a settled Deployment's every sync) and 0 ≤
		// available ≤ size, so nothing wraps: upstream returns before the
		// budget and the fenceposts.
		return Budget{AllPods: nrs.Replicas, NewUnavailable: nrs.Replicas - nrs.AvailableReplicas}, nil
	}
	return maxScaledDown(p, all, nrs, total, sign)
}

// badArgs is the error of a nil or negative p, or a position newRS outside
// all.
func badArgs(p *Params, all []ReplicaSet, newRS int) error {
	if err := checkParams(p); err != nil {
		return err
	}
	return fmt.Errorf("newRS: index %d out of range [0, %d)", newRS, len(all))
}

// maxScaledDown is MaxScaledDown past its arguments' checks, with the
// sizes' exact total and their sign bits together.
func maxScaledDown(p *Params, all []ReplicaSet, nrs *ReplicaSet, total int64, sign int32) (Budget, error) {
	if sign < 0 {
		return Budget{}, checkReplicaSets("all", all)
	}
	sum := fitSum(total)
	// Upstream returns before resolving the fenceposts when there are no
	// old pods (their sizes add up to 0 in int32); so does this.
	var minAvailable int32
	if sum.v-nrs.Replicas != 0 {
		minAvailable = p.minAvailableRolling()
	}
	b, overflow := budget(minAvailable, sum, nrs)
	if overflow {
		return b, fmt.Errorf("scale-down budget: %w", ErrOverflow)
	}
	return b, nil
}

// budget is MaxScaledDown for a total the caller summed and minAvailable
// resolved (left 0 in the Budget when there are no old pods), and whether
// upstream's int32 arithmetic wrapped around.
func budget(minAvailable int32, all sum32, newRS *ReplicaSet) (Budget, bool) {
	b := Budget{AllPods: all.v}
	// The old sizes' int32 sum, as upstream's: all − new wraps the same way.
	b.OldPods = all.v - newRS.Replicas
	var o1, o2, o3 bool
	b.NewUnavailable, o1 = sub32(newRS.Replicas, newRS.AvailableReplicas)
	if b.OldPods == 0 {
		return b, all.overflow || o1
	}
	b.MinAvailable = minAvailable
	d, o2 := sub32(b.AllPods, b.MinAvailable)
	_, o3 = sub32(d, b.NewUnavailable)
	return b, all.overflow || o1 || o2 || o3
}

// Step is one ReplicaSet's new size in a scale-down.
type Step struct {
	// Index is the ReplicaSet's position in the list the function was given.
	Index int
	// Name, From and To: the ReplicaSet and its sizes before and after.
	Name     string
	From, To int32
}

// Steps is the outcome of a scale-down: the sizes to write, in order, and
// the numbers that decided them.
type Steps struct {
	// Steps are the ReplicaSets to resize, in the order to write them.
	Steps []Step
	// Total is how many pods the steps remove.
	Total int32
	// Limit is how many pods could go: the budget for [CleanupUnhealthy],
	// available − minAvailable for [ScaleDownOld].
	Limit int32
	// Available and MinAvailable ([ScaleDownOld] only).
	Available, MinAvailable int32
}

// String lists the steps, e.g. "web-1 3->1 (2 of 2)".
func (s Steps) String() string {
	var b strings.Builder
	for i, st := range s.Steps {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d->%d", st.Name, st.From, st.To)
	}
	fmt.Fprintf(&b, " (%d of %d)", s.Total, s.Limit)
	return b.String()
}

// oldestFirst appends to buf the indices of rss ordered by creation time,
// then name (upstream's ReplicaSetsByCreationTimestamp, a total order for
// ReplicaSets of one namespace).
func oldestFirst(buf []int, rss []ReplicaSet) []int {
	sorted := true
	for i := range rss {
		buf = append(buf, i)
		if i > 0 && compareCreated(&rss[i-1], &rss[i]) > 0 {
			sorted = false
		}
	}
	if !sorted {
		slices.SortStableFunc(buf, func(a, b int) int { return compareCreated(&rss[a], &rss[b]) })
	}
	return buf
}

func compareCreated(a, b *ReplicaSet) int {
	if c := a.Created.Compare(b.Created); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// CleanupUnhealthy removes unavailable pods of old ReplicaSets first,
// oldest ReplicaSet first, up to maxCleanup pods in all (upstream's
// cleanupUnhealthyReplicas): each shrinks by its size minus its available
// pods. For example a budget of 2 and old ReplicaSets (oldest first) of 3
// with 2 available and of 4 with 0 available: 3→2, then 4→3.
//
// A ReplicaSet reporting more available pods than its size makes upstream
// stop with an error; so does this, after the steps before it.
//
// The steps are appended to dst[:0]: pass the Steps.Steps of an earlier
// result to reuse its memory (a controller's steady state then allocates
// nothing), or nil.
func CleanupUnhealthy(dst []Step, old []ReplicaSet, maxCleanup int32) (Steps, error) {
	if err := checkReplicaSets("old", old); err != nil {
		return Steps{}, err
	}
	out := Steps{Steps: dst}
	err := cleanupInto(&out, old, maxCleanup)
	return out, err
}

// cleanupInto is CleanupUnhealthy past its check, into out (whose Steps
// memory it reuses): a Steps has more fields than the Go compiler keeps in
// registers, so [RollingStep] has it written in place rather than copied.
func cleanupInto(out *Steps, old []ReplicaSet, maxCleanup int32) error {
	*out = Steps{Steps: out.Steps[:0], Limit: maxCleanup}
	return shrinkOldestFirst(out, old, true, "cleaning up unhealthy replicas")
}

// ScaleDownOld scales old ReplicaSets down, oldest first, as far as the
// available pods allow: at most available − minAvailable pods (upstream's
// scaleDownOldReplicaSetsForRollingUpdate). For example minAvailable 8, old
// ReplicaSets of 1 and 5 (oldest first, all available) and a new one with
// 4 available: 10 available, so 1→0, then 5→4.
//
// old are the old ReplicaSets that had a size above 0 before
// [CleanupUnhealthy], with the sizes it left them; newRS is the new one.
// The available pods counted are theirs only, as upstream counts them (an
// old ReplicaSet already at 0 whose pods are still going away does not
// count). A sum beyond the int32 range wraps [ErrOverflow]; the steps are
// then upstream's. The steps are appended to dst[:0], as for
// [CleanupUnhealthy].
func ScaleDownOld(dst []Step, p *Params, old []ReplicaSet, newRS *ReplicaSet) (Steps, error) {
	if err := checkParams(p); err != nil {
		return Steps{}, err
	}
	if newRS == nil {
		return Steps{}, errors.New("newRS: must not be nil")
	}
	if err := checkReplicaSets("old", old); err != nil {
		return Steps{}, err
	}
	var available sum32
	for i := range old {
		available.add(old[i].AvailableReplicas)
	}
	available.add(newRS.AvailableReplicas)
	out := Steps{Steps: dst}
	err := scaleDownInto(&out, p.minAvailableRolling(), available, old)
	if err == nil && available.overflow {
		err = fmt.Errorf("available pods: %w", ErrOverflow)
	}
	return out, err
}

// scaleDownInto is ScaleDownOld's steps for the available pods summed,
// into out (whose Steps memory it reuses), as [cleanupInto].
func scaleDownInto(out *Steps, minAvailable int32, available sum32, old []ReplicaSet) error {
	*out = Steps{Steps: out.Steps[:0], Available: available.v, MinAvailable: minAvailable}
	if available.v <= minAvailable {
		return nil
	}
	out.Limit = available.v - minAvailable
	return shrinkOldestFirst(out, old, false, "scaling down old replica sets")
}

// shrinkOldestFirst takes up to out.Limit pods from old, oldest ReplicaSet
// first, each giving what it can: its unavailable pods (size − available)
// when unhealthy is set, else its whole size. The steps are appended to
// out.Steps (reusing its memory) and counted in out.Total. A ReplicaSet
// that would grow (more available pods than its size) stops it with
// upstream's error, naming what was being done, after the steps before.
func shrinkOldestFirst(out *Steps, old []ReplicaSet, unhealthy bool, doing string) error {
	steps, total, limit := out.Steps, int32(0), out.Limit
	var ib [16]int
	for _, i := range oldestFirst(ib[:0], old) {
		if total >= limit {
			break
		}
		rs := &old[i]
		can := rs.Replicas
		if unhealthy {
			can -= rs.AvailableReplicas
		}
		if rs.Replicas == 0 || can == 0 {
			continue
		}
		n := min(limit-total, can)
		to := rs.Replicas - n
		if to > rs.Replicas {
			out.Steps, out.Total = steps, total
			return fmt.Errorf("when %s, got invalid request to scale down %s %d -> %d", doing, rs.Name, rs.Replicas, to)
		}
		if steps == nil {
			steps = make([]Step, 0, len(old)) // one allocation, and only for a write
		}
		steps = append(steps, Step{Index: i, Name: rs.Name, From: rs.Replicas, To: to})
		total += n
	}
	out.Steps, out.Total = steps, total
	return nil
}
