package sim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

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
	// Full is set when every frame holds every Deployment
	// ([Options].FullView); otherwise a frame holds the Deployments that
	// changed at its instant (see [Trace.States]).
	Full bool `json:"full,omitempty"`

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
	// Nodes are the nodes and their pods, at the first instant and at
	// each instant a node failed, recovered, became unreachable or was
	// deleted (of a cluster with nodes of its own, not the default one).
	Nodes []NodeRow `json:"nodes,omitempty"`
	// Deployments are the Deployments whose state changed at this
	// instant, with what changed (see [Trace.States]); with
	// [Options].FullView, and when Full is set, every Deployment with
	// its whole state.
	Deployments []DeploymentRow `json:"deployments"`
	// Objects are the objects of custom kinds with the ReplicaSets they
	// control, and the ReplicaSets no controller of the run controls
	// (with hosted controllers or custom objects only).
	Objects []ObjectRow `json:"objects,omitempty"`
	// Full is set on a frame of a trace of changes that holds every
	// Deployment with its whole state: the last frame of a trace that
	// dropped frames.
	Full bool `json:"full,omitempty"`

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

// DeploymentRow is a Deployment's spec summary and status: its state,
// or in a trace of changes what changed of it (see [Trace.States]).
type DeploymentRow struct {
	Name               string `json:"name"`
	Namespace          string `json:"namespace,omitempty"`
	Generation         int64  `json:"generation"`
	ObservedGeneration int64  `json:"observedGeneration"`
	Revision           string `json:"revision,omitempty"`
	Paused             bool   `json:"paused,omitempty"`
	Spec               int32  `json:"specReplicas"`
	Replicas           int32  `json:"replicas"`
	Updated            int32  `json:"updatedReplicas"`
	Ready              int32  `json:"readyReplicas"`
	Available          int32  `json:"availableReplicas"`
	Unavailable        int32  `json:"unavailableReplicas"`
	Terminating        *int32 `json:"terminatingReplicas,omitempty"`
	// MaxSurge and MaxUnavailable are the strategy's, resolved against
	// spec.replicas (0 and 0 for Recreate).
	MaxSurge       int32 `json:"maxSurge"`
	MaxUnavailable int32 `json:"maxUnavailable"`
	// Conditions are the Deployment's conditions in the object's order
	// (in a trace of changes: those that changed, all of them when
	// AllConditions is set), RemovedConditions the types of those gone.
	Conditions        []ConditionRow `json:"conditions,omitempty"`
	AllConditions     bool           `json:"allConditions,omitempty"`
	RemovedConditions []string       `json:"removedConditions,omitempty"`
	// ReplicaSets are the ReplicaSets it controls, oldest first (in a
	// trace of changes: those that changed, all of them when
	// AllReplicaSets is set), RemovedReplicaSets the names of those it
	// no longer controls: deleted, or released for those also in
	// ReleasedReplicaSets.
	ReplicaSets         []ReplicaSetRow `json:"replicaSets"`
	AllReplicaSets      bool            `json:"allReplicaSets,omitempty"`
	RemovedReplicaSets  []string        `json:"removedReplicaSets,omitempty"`
	ReleasedReplicaSets []string        `json:"releasedReplicaSets,omitempty"`
}

