package sim

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
)

// Trace is the timeline of a run: one frame per instant at which something
// observable happened.
//
// A trace keeps at most [MaxTraceFrames] frames: the first ones and the
// last one. Dropped counts the frames in between that were not kept (the
// summary and the invariants still cover the whole run).
type Trace struct {
	Frames  []Frame `json:"frames"`
	Dropped int     `json:"dropped,omitempty"`

	// fullStops renders stops with their full text ([Options].FullStops).
	fullStops bool
}

// MaxTraceFrames bounds the memory of a trace: a run keeps its first
// MaxTraceFrames−1 frames and its last one. A 20,000-replica rollout makes
// about 11,000 frames; a frame of one Deployment costs about 1 KB.
const MaxTraceFrames = 100_000

// truncationNote is the line that stands for the frames a trace dropped.
func truncationNote(dropped int) string {
	return fmt.Sprintf("... %d frames not kept: a trace keeps at most %d (sim.MaxTraceFrames), the first ones and the last; the summary covers the whole run\n", dropped, MaxTraceFrames)
}

// Frame is what happened at one instant and the state right after.
type Frame struct {
	// At is the offset from the start of the run.
	At time.Duration `json:"at"`
	// Notes are the scenario's steps, injected faults and engine remarks
	// (failed writes, dropped keys).
	Notes []string `json:"notes,omitempty"`
	// Stops are the syncs that ended early and were requeued, with the
	// planner's full explanation.
	Stops []Stop `json:"stops,omitempty"`
	// Syncs are the syncs of the Deployment controller with their reasons,
	// recorded only with [Options].Explain.
	Syncs []Sync `json:"syncs,omitempty"`
	// Restarts are the decisions of the restart controller applied to
	// workloads: checksums recorded, or a restart.
	Restarts []Restart `json:"restarts,omitempty"`
	// Events are the events the Deployment controller recorded.
	Events []TraceEvent `json:"events,omitempty"`
	// Deployments is the state of every Deployment and its ReplicaSets.
	Deployments []DeploymentRow `json:"deployments"`
	// Objects are the objects of custom kinds with the ReplicaSets they
	// control, and the ReplicaSets no controller of the run controls
	// (with hosted controllers or custom objects only).
	Objects []ObjectRow `json:"objects,omitempty"`

	// seq numbers the stops, syncs and restarts of the frame in the order
	// of the run; the text trace merges them in that order.
	seq int
}

// nextSeq returns the number of the next stop, sync or restart of f.
func (f *Frame) nextSeq() int {
	f.seq++
	return f.seq
}

// frameItem is a line group of a frame other than a note: a stop, a sync
// or a restart, placed after the frame's first afterNotes notes.
type frameItem struct {
	afterNotes, seq int
	lines           []string
}

// items returns the frame's stops, syncs and restarts in the order of the
// run. Frames decoded from JSON have no order among them beyond
// AfterNotes: stops come first, then syncs, then restarts.
func (f *Frame) items(fullStops bool) []frameItem {
	out := make([]frameItem, 0, len(f.Stops)+len(f.Syncs)+len(f.Restarts))
	for i := range f.Stops {
		st := &f.Stops[i]
		line := DescribeStop(st)
		if fullStops {
			line = describeStopFull(st)
		}
		out = append(out, frameItem{st.AfterNotes, st.seq, []string{line}})
	}
	for i := range f.Syncs {
		x := &f.Syncs[i]
		out = append(out, frameItem{x.AfterNotes, x.seq, DescribeSync(x)})
	}
	for i := range f.Restarts {
		r := &f.Restarts[i]
		out = append(out, frameItem{r.AfterNotes, r.seq, []string{DescribeRestart(r)}})
	}
	slices.SortStableFunc(out, func(a, b frameItem) int {
		return cmp.Or(cmp.Compare(a.afterNotes, b.afterNotes), cmp.Compare(a.seq, b.seq))
	})
	return out
}

// TraceEvent is a Kubernetes event recorded on a Deployment.
type TraceEvent struct {
	// Kind is the lower-case kind of the object, empty for a Deployment
	// (the Deployment controller's events); Object is its NAME
	// (NAMESPACE/NAME outside the default namespace for other kinds).
	Kind    string `json:"kind,omitempty"`
	Object  string `json:"object"`
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// Write is what client-go's event recorder did with the event (the
	// raw event above is what the controller recorded).
	Write *EventWrite `json:"write,omitempty"`
}

