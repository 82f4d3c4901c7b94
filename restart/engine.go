package restart

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Engine is the restart controller's state machine: the catalog of configs
// and opted-in workloads, the change queue and the counters. It is driven
// by observations ([Engine.Observe], [Engine.Forget]) and by periodic
// [Engine.Release] calls, all of which take the time as a parameter. It
// starts no goroutines, reads no clock and does no I/O; it is not safe for
// concurrent use (a client-go shell calls it from one worker).
//
// A change is queued (or its count incremented, if one waits) when:
//   - a config is observed for the first time, or its checksum changes;
//   - an opted-in workload is observed for the first time;
//   - a workload's set of tracked configs changes (a reference is added or
//     dropped);
//   - a workload's applied-checksums annotation changes.
//
// A change is due GracePeriod after it was first observed. Releasing it
// compares every affected workload (all users of a config, or the workload
// itself) with the catalog and returns a [Decision] for each one whose
// annotation must be written.
//
// Make one with [New]. A nil *Engine, or an Engine not made by New, holds
// nothing and changes nothing: its methods return zero values, and those
// that return an error return [ErrNotNew].
type Engine struct {
	opts      Options
	configs   map[string]*configEntry
	workloads map[string]*workloadEntry
	versions  map[string]string
	queue     changeQueue
	counters  Counters
}

type configEntry struct {
	key      string
	checksum string // "" for a placeholder
	users    map[string]*workloadEntry
}

type workloadEntry struct {
	kind            WorkloadKind
	namespace, name string
	key             string
	refs            []string // sorted config keys
	applied         map[string]string
	annotationErr   error
	stamp           string // current restart stamp in the template
	retryRestart    bool   // a restart patch failed
}

// Counters mirror the kubernetes-deployment-restart-controller's Prometheus
// metrics (names in the field docs, namespace deployment_restart_controller).
type Counters struct {
	// ResourceVersions counts distinct resource versions observed
	// (resource_versions_total, counter).
	ResourceVersions uint64
	// Configs is the number of configs in the catalog, real and placeholder
	// (configs_total, gauge).
	Configs int
	// Workloads is the number of opted-in workloads (deployments_total, gauge).
	Workloads int
	// AnnotationUpdates counts decisions issued, each one patch
	// (deployment_annotation_updates_total, counter).
	AnnotationUpdates uint64
	// Restarts counts restarts decided, less those reported failed
	// (deployment_restarts_total, counter).
	Restarts uint64
	// ChangesProcessed counts changes released (changes_processed_total,
	// counter).
	ChangesProcessed uint64
	// ChangesWaiting is the number of queued changes (changes_waiting_total,
	// gauge).
	ChangesWaiting int
}

// Batch is the result of one [Engine.Release] or [Engine.Drain].
type Batch struct {
	// Processed are the changes released, in queue order.
	Processed []Change
	// Decisions are the patches to apply, sorted by workload key.
	Decisions []Decision
}

// ErrNotNew is returned by the methods of an [Engine] that [New] did not
// make (a nil or zero Engine).
var ErrNotNew = errors.New("restart: Engine not made by New")

// made reports whether e was made by New (and is not nil).
func (e *Engine) made() bool { return e != nil && e.versions != nil }

// New returns an empty engine, or the error of [Options.Validate].
func New(opts Options) (*Engine, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	return &Engine{
		opts:      opts,
		configs:   map[string]*configEntry{},
		workloads: map[string]*workloadEntry{},
		versions:  map[string]string{},
	}, nil
}

// Options returns the engine's options.
func (e *Engine) Options() Options {
	if e == nil {
		return Options{}
	}
	return e.opts
}

