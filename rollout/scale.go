package rollout

import (
	"fmt"
	"math"
	"slices"

	"github.com/deploymath/deploymath/revision"
	appsv1 "k8s.io/api/apps/v1"
)

// findActiveOrLatest returns the only active ReplicaSet, or the newest one
// when none is active, or nil when several are active. Like upstream it
// leaves oldRSs sorted newest first (the caller's later loops see that order).
func findActiveOrLatest(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	slices.SortFunc(oldRSs, func(a, b *appsv1.ReplicaSet) int { return compareByCreation(b, a) })
	active := filterActive(appendRS(oldRSs, newRS))
	switch len(active) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return oldRSs[0]
	case 1:
		return active[0]
	}
	return nil
}

// isSaturated: the new ReplicaSet has, wants and runs all replicas.
func isSaturated(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	desired, ok := revision.DesiredReplicas(rs)
	if !ok {
		return false
	}
	r := *d.Spec.Replicas
	return *rs.Spec.Replicas == r && desired == r && rs.Status.AvailableReplicas == r
}

// scale handles scaling events (and paused Deployments): one active
// ReplicaSet takes spec.replicas; a saturated new ReplicaSet drops the old
// ones; otherwise a RollingUpdate spreads the difference proportionally.
func (p *planner) scale(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) error {
	d := p.d
	replicas := *d.Spec.Replicas
	oldRSs = slices.Clone(oldRSs)
	if rs := findActiveOrLatest(newRS, oldRSs); rs != nil {
		if *rs.Spec.Replicas == replicas {
			return nil
		}
		_, _, err := p.scaleAndRecord(rs, replicas, fmt.Sprintf("scaling event: %s is the only active replica set and takes spec.replicas %d", rs.Name, replicas))
		return err
	}
	if isSaturated(d, newRS) {
		for _, rs := range filterActive(oldRSs) {
			if _, _, err := p.scaleAndRecord(rs, 0, fmt.Sprintf("the new replica set %s is saturated (%d wanted, %d available)", newRS.Name, replicas, newRS.Status.AvailableReplicas)); err != nil {
				return err
			}
		}
		return nil
	}
	if d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType {
		return nil
	}
	sizes := p.proportions(newRS, oldRSs)
	for i, ps := range sizes.order {
		if _, _, err := p.scaleReplicaSet(ps.rs, ps.size, sizes.why(i)); err != nil {
			return err
		}
	}
	return nil
}

// proportional is the outcome of proportional scaling.
type proportional struct {
	order            []sized
	allowed, current int32
	toAdd, added     int32
	leftover         string
}

type sized struct {
	rs     *appsv1.ReplicaSet
	size   int32
	reason string
}

func (ps proportional) why(i int) string {
	s := fmt.Sprintf("proportional scaling: allowed %d = replicas + maxSurge, active replica sets hold %d, %+d to spread; %s", ps.allowed, ps.current, ps.toAdd, ps.order[i].reason)
	if i == 0 && ps.leftover != "" {
		s += "; " + ps.leftover
	}
	return s
}

// proportions computes the new size of every active ReplicaSet.
func (p *planner) proportions(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) proportional {
	d := p.d
	replicas := *d.Spec.Replicas
	active := filterActive(appendRS(oldRSs, newRS))
	var out proportional
	out.current = sumSpec(active)
	if replicas > 0 {
		out.allowed = replicas + p.maxSurge()
	}
	out.toAdd = out.allowed - out.current
	switch {
	case out.toAdd > 0:
		// Larger first; among equals the newer grows first.
		slices.SortFunc(active, func(a, b *appsv1.ReplicaSet) int {
			if *a.Spec.Replicas != *b.Spec.Replicas {
				return int(*b.Spec.Replicas) - int(*a.Spec.Replicas)
			}
			return compareByCreation(b, a)
		})
	case out.toAdd < 0:
		// Larger first; among equals the older shrinks first.
		slices.SortFunc(active, func(a, b *appsv1.ReplicaSet) int {
			if *a.Spec.Replicas != *b.Spec.Replicas {
				return int(*b.Spec.Replicas) - int(*a.Spec.Replicas)
			}
			return compareByCreation(a, b)
		})
	}
	for _, rs := range active {
		size := *rs.Spec.Replicas
		reason := fmt.Sprintf("%s keeps %d", rs.Name, size)
		if out.toAdd != 0 {
			prop, r := p.proportion(rs, out.toAdd, out.added)
			size += prop
			out.added += prop
			reason = r
		}
		out.order = append(out.order, sized{rs: rs, size: size, reason: reason})
	}
	if len(out.order) > 0 && out.toAdd != 0 {
		left := out.toAdd - out.added
		first := &out.order[0]
		first.size = max(first.size+left, 0)
		if left != 0 {
			out.leftover = fmt.Sprintf("leftover %+d goes to the largest, %s", left, first.rs.Name)
		}
	}
	return out
}

// proportion is upstream's GetProportion: rs's share of toAdd, bounded by
// what is left to add (or remove).
func (p *planner) proportion(rs *appsv1.ReplicaSet, toAdd, added int32) (int32, string) {
	if *rs.Spec.Replicas == 0 || toAdd == added {
		return 0, fmt.Sprintf("%s gets nothing (nothing left to spread)", rs.Name)
	}
	fraction, how := p.fraction(rs)
	allowed := toAdd - added
	if toAdd > 0 {
		return min(fraction, allowed), fmt.Sprintf("%s: %s, bounded by %d left", rs.Name, how, allowed)
	}
	return max(fraction, allowed), fmt.Sprintf("%s: %s, bounded by %d left", rs.Name, how, allowed)
}

// fraction is upstream's getReplicaSetFraction:
// round(rs.spec × (replicas+maxSurge) / max-replicas annotation) − rs.spec.
func (p *planner) fraction(rs *appsv1.ReplicaSet) (int32, string) {
	d := p.d
	spec := *rs.Spec.Replicas
	if *d.Spec.Replicas == 0 {
		return -spec, fmt.Sprintf("scaling to zero removes all %d", spec)
	}
	maxReplicas := *d.Spec.Replicas + p.maxSurge()
	before, ok := revision.MaxReplicas(rs)
	source := "max-replicas annotation"
	if !ok || before == 0 {
		before = d.Status.Replicas
		source = "status.replicas (no usable max-replicas annotation)"
		if before == 0 {
			// Upstream would divide by zero here; the share is unknown, so
			// the leftover rule decides.
			return 0, fmt.Sprintf("no share: %s is 0", source)
		}
	}
	var product float64
	if p.w.opts.FixProportionOverflow {
		product = float64(int64(spec) * int64(maxReplicas))
	} else {
		product = float64(spec * maxReplicas) // int32 arithmetic, as upstream
	}
	size := roundToInt32(product / float64(before))
	return size - spec, fmt.Sprintf("round(%d × %d / %d from %s) = %d", spec, maxReplicas, before, source, size)
}

func roundToInt32(f float64) int32 {
	r := math.Round(f)
	switch {
	case r > math.MaxInt32:
		return math.MaxInt32
	case r < math.MinInt32:
		return math.MinInt32
	}
	return int32(r)
}
