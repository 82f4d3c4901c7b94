package sim

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/deploymath/deploymath/restart"
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
	if err := s.restart.eng.Forget(obj); err != nil {
		s.note("restart controller: %v", err)
	}
	s.scheduleRestartTick()
}

// scheduleRestartTick queues the first tick at which a waiting change is
// due, unless an earlier one is pending.
func (s *Sim) scheduleRestartTick() {
	r := s.restart
	at, ok := r.eng.NextRelease(Epoch)
	if !ok {
		return
	}
	d := at.Sub(Epoch)
	if d < s.now { // overdue: the ticker's next tick from now
		d = (s.now + r.interval - 1) / r.interval * r.interval
	}
	if r.tickAt >= 0 && r.tickAt <= d {
		return
	}
	r.tickAt = d
	s.q.push(event{at: d, kind: evRestartTick})
}

// restartTick is one check of the restart controller: release the due
// changes and apply each decision's patch to the stored Deployment.
func (s *Sim) restartTick(at time.Duration) {
	r := s.restart
	if r == nil || r.tickAt != at {
		return // superseded by an earlier tick
	}
	r.tickAt = -1
	batch := r.eng.Release(s.wall())
	if len(batch.Decisions) == 0 && len(batch.Processed) > 0 {
		keys := make([]string, len(batch.Processed))
		for i, c := range batch.Processed {
			keys[i] = c.Key
		}
		s.note("restart controller: processed %s: no workload to update", strings.Join(keys, ", "))
	}
	for _, dec := range batch.Decisions {
		s.applyRestart(dec)
	}
	s.scheduleRestartTick()
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
	old := s.st.deployments[key]
	if old == nil {
		fail(notFoundError("deployments.apps", dec.Name).Error())
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
	s.note("%s", describeDecision(dec))
	if s.checks != nil {
		s.checks.restartDecision(old, dec)
	}
	s.writeDeploymentSpec(old, d)
}

// describeDecision renders a decision for the trace: the configs that
// restart the workload with their old and new checksums, or the checksums
// recorded without a restart.
func describeDecision(dec restart.Decision) string {
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
		return fmt.Sprintf("restart %s: %s", workloadName(dec), strings.Join(parts, ", "))
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
	return fmt.Sprintf("record checksums on %s: %s", workloadName(dec), strings.Join(parts, ", "))
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
