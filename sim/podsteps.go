package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim/internal/cluster"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// PodStep acts on one pod: the Index-th (from 0) of the pods that are not
// terminating, in name order, of the ReplicaSet RS ("new": the one whose
// template is the Deployment's, "old": the others, or a name; all of the
// Deployment's when empty) whose labels match Selector (when set; with
// neither RS nor Selector, the Deployment's pods). Exactly one of Phase,
// Ready, Delete and Unreachable is set.
type PodStep struct {
	RS       string            `json:"rs,omitempty"`
	Selector map[string]string `json:"selector,omitempty"`
	Index    int               `json:"index,omitempty"`

	// Phase sets the pod's phase, as its kubelet would report it:
	// Pending, Running, Succeeded, Failed or Unknown.
	Phase string `json:"phase,omitempty"`
	// Ready makes the readiness probe pass (true) or fail (false) from
	// now on.
	Ready *bool `json:"ready,omitempty"`
	// Delete deletes the pod (kubectl delete pod).
	Delete bool `json:"delete,omitempty"`
	// Unreachable makes the pod's node unreachable, as the
	// unreachableNode step does.
	Unreachable bool `json:"unreachable,omitempty"`
}

// When makes a step wait, from its at, until a Deployment or one of its
// ReplicaSets reaches a count or a Deployment condition has a status.
type When struct {
	// Deployment names the Deployment (default: the step's).
	Deployment string `json:"deployment,omitempty"`
	// ReplicaSet is new, old (their sum) or a name: the counts are the
	// ReplicaSet's status; empty: the Deployment's status.
	ReplicaSet string `json:"replicaSet,omitempty"`
	// Exactly one of the counts or Condition.
	Replicas  *int32 `json:"replicas,omitempty"`
	Ready     *int32 `json:"ready,omitempty"`
	Available *int32 `json:"available,omitempty"`
	// Updated is the Deployment's updatedReplicas (not with ReplicaSet).
	Updated *int32 `json:"updated,omitempty"`
	// Condition is TYPE=STATUS of a Deployment condition, such as
	// Progressing=False (not with ReplicaSet).
	Condition string `json:"condition,omitempty"`
	// Timeout gives up after this long (default: the end of the run).
	Timeout Duration `json:"timeout,omitempty"`
}

// MissedStep is a step whose when: never held: it did not run.
type MissedStep struct {
	// Step is the step's number, from 1.
	Step int `json:"step"`
	// At is when the run gave up on it: its timeout, or the end.
	At time.Duration `json:"at"`
	// Message names the file, the line and the condition.
	Message string `json:"message"`
}

// String is the step's Message.
func (m MissedStep) String() string { return m.Message }

// podStepLines are the lines of a pod step's fields, for errors.
type podStepLines struct {
	rs, index, selector int
}

// podPhases are the phases a pod step may set.
var podPhases = []corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed, corev1.PodUnknown}

// newStepKinds counts the step kinds of this file that st sets.
func (st *Step) newStepKinds() int {
	n := 0
	for _, set := range []bool{st.Pod != nil, st.UnreachableNode != "", st.DeleteNode != ""} {
		if set {
			n++
		}
	}
	return n
}

// validateNew checks the step kinds and fields of this file; p is the
// step's field path and nodes the node names.
func (st *Step) validateNew(src []byte, p string, nodes map[string]bool) error {
	for _, n := range []struct{ f, v string }{{"unreachableNode", st.UnreachableNode}, {"deleteNode", st.DeleteNode}} {
		if n.v != "" && !nodes[n.v] {
			return withLine(src, fmt.Errorf("field %q: unknown node %q", p+"."+n.f, n.v))
		}
	}
	if ps := st.Pod; ps != nil {
		n := 0
		for _, set := range []bool{ps.Phase != "", ps.Ready != nil, ps.Delete, ps.Unreachable} {
			if set {
				n++
			}
		}
		if n != 1 {
			return withLine(src, fmt.Errorf("field %q: a pod step needs exactly one of phase, ready, delete and unreachable, found %d", p+".pod", n))
		}
		if ps.Phase != "" && !slices.Contains(podPhases, corev1.PodPhase(ps.Phase)) {
			return withLine(src, fmt.Errorf("field %q: unknown phase %q (want Pending, Running, Succeeded, Failed or Unknown)", p+".pod.phase", ps.Phase))
		}
		if ps.Index < 0 {
			return withLine(src, fmt.Errorf("field %q: must not be negative", p+".pod.index"))
		}
		st.podLines = podStepLines{rs: lineOf(src, p+".pod.rs"), index: lineOf(src, p+".pod.index"), selector: lineOf(src, p+".pod.selector")}
	}
	if w := st.When; w != nil {
		counts := 0
		for _, c := range []*int32{w.Replicas, w.Ready, w.Available, w.Updated} {
			if c != nil {
				counts++
				if *c < 0 {
					return withLine(src, fmt.Errorf("field %q: counts must not be negative", p+".when"))
				}
			}
		}
		if counts+b2iInt(w.Condition != "") != 1 {
			return withLine(src, fmt.Errorf("field %q: when needs exactly one of replicas, ready, available, updated and condition", p+".when"))
		}
		if w.ReplicaSet != "" && (w.Updated != nil || w.Condition != "") {
			return withLine(src, fmt.Errorf("field %q: updated and condition are of a Deployment: drop replicaSet", p+".when.replicaSet"))
		}
		if w.Condition != "" {
			typ, status, ok := strings.Cut(w.Condition, "=")
			if !ok || typ == "" || (status != "True" && status != "False" && status != "Unknown") {
				return withLine(src, fmt.Errorf("field %q: want TYPE=STATUS with STATUS True, False or Unknown, such as Progressing=False", p+".when.condition"))
			}
		}
		if st.StopWhenConverged {
			return withLine(src, fmt.Errorf("field %q: stopWhenConverged cannot wait", p+".when"))
		}
		st.whenLine = lineOf(src, p+".when")
	}
	return nil
}