// Observe records an added or updated object: a *corev1.ConfigMap,
// *corev1.Secret, *appsv1.Deployment, *appsv1.StatefulSet,
// *appsv1.DaemonSet or *batchv1.CronJob. obj is read, never retained or
// modified. Other types return an error wrapping [ErrUnsupported].
func (e *Engine) Observe(obj runtime.Object, now time.Time) error {
	if !e.made() {
		return ErrNotNew
	}
	switch obj.(type) {
	case *corev1.ConfigMap, *corev1.Secret:
		c, err := ConfigOf(obj, e.opts.Checksum)
		if err != nil {
			return err
		}
		return e.ObserveConfig(c, now)
	}
	w, err := WorkloadOf(obj)
	if err != nil {
		return err
	}
	return e.ObserveWorkload(w, now)
}

// Forget records a deleted object (unwrap informer tombstones first). The
// types are those of [Engine.Observe].
func (e *Engine) Forget(obj runtime.Object) error {
	if !e.made() {
		return ErrNotNew
	}
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		if o == nil {
			return fmt.Errorf("%T: nil object", obj)
		}
		e.ForgetConfig(KindConfigMap, o.Namespace, o.Name)
		return nil
	case *corev1.Secret:
		if o == nil {
			return fmt.Errorf("%T: nil object", obj)
		}
		e.ForgetConfig(KindSecret, o.Namespace, o.Name)
		return nil
	}
	_, kind, err := PodTemplate(obj) // rejects nil and unsupported objects
	if err != nil {
		return err
	}
	m := objectMeta(obj)
	e.ForgetWorkload(kind, m.Namespace, m.Name)
	return nil
}

// seen reports whether key was last observed at the non-empty version rv,
// and records rv otherwise.
func (e *Engine) seen(key, rv string) bool {
	if old, ok := e.versions[key]; ok && rv != "" && old == rv {
		return true
	}
	e.versions[key] = rv
	e.counters.ResourceVersions++
	return false
}

// ObserveConfig records a ConfigMap or Secret value (see [ConfigOf]). A new
// config, or a new checksum of a known one, queues a change; the same
// version or the same checksum does nothing.
func (e *Engine) ObserveConfig(c Config, now time.Time) error {
	if !e.made() {
		return ErrNotNew
	}
	switch {
	case c.Kind != KindConfigMap && c.Kind != KindSecret:
		return fmt.Errorf("Config.Kind: invalid value %q: want %q or %q", c.Kind, KindConfigMap, KindSecret)
	case c.Name == "":
		return errors.New("Config.Name: must not be empty")
	case c.Checksum == "":
		return errors.New("Config.Checksum: must not be empty")
	}
	key := c.Key()
	if e.seen(key, c.ResourceVersion) {
		return nil
	}
	ent := e.configs[key]
	if ent == nil {
		ent = &configEntry{key: key}
		e.configs[key] = ent
	} else if ent.checksum == c.Checksum {
		return nil
	}
	ent.checksum = c.Checksum
	e.queue.touch(key, now)
	return nil
}

// ForgetConfig records the deletion of a config. A config still referenced
// stays as a placeholder (its recorded checksums stay in the annotations, so
// re-creating it with other data restarts its users); otherwise it leaves the
// catalog. Its waiting change is dropped.
func (e *Engine) ForgetConfig(kind Kind, namespace, name string) {
	if !e.made() {
		return
	}
	key := ConfigKey(kind, namespace, name)
	delete(e.versions, key)
	e.queue.remove(key)
	ent := e.configs[key]
	if ent == nil {
		return
	}
	if len(ent.users) > 0 {
		ent.checksum = ""
		return
	}
	delete(e.configs, key)
}