// DeploymentRow is a Deployment's spec summary and status.
type DeploymentRow struct {
	Name               string          `json:"name"`
	Generation         int64           `json:"generation"`
	ObservedGeneration int64           `json:"observedGeneration"`
	Revision           string          `json:"revision,omitempty"`
	Paused             bool            `json:"paused,omitempty"`
	Spec               int32           `json:"specReplicas"`
	Replicas           int32           `json:"replicas"`
	Updated            int32           `json:"updatedReplicas"`
	Ready              int32           `json:"readyReplicas"`
	Available          int32           `json:"availableReplicas"`
	Unavailable        int32           `json:"unavailableReplicas"`
	Terminating        *int32          `json:"terminatingReplicas,omitempty"`
	Conditions         []ConditionRow  `json:"conditions,omitempty"`
	ReplicaSets        []ReplicaSetRow `json:"replicaSets"`
}

// ConditionRow is a Deployment condition with its times as offsets.
type ConditionRow struct {
	Type           string        `json:"type"`
	Status         string        `json:"status"`
	Reason         string        `json:"reason"`
	Message        string        `json:"message"`
	LastUpdate     time.Duration `json:"lastUpdate"`
	LastTransition time.Duration `json:"lastTransition"`
}

// ReplicaSetRow is one ReplicaSet: like kubectl get rs, plus availability.
type ReplicaSetRow struct {
	Name        string `json:"name"`
	Revision    string `json:"revision,omitempty"`
	Desired     int32  `json:"desired"`
	Current     int32  `json:"current"`
	Ready       int32  `json:"ready"`
	Available   int32  `json:"available"`
	Terminating int32  `json:"terminating"`
	Failure     string `json:"failure,omitempty"`
}

// fillState records the state of every Deployment into f.
func (s *Sim) fillState(f *Frame) {
	f.Deployments = f.Deployments[:0]
	for _, k := range sortedKeys(s.st.Deployments) {
		d := s.st.Deployments[k]
		row := DeploymentRow{
			Name: d.Name, Generation: d.Generation, ObservedGeneration: d.Status.ObservedGeneration,
			Revision: d.Annotations["deployment.kubernetes.io/revision"], Paused: d.Spec.Paused,
			Spec: replicas(d), Replicas: d.Status.Replicas, Updated: d.Status.UpdatedReplicas,
			Ready: d.Status.ReadyReplicas, Available: d.Status.AvailableReplicas,
			Unavailable: d.Status.UnavailableReplicas,
		}
		if t := d.Status.TerminatingReplicas; t != nil {
			v := *t
			row.Terminating = &v
		}
		for _, c := range d.Status.Conditions {
			row.Conditions = append(row.Conditions, ConditionRow{
				Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message,
				LastUpdate: c.LastUpdateTime.Sub(Epoch), LastTransition: c.LastTransitionTime.Sub(Epoch),
			})
		}
		for _, rs := range s.st.OwnedReplicaSets(d) {
			row.ReplicaSets = append(row.ReplicaSets, replicaSetRow(s.st.ReplicaSets[objKey(rs.Namespace, rs.Name)]))
		}
		f.Deployments = append(f.Deployments, row)
	}
	s.fillObjects(f)
}

// offset formats a duration as a trace time ("t=1m30s").
func offset(d time.Duration) string {
	if d == math.MinInt64 {
		// The offset of an unset time (year 1), as time.Time.Sub gives it.
		return "never (unset)"
	}
	return "t=" + d.String()
}

// DescribeTrace renders the whole trace as text. Stops are one line each
// ([DescribeStop]), or their full text for a run with [Options].FullStops.
func DescribeTrace(t Trace) string {
	var b strings.Builder
	for i := range t.Frames {
		if t.Dropped > 0 && i == len(t.Frames)-1 {
			b.WriteString(truncationNote(t.Dropped))
		}
		b.WriteString(describeFrame(&t.Frames[i], t.fullStops))
	}
	return b.String()
}

// DescribeFrame renders one frame: its time, notes, stops, syncs and
// restarts, events and the state.
func DescribeFrame(f *Frame) string { return describeFrame(f, false) }

func describeFrame(f *Frame, fullStops bool) string {
	var b strings.Builder
	b.WriteString(offset(f.At))
	b.WriteByte('\n')
	items := f.items(fullStops)
	for i := 0; i <= len(f.Notes); i++ {
		for len(items) > 0 && items[0].afterNotes <= i {
			for _, l := range items[0].lines {
				fmt.Fprintf(&b, "  %s\n", l)
			}
			items = items[1:]
		}
		if i < len(f.Notes) {
			fmt.Fprintf(&b, "  # %s\n", f.Notes[i])
		}
	}
	for _, e := range f.Events {
		fmt.Fprintf(&b, "  %s: %s %s %s\n", eventObject(&e), e.Type, e.Reason, e.Message)
	}
	b.WriteString(describeState(f))
	return b.String()
}