func b2iInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// doNewStep runs the step kinds of this file; handled says st is one.
func (s *Sim) doNewStep(st *Step, label string) (handled bool, err error) {
	switch {
	case st.UnreachableNode != "":
		n := s.node(st.UnreachableNode)
		if n.Deleted || n.Down {
			return true, fmt.Errorf("node %s is deleted or failed", n.Name)
		}
		s.note("%s: node %s stops reporting (unreachable)", label, n.Name)
		s.c.UnreachNode(n)
		if s.checks != nil {
			s.checks.fault()
		}
		return true, nil
	case st.DeleteNode != "":
		n := s.node(st.DeleteNode)
		if n.Deleted {
			return true, fmt.Errorf("node %s is already deleted", n.Name)
		}
		s.note("%s: delete node %s", label, n.Name)
		s.c.DeleteNode(n)
		if s.checks != nil {
			s.checks.fault()
		}
		return true, nil
	case st.RecoverNode != "" && s.node(st.RecoverNode).Unreachable:
		n := s.node(st.RecoverNode)
		if n.Deleted {
			return true, fmt.Errorf("node %s is deleted", n.Name)
		}
		s.note("%s: node %s reports again", label, n.Name)
		s.c.ReconnectNode(n)
		return true, nil
	case st.Pod != nil:
		return true, s.podStep(st, label)
	}
	return false, nil
}

// rsFor resolves new, old or a name among d's ReplicaSets (oldest first).
func (s *Sim) rsFor(d *appsv1.Deployment, which string) []*appsv1.ReplicaSet {
	rss := s.ownedReplicaSets(d)
	newRS := rollout.FindNewReplicaSet(d, rss)
	var out []*appsv1.ReplicaSet
	for _, rs := range rss {
		switch which {
		case "":
			out = append(out, rs)
		case "new":
			if rs == newRS {
				out = append(out, rs)
			}
		case "old":
			if rs != newRS {
				out = append(out, rs)
			}
		default:
			if rs.Name == which {
				out = append(out, rs)
			}
		}
	}
	return out
}

