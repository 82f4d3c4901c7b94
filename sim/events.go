package sim

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// ClusterEvent is an Event as the API server holds it at the end of a run,
// after client-go's event recorder aggregated and deduplicated what the
// controllers recorded: what `kubectl get events` lists ([Result].Events).
type ClusterEvent struct {
	// Name is the Event's name, "<object>.<hex of nanoseconds>".
	Name string `json:"name"`
	// Object is the involved object as kubectl prints it,
	// "deployment/NAME" (NAMESPACE/… outside the default namespace).
	Object string `json:"object"`
	Type   string `json:"type"`
	Reason string `json:"reason"`
	// Message starts with "(combined from similar events): " for an
	// Event that stands for several similar ones.
	Message string `json:"message"`
	// Count is how many recorded events the Event counts.
	Count int32 `json:"count"`
	// FirstSeen and LastSeen are offsets from [Epoch], in whole seconds.
	FirstSeen time.Duration `json:"firstSeen"`
	LastSeen  time.Duration `json:"lastSeen"`
}

// EventWrite is what client-go's recorder did with one recorded event
// ([TraceEvent].Write): the API call, and the Event it wrote.
type EventWrite struct {
	// Op is "create", "patch" (count and lastTimestamp of an existing
	// Event), "skip" (dropped by the spam filter) or "rejected" (a create
	// whose name exists).
	Op string `json:"op"`
	// Name and Count are the Event's after the write.
	Name  string `json:"name"`
	Count int32  `json:"count"`
	// Combined is true when the event was folded into a "(combined from
	// similar events)" Event.
	Combined bool `json:"combined,omitempty"`
	// Uncertain is true when the real recorder's choice here is random
	// (see sim/internal/correlator).
	Uncertain bool `json:"uncertain,omitempty"`
}

// recordEvent runs one event of the Deployment controller about d through
// the recorder model.
func (s *Sim) recordEvent(d *appsv1.Deployment, e rollout.Event) *EventWrite {
	ref := corev1.ObjectReference{Kind: "Deployment", APIVersion: "apps/v1", Namespace: d.Namespace, Name: d.Name, UID: d.UID}
	return s.recordRef(ref, "deployment-controller", e.Type, e.Reason, e.Message)
}

// clusterEvents lists the Events the API server holds.
func (s *Sim) clusterEvents() []ClusterEvent {
	if s.events == nil {
		return nil
	}
	evs := s.events.Events()
	out := make([]ClusterEvent, 0, len(evs))
	for _, e := range evs {
		obj := strings.ToLower(e.InvolvedObject.Kind) + "/" + e.InvolvedObject.Name
		if ns := e.InvolvedObject.Namespace; ns != "" && ns != metaDefault {
			obj = ns + "/" + obj
		}
		out = append(out, ClusterEvent{Name: e.Name, Object: obj, Type: e.Type, Reason: e.Reason,
			Message: e.Message, Count: e.Count, FirstSeen: e.FirstTimestamp.Sub(Epoch), LastSeen: e.LastTimestamp.Sub(Epoch)})
	}
	return out
}

const metaDefault = "default"

// DescribeEvents renders events as `kubectl get events -o wide` lists them
// at the instant end (an offset from [Epoch]): LAST SEEN, TYPE, REASON,
// OBJECT, MESSAGE, FIRST SEEN and COUNT, ages in kubectl's words.
func DescribeEvents(events []ClusterEvent, end time.Duration) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 8, 3, ' ', 0)
	fmt.Fprintln(tw, "LAST SEEN\tTYPE\tREASON\tOBJECT\tMESSAGE\tFIRST SEEN\tCOUNT")
	for _, e := range events {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\n", duration.HumanDuration(end-e.LastSeen), e.Type, e.Reason,
			e.Object, strings.TrimSpace(e.Message), duration.HumanDuration(end-e.FirstSeen), e.Count)
	}
	tw.Flush()
	return b.String()
}
