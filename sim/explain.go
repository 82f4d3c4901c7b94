package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/revision"
	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Sync is one sync of the Deployment controller as [Options].Explain
// records it: the writes it made, each with its reason in numbers, and the
// plan's notes on the decisions that wrote nothing ([rollout.Result].Notes).
type Sync struct {
	// Deployment is the Deployment's name.
	Deployment string `json:"deployment"`
	// Actions are the writes the API server accepted, in order, as
	// [rollout.Action].Explain renders them. A write it refused ends the
	// sync; the frame's notes say which.
	Actions []string `json:"actions,omitempty"`
	// Notes are the plan's notes on the decisions that wrote nothing
	// ([rollout.Result].Notes), for example why the old ReplicaSets stay.
	Notes []string `json:"notes,omitempty"`
	// Waiting is, for a sync that wrote nothing and has no notes, what the
	// rollout waits for, with the status counts: pods to become available,
	// old pods to stop, or a resume of the paused Deployment.
	Waiting string `json:"waiting,omitempty"`
	// Stopped says the sync ended early and was requeued: it is the
	// frame's next stop of the Deployment.
	Stopped bool `json:"stopped,omitempty"`
	// Failed says the API server refused the write after Actions: the
	// frame's notes name it.
	Failed bool `json:"failed,omitempty"`
	// AfterNotes is the number of the frame's Notes recorded before the
	// sync: the text trace shows it after them, in the order of the run.
	AfterNotes int `json:"afterNotes"`

	// seq orders the frame's stops, syncs and restarts (see Frame.seq).
	seq int
}

// explainSync records, with [Options].Explain, a sync of d, which read
// rss, whose first applied actions of res the API server accepted. A sync
// that wrote nothing is recorded only while d's rollout is incomplete,
// with the plan's notes on why nothing moved or, when it has none, what
// the rollout waits for; and only once in an instant with the same notes.
// A sync that ended before its first write is the frame's stop or note.
func (s *Sim) explainSync(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, res *rollout.Result, applied int) {
	if !s.opts.Explain || s.opts.NoTrace {
		return
	}
	if applied == 0 && (s.deploymentComplete(d) || res.Stop != "" || len(res.Actions) > 0) {
		return // nothing to explain, or the stop or the failed write says it
	}
	f := s.frame()
	x := Sync{Deployment: d.Name, Notes: res.Notes, Stopped: res.Stop != "", Failed: applied < len(res.Actions), AfterNotes: len(f.Notes)}
	if applied == 0 && len(x.Notes) == 0 {
		x.Waiting = waitingFor(d, rss, &res.Status)
	}
	if applied == 0 && !x.Stopped && !x.Failed {
		// The same answer twice in one instant says nothing new.
		for i := len(f.Syncs) - 1; i >= 0; i-- {
			if p := &f.Syncs[i]; p.Deployment == d.Name {
				if len(p.Actions) == 0 && slices.Equal(p.Notes, x.Notes) && p.Waiting == x.Waiting {
					return
				}
				break
			}
		}
	}
	x.seq = f.nextSeq()
	for _, a := range res.Actions[:applied] {
		x.Actions = append(x.Actions, a.Explain())
	}
	f.Syncs = append(f.Syncs, x)
}

// waitingFor says, in numbers, what a sync that wrote nothing and noted
// nothing waits for: a paused Deployment, a stale desired-replicas
// annotation, or its pods. rss are the ReplicaSets the sync read.
func waitingFor(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, st *appsv1.DeploymentStatus) string {
	counts := fmt.Sprintf("replicas %d, updated %d of %d, available %d", st.Replicas, st.UpdatedReplicas, replicas(d), st.AvailableReplicas)
	if rs, v := staleDesired(d, rss); rs != nil {
		return fmt.Sprintf("a scaling event that changes nothing, at every sync: replica set %s has %s %q but spec.replicas is %d, and already has %d replicas, "+
			"so the sync ends before the rollout, which never starts (remove the annotation: kubectl annotate rs %s -n %s %s-) (%s)",
			rs.Name, revision.DesiredReplicasAnnotation, strconv.Itoa(int(v)), replicas(d), replicas(d), rs.Name, namespaceOf(d.Namespace), revision.DesiredReplicasAnnotation, counts)
	}
	switch {
	case d.Spec.Paused:
		return "the deployment is paused (" + counts + ")"
	case st.Replicas > replicas(d):
		return "waiting for old pods to stop (" + counts + ")"
	}
	return "waiting for pods to become available (" + counts + ")"
}

// staleDesired finds what keeps a rollout from starting in upstream's
// sync (as sim/diagnose's StaleDesiredReplicas does for a dump): the one
// active ReplicaSet of d, already at spec.replicas and not of d's
// template, whose desired-replicas annotation v says otherwise, so that
// every sync is a scaling event that writes nothing. nil when there is
// none.
func staleDesired(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (*appsv1.ReplicaSet, int32) {
	if d.Spec.Paused || d.Annotations[appsv1.DeprecatedRollbackTo] != "" {
		return nil, 0
	}
	var active *appsv1.ReplicaSet
	n := 0
	for _, rs := range rss {
		if ref := metav1.GetControllerOfNoCopy(rs); ref == nil || ref.UID != d.UID || *rs.Spec.Replicas == 0 {
			continue
		}
		active = rs
		n++
	}
	if n != 1 || *active.Spec.Replicas != replicas(d) || hashing.EqualIgnoreHash(&active.Spec.Template, &d.Spec.Template) {
		return nil, 0
	}
	if v, ok := revision.DesiredReplicas(active); ok && v != replicas(d) {
		return active, v
	}
	return nil, 0
}

// wroteSomething reports whether one of syncs wrote something.
func wroteSomething(syncs []Sync) bool {
	for i := range syncs {
		if len(syncs[i].Actions) > 0 {
			return true
		}
	}
	return false
}

// DescribeSync renders a sync as lines of the text trace (without
// indentation): one line per write, "sync web: scale up ...". A sync that
// wrote nothing is one line saying why: "sync web wrote nothing: old
// replica sets stay: ...". The notes of a sync that wrote something are
// in the JSON only: the next sync's line, which wrote nothing, says the
// same of the state the writes left.
func DescribeSync(x *Sync) []string {
	head := "sync " + x.Deployment
	if len(x.Actions) == 0 {
		why := x.Waiting
		if len(x.Notes) > 0 {
			why = strings.Join(x.Notes, "; ")
		}
		return []string{head + " wrote nothing: " + why}
	}
	lines := make([]string, len(x.Actions))
	for i, a := range x.Actions {
		lines[i] = head + ": " + a
	}
	return lines
}