// describeState renders the Deployments and ReplicaSets of a frame.
func describeState(f *Frame) string {
	var b strings.Builder
	for _, d := range f.Deployments {
		b.WriteString(DescribeDeployment(&d))
	}
	b.WriteString(describeObjects(f.Objects))
	return b.String()
}

// DescribeDeployment renders a Deployment row, its conditions and a table
// of its ReplicaSets.
func DescribeDeployment(d *DeploymentRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  deployment %s gen %d/%d", d.Name, d.ObservedGeneration, d.Generation)
	if d.Revision != "" {
		fmt.Fprintf(&b, " rev %s", d.Revision)
	}
	if d.Paused {
		b.WriteString(" paused")
	}
	fmt.Fprintf(&b, ": replicas %d/%d updated %d ready %d available %d unavailable %d", d.Replicas, d.Spec, d.Updated, d.Ready, d.Available, d.Unavailable)
	if d.Terminating != nil {
		fmt.Fprintf(&b, " terminating %d", *d.Terminating)
	}
	b.WriteByte('\n')
	for _, c := range d.Conditions {
		fmt.Fprintf(&b, "    %s=%s %s (updated %s, changed %s): %s\n", c.Type, c.Status, c.Reason, offset(c.LastUpdate), offset(c.LastTransition), c.Message)
	}
	describeReplicaSetTable(&b, d.ReplicaSets)
	return b.String()
}

// JSON renders the trace and summary as indented JSON.
func (r *Result) JSON() ([]byte, error) {
	type out struct {
		Scenario   string              `json:"scenario"`
		Seed       uint64              `json:"seed"`
		Frames     []Frame             `json:"frames"`
		Dropped    int                 `json:"droppedFrames,omitempty"`
		Summary    Summary             `json:"summary"`
		Violations []Violation         `json:"violations,omitempty"`
		Warnings   []Violation         `json:"warnings,omitempty"`
		Missed     []MissedStep        `json:"missedSteps,omitempty"`
		Outcomes   []DeploymentOutcome `json:"outcomes"`
		Writes     []Write             `json:"writes,omitempty"`
		Events     []ClusterEvent      `json:"events,omitempty"`
	}
	return json.MarshalIndent(out{r.Scenario, r.Seed, r.Trace.Frames, r.Trace.Dropped, r.Summary, r.Violations, r.Warnings, r.Missed, r.Outcomes, r.Writes, r.Events}, "", "  ")
}

// Text renders the trace followed by the summary (and violations).
func (r *Result) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "scenario %s (seed %d)\n", r.Scenario, r.Seed)
	b.WriteString(DescribeTrace(r.Trace))
	b.WriteString(DescribeSummary(&r.Summary))
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "VIOLATION %s\n", v.String())
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "WARNING %s\n", w.String())
	}
	for _, m := range r.Missed {
		fmt.Fprintf(&b, "MISSED %s\n", m.Message)
	}
	return b.String()
}

// ---- summary ----

// Summary condenses a run for what-if comparisons. The window starts at the
// first step (time 0 without steps).
type Summary struct {
	// Completed reports whether every Deployment was complete at the end;
	// CompletedAt is when it last became complete after the last step.
	Completed   bool          `json:"completed"`
	CompletedAt time.Duration `json:"completedAt"`
	// TimeToComplete is CompletedAt minus the window start.
	TimeToComplete time.Duration `json:"timeToComplete"`
	// ScalingSteps counts ScalingReplicaSet events in the window.
	ScalingSteps int `json:"scalingSteps"`
	// PeakPods is the largest number of pods (terminating included).
	PeakPods int `json:"peakPods"`
	// MinAvailable is the smallest number of available pods (by ReplicaSet
	// status) over all Deployments in the window.
	MinAvailable int32 `json:"minAvailable"`
	// BelowMinAvailable is how long some Deployment had fewer available
	// pods than replicas − maxUnavailable.
	BelowMinAvailable time.Duration `json:"belowMinAvailable"`
	// End is when the run stopped.
	End time.Duration `json:"end"`
	// Restarts counts the restarts of each workload by the restart
	// controller over the whole run, most restarted first (then by name);
	// empty when none was restarted.
	Restarts []RestartCount `json:"restarts,omitempty"`
}

// RestartCount is how many times the restart controller restarted a
// workload.
type RestartCount struct {
	// Workload is the workload's name, "NS/NAME" outside the default
	// namespace.
	Workload string `json:"workload"`
	Count    int    `json:"count"`
}

