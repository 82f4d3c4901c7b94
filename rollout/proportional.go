package rollout

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Proportional is the outcome of [Proportions]: every active ReplicaSet's
// new size in the order upstream writes them, the annotations each gets,
// and the numbers.
type Proportional struct {
	// Shares are the active ReplicaSets, largest first, with their new
	// sizes. Upstream writes every one of them (to refresh the annotations)
	// even when its size does not change.
	Shares []Share
	// Allowed is Replicas + maxSurge (0 when Replicas is 0); Current the
	// active ReplicaSets' sizes together; ToAdd = Allowed − Current, spread
	// proportionally; Added what the shares add before the leftover.
	// In int64 so that with ProportionOptions.Wide they are exact; with
	// upstream's arithmetic they are its wrapped int32 values.
	Allowed, Current, ToAdd, Added int64
	// MaxSurge is the resolved maxSurge.
	MaxSurge int32
	// DesiredReplicas and MaxReplicas are the values of the desired- and
	// max-replicas annotations every active ReplicaSet gets: Replicas and
	// Replicas + maxSurge (upstream's int32 sum, wrapped when it does not
	// fit; with ProportionOptions.Wide held to 2147483647 instead).
	DesiredReplicas, MaxReplicas int32
	// Overflow says that upstream's int32 arithmetic wrapped around
	// somewhere (Proportions then also returns [ErrOverflow]): the numbers
	// above and the shares are upstream's wrapped ones, not counts.
	Overflow bool
}

// Share is one ReplicaSet's part of a proportional scaling.
type Share struct {
	// Index is the ReplicaSet's position in the list given.
	Index int
	// Name, From and To: the ReplicaSet and its sizes before and after.
	Name     string
	From, To int32
	// Fraction is its proportional share before bounding, Base the
	// max-replicas it was scaled against and BaseFrom where Base comes from
	// ("annotation", "status" for the Deployment's status.replicas,
	// "zero" when Replicas is 0, "none" when neither is usable).
	Fraction int64
	Base     int32
	BaseFrom string
	// Leftover is the rounding remainder this ReplicaSet (the first)
	// takes.
	Leftover int64
	// Overflow says its product size × (Replicas + maxSurge) or its
	// fraction wrapped around in int32, as upstream computes them.
	Overflow bool
}

// String explains one ReplicaSet's share.
func (s Share) String() string {
	var how string
	switch s.BaseFrom {
	case "zero":
		how = fmt.Sprintf("scaling to zero removes all %d", s.From)
	case "none":
		how = "no share: no usable max-replicas annotation and status.replicas is 0"
	case "nothing":
		how = "nothing left to spread"
	default:
		how = fmt.Sprintf("round(%d × max / %d from the %s) − %d = %+d", s.From, s.Base, map[string]string{"annotation": "max-replicas annotation", "status": "Deployment's status.replicas"}[s.BaseFrom], s.From, s.Fraction)
	}
	out := fmt.Sprintf("%s %d->%d: %s", s.Name, s.From, s.To, how)
	if s.Overflow {
		out += " (int32 overflow: the product wrapped around, as upstream computes it)"
	}
	if s.Leftover != 0 {
		out += fmt.Sprintf("; takes the leftover %+d", s.Leftover)
	}
	return out
}

// String explains the whole distribution.
func (p Proportional) String() string {
	parts := make([]string, len(p.Shares))
	for i, s := range p.Shares {
		parts[i] = s.String()
	}
	return p.Head() + ": " + strings.Join(parts, "; ")
}

