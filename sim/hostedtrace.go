package sim

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/deploymath/deploymath/sim/internal/cluster"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// What the trace shows of the hosted controllers' objects: each object
// of a custom kind with its generation and status, the ReplicaSets it
// controls, and, when controllers are hosted, the ReplicaSets no
// Deployment or custom object controls.

// ObjectRow is an object of a custom kind in a frame, with the
// ReplicaSets it controls.
type ObjectRow struct {
	// Kind is the object's kind, Name its NAME (NAMESPACE/NAME outside the
	// default namespace); an empty Kind is the group of ReplicaSets no
	// Deployment or custom object controls.
	Kind string `json:"kind,omitempty"`
	Name string `json:"name,omitempty"`
	// Generation and ObservedGeneration (status.observedGeneration; nil
	// when the status has none).
	Generation         int64  `json:"generation,omitempty"`
	ObservedGeneration *int64 `json:"observedGeneration,omitempty"`
	// Status is the object's status in one line ([StatusDescriber], or its
	// fields as key=value).
	Status string `json:"status,omitempty"`
	// Deleting says the object's deletion has started (finalizers wait).
	Deleting    bool            `json:"deleting,omitempty"`
	ReplicaSets []ReplicaSetRow `json:"replicaSets,omitempty"`
}

// StatusDescriber is implemented by a custom kind that says in one line
// how its status reads in the trace ("step 2/4, canary 3/10 available");
// without it the trace lists the status fields.
type StatusDescriber interface {
	DescribeStatus() string
}

// maxStatusLine bounds the length of a status in the trace.
const maxStatusLine = 160

// fillObjects adds the rows of the hosted controllers' objects to f.
func (s *Sim) fillObjects(f *Frame) {
	f.Objects = f.Objects[:0]
	if len(s.host.ctrls) == 0 && len(s.custom) == 0 {
		return
	}
	owned := map[string][]ReplicaSetRow{} // by the controller's UID
	var free []ReplicaSetRow
	for _, k := range sortedKeys(s.st.ReplicaSets) {
		st := s.st.ReplicaSets[k]
		ref := metav1.GetControllerOfNoCopy(st.Obj)
		if ref != nil && ref.Kind == "Deployment" && groupOf(ref.APIVersion) == "apps" {
			continue
		}
		row := replicaSetRow(st)
		if ref != nil {
			owned[string(ref.UID)] = append(owned[string(ref.UID)], row)
		} else {
			free = append(free, row)
		}
	}
	for _, ki := range s.kinds.all() {
		if ki.builtin != kindCustom {
			continue
		}
		for _, key := range ki.objects.Keys() {
			o := ki.objects.Get(key).(Object)
			row := ObjectRow{Kind: ki.gvk.Kind, Name: rowName(o), Generation: o.GetGeneration(),
				Deleting: o.GetDeletionTimestamp() != nil, ReplicaSets: owned[string(o.GetUID())]}
			row.Status, row.ObservedGeneration = describeObjectStatus(o)
			f.Objects = append(f.Objects, row)
		}
	}
	if len(free) > 0 {
		f.Objects = append(f.Objects, ObjectRow{ReplicaSets: free})
	}
}

// replicaSetRow is the trace's row of a stored ReplicaSet.
func replicaSetRow(st *cluster.ReplicaSet) ReplicaSetRow {
	rs := st.Obj
	r := ReplicaSetRow{
		Name: rs.Name, Revision: rs.Annotations["deployment.kubernetes.io/revision"],
		Desired: cluster.Replicas(rs), Current: rs.Status.Replicas, Ready: rs.Status.ReadyReplicas,
		Available: rs.Status.AvailableReplicas,
	}
	if t := rs.Status.TerminatingReplicas; t != nil {
		r.Terminating = *t
	} else {
		r.Terminating = st.Terminating
	}
	if c := cluster.ReplicaFailure(rs.Status.Conditions); c != nil && c.Status == corev1.ConditionTrue {
		r.Failure = c.Reason + ": " + c.Message
	}
	return r
}

// rowName is NAME, or NAMESPACE/NAME outside the default namespace.
func rowName(o metav1.Object) string {
	if ns := o.GetNamespace(); ns != "" && ns != metaDefault {
		return ns + "/" + o.GetName()
	}
	return o.GetName()
}

// describeObjectStatus returns o's status in one line and its
// status.observedGeneration (nil without one).
func describeObjectStatus(o Object) (string, *int64) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return "", nil
	}
	status, _ := u["status"].(map[string]any)
	var observed *int64
	if v, ok := status["observedGeneration"].(int64); ok {
		observed = &v
	}
	if d, ok := o.(StatusDescriber); ok {
		return clip(d.DescribeStatus()), observed
	}
	keys := make([]string, 0, len(status))
	for k := range status {
		if k != "observedGeneration" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v := status[k]
		switch v.(type) {
		case map[string]any, []any:
			b, _ := json.Marshal(v)
			parts = append(parts, k+"="+string(b))
		default:
			parts = append(parts, fmt.Sprintf("%s=%v", k, v))
		}
	}
	return clip(strings.Join(parts, " ")), observed
}

// clip cuts a line to maxStatusLine characters.
func clip(s string) string {
	if len(s) <= maxStatusLine {
		return s
	}
	return s[:maxStatusLine-3] + "..."
}

// describeObjects renders the object rows of a frame.
func describeObjects(rows []ObjectRow) string {
	var b strings.Builder
	for _, r := range rows {
		if r.Kind == "" {
			b.WriteString("  replica sets without a controller\n")
		} else {
			if r.ObservedGeneration != nil {
				fmt.Fprintf(&b, "  %s %s gen %d/%d", strings.ToLower(r.Kind), r.Name, *r.ObservedGeneration, r.Generation)
			} else {
				fmt.Fprintf(&b, "  %s %s gen %d", strings.ToLower(r.Kind), r.Name, r.Generation)
			}
			if r.Deleting {
				b.WriteString(" deleting")
			}
			if r.Status != "" {
				fmt.Fprintf(&b, ": %s", r.Status)
			}
			b.WriteByte('\n')
		}
		describeReplicaSetTable(&b, r.ReplicaSets)
	}
	return b.String()
}

// describeReplicaSetTable writes a table of ReplicaSet rows.
func describeReplicaSetTable(b *strings.Builder, rows []ReplicaSetRow) {
	if len(rows) == 0 {
		return
	}
	w := len("REPLICASET")
	for _, r := range rows {
		w = max(w, len(r.Name))
	}
	fmt.Fprintf(b, "    %-*s  REV  DESIRED  CURRENT  READY  AVAILABLE  TERMINATING\n", w, "REPLICASET")
	for _, r := range rows {
		fmt.Fprintf(b, "    %-*s  %3s  %7d  %7d  %5d  %9d  %11d", w, r.Name, r.Revision, r.Desired, r.Current, r.Ready, r.Available, r.Terminating)
		if r.Failure != "" {
			fmt.Fprintf(b, "  %s", r.Failure)
		}
		b.WriteByte('\n')
	}
}

// eventObject is how the trace names the object of an event: the
// Deployment controller's by name, others as kind/name.
func eventObject(e *TraceEvent) string {
	if e.Kind == "" {
		return "deployment/" + e.Object
	}
	return e.Kind + "/" + e.Object
}