// DescribeSummary renders the summary.
func DescribeSummary(s *Summary) string {
	var b strings.Builder
	b.WriteString("summary\n")
	if s.Completed {
		fmt.Fprintf(&b, "  complete:            %s (%s after the first step)\n", offset(s.CompletedAt), s.TimeToComplete)
	} else {
		fmt.Fprintf(&b, "  complete:            no (run ended at %s)\n", offset(s.End))
	}
	fmt.Fprintf(&b, "  scaling steps:       %d\n", s.ScalingSteps)
	fmt.Fprintf(&b, "  peak pods:           %d\n", s.PeakPods)
	fmt.Fprintf(&b, "  min available:       %d\n", s.MinAvailable)
	fmt.Fprintf(&b, "  below minAvailable:  %s\n", s.BelowMinAvailable)
	if len(s.Restarts) > 0 {
		parts := make([]string, len(s.Restarts))
		for i, r := range s.Restarts {
			parts[i] = fmt.Sprintf("%s %d", r.Workload, r.Count)
		}
		fmt.Fprintf(&b, "  restarts:            %s\n", strings.Join(parts, ", "))
	}
	return b.String()
}

type metrics struct {
	// per-Deployment figures, refreshed at the end of an instant for the
	// Deployments whose object or ReplicaSets were written (touched)
	deps        []*depMetric // deps[it.X.Slot-1] is the Deployment of the work-queue item it
	dirty       []*depMetric
	total       int32 // Σ available over deps
	nBelow      int   // deps below minAvailable
	nIncomplete int   // deps not complete
	started     bool
	start       time.Duration
	scaling     int
	peak        int
	minAvail    int32
	below       time.Duration
	lastAt      time.Duration
	lastBelow   bool
	complete    bool
	completedAt time.Duration
	restarts    map[string]int // by workload name
}

// depMetric is what the summary needs of one Deployment.
type depMetric struct {
	it                       *wqItem
	avail                    int32
	below, incomplete, dirty bool
}

func (m *metrics) init() {
	m.minAvail = -1
}

// touch marks the Deployment of the work-queue item it for a refresh: it
// or one of its ReplicaSets was written.
func (m *metrics) touch(it *wqItem) {
	if it.X.Slot == 0 {
		m.deps = append(m.deps, &depMetric{it: it})
		it.X.Slot = int32(len(m.deps))
	}
	dm := m.deps[it.X.Slot-1]
	if !dm.dirty {
		dm.dirty = true
		m.dirty = append(m.dirty, dm)
	}
}

// refresh recomputes the touched Deployments' figures and the totals.
func (m *metrics) refresh(s *Sim) {
	for _, cur := range m.dirty {
		m.total -= cur.avail
		m.nBelow -= b2iInt(cur.below)
		m.nIncomplete -= b2iInt(cur.incomplete)
		d := cur.it.X.Dep
		if d == nil { // a Deployment key that no Deployment is stored under
			*cur = depMetric{it: cur.it}
			continue
		}
		var a int32
		for _, st := range s.namespaceOf(cur.it).Records {
			if st.Owner == string(d.UID) {
				a += st.Obj.Status.AvailableReplicas
			}
		}
		*cur = depMetric{it: cur.it, avail: a, below: a < minAvailable(d), incomplete: !s.deploymentComplete(d)}
		m.total += cur.avail
		m.nBelow += b2iInt(cur.below)
		m.nIncomplete += b2iInt(cur.incomplete)
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
	m.minAvail = -1
	m.below = 0
}

// restart counts a restart of the workload name.
func (m *metrics) restart(name string) {
	if m.restarts == nil {
		m.restarts = map[string]int{}
	}
	m.restarts[name]++
}

func (m *metrics) event(e rollout.Event) {
	if e.Reason == "ScalingReplicaSet" {
		m.scaling++
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
	out := Summary{ScalingSteps: m.scaling, PeakPods: m.peak, MinAvailable: max(m.minAvail, 0), BelowMinAvailable: m.below, End: s.now}
	for name, n := range m.restarts {
		out.Restarts = append(out.Restarts, RestartCount{Workload: name, Count: n})
	}
	slices.SortFunc(out.Restarts, func(a, b RestartCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Workload, b.Workload))
	})
	if m.complete && s.stepsLeft == 0 {
		out.Completed = true
		out.CompletedAt = m.completedAt
		out.TimeToComplete = m.completedAt - m.start
	}
	return out
}

func minAvailable(d *appsv1.Deployment) int32 {
	return replicas(d) - maxUnavailable(d)
}