// NodeRow is a node and the pods bound to it.
type NodeRow struct {
	Name string `json:"name"`
	// Pods is how many pods are bound to it and not finished
	// (terminating ones included); Capacity how many it holds, 0 for no
	// limit.
	Pods     int `json:"pods"`
	Capacity int `json:"capacity,omitempty"`
	// State is "Ready", "down" (failed), "unreachable" (its kubelet does
	// not report), "unreachable, tainted" (the node controller marked it
	// Ready=Unknown), "not ready" (listed so, or cordoned) or "deleted".
	State string `json:"state"`
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

// fillState records the state of every Deployment into f (the full
// view).
func (s *Sim) fillState(f *Frame) {
	f.Deployments = f.Deployments[:0]
	for _, k := range sortedKeys(s.st.Deployments) {
		f.Deployments = append(f.Deployments, s.deploymentRow(s.st.Deployments[k]))
	}
	s.fillObjects(f)
}

// deploymentRow is the state of d and its ReplicaSets.
func (s *Sim) deploymentRow(d *appsv1.Deployment) DeploymentRow {
	row := DeploymentRow{
		Name: d.Name, Namespace: d.Namespace, Generation: d.Generation, ObservedGeneration: d.Status.ObservedGeneration,
		Revision: d.Annotations["deployment.kubernetes.io/revision"], Paused: d.Spec.Paused,
		Spec: replicas(d), Replicas: d.Status.Replicas, Updated: d.Status.UpdatedReplicas,
		Ready: d.Status.ReadyReplicas, Available: d.Status.AvailableReplicas,
		Unavailable: d.Status.UnavailableReplicas, MaxSurge: maxSurge(d), MaxUnavailable: maxUnavailable(d),
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
	for _, rs := range s.ownedReplicaSets(d) {
		row.ReplicaSets = append(row.ReplicaSets, replicaSetRow(s.st.ReplicaSets[objKey(rs.Namespace, rs.Name)]))
	}
	return row
}

// nodeStep notes that the step st acts on a node: the trace shows the
// nodes at the end of the instant.
func (s *Sim) nodeStep(st *Step) {
	if st.FailNode != "" || st.RecoverNode != "" || st.UnreachableNode != "" || st.DeleteNode != "" || st.Pod != nil && st.Pod.Unreachable {
		s.nodesChanged = true
	}
}

// unlimitedPods is the room of a node without a limit: the default node,
// a node a cluster state's pod names but does not list.
const unlimitedPods = 1 << 30

// nodeRows lists the nodes with their pods, in the order they were
// added; none for the default node alone (a scenario without nodes).
func (s *Sim) nodeRows() []NodeRow {
	ns := s.c.Nodes
	if len(ns) == 1 && ns[0].Name == "node-1" && ns[0].Capacity == unlimitedPods {
		return nil
	}
	out := make([]NodeRow, len(ns))
	for i, n := range ns {
		r := NodeRow{Name: n.Name, Pods: n.Used(), Capacity: n.Capacity, State: "Ready"}
		if n.Capacity >= unlimitedPods {
			r.Capacity = 0
		}
		switch {
		case n.Deleted:
			r.State = "deleted"
		case n.Down:
			r.State = "down"
		case n.Unreachable && n.Tainted():
			r.State = "unreachable, tainted"
		case n.Unreachable:
			r.State = "unreachable"
		case n.Tainted():
			r.State = "not ready"
		}
		out[i] = r
	}
	return out
}

// describeNodes renders the nodes of a frame in one line.
func describeNodes(b *strings.Builder, nodes []NodeRow) {
	b.WriteString("  nodes (pods/capacity):")
	for i, n := range nodes {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(b, " %s %d", n.Name, n.Pods)
		if n.Capacity > 0 {
			fmt.Fprintf(b, "/%d", n.Capacity)
		}
		if n.State != "Ready" {
			fmt.Fprintf(b, " (%s)", n.State)
		}
	}
	b.WriteByte('\n')
}

// recordFrame closes the current instant's frame: it is kept when
// something happened or some Deployment's state changed since the last
// kept frame (stop adds the note that the run stops).
func (s *Sim) recordFrame(stop bool) {
	f := s.frame()
	if stop {
		f.Notes = append(f.Notes, "converged: stopping")
	}
	if s.nodesChanged || !s.nodesShown {
		s.nodesChanged, s.nodesShown = false, true
		f.Nodes = s.nodeRows()
	}
	happened := len(f.Notes) > 0 || len(f.Stops) > 0 || wroteSomething(f.Syncs) || len(f.Restarts) > 0 || len(f.Events) > 0 || len(f.Nodes) > 0
	if s.opts.FullView {
		s.fillState(f)
		state := describeState(f)
		if happened || state != s.prev {
			s.keepFrame(f)
			s.prev = state
		}
		return
	}
	rows := s.trackChanges(f)
	objects := s.objectsChanged(f)
	if happened || len(rows) > 0 || objects {
		s.keepFrame(f)
		shown(rows)
	}
}

// endTrace completes the trace at the end of the run: when frames were
// dropped, the last one holds every Deployment (a reader of the changes
// lost those of the dropped frames).
func (s *Sim) endTrace() {
	if s.opts.NoTrace || s.opts.FullView || s.trace.Dropped == 0 {
		return
	}
	f := &s.trace.Frames[len(s.trace.Frames)-1]
	f.Full = true
	s.fillState(f)
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
	if len(f.Nodes) > 0 {
		describeNodes(&b, f.Nodes)
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
	for _, c := range d.RemovedConditions {
		fmt.Fprintf(&b, "    %s: condition removed\n", c)
	}
	describeReplicaSetTable(&b, d.ReplicaSets)
	describeRemoved(&b, d)
	return b.String()
}

// describeRemoved renders the ReplicaSets a row of changes says d no
// longer controls.
func describeRemoved(b *strings.Builder, d *DeploymentRow) {
	for _, r := range d.RemovedReplicaSets {
		if slices.Contains(d.ReleasedReplicaSets, r) {
			fmt.Fprintf(b, "    replica set %s: released (no longer controlled by %s)\n", r, d.Name)
		} else {
			fmt.Fprintf(b, "    replica set %s: deleted\n", r)
		}
	}
}

// Text renders the trace followed by the summary (and violations).
func (r *Result) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "scenario %s (seed %d)", r.Scenario, r.Seed)
	if !r.Trace.Full && len(r.Trace.Frames) > 0 {
		b.WriteString(": each instant shows what changed")
	}
	b.WriteByte('\n')
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