// Head explains the totals, without the shares: "allowed 15 = replicas 12
// + maxSurge 3, active replica sets hold 10, +5 to spread", with words
// when upstream's int32 arithmetic wrapped around.
func (p Proportional) Head() string {
	exact := int64(p.DesiredReplicas) + int64(p.MaxSurge)
	allowed := fmt.Sprintf("allowed %d = replicas %d + maxSurge %d", p.Allowed, p.DesiredReplicas, p.MaxSurge)
	switch {
	case p.DesiredReplicas == 0:
		allowed = "allowed 0 (replicas 0)"
	case p.Allowed != exact:
		allowed = fmt.Sprintf("allowed %d = replicas %d + maxSurge %d = %d wrapped around in int32, as upstream computes it", p.Allowed, p.DesiredReplicas, p.MaxSurge, exact)
	}
	out := fmt.Sprintf("%s, active replica sets hold %d, %+d to spread", allowed, p.Current, p.ToAdd)
	if p.Overflow {
		out += " (int32 overflow: these are upstream's wrapped numbers, not counts)"
	}
	return out
}

// ProportionOptions select deviations from upstream in [Proportions].
type ProportionOptions struct {
	// Wide computes each share in 64 bits. Upstream multiplies a
	// ReplicaSet's size by Replicas + maxSurge in int32, which wraps for
	// very large rollouts; see Options.FixProportionOverflow.
	Wide bool
	// Shares, when it has room for every active ReplicaSet, holds the
	// result's shares: a caller that reuses it scales without allocating.
	Shares []Share
}

// Proportions spreads a scaling event over the active ReplicaSets (upstream's
// scale for RollingUpdate): Allowed = Replicas + maxSurge, ToAdd = Allowed −
// the active sizes; largest ReplicaSet first (among equal sizes the newer
// first when growing, the older first when shrinking), each gets
// round(size × Allowed / its max-replicas annotation) − size, bounded by
// what is left to add; the first takes the leftover (never going below 0).
// For example 10 → 15 replicas (maxSurge 0) with ReplicaSets of 6 and 4
// annotated max-replicas 10: 6 → 9, 4 → 6.
//
// statusReplicas is the Deployment's status.replicas, the base when a
// ReplicaSet has no usable max-replicas annotation. active must hold only
// ReplicaSets with a size above 0. With the zero options the arithmetic is
// upstream's int32; a product or sum beyond it wraps [ErrOverflow] (the
// shares are then upstream's).
func Proportions(p *Params, statusReplicas int32, active []ReplicaSet, o ProportionOptions) (Proportional, error) {
	if err := checkParams(p); err != nil {
		return Proportional{}, err
	}
	if err := checkReplicaSets("active", active); err != nil {
		return Proportional{}, err
	}
	for i := range active {
		if active[i].Replicas == 0 {
			return Proportional{}, fmt.Errorf("active[%d] (%s): replicas: 0 is not active", i, active[i].Name)
		}
	}
	surge, _ := p.Limits()
	out, overflow := proportions(p, surge, statusReplicas, active, o.Wide, o.Shares)
	if overflow {
		return out, fmt.Errorf("proportional scaling: %w", ErrOverflow)
	}
	return out, nil
}

