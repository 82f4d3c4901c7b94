package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/deploymath/deploymath/sim/internal/correlator"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
)

// Context is what a hosted controller's reconcile works with: the virtual
// clock, a client, an event recorder and the trace. It is valid for the
// whole run, but its methods act at the run's current instant and are
// meant to be called from Reconcile.
type Context struct {
	s *Sim
	h *hosted
}

// Now is the virtual wall-clock instant ([Epoch] plus the run's time).
// Controllers must take time from here, never from time.Now.
func (c *Context) Now() time.Time { return c.s.wall() }

// Controller is the name of the controller.
func (c *Context) Controller() string { return c.h.name }

// Client reads from the controller's informer view (with
// cluster.informerDelay, what its informers have received so far) and
// writes to the API server, as a controller-runtime manager's client does.
func (c *Context) Client() Client { return &simClient{s: c.s, h: c.h} }

// APIReader reads the API server directly, bypassing the informer view
// (controller-runtime's manager.GetAPIReader).
func (c *Context) APIReader() Reader { return &simClient{s: c.s, h: c.h, direct: true} }

// Recorder records Kubernetes Events as client-go's event recorder does
// (aggregation, deduplication and spam filter modelled), with the
// controller's name as the source component. The events appear in the
// trace and in [Result].Events.
func (c *Context) Recorder() EventRecorder { return recorder{c} }

// TickAt asks for the controller's Tick (it must be a [Ticker]) at t, or
// at the current instant when t is before it. A controller has at most
// one pending tick: one asked for at or before t stands, one after t is
// replaced.
func (c *Context) TickAt(t time.Time) {
	s, h := c.s, c.h
	d := max(t.Sub(Epoch), s.now)
	if h.tickAt >= 0 && h.tickAt <= d {
		return
	}
	h.tickAt = d
	s.q.push(d, event{kind: evHostTick, n: uint32(h.num - firstHosted)})
}

// Note adds a line to the trace at the current instant, prefixed with the
// controller's name ("canary: step 2 of 4 reached").
func (c *Context) Note(format string, args ...any) {
	c.s.note("%s: %s", c.h.name, fmt.Sprintf(format, args...))
}

// EventRecorder records Events about objects (client-go's
// record.EventRecorder).
type EventRecorder interface {
	// Event records an event of type (corev1.EventTypeNormal or
	// corev1.EventTypeWarning) about object.
	Event(object runtime.Object, eventtype, reason, message string)
	// Eventf is Event with a formatted message.
	Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...any)
}

type recorder struct{ c *Context }

func (r recorder) Event(object runtime.Object, eventtype, reason, message string) {
	r.c.s.recordObjectEvent(r.c.h.name, object, eventtype, reason, message)
}

func (r recorder) Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	r.Event(object, eventtype, reason, fmt.Sprintf(messageFmt, args...))
}

// recordObjectEvent records an event of a hosted controller named source
// about object through client-go's recorder model, and in the trace.
func (s *Sim) recordObjectEvent(source string, object runtime.Object, eventtype, reason, message string) {
	acc, err := meta.Accessor(object)
	if err != nil {
		s.note("%s: event %s about %T: %v", source, reason, object, err)
		return
	}
	gvk, err := gvkOf(s.kinds.scheme, object)
	if err != nil {
		s.note("%s: event %s: %v", source, reason, err)
		return
	}
	ref := corev1.ObjectReference{Kind: gvk.Kind, APIVersion: gvk.GroupVersion().String(),
		Namespace: acc.GetNamespace(), Name: acc.GetName(), UID: acc.GetUID()}
	w := s.recordRef(ref, source, eventtype, reason, message)
	if s.opts.NoTrace {
		return
	}
	f := s.frame()
	f.Events = append(f.Events, TraceEvent{Kind: strings.ToLower(gvk.Kind), Object: rowName(acc), Type: eventtype,
		Reason: reason, Message: message, Write: w})
}

// recordRef runs one event about ref from source through the recorder
// model. Events at one instant get increasing nanoseconds, as in a real
// cluster, so that their generated names differ.
func (s *Sim) recordRef(ref corev1.ObjectReference, source, eventtype, reason, message string) *EventWrite {
	if s.events == nil {
		c, err := correlator.New(correlator.Options{})
		if err != nil {
			s.note("event recorder: %v", err)
			return nil
		}
		s.events = c
	}
	if s.now != s.eventAt {
		s.eventAt, s.eventSeq = s.now, 0
	}
	s.eventSeq++
	a, err := s.events.Record(correlator.Input{
		Time:   s.wall().Add(time.Duration(s.eventSeq)),
		Object: ref,
		Source: corev1.EventSource{Component: source},
		Type:   eventtype, Reason: reason, Message: message,
	})
	if err != nil {
		s.note("event recorder: %v", err)
		return nil
	}
	return &EventWrite{Op: a.Op.String(), Name: a.Event.Name, Count: a.Event.Count, Combined: a.Combined, Uncertain: a.Uncertain}
}
