package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
)

// Summary condenses a run for what-if comparisons: each Deployment's
// figures ([Summary].Deployments) and the totals over all of them. The
// window starts at the first step (time 0 without steps): peaks,
// minimums, scaling steps and time below minAvailable are counted from
// there.
type Summary struct {
	// Completed reports whether every Deployment was complete at the end;
	// CompletedAt is when they last became all complete.
	Completed   bool          `json:"completed"`
	CompletedAt time.Duration `json:"completedAt"`
	// TimeToComplete is CompletedAt minus the window start.
	TimeToComplete time.Duration `json:"timeToComplete"`
	// ScalingSteps counts ScalingReplicaSet events in the window.
	ScalingSteps int `json:"scalingSteps"`
	// PeakPods is the largest number of pods in the cluster at one
	// instant: terminating pods and those of every ReplicaSet included.
	PeakPods int `json:"peakPods"`
	// PeakRunning and PeakTerminating are the largest numbers of the
	// Deployments' pods running (counted in their ReplicaSets'
	// status.replicas: not terminating) and terminating at one instant,
	// all Deployments together.
	PeakRunning     int `json:"peakRunning"`
	PeakTerminating int `json:"peakTerminating"`
	// MinAvailable is the smallest number of available pods (by ReplicaSet
	// status) of all Deployments together at one instant.
	MinAvailable int32 `json:"minAvailable"`
	// BelowMinAvailable is how long some Deployment had fewer available
	// pods than replicas − maxUnavailable.
	BelowMinAvailable time.Duration `json:"belowMinAvailable"`
	// Start is when the window opened: the first step's time, 0 without
	// steps; End is when the run stopped.
	Start time.Duration `json:"start"`
	End   time.Duration `json:"end"`
	// Restarts counts the restarts of each workload by the restart
	// controller over the whole run, most restarted first (then by name);
	// empty when none was restarted.
	Restarts []RestartCount `json:"restarts,omitempty"`
	// Deployments are the figures of each Deployment stored at the end,
	// in namespace and name order (sim/sweep leaves them out of its runs).
	Deployments []DeploymentSummary `json:"deployments,omitempty"`
}

// DeploymentSummary is one Deployment's share of a [Summary], over the
// same window.
type DeploymentSummary struct {
	// Deployment is the Deployment's name, "NAMESPACE/NAME" outside the
	// default namespace.
	Deployment string `json:"deployment"`
	// Completed reports whether its rollout was complete at the end of a
	// run that ran all its steps; CompletedAt is when it last became
	// complete, TimeToComplete that minus the window start.
	Completed      bool          `json:"completed"`
	CompletedAt    time.Duration `json:"completedAt"`
	TimeToComplete time.Duration `json:"timeToComplete"`
	// ScalingSteps counts its ScalingReplicaSet events.
	ScalingSteps int `json:"scalingSteps"`
	// PeakPods is the most pods of its ReplicaSets running at once (their
	// status.replicas: terminating pods not counted), and Ceiling the
	// bound the surge rule keeps them under at that instant: replicas +
	// maxSurge (Recreate: replicas).
	PeakPods int32 `json:"peakPods"`
	Ceiling  int32 `json:"ceiling"`
	// PeakTerminating is the most of its pods terminating at once.
	PeakTerminating int32 `json:"peakTerminating"`
	// MinAvailable and Floor are its available pods and its minAvailable
	// (replicas − maxUnavailable) at the instant the first was lowest
	// against the second: its fewest available pods while the floor
	// stays put, and when scaling moves the floor, the instant it was
	// furthest below it (or least above).
	MinAvailable int32 `json:"minAvailable"`
	Floor        int32 `json:"floor"`
	// BelowMinAvailable is how long it had fewer available pods than its
	// floor.
	BelowMinAvailable time.Duration `json:"belowMinAvailable"`
}