// ObserveWorkload records a workload value (see [WorkloadOf]). A workload
// that does not opt in (see [Options.Tracked]) leaves the catalog. A new
// opted-in workload, a changed set of tracked configs or a changed
// checksums annotation queues a change; configs it names that are not known
// yet become placeholders.
func (e *Engine) ObserveWorkload(w Workload, now time.Time) error {
	if !e.made() {
		return ErrNotNew
	}
	switch w.Kind {
	case KindDeployment, KindStatefulSet, KindDaemonSet, KindCronJob:
	default:
		return fmt.Errorf("Workload.Kind: invalid value %q", w.Kind)
	}
	if w.Name == "" {
		return errors.New("Workload.Name: must not be empty")
	}
	key := w.Key()
	if e.seen(key, w.ResourceVersion) {
		return nil
	}
	refs, ok := e.opts.Tracked(w)
	if !ok {
		e.dropWorkload(key)
		return nil
	}
	keys := make([]string, 0, len(refs))
	for _, r := range refs {
		keys = append(keys, r.Key())
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	applied, perr := ParseChecksums(e.opts.ChecksumsAnnotation, w.Annotations[e.opts.ChecksumsAnnotation])

	ent := e.workloads[key]
	if ent != nil {
		ent.stamp = w.TemplateAnnotations[e.opts.RestartedAtAnnotation]
		if slices.Equal(ent.refs, keys) && maps.Equal(ent.applied, applied) && (ent.annotationErr == nil) == (perr == nil) {
			return nil
		}
		for _, k := range ent.refs {
			if _, found := slices.BinarySearch(keys, k); !found {
				e.unlink(k, key)
			}
		}
	} else {
		ent = &workloadEntry{kind: w.Kind, namespace: w.Namespace, name: w.Name, key: key,
			stamp: w.TemplateAnnotations[e.opts.RestartedAtAnnotation]}
		e.workloads[key] = ent
	}
	for _, k := range keys {
		c := e.configs[k]
		if c == nil {
			c = &configEntry{key: k}
			e.configs[k] = c
		}
		if c.users == nil {
			c.users = map[string]*workloadEntry{}
		}
		c.users[key] = ent
	}
	ent.refs = keys
	ent.applied = applied
	ent.annotationErr = perr
	e.queue.touch(key, now)
	return nil
}

// ForgetWorkload records the deletion of a workload: it leaves the catalog
// with its waiting change, and placeholders only it named go too.
func (e *Engine) ForgetWorkload(kind WorkloadKind, namespace, name string) {
	if !e.made() {
		return
	}
	key := WorkloadKey(kind, namespace, name)
	delete(e.versions, key)
	e.dropWorkload(key)
}

func (e *Engine) dropWorkload(key string) {
	ent := e.workloads[key]
	if ent == nil {
		return
	}
	for _, k := range ent.refs {
		e.unlink(k, key)
	}
	delete(e.workloads, key)
	e.queue.remove(key)
}

func (e *Engine) unlink(cfgKey, wlKey string) {
	c := e.configs[cfgKey]
	if c == nil {
		return
	}
	delete(c.users, wlKey)
	if c.checksum == "" && len(c.users) == 0 {
		delete(e.configs, cfgKey)
		e.queue.remove(cfgKey)
	}
}

// Due returns the changes that [Engine.Release] at now would process, in
// queue order, without processing them.
func (e *Engine) Due(now time.Time) []Change {
	if !e.made() {
		return nil
	}
	return changes(e.queue.due(nil, now.Add(-e.opts.GracePeriod)))
}

// Waiting returns all queued changes in queue order.
func (e *Engine) Waiting() []Change {
	if !e.made() {
		return nil
	}
	return changes(e.queue.matching(nil, func(*queued) bool { return true }))
}

func changes(q []*queued) []Change {
	if len(q) == 0 {
		return nil
	}
	out := make([]Change, len(q))
	for i, c := range q {
		out[i] = c.Change
	}
	return out
}

// NextRelease returns when a caller that checks every CheckInterval since
// epoch (at epoch+interval, epoch+2·interval, …, like a ticker started at
// epoch) first finds a change due, and false when the queue is empty. A
// result before the current time means "now".
func (e *Engine) NextRelease(epoch time.Time) (time.Time, bool) {
	if !e.made() {
		return time.Time{}, false
	}
	m := e.queue.min()
	if m == nil {
		return time.Time{}, false
	}
	due := m.First.Add(e.opts.GracePeriod)
	iv := e.opts.CheckInterval
	k := int64(1)
	if d := due.Sub(epoch); d > iv {
		k = int64((d + iv - 1) / iv)
	}
	return epoch.Add(time.Duration(k) * iv), true
}

// Release processes the changes due at now (first observed at least
// GracePeriod before now) and returns the decisions for the workloads they
// affect. The engine assumes the decisions' patches are applied (as the
// original controller does); report a failed patch with
// [Engine.PatchFailed]. A waiting change of a workload that gets a decision
// is dropped too: the decision already covers it.
func (e *Engine) Release(now time.Time) Batch {
	if !e.made() {
		return Batch{}
	}
	return e.process(e.queue.due(nil, now.Add(-e.opts.GracePeriod)), now)
}

// Drain processes, regardless of age, the changes observed more than once:
// the ones whose loss would miss a restart (a newly referenced config that
// changed again before its checksum was recorded). The original controller
// does this when it stops; call it at shutdown or before handing over
// leadership.
func (e *Engine) Drain(now time.Time) Batch {
	if !e.made() {
		return Batch{}
	}
	return e.process(e.queue.matching(nil, func(c *queued) bool { return c.Count > 1 }), now)
}

func (e *Engine) process(due []*queued, now time.Time) Batch {
	var b Batch
	if len(due) == 0 {
		return b
	}
	b.Processed = changes(due)
	type update struct {
		w       *workloadEntry
		next    map[string]string
		changes []ConfigChange
	}
	var affected []update
	mark := map[string]bool{}
	consider := func(w *workloadEntry) {
		if mark[w.key] {
			return
		}
		mark[w.key] = true
		next, changes := e.diff(w)
		if w.annotationErr != nil || w.retryRestart || len(changes) > 0 {
			affected = append(affected, update{w, next, changes})
		}
	}
	for _, c := range due {
		if cfg := e.configs[c.Key]; cfg != nil {
			for _, w := range cfg.users {
				consider(w)
			}
		} else if w := e.workloads[c.Key]; w != nil {
			consider(w)
		} // else: an orphaned change, dropped
	}
	slices.SortFunc(affected, func(a, b update) int { return strings.Compare(a.w.key, b.w.key) })
	for _, u := range affected {
		b.Decisions = append(b.Decisions, e.decide(u.w, u.next, u.changes, now))
	}
	for _, u := range affected {
		e.queue.remove(u.w.key)
	}
	for _, c := range due {
		e.queue.remove(c.Key)
	}
	e.counters.ChangesProcessed += uint64(len(due))
	return b
}

// diff compares w's recorded checksums with the catalog ([diffSums]): the
// new annotation content and the changes. Placeholders count as missing.
func (e *Engine) diff(w *workloadEntry) (map[string]string, []ConfigChange) {
	next := make(map[string]string, len(w.refs))
	return next, diffSums(w.refs, w.applied, e.checksum, next)
}

// checksum returns the catalog checksum of a config, false for unknown
// configs and placeholders.
func (e *Engine) checksum(key string) (string, bool) {
	c := e.configs[key]
	if c == nil || c.checksum == "" {
		return "", false
	}
	return c.checksum, true
}

// decide builds w's decision from its diff and applies it to the catalog
// optimistically. Besides a changed recorded checksum, a config not yet
// recorded restarts w when its waiting change was observed more than once.
func (e *Engine) decide(w *workloadEntry, next map[string]string, changes []ConfigChange, now time.Time) Decision {
	d := Decision{
		Kind:            w.kind,
		Namespace:       w.namespace,
		Name:            w.name,
		Restart:         w.retryRestart,
		Recorded:        w.applied,
		AnnotationError: w.annotationErr,
	}
	for _, c := range changes {
		if c.Change == ConfigRemoved {
			continue
		}
		obs := 0
		if q := e.queue.get(c.Config); q != nil {
			obs = q.Count
		}
		if c.Change == ConfigChanged || obs > 1 {
			d.Restart = true
			d.Triggers = append(d.Triggers, Trigger{Config: c.Config, Recorded: c.Recorded, Current: c.Current, Observations: obs})
		}
	}
	d.Checksums = next
	d.Patch = Patch{
		Annotations:  map[string]string{e.opts.ChecksumsAnnotation: FormatChecksums(next)},
		TemplatePath: w.kind.TemplatePath(),
	}
	if d.Restart {
		t := now.UTC()
		stamp := t.Format(time.RFC3339Nano)
		if stamp == w.stamp { // same instant as the last restart: still change the template
			stamp = t.Add(time.Nanosecond).Format(time.RFC3339Nano)
		}
		d.RestartedAt = stamp
		d.Patch.TemplateAnnotations = map[string]string{e.opts.RestartedAtAnnotation: stamp}
		w.stamp = stamp
		e.counters.Restarts++
	}
	d.PatchJSON = d.Patch.JSON()
	e.counters.AnnotationUpdates++
	w.applied = next
	w.annotationErr = nil
	w.retryRestart = false
	return d
}

// PatchFailed reports that d's patch was not applied. The workload's
// recorded checksums revert to d.Recorded, a failed restart is retried by the
// next decision for it, and a change for it is queued at now. Its last seen
// resource version is forgotten, so re-observing the unchanged object counts.
func (e *Engine) PatchFailed(d Decision, now time.Time) {
	if !e.made() {
		return
	}
	key := d.Key()
	w := e.workloads[key]
	if w == nil {
		return
	}
	w.applied = maps.Clone(d.Recorded)
	if w.applied == nil {
		w.applied = map[string]string{}
	}
	w.annotationErr = d.AnnotationError
	if d.Restart {
		w.retryRestart = true
		if e.counters.Restarts > 0 {
			e.counters.Restarts--
		}
	}
	delete(e.versions, key)
	e.queue.touch(key, now)
}

// Counters returns the current counters.
func (e *Engine) Counters() Counters {
	if !e.made() {
		return Counters{}
	}
	c := e.counters
	c.Configs = len(e.configs)
	c.Workloads = len(e.workloads)
	c.ChangesWaiting = e.queue.len()
	return c
}

// ConfigState describes one config in the catalog.
type ConfigState struct {
	// Key is "<kind>/<namespace>/<name>".
	Key string
	// Checksum is empty for a placeholder (a config only referenced).
	Checksum string
	// Users are the keys of the opted-in workloads tracking it, sorted.
	Users []string
}

// WorkloadState describes one opted-in workload in the catalog.
type WorkloadState struct {
	// Key is "<kind>/<namespace>/<name>".
	Key string
	// Configs are the keys of the tracked configs, sorted.
	Configs []string
	// Applied are the checksums the engine believes are recorded in the
	// annotation (after its own decisions).
	Applied map[string]string
}

// Configs returns the catalog's configs sorted by key.
func (e *Engine) Configs() []ConfigState {
	if !e.made() {
		return nil
	}
	out := make([]ConfigState, 0, len(e.configs))
	for _, c := range e.configs {
		out = append(out, ConfigState{Key: c.key, Checksum: c.checksum, Users: slices.Sorted(maps.Keys(c.users))})
	}
	slices.SortFunc(out, func(a, b ConfigState) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// Workloads returns the catalog's workloads sorted by key.
func (e *Engine) Workloads() []WorkloadState {
	if !e.made() {
		return nil
	}
	out := make([]WorkloadState, 0, len(e.workloads))
	for _, w := range e.workloads {
		out = append(out, WorkloadState{Key: w.key, Configs: slices.Clone(w.refs), Applied: maps.Clone(w.applied)})
	}
	slices.SortFunc(out, func(a, b WorkloadState) int { return strings.Compare(a.Key, b.Key) })
	return out
}
