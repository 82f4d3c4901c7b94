package sim

import (
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"

	"github.com/deploymath/deploymath/restart"
	"github.com/deploymath/deploymath/sim/internal/apiserver"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// RestartSpec configures the cluster's restart controller (package
// [restart]): workloads that opt in are restarted when a ConfigMap or
// Secret they use changes.
type RestartSpec struct {
	// Enabled runs the restart controller.
	Enabled bool `json:"enabled"`
	// Preset selects the annotation keys and checksum algorithm:
	// "deploymath" (the default, [restart.DefaultOptions]) or "xing"
	// ([restart.XingKeys], the kubernetes-deployment-restart-controller's).
	Preset string `json:"preset,omitempty"`
	// GracePeriod is how long a change waits (default 5s; 0 is allowed).
	GracePeriod *Duration `json:"gracePeriod,omitempty"`
	// CheckInterval is the period of the check for due changes (default
	// 500ms).
	CheckInterval *Duration `json:"checkInterval,omitempty"`
	// Reloader also honours stakater/Reloader's opt-in annotations.
	Reloader bool `json:"reloader,omitempty"`
}

// options returns the engine options the spec selects; path names the
// section in errors.
func (r *RestartSpec) options(path string) (restart.Options, error) {
	var o restart.Options
	switch r.Preset {
	case "", "deploymath":
		o = restart.DefaultOptions()
	case "xing":
		o = restart.XingKeys()
	default:
		return o, fmt.Errorf("field %q: unknown preset %q (want deploymath or xing)", path+".preset", r.Preset)
	}
	if r.GracePeriod != nil {
		o.GracePeriod = time.Duration(*r.GracePeriod)
	}
	if r.CheckInterval != nil {
		if *r.CheckInterval <= 0 {
			return o, fmt.Errorf("field %q: must be positive", path+".checkInterval")
		}
		o.CheckInterval = time.Duration(*r.CheckInterval)
	}
	o.Reloader = r.Reloader
	if err := o.Validate(); err != nil {
		return o, fmt.Errorf("field %q: %w", path, err)
	}
	return o, nil
}

// restarter is the restart controller's shell in the simulator: the engine
// and its ticker. Ticks are scheduled only while changes wait, on the grid
// of a ticker started at time 0 (every CheckInterval).
type restarter struct {
	eng      *restart.Engine
	interval time.Duration
	tickAt   time.Duration // time of the pending tick event, -1 when none
}

func newRestarter(o restart.Options) (*restarter, error) {
	eng, err := restart.New(o)
	if err != nil {
		return nil, err
	}
	return &restarter{eng: eng, interval: o.CheckInterval, tickAt: -1}, nil
}

// observeRestart feeds a store write to the restart controller, as its
// informers would, and schedules a tick if a change now waits.
func (s *Sim) observeRestart(obj runtime.Object) {
	r := s.restart
	if r == nil {
		return
	}
	if h := s.genericRestart; h != nil {
		s.dispatchTo(h, s.kindOfBuiltin(obj), nil, obj.(Object))
		return
	}
	if err := r.eng.Observe(obj, s.wall()); err != nil {
		s.note("restart controller: %v", err)
	}
	s.scheduleRestartTick()
}

// forgetRestart feeds a store delete to the restart controller.
func (s *Sim) forgetRestart(obj runtime.Object) {
	if s.restart == nil {
		return
	}
	if h := s.genericRestart; h != nil {
		s.dispatchTo(h, s.kindOfBuiltin(obj), obj.(Object), nil)
		return
	}
	if err := s.restart.eng.Forget(obj); err != nil {
		s.note("restart controller: %v", err)
	}
	s.scheduleRestartTick()
}

// scheduleRestartTick queues the first tick at which a waiting change is
// due, unless an earlier one is pending.
func (s *Sim) scheduleRestartTick() {
	r := s.restart
	d, ok := s.nextRestartTick()
	if !ok {
		return
	}
	if r.tickAt >= 0 && r.tickAt <= d {
		return
	}
	r.tickAt = d
	s.q.push(d, event{kind: evRestartTick})
}

// restartTick is one check of the restart controller: release the due
// changes and apply each decision's patch to the stored Deployment.
func (s *Sim) restartTick(at time.Duration) {
	r := s.restart
	if r == nil || r.tickAt != at {
		return // superseded by an earlier tick
	}
	r.tickAt = -1
	for _, dec := range s.releaseRestarts() {
		s.applyRestart(dec)
	}
	s.scheduleRestartTick()
}

// nextRestartTick is the time of the tick at which the restart
// controller's first waiting change is due, on the grid of a ticker
// started at time 0 (every CheckInterval); false when nothing waits.
func (s *Sim) nextRestartTick() (time.Duration, bool) {
	r := s.restart
	at, ok := r.eng.NextRelease(Epoch)
	if !ok {
		return 0, false
	}
	d := at.Sub(Epoch)
	if d < s.now { // overdue: the ticker's next tick from now
		d = (s.now + r.interval - 1) / r.interval * r.interval
	}
	return d, true
}

// releaseRestarts releases the restart controller's due changes and
// returns the decisions to write, noting changes that update no workload.
func (s *Sim) releaseRestarts() []restart.Decision {
	batch := s.restart.eng.Release(s.wall())
	if len(batch.Decisions) == 0 && len(batch.Processed) > 0 {
		keys := make([]string, len(batch.Processed))
		for i, c := range batch.Processed {
			keys[i] = c.Key
		}
		s.note("restart controller: processed %s: no workload to update", strings.Join(keys, ", "))
	}
	return batch.Decisions
}

// applyRestart applies one decision as a JSON merge patch (unconditional,
// no resourceVersion) to the stored workload.
func (s *Sim) applyRestart(dec restart.Decision) {
	fail := func(why string) {
		s.note("restart controller: patch of %s failed: %s", dec.Key(), why)
		s.restart.eng.PatchFailed(dec, s.wall())
	}
	if dec.Kind != restart.KindDeployment {
		fail("the simulator stores Deployments only")
		return
	}
	key := objKey(dec.Namespace, dec.Name)
	old := s.st.Deployments[key]
	if old == nil {
		fail(apiserver.NotFound("deployments.apps", dec.Name).Error())
		return
	}
	obj, err := dec.Patch.Apply(old)
	if err != nil {
		fail(err.Error())
		return
	}
	d, ok := obj.(*appsv1.Deployment)
	if !ok {
		fail(fmt.Sprintf("patch returned %T", obj))
		return
	}
	s.restarted(dec)
	if s.checks != nil {
		s.checks.restartDecision(old, dec)
	}
	s.writer = writerRestart
	s.writeDeploymentSpec(old, d)
	s.writer = ""
}

// RestartAction is what a decision of the restart controller wrote.
type RestartAction string

const (
	// RestartRolled: the pod template got a new restart stamp (and the
	// checksums annotation its new content); a rollout follows.
	RestartRolled RestartAction = "restart"
	// RestartRecorded: only the checksums annotation was written (a config
	// seen for the first time, or one no longer referenced); the pods stay.
	RestartRecorded RestartAction = "record-checksums"
)

// Restart is a decision of the restart controller applied to a workload:
// the annotation update, and for a restart the new pod template stamp.
type Restart struct {
	// Workload is "deployment/NAME", with the namespace ("deployment/NS/NAME")
	// when it is not default.
	Workload string `json:"workload"`
	// Action is what was written.
	Action RestartAction `json:"action"`
	// Triggers are, for a restart, the configs whose checksum changed,
	// sorted by key; none for the retry of a failed restart.
	Triggers []RestartTrigger `json:"triggers,omitempty"`
	// Checksums is, when only the annotation was written, its new
	// content: config key to checksum.
	Checksums map[string]string `json:"checksums,omitempty"`
	// AfterNotes is the number of the frame's Notes recorded before the
	// decision: the text trace shows it after them, in the order of the run.
	AfterNotes int `json:"afterNotes"`

	// seq orders the frame's stops, syncs and restarts (see Frame.seq).
	seq int
	// text is the line of the text trace.
	text string
}

// RestartTrigger is a config whose change restarted a workload.
type RestartTrigger struct {
	// Config is the config's key, "configmap/NS/NAME" or "secret/NS/NAME".
	Config string `json:"config"`
	// Recorded is the checksum in the workload's annotation; empty when the
	// config was newly referenced and changed again before it was recorded.
	Recorded string `json:"recorded,omitempty"`
	// Current is the config's checksum now.
	Current string `json:"current"`
	// Observations is how many writes of the config the change gathered.
	Observations int `json:"observations"`
}

// restarted records an applied decision: a frame line of its own and, for
// a restart, a count in the summary.
func (s *Sim) restarted(dec restart.Decision) {
	if dec.Restart {
		s.met.restart(restartedName(dec))
	}
	if s.opts.NoTrace {
		return
	}
	f := s.frame()
	r := Restart{Workload: workloadName(dec), Action: RestartRecorded, AfterNotes: len(f.Notes), seq: f.nextSeq(), text: describeDecision(dec)}
	if dec.Restart {
		r.Action = RestartRolled
		for _, t := range dec.Triggers {
			r.Triggers = append(r.Triggers, RestartTrigger{Config: t.Config, Recorded: t.Recorded, Current: t.Current, Observations: t.Observations})
		}
	} else {
		r.Checksums = maps.Clone(dec.Checksums)
	}
	f.Restarts = append(f.Restarts, r)
}

// DescribeRestart renders an applied decision of the restart controller
// as one line of the text trace (without indentation):
//
//	restart controller: restarted deployment/web: configmap/default/app-config checksum fa29c7bde74b11a2 -> 115f4ef9542df413
//	restart controller: recorded checksums on deployment/web: configmap/default/app-config=fa29c7bde74b11a2
func DescribeRestart(r *Restart) string {
	text := r.text
	if text == "" { // decoded from JSON
		text = describeRestartFields(r)
	}
	return "restart controller: " + text
}

// describeRestartFields renders r from its exported fields, as
// describeDecision renders the decision.
func describeRestartFields(r *Restart) string {
	dec := restart.Decision{Restart: r.Action == RestartRolled, Checksums: r.Checksums}
	for _, t := range r.Triggers {
		dec.Triggers = append(dec.Triggers, restart.Trigger{Config: t.Config, Recorded: t.Recorded, Current: t.Current, Observations: t.Observations})
	}
	return describeDecisionOf(r.Workload, dec)
}

// describeDecision renders a decision for the trace: the configs that
// restart the workload with their old and new checksums, or the checksums
// recorded without a restart.
func describeDecision(dec restart.Decision) string {
	return describeDecisionOf(workloadName(dec), dec)
}

// describeDecisionOf is describeDecision for the workload named name.
func describeDecisionOf(name string, dec restart.Decision) string {
	if dec.Restart {
		var parts []string
		for _, t := range dec.Triggers {
			rec := t.Recorded
			if rec == "" {
				rec = fmt.Sprintf("(not recorded, %d observations)", t.Observations)
			}
			parts = append(parts, fmt.Sprintf("%s checksum %s -> %s", t.Config, rec, t.Current))
		}
		if len(parts) == 0 {
			parts = append(parts, "retrying a failed restart")
		}
		return fmt.Sprintf("restarted %s: %s", name, strings.Join(parts, ", "))
	}
	keys := make([]string, 0, len(dec.Checksums))
	for k := range dec.Checksums {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + dec.Checksums[k]
	}
	if len(parts) == 0 {
		parts = append(parts, "none")
	}
	return fmt.Sprintf("recorded checksums on %s: %s", name, strings.Join(parts, ", "))
}

// restartedName names a workload in the summary: its name, with the
// namespace ("NS/NAME") when it is not default.
func restartedName(dec restart.Decision) string {
	if dec.Namespace == metav1.NamespaceDefault {
		return dec.Name
	}
	return dec.Namespace + "/" + dec.Name
}

// workloadName is "kind/name", with the namespace only when it is not
// "default" (the trace names Deployments by name).
func workloadName(dec restart.Decision) string {
	if dec.Namespace == metav1.NamespaceDefault {
		return string(dec.Kind) + "/" + dec.Name
	}
	return dec.Key()
}

// restartWaiting reports whether the restart controller has changes waiting.
func (s *Sim) restartWaiting() bool {
	return s.restart != nil && s.restart.eng.Counters().ChangesWaiting > 0
}