// RestartCount is how many times the restart controller restarted a
// workload.
type RestartCount struct {
	// Workload is the workload's name, "NS/NAME" outside the default
	// namespace.
	Workload string `json:"workload"`
	Count    int    `json:"count"`
}

// DescribeSummary renders the summary: a table of the Deployments, a
// line of totals when there are several, what the columns mean, and the
// restarts.
func DescribeSummary(s *Summary) string {
	var b strings.Builder
	if len(s.Deployments) == 0 {
		// a run of controllers of your own: no rollout to sum up
		fmt.Fprintf(&b, "summary, %s to %s (from the first step on): no Deployment; at most %d pods at once, terminating ones included\n",
			offset(s.Start), offset(s.End), s.PeakPods)
		describeRestarts(&b, s)
		return b.String()
	}
	fmt.Fprintf(&b, "summary, %s to %s (from the first step on):\n", offset(s.Start), offset(s.End))
	complete := func(done bool, at, after time.Duration) string {
		switch {
		case !done:
			return "no"
		case after < 0:
			return offset(at) + " (before the first step)"
		}
		return fmt.Sprintf("%s (+%s)", offset(at), after)
	}
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  DEPLOYMENT\tCOMPLETE\tSCALING STEPS\tPEAK PODS/CEILING\tPEAK TERMINATING\tMIN AVAILABLE/FLOOR\tBELOW FLOOR")
	for i := range s.Deployments {
		d := &s.Deployments[i]
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%d/%d\t%d\t%d/%d\t%s\n", d.Deployment, complete(d.Completed, d.CompletedAt, d.TimeToComplete),
			d.ScalingSteps, d.PeakPods, d.Ceiling, d.PeakTerminating, d.MinAvailable, d.Floor, d.BelowMinAvailable)
	}
	if len(s.Deployments) != 1 {
		fmt.Fprintf(tw, "  all %d\t%s\t%d\t%d\t%d\t%d\t%s\n", len(s.Deployments), complete(s.Completed, s.CompletedAt, s.TimeToComplete),
			s.ScalingSteps, s.PeakRunning, s.PeakTerminating, s.MinAvailable, s.BelowMinAvailable)
	}
	tw.Flush()
	b.WriteString("  (peak pods: the most running at once, terminating ones not counted, and replicas + maxSurge then;\n")
	b.WriteString("   min available: the fewest available against minAvailable = replicas - maxUnavailable then)\n")
	describeRestarts(&b, s)
	return b.String()
}

// metrics gathers the summary as the run goes: each Deployment's figures
// are refreshed at the end of an instant in which it or one of its
// ReplicaSets was written (touched), so that an instant costs what
// changed in it.
type metrics struct {
	deps   []*depState // deps[it.X.Slot-1] is the Deployment of the work-queue item it
	dirty  []*depState // touched in this instant: its figures to refresh
	traced []*depState // touched since the trace last looked: its rows to compare
	// the totals over deps, at the last refresh
	total, running, terminating int32
	nBelow, nIncomplete         int // deps below minAvailable, not complete
	started                     bool
	start                       time.Duration
	scaling                     int
	peak, peakRunning, peakTerm int
	minAvail                    int32
	below                       time.Duration
	lastAt                      time.Duration
	lastBelow                   bool
	complete                    bool
	completedAt                 time.Duration
	restarts                    map[string]int // by workload name
}

// depState is what the run keeps of one Deployment for its summary and
// its trace rows.
type depState struct {
	it *wqItem
	// dirty and traced: in metrics.dirty, in metrics.traced
	dirty, traced bool
	// the figures at the last refresh
	known                                     bool
	avail, running, terminating, floor, ceil  int32
	below, incomplete                         bool
	completedAt                               time.Duration
	scaling                                   int
	peak, peakCeil, peakTerm, minAvail, minFl int32
	belowSince, belowFor                      time.Duration
	// shown is its state as the trace last showed it (nil: never)
	shown *DeploymentRow
	// spec and specGen are the Deployment object and generation that
	// specFloor and specCeil were computed for: the engine replaces a
	// stored Deployment whose spec changes (its status is written in
	// place), so they hold until the object or its generation changes.
	spec                *appsv1.Deployment
	specGen             int64
	specFloor, specCeil int32
}

