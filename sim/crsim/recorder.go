package crsim

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

// eventRecorder is the manager's record.EventRecorder (the core/v1
// events API): each event goes to the simulator's recorder of the
// controller the manager acts for. Annotations are not kept. Before a run
// has started the manager's controllers, events are dropped, as a
// recorder whose broadcaster is not started drops them.
type eventRecorder struct{ m *Manager }

var _ record.EventRecorder = eventRecorder{}

// Event implements record.EventRecorder.
func (r eventRecorder) Event(object runtime.Object, eventtype, reason, message string) {
	sc, err := r.m.context()
	if err != nil {
		return
	}
	sc.Recorder().Event(object, eventtype, reason, message)
}

// Eventf implements record.EventRecorder.
func (r eventRecorder) Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	r.Event(object, eventtype, reason, fmt.Sprintf(messageFmt, args...))
}

// AnnotatedEventf implements record.EventRecorder (the annotations are
// not kept).
func (r eventRecorder) AnnotatedEventf(object runtime.Object, _ map[string]string, eventtype, reason, messageFmt string, args ...any) {
	r.Eventf(object, eventtype, reason, messageFmt, args...)
}

// eventsRecorder is the manager's recorder of the events.k8s.io/v1 API
// (controller-runtime's recorder.EventRecorder): an event about regarding
// with reason and note, recorded as [eventRecorder]'s are; the related
// object, the action and the annotations are not kept.
type eventsRecorder struct{ m *Manager }

var _ recorder.EventRecorder = eventsRecorder{}

// Eventf implements events.EventRecorder.
func (r eventsRecorder) Eventf(regarding, _ runtime.Object, eventtype, reason, _, note string, args ...any) {
	eventRecorder(r).Eventf(regarding, eventtype, reason, note, args...)
}

// AnnotatedEventf implements events.AnnotatedEventRecorder.
func (r eventsRecorder) AnnotatedEventf(regarding, related runtime.Object, _ map[string]string, eventtype, reason, action, note string, args ...any) {
	r.Eventf(regarding, related, eventtype, reason, action, note, args...)
}
