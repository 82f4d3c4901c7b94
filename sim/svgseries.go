package sim

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// chart is what the run chart ([SVG]) draws, read from a trace: a step
// series per line, the markers, and the extent of the story.
type chart struct {
	sets    []*rsSeries  // in order of appearance
	deps    []*depSeries // in order of appearance
	avail   []svgPoint   // available pods of all Deployments
	markers []svgMarker  // in time order
	maxY    int32
	// lastChange is the last instant a drawn value changed
	lastChange time.Duration
	// named: several Deployments, whose names the labels carry
	named bool
}

// svgPoint is a value of a step series from the instant at on.
type svgPoint struct {
	at time.Duration
	v  int32
}

// rsSeries are a ReplicaSet's lines.
type rsSeries struct {
	key, name string // namespace/name, name
	dep       string // the key of its Deployment
	// rev is the revision it had when it first appeared, which names it
	// (an undo gives it a new one later)
	rev                             string
	desired, available, terminating []svgPoint
	maxTerminating                  int32
}

// label names the ReplicaSet in the legend: "rev 1: web-5669f7dd7f".
func (s *rsSeries) label(bool) string {
	if s.rev == "" {
		return s.name
	}
	return "rev " + s.rev + ": " + s.name
}

// depSeries are a Deployment's lines: its ceiling (replicas + maxSurge)
// and its floor (replicas − maxUnavailable).
type depSeries struct {
	key, name      string
	ceiling, floor []svgPoint
	available      int32 // at the last frame that showed it
	sets           []*rsSeries
}

type svgMarker struct {
	at           time.Duration
	label, color string
	// step is the scenario step's number (from 1), 0 for a condition
	step int
}

// push extends a step series with v at at, and reports whether the value
// drawn changed.
func push(pts *[]svgPoint, at time.Duration, v int32) bool {
	p := *pts
	n := len(p)
	switch {
	case n > 0 && p[n-1].v == v:
		return false
	case n > 0 && p[n-1].at == at:
		p[n-1].v = v
	default:
		*pts = append(p, svgPoint{at, v})
	}
	return true
}

// newChart reads the chart's series from t. Only the Deployments a frame
// holds are looked at: a trace of changes is drawn at the cost of its
// changes.
func newChart(t *Trace) *chart {
	c := &chart{maxY: 1}
	deps := map[string]*depSeries{}
	sets := map[string]*rsSeries{}
	conds := map[string]string{} // deployment key/type → status reason
	var total int32
	for f, state := range t.States() {
		for _, n := range f.Notes {
			if step, text, ok := stepNote(n); ok {
				c.markers = append(c.markers, svgMarker{at: f.At, label: text, color: svgStepColor, step: step})
			}
		}
		rows := f.Deployments
		if t.Full || f.Full {
			rows = state
		}
		changed := false
		for i := range rows {
			key := rowKey(&rows[i])
			j, found := slices.BinarySearchFunc(state, key, func(r DeploymentRow, k string) int { return strings.Compare(rowKey(&r), k) })
			if !found {
				continue
			}
			d := &state[j]
			ds := deps[key]
			if ds == nil {
				ds = &depSeries{key: key, name: d.Name}
				deps[key] = ds
				c.deps = append(c.deps, ds)
			}
			ceiling, floor := d.Spec+d.MaxSurge, d.Spec-d.MaxUnavailable
			changed = push(&ds.ceiling, f.At, ceiling) || changed
			changed = push(&ds.floor, f.At, floor) || changed
			c.maxY = max(c.maxY, ceiling, d.Spec)
			total += d.Available - ds.available
			ds.available = d.Available
			var seen []*rsSeries
			for _, r := range d.ReplicaSets {
				rk := d.Namespace + "/" + r.Name
				s := sets[rk]
				if s == nil {
					s = &rsSeries{key: rk, name: r.Name, dep: key}
					sets[rk] = s
					c.sets = append(c.sets, s)
					ds.sets = append(ds.sets, s)
				}
				if s.rev == "" {
					s.rev = r.Revision
				}
				seen = append(seen, s)
				changed = push(&s.desired, f.At, r.Desired) || changed
				changed = push(&s.available, f.At, r.Available) || changed
				changed = push(&s.terminating, f.At, r.Terminating) || changed
				s.maxTerminating = max(s.maxTerminating, r.Terminating)
				c.maxY = max(c.maxY, r.Desired, r.Current, r.Terminating)
			}
			for _, s := range ds.sets { // gone: nothing left of it
				if !slices.Contains(seen, s) {
					changed = push(&s.desired, f.At, 0) || changed
					changed = push(&s.available, f.At, 0) || changed
					changed = push(&s.terminating, f.At, 0) || changed
				}
			}
			for _, cd := range d.Conditions {
				k := key + "/" + cd.Type
				now := cd.Status + " " + cd.Reason
				was, seen := conds[k]
				conds[k] = now
				if !seen && cd.Status == "True" || was == now {
					continue
				}
				if m, ok := conditionMarker(cd, seen); ok {
					m.at = f.At
					m.label = d.Name + "\x00" + m.label // the name is kept only with several Deployments
					c.markers = append(c.markers, m)
				}
			}
		}
		changed = push(&c.avail, f.At, total) || changed
		c.maxY = max(c.maxY, total)
		if changed {
			c.lastChange = f.At
		}
	}
	c.named = len(c.deps) > 1
	for i := range c.markers {
		m := &c.markers[i]
		if name, label, ok := strings.Cut(m.label, "\x00"); ok {
			m.label = label
			if c.named {
				m.label = name + ": " + label
			}
		}
		c.lastChange = max(c.lastChange, m.at)
	}
	return c
}

// conditionMarker is the marker of a Deployment condition that changed
// (seen: it had another status or reason before), if it is worth one.
func conditionMarker(c ConditionRow, seen bool) (svgMarker, bool) {
	switch {
	case c.Type == "Progressing" && c.Reason == "ProgressDeadlineExceeded":
		return svgMarker{label: "deadline exceeded", color: "#c0392b"}, true
	case c.Type == "Progressing" && c.Reason == "DeploymentPaused":
		return svgMarker{label: "paused", color: "#8e44ad"}, true
	case c.Type == "Progressing" && c.Reason == "DeploymentResumed":
		return svgMarker{label: "resumed", color: "#8e44ad"}, true
	case c.Type == "Available" && c.Status == "False" && seen:
		return svgMarker{label: "below minimum availability", color: "#d35400"}, true
	case c.Type == "Available" && c.Status == "True" && seen:
		return svgMarker{label: "minimum availability", color: "#27ae60"}, true
	}
	return svgMarker{}, false
}

// stepNote reads a note of the trace that is a scenario step acting
// ("step 2: set image web web=web:v2"): its number and text. The notes
// of a step's bookkeeping are not: a stop when converged, a when: being
// waited for or met.
func stepNote(n string) (int, string, bool) {
	rest, ok := strings.CutPrefix(n, "step ")
	if !ok {
		return 0, "", false
	}
	num, text, ok := strings.Cut(rest, ": ")
	step, err := strconv.Atoi(num)
	if !ok || err != nil || step < 1 {
		return 0, "", false
	}
	for _, internal := range []string{"stop when converged", "waits until ", "met: "} {
		if strings.HasPrefix(text, internal) {
			return 0, "", false
		}
	}
	return step, text, true
}