func (m *metrics) init() {
	m.minAvail = -1
}

// touch marks the Deployment of the work-queue item it for a refresh: it
// or one of its ReplicaSets was written.
func (m *metrics) touch(it *wqItem) {
	if it.X.Slot == 0 {
		m.deps = append(m.deps, &depState{it: it})
		it.X.Slot = int32(len(m.deps))
	}
	ds := m.deps[it.X.Slot-1]
	if !ds.dirty {
		ds.dirty = true
		m.dirty = append(m.dirty, ds)
	}
	if !ds.traced {
		ds.traced = true
		m.traced = append(m.traced, ds)
	}
}

// refresh recomputes the touched Deployments' figures and the totals.
func (m *metrics) refresh(s *Sim) {
	for _, ds := range m.dirty {
		ds.dirty = false
		m.total -= ds.avail
		m.running -= ds.running
		m.terminating -= ds.terminating
		m.nBelow -= b2iInt(ds.below)
		m.nIncomplete -= b2iInt(ds.incomplete)
		d := ds.it.X.Dep
		if d == nil { // a Deployment key that no Deployment is stored under
			ds.avail, ds.running, ds.terminating, ds.below, ds.incomplete = 0, 0, 0, false, false
			continue
		}
		var avail, running, terminating int32
		for _, st := range s.namespaceOf(ds.it).Records {
			if st.Owner == string(d.UID) {
				rs := &st.Obj.Status
				avail += rs.AvailableReplicas
				running += rs.Replicas
				if t := rs.TerminatingReplicas; t != nil {
					terminating += *t
				} else {
					terminating += st.Terminating
				}
			}
		}
		if ds.spec != d || ds.specGen != d.Generation {
			ds.spec, ds.specGen = d, d.Generation
			ds.specFloor, ds.specCeil = minAvailable(d), replicas(d)
			if d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
				ds.specCeil += maxSurge(d)
			}
		}
		floor, ceil := ds.specFloor, ds.specCeil
		below, incomplete := avail < floor, !s.deploymentComplete(d)
		switch {
		case !ds.known:
			ds.peak, ds.peakCeil, ds.peakTerm, ds.minAvail, ds.minFl = running, ceil, terminating, avail, floor
		default:
			if running > ds.peak {
				ds.peak, ds.peakCeil = running, ceil
			}
			ds.peakTerm = max(ds.peakTerm, terminating)
			if int64(avail)-int64(floor) < int64(ds.minAvail)-int64(ds.minFl) {
				ds.minAvail, ds.minFl = avail, floor
			}
		}
		if !incomplete && (ds.incomplete || !ds.known) {
			ds.completedAt = s.now
		}
		if below && (!ds.below || !ds.known) {
			ds.belowSince = s.now
		} else if !below && ds.below {
			ds.belowFor += s.now - ds.belowSince
		}
		ds.known = true
		ds.avail, ds.running, ds.terminating, ds.floor, ds.ceil = avail, running, terminating, floor, ceil
		ds.below, ds.incomplete = below, incomplete
		m.total += avail
		m.running += running
		m.terminating += terminating
		m.nBelow += b2iInt(below)
		m.nIncomplete += b2iInt(incomplete)
	}
	m.dirty = m.dirty[:0]
}

// step opens the measurement window at the first step.
func (m *metrics) step(s *Sim) {
	if m.started {
		return
	}
	m.started = true
	m.start = s.now
	m.lastAt = s.now
	m.scaling = 0
	m.peak = s.c.PodCount()
	m.peakRunning, m.peakTerm = int(m.running), int(m.terminating)
	m.minAvail = -1
	m.below = 0
	for _, ds := range m.deps {
		ds.scaling = 0
		ds.peak, ds.peakCeil, ds.peakTerm, ds.minAvail, ds.minFl = ds.running, ds.ceil, ds.terminating, ds.avail, ds.floor
		ds.belowSince, ds.belowFor = s.now, 0
	}
}

