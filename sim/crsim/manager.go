package crsim

import (
	"errors"
	"fmt"
	"time"

	"github.com/deploymath/deploymath/sim"
	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

// Options configure a [Manager].
type Options struct {
	// Scheme holds the Go types of the controllers' kinds (nil: a new
	// scheme). apps/v1 and core/v1 are added to it, as the simulator
	// models them; add your own kinds with their AddToScheme.
	Scheme *runtime.Scheme
	// Logger is the manager's logger, the root of the loggers the
	// reconcilers find in their context (log.FromContext); the zero
	// value discards.
	Logger logr.Logger
}

// Manager stands for a controller-runtime manager (ctrl.Manager) in the
// simulator: it hands out the client, the scheme, the event recorders
// and the logger a reconciler is built with, and collects the
// controllers that [NewControllerManagedBy] builds. Pass
// [Manager.Controllers] to [sim.Options].Controllers and the scheme to
// [sim.Options].Scheme (or use [Manager.SimOptions]).
//
// A manager serves one run at a time: its client acts in the run that
// last started its controllers (a [sim.Sim] made with them). Make a new
// manager, and new reconcilers, for each run of a property test.
type Manager struct {
	scheme *runtime.Scheme
	mapper meta.RESTMapper
	log    logr.Logger
	ctrls  []*Controller
	names  map[string]bool
	// cur is the context of the controller that is reconciling or
	// mapping a change, or the last one that did; nil before the run.
	cur *sim.Context
}

// NewManager returns a manager (controller-runtime's ctrl.NewManager,
// without a cluster: the simulator is the cluster).
func NewManager(o Options) (*Manager, error) {
	s := o.Scheme
	if s == nil {
		s = runtime.NewScheme()
	}
	if err := appsv1.AddToScheme(s); err != nil {
		return nil, fmt.Errorf("scheme: %w", err)
	}
	if err := corev1.AddToScheme(s); err != nil {
		return nil, fmt.Errorf("scheme: %w", err)
	}
	log := o.Logger
	if log.GetSink() == nil {
		log = logr.Discard()
	}
	return &Manager{scheme: s, mapper: newRESTMapper(s), log: log, names: map[string]bool{}}, nil
}

// GetClient returns a client backed by the simulated API server
// (manager.GetClient): reads from the controller's informer view, writes
// with the API server's semantics. See [Client].
func (m *Manager) GetClient() client.Client { return &simClient{m: m} }

// GetAPIReader returns a reader that bypasses the informer view
// (manager.GetAPIReader).
func (m *Manager) GetAPIReader() client.Reader { return &simClient{m: m, direct: true} }

// GetScheme returns the manager's scheme.
func (m *Manager) GetScheme() *runtime.Scheme { return m.scheme }

// GetRESTMapper returns a REST mapper of the scheme's kinds: every kind
// namespaced but Node, Namespace and the other cluster-scoped kinds of
// core/v1, resources named as a CRD's default (lower-case plural).
func (m *Manager) GetRESTMapper() meta.RESTMapper { return m.mapper }

// GetLogger returns the manager's logger.
func (m *Manager) GetLogger() logr.Logger { return m.log }

// GetEventRecorderFor returns an event recorder of the core/v1 events API
// (manager.GetEventRecorderFor). Its events go through the simulator's
// model of client-go's recorder and appear in the trace and in
// [sim.Result].Events; their source component is the name of the
// controller that records them (the simulator has one recorder per
// controller), not name.
func (m *Manager) GetEventRecorderFor(name string) record.EventRecorder {
	return eventRecorder{m: m}
}

// GetEventRecorder returns an event recorder of the events.k8s.io/v1 API
// (manager.GetEventRecorder), recorded as [Manager.GetEventRecorderFor]'s
// are: reason and note as an event's reason and message; the related
// object and the action are not kept.
func (m *Manager) GetEventRecorder(name string) recorder.EventRecorder {
	return eventsRecorder{m: m}
}

// GetClock returns the run's virtual clock (a clock.PassiveClock: Now
// and Since). A reconciler that measures time (a progress deadline, a
// wait) takes a clock.PassiveClock, clock.RealClock{} with a real
// manager and this one in the simulator, and never calls time.Now.
// Before a run has started the manager's controllers it reads
// [sim.Epoch].
func (m *Manager) GetClock() clock.PassiveClock { return virtualClock{m} }

// virtualClock is the manager's clock.
type virtualClock struct{ m *Manager }

func (c virtualClock) Now() time.Time {
	if c.m.cur == nil {
		return sim.Epoch
	}
	return c.m.cur.Now()
}

func (c virtualClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// Controllers returns the controllers built with the manager, in the
// order they were completed, for [sim.Options].Controllers.
func (m *Manager) Controllers() []sim.Controller {
	out := make([]sim.Controller, len(m.ctrls))
	for i, c := range m.ctrls {
		out[i] = c
	}
	return out
}

// SimOptions returns o with the manager's controllers added to
// o.Controllers and its scheme as o.Scheme.
func (m *Manager) SimOptions(o sim.Options) sim.Options {
	o.Controllers = append(append([]sim.Controller(nil), o.Controllers...), m.Controllers()...)
	o.Scheme = m.scheme
	return o
}

// errNotRunning is the error of a client call made before a run started
// the manager's controllers.
var errNotRunning = errors.New("crsim: the simulated cluster is not running: the client works once a sim.Sim made with the manager's controllers runs (from Reconcile, a map function, or after Run)")

// context returns the context the client acts in.
func (m *Manager) context() (*sim.Context, error) {
	if m.cur == nil {
		return nil, errNotRunning
	}
	return m.cur, nil
}

// enter makes ctx the context the client acts in, and returns the
// function that restores the previous one.
func (m *Manager) enter(ctx *sim.Context) func() {
	prev := m.cur
	m.cur = ctx
	return func() {
		if prev != nil {
			m.cur = prev
		}
	}
}