// podStep runs a pod step.
func (s *Sim) podStep(st *Step, label string) error {
	ps := st.Pod
	fatal := func(field string, line int, format string, args ...any) error {
		return &fatalStepError{err: fmt.Errorf("field %q: %s", stepField(s.sc, st, "pod."+field), fmt.Sprintf(format, args...)), line: line}
	}
	var rss []*appsv1.ReplicaSet
	owner := "the cluster" // whose pods the step chooses from
	if st.Deployment == "" && len(s.st.Deployments) == 0 {
		// no Deployment (a controller of your own runs the ReplicaSets):
		// every ReplicaSet, or the one named
		all := s.allReplicaSets()
		if ps.RS == "new" || ps.RS == "old" {
			return fatal("rs", st.podLines.rs, "%q needs a Deployment; the scenario has none: name a replica set (%s)", ps.RS, joinComma(rsNames(all)))
		}
		for _, rs := range all {
			if ps.RS == "" || rs.Name == ps.RS {
				rss = append(rss, rs)
			}
		}
		if len(rss) == 0 && ps.RS != "" {
			return fatal("rs", st.podLines.rs, "no replica set %s at %s (replica sets: %s)", strconv.Quote(ps.RS), offset(s.now), joinComma(rsNames(all)))
		}
	} else {
		d, err := s.target(st)
		if err != nil {
			return err
		}
		owner = "deployment " + d.Name + "'s"
		rss = s.rsFor(d, ps.RS)
		if len(rss) == 0 && ps.RS != "" {
			return fatal("rs", st.podLines.rs, "deployment %s has no %s replica set at %s (its replica sets: %s)", d.Name, strconv.Quote(ps.RS), offset(s.now), joinComma(rsNames(s.ownedReplicaSets(d))))
		}
	}
	sel := labels.SelectorFromSet(ps.Selector)
	var pods []*cluster.Pod
	for _, rs := range rss {
		for _, p := range s.st.ReplicaSets[objKey(rs.Namespace, rs.Name)].Pods {
			if !p.Terminating && sel.Matches(labels.Set(p.Labels)) {
				pods = append(pods, p)
			}
		}
	}
	slices.SortFunc(pods, func(a, b *cluster.Pod) int { return strings.Compare(a.Name, b.Name) })
	if ps.Index >= len(pods) {
		what := "pods"
		if ps.RS != "" {
			what = fmt.Sprintf("pods of replica set %s", ps.RS)
		}
		if len(ps.Selector) > 0 {
			what += " matching " + sel.String()
		}
		line := st.podLines.index
		if line == 0 {
			line = st.podLines.rs
		}
		return fatal("index", line, "pod %d of %s %s does not exist at %s: %d are not terminating", ps.Index, owner, what, offset(s.now), len(pods))
	}
	p := pods[ps.Index]
	switch {
	case ps.Delete:
		s.note("%s: delete pod %s", label, p.Name)
		s.c.DeletePod(p)
	case ps.Unreachable:
		if p.Node == nil {
			return fmt.Errorf("pod %s is not scheduled: it has no node to make unreachable", p.Name)
		}
		if p.Node.Unreachable || p.Node.Down {
			return fmt.Errorf("node %s of pod %s is already unreachable or failed", p.Node.Name, p.Name)
		}
		s.note("%s: node %s of pod %s stops reporting (unreachable)", label, p.Node.Name, p.Name)
		s.c.UnreachNode(p.Node)
	case ps.Ready != nil:
		if err := s.c.SetPodReady(p, *ps.Ready); err != nil {
			return err
		}
		s.note("%s: pod %s readiness probe %s", label, p.Name, map[bool]string{true: "passes", false: "fails"}[*ps.Ready])
	default:
		if err := s.c.SetPodPhase(p, corev1.PodPhase(ps.Phase)); err != nil {
			return err
		}
		s.note("%s: pod %s phase %s", label, p.Name, ps.Phase)
	}
	if s.checks != nil {
		s.checks.fault()
	}
	return nil
}

// ---- when: ----

// armed is a step waiting for its when: to hold.
type armed struct {
	idx   int
	start int32 // the count when armed: "reaches" is from this side
}

// armStep arms step i at its at: it runs at once if its condition holds.
func (s *Sim) armStep(i int) {
	st := &s.sc.Steps[i]
	v, _ := s.whenValue(st)
	s.armedSteps = append(s.armedSteps, armed{idx: i, start: v})
	s.note("step %d: waits until %s", i+1, describeWhen(st.When))
	if t := st.When.Timeout; t > 0 {
		s.q.push(s.now+time.Duration(t), event{kind: evStepTimeout, n: uint32(i)})
	}
	s.checkArmed()
}

// checkArmed runs the armed steps whose condition holds, in step order.
func (s *Sim) checkArmed() {
	for j := 0; j < len(s.armedSteps); j++ {
		a := s.armedSteps[j]
		st := &s.sc.Steps[a.idx]
		v, ok := s.whenValue(st)
		if !ok || !reached(st.When, a.start, v) {
			continue
		}
		s.armedSteps = slices.Delete(s.armedSteps, j, j+1)
		j--
		s.note("step %d: met: %s (%s)", a.idx+1, describeWhen(st.When), s.describeWhenValue(st, v))
		s.runStep(a.idx)
		if s.failed != nil {
			return
		}
	}
}

// stepTimedOut gives up on step i, if it still waits.
func (s *Sim) stepTimedOut(i int) {
	for j, a := range s.armedSteps {
		if a.idx == i {
			s.armedSteps = slices.Delete(s.armedSteps, j, j+1)
			s.missStep(i, fmt.Sprintf("within its timeout %s", time.Duration(s.sc.Steps[i].When.Timeout)))
			return
		}
	}
}

// missStep records that step i never ran.
func (s *Sim) missStep(i int, by string) {
	st := &s.sc.Steps[i]
	s.stepsLeft--
	v, _ := s.whenValue(st)
	msg := fmt.Sprintf("%s: step %d did not run: %s did not hold %s (at %s: %s)",
		s.sc.where(max(st.whenLine, st.line)), i+1, describeWhen(st.When), by, offset(s.now), s.describeWhenValue(st, v))
	s.missed = append(s.missed, MissedStep{Step: i + 1, At: s.now, Message: msg})
	s.note("%s", msg)
}