// restart counts a restart of the workload name.
func (m *metrics) restart(name string) {
	if m.restarts == nil {
		m.restarts = map[string]int{}
	}
	m.restarts[name]++
}

// event counts an event the Deployment controller recorded for the
// Deployment of the work-queue item it.
func (m *metrics) event(it *wqItem, e rollout.Event) {
	if e.Reason == "ScalingReplicaSet" {
		m.scaling++
		if it != nil && it.X.Slot > 0 {
			m.deps[it.X.Slot-1].scaling++
		}
	}
}

// observe samples the state at the end of an instant.
func (m *metrics) observe(s *Sim) {
	if m.lastBelow {
		m.below += s.now - m.lastAt
	}
	m.lastAt = s.now
	m.peak = max(m.peak, s.c.PodCount())
	m.refresh(s)
	m.peakRunning = max(m.peakRunning, int(m.running))
	m.peakTerm = max(m.peakTerm, int(m.terminating))
	below, complete, avail := m.nBelow > 0, m.nIncomplete == 0, m.total
	if m.minAvail < 0 || avail < m.minAvail {
		m.minAvail = avail
	}
	m.lastBelow = below
	if complete && !m.complete {
		m.completedAt = s.now
	}
	m.complete = complete
}

func (m *metrics) summary(s *Sim) Summary {
	out := Summary{ScalingSteps: m.scaling, PeakPods: m.peak, PeakRunning: m.peakRunning, PeakTerminating: m.peakTerm,
		MinAvailable: max(m.minAvail, 0), BelowMinAvailable: m.below, Start: m.start, End: s.now}
	for name, n := range m.restarts {
		out.Restarts = append(out.Restarts, RestartCount{Workload: name, Count: n})
	}
	slices.SortFunc(out.Restarts, func(a, b RestartCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Workload, b.Workload))
	})
	done := s.stepsLeft == 0
	if m.complete && done {
		out.Completed = true
		out.CompletedAt = m.completedAt
		out.TimeToComplete = m.completedAt - m.start
	}
	deps := make([]*depState, 0, len(m.deps))
	for _, ds := range m.deps {
		if ds.it.X.Dep != nil && ds.known {
			deps = append(deps, ds)
		}
	}
	slices.SortFunc(deps, func(a, b *depState) int { return strings.Compare(a.it.Key.Name, b.it.Key.Name) })
	out.Deployments = make([]DeploymentSummary, len(deps))
	for i, ds := range deps {
		ps := DeploymentSummary{Deployment: outcomeName(ds.it.X.Dep), ScalingSteps: ds.scaling,
			PeakPods: ds.peak, Ceiling: ds.peakCeil, PeakTerminating: ds.peakTerm, MinAvailable: ds.minAvail, Floor: ds.minFl,
			BelowMinAvailable: ds.belowFor}
		if ds.below {
			ps.BelowMinAvailable += s.now - ds.belowSince
		}
		if !ds.incomplete && done {
			ps.Completed, ps.CompletedAt, ps.TimeToComplete = true, ds.completedAt, ds.completedAt-m.start
		}
		out.Deployments[i] = ps
	}
	return out
}

func minAvailable(d *appsv1.Deployment) int32 {
	return replicas(d) - maxUnavailable(d)
}

// describeRestarts writes the summary's line of restarts, if any.
func describeRestarts(b *strings.Builder, s *Summary) {
	if len(s.Restarts) == 0 {
		return
	}
	parts := make([]string, len(s.Restarts))
	for i, r := range s.Restarts {
		parts[i] = fmt.Sprintf("%s %d", r.Workload, r.Count)
	}
	fmt.Fprintf(b, "  restarts: %s\n", strings.Join(parts, ", "))
}