func proportions(p *Params, surge, statusReplicas int32, active []ReplicaSet, wide bool, buf []Share) (Proportional, bool) {
	a := arith{wide: wide}
	var out Proportional
	out.DesiredReplicas = p.Replicas
	out.MaxSurge = surge
	maxReplicas := a.fit(int64(p.Replicas) + int64(surge))
	out.MaxReplicas = maxReplicasAnnotation(maxReplicas)
	var cur int64
	for i := range active {
		cur = a.fit(cur + int64(active[i].Replicas))
	}
	out.Current = cur
	if p.Replicas > 0 {
		out.Allowed = maxReplicas
	}
	out.ToAdd = a.fit(out.Allowed - out.Current)

	shares := buf[:0]
	if cap(shares) < len(active) {
		shares = make([]Share, 0, len(active))
	}
	for i := range active {
		shares = append(shares, Share{Index: i})
	}
	switch {
	case out.ToAdd > 0: // larger first; among equals the newer first
		slices.SortFunc(shares, func(x, y Share) int {
			if m, n := active[x.Index].Replicas, active[y.Index].Replicas; m != n {
				return cmp.Compare(n, m)
			}
			return compareCreated(&active[y.Index], &active[x.Index])
		})
	case out.ToAdd < 0: // larger first; among equals the older first
		slices.SortFunc(shares, func(x, y Share) int {
			if m, n := active[x.Index].Replicas, active[y.Index].Replicas; m != n {
				return cmp.Compare(n, m)
			}
			return compareCreated(&active[x.Index], &active[y.Index])
		})
	}
	out.Shares = shares
	// Upstream's int32 sizes; with wide arithmetic the exact size, held to
	// what a ReplicaSet can have. Only the first share's exact size is
	// needed after the loop (it takes the leftover).
	var first int64
	for k := range shares {
		i := shares[k].Index
		rs := &active[i]
		s := Share{Index: i, Name: rs.Name, From: rs.Replicas}
		size := int64(rs.Replicas)
		if out.ToAdd != 0 {
			if out.ToAdd == out.Added {
				s.BaseFrom = "nothing"
			} else {
				before := a.overflow
				a.overflow = false
				frac := fraction(&a, p, maxReplicas, statusReplicas, rs, &s)
				s.Overflow = a.overflow
				a.overflow = a.overflow || before
				allowed := a.fit(out.ToAdd - out.Added)
				prop := max(frac, allowed)
				if out.ToAdd > 0 {
					prop = min(frac, allowed)
				}
				size = a.fit(size + prop)
				out.Added = a.fit(out.Added + prop)
			}
		}
		if k == 0 {
			first = size
		} else {
			s.To = int32(min(size, math.MaxInt32))
		}
		out.Shares[k] = s
	}
	if len(out.Shares) > 0 {
		head := &out.Shares[0]
		if out.ToAdd != 0 {
			head.Leftover = a.fit(out.ToAdd - out.Added)
			first = max(a.fit(first+head.Leftover), 0)
		}
		head.To = int32(min(first, math.MaxInt32))
	}
	out.Overflow = a.overflow
	return out, a.overflow
}

// maxReplicasAnnotation is the max-replicas annotation's value for
// Replicas + maxSurge = v: upstream's wrapped int32 sum as it is (v was
// fitted to int32 already), or, computed wide, held to the largest value
// upstream's reader of the annotation accepts, so that no wrapped number
// is written.
func maxReplicasAnnotation(v int64) int32 {
	return int32(min(v, math.MaxInt32))
}

// arith is proportional scaling's arithmetic: exact in int64, and unless
// wide every result wrapped to int32 as upstream computes it (overflow
// records that a wrap changed a value).
type arith struct{ wide, overflow bool }

func (a *arith) fit(x int64) int64 {
	if a.wide {
		return x
	}
	w := int64(int32(x))
	if w != x {
		a.overflow = true
	}
	return w
}

// fraction is upstream's getReplicaSetFraction: round(size × (Replicas +
// maxSurge) / base) − size, where base is the max-replicas annotation, else
// statusReplicas.
func fraction(a *arith, p *Params, maxReplicas int64, statusReplicas int32, rs *ReplicaSet, s *Share) int64 {
	if p.Replicas == 0 {
		s.BaseFrom, s.Fraction = "zero", -int64(rs.Replicas)
		return s.Fraction
	}
	base, from := int32(0), "annotation"
	if rs.MaxReplicas != nil {
		base = *rs.MaxReplicas
	}
	if base == 0 {
		base, from = statusReplicas, "status"
		if base == 0 {
			s.BaseFrom = "none"
			return 0
		}
	}
	s.Base, s.BaseFrom = base, from
	product := a.fit(int64(rs.Replicas) * maxReplicas) // int32 unless wide, as upstream
	var size int64
	if a.wide {
		size = int64(math.Round(float64(product) / float64(base)))
	} else {
		size = int64(roundToInt32(float64(product) / float64(base)))
	}
	s.Fraction = a.fit(size - int64(rs.Replicas))
	return s.Fraction
}

// roundToInt32 is upstream's integer.RoundToInt32 (half away from zero),
// bounded to the int32 range.
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