// missRemaining gives up on the steps still waiting at the end of the run.
func (s *Sim) missRemaining() {
	for _, a := range s.armedSteps {
		s.missStep(a.idx, fmt.Sprintf("by the end of the run (until %s)", s.until))
	}
	s.armedSteps = nil
}

// reached reports whether the count went from start to at least (or, from
// above, at most) the wanted count, or the condition holds.
func reached(w *When, start, v int32) bool {
	want, ok := whenCount(w)
	if !ok {
		return v == 1
	}
	if start <= want {
		return v >= want
	}
	return v <= want
}

func whenCount(w *When) (int32, bool) {
	for _, c := range []*int32{w.Replicas, w.Ready, w.Available, w.Updated} {
		if c != nil {
			return *c, true
		}
	}
	return 0, false
}

// whenDeployment is the Deployment a when: reads.
func (s *Sim) whenDeployment(st *Step) *appsv1.Deployment {
	name := st.When.Deployment
	if name == "" {
		name = st.Deployment
	}
	d, err := s.target(&Step{Deployment: name})
	if err != nil {
		return nil
	}
	return d
}

// whenValue is the current count of st's when: (for a condition, 1 when
// it holds), and whether its object exists.
func (s *Sim) whenValue(st *Step) (int32, bool) {
	w := st.When
	d := s.whenDeployment(st)
	if d == nil {
		return 0, false
	}
	if w.Condition != "" {
		typ, status, _ := strings.Cut(w.Condition, "=")
		for _, c := range d.Status.Conditions {
			if string(c.Type) == typ {
				return int32(b2iInt(string(c.Status) == status)), true
			}
		}
		return 0, true
	}
	if w.ReplicaSet == "" {
		ds := &d.Status
		switch {
		case w.Replicas != nil:
			return ds.Replicas, true
		case w.Ready != nil:
			return ds.ReadyReplicas, true
		case w.Available != nil:
			return ds.AvailableReplicas, true
		}
		return ds.UpdatedReplicas, true
	}
	rss := s.rsFor(d, w.ReplicaSet)
	var v int32
	for _, rs := range rss {
		switch {
		case w.Replicas != nil:
			v += rs.Status.Replicas
		case w.Ready != nil:
			v += rs.Status.ReadyReplicas
		default:
			v += rs.Status.AvailableReplicas
		}
	}
	return v, len(rss) > 0
}

// describeWhen renders a when: for the trace.
func describeWhen(w *When) string {
	obj := "deployment"
	if w.Deployment != "" {
		obj += " " + w.Deployment
	}
	if w.ReplicaSet != "" {
		obj = w.ReplicaSet + " replica set"
		if w.ReplicaSet != "new" && w.ReplicaSet != "old" {
			obj = "replica set " + w.ReplicaSet
		}
		if w.Deployment != "" {
			obj += " of deployment " + w.Deployment
		}
	}
	if w.Condition != "" {
		return obj + " has condition " + w.Condition
	}
	want, _ := whenCount(w)
	var field string
	switch {
	case w.Replicas != nil:
		field = "replicas"
	case w.Ready != nil:
		field = "ready"
	case w.Available != nil:
		field = "available"
	default:
		field = "updated"
	}
	return fmt.Sprintf("%s reaches %s %d", obj, field, want)
}

// describeWhenValue says what a when: read.
func (s *Sim) describeWhenValue(st *Step, v int32) string {
	w := st.When
	d := s.whenDeployment(st)
	if d == nil {
		return "no such deployment"
	}
	if w.Condition != "" {
		typ, _, _ := strings.Cut(w.Condition, "=")
		for _, c := range d.Status.Conditions {
			if string(c.Type) == typ {
				return fmt.Sprintf("%s=%s %s", typ, c.Status, c.Reason)
			}
		}
		return "no " + typ + " condition"
	}
	if w.ReplicaSet == "" {
		return fmt.Sprintf("%d", v)
	}
	rss := s.rsFor(d, w.ReplicaSet)
	if len(rss) == 0 {
		return "no such replica set yet"
	}
	names := make([]string, len(rss))
	for i, rs := range rss {
		names[i] = rs.Name
	}
	return fmt.Sprintf("%d, %s", v, joinComma(names))
}

// allReplicaSets returns every stored ReplicaSet, in namespace/name order.
func (s *Sim) allReplicaSets() []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, k := range sortedKeys(s.st.ReplicaSets) {
		out = append(out, s.st.ReplicaSets[k].Obj)
	}
	return out
}

func rsNames(rss []*appsv1.ReplicaSet) []string {
	var out []string
	for _, rs := range rss {
		out = append(out, rs.Name)
	}
	return out
}
