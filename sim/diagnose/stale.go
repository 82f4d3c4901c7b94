package diagnose

import (
	"fmt"

	"github.com/deploymath/deploymath/revision"
	appsv1 "k8s.io/api/apps/v1"
)

// staleBlocker finds a rollout that upstream's sync keeps from starting:
// an active ReplicaSet's desired-replicas annotation differs from
// spec.replicas, so every sync is a scaling event, which resizes the only
// active ReplicaSet; that one already has spec.replicas, so the sync
// writes nothing and ends, before the rollout (and its progress
// deadline). It happens when the annotation was edited, or restored from
// a backup, with the ReplicaSet at the right size. rss are the
// ReplicaSets the controller claims; newRS is the new one (nil when it
// does not exist yet).
func staleBlocker(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (Blocker, bool) {
	if d.Spec.Paused || d.Annotations[appsv1.DeprecatedRollbackTo] != "" {
		return Blocker{}, false
	}
	replicas := *d.Spec.Replicas
	var active, stale *appsv1.ReplicaSet
	n := 0
	for _, rs := range rss {
		if *rs.Spec.Replicas == 0 {
			continue
		}
		n++
		active = rs
		if v, ok := revision.DesiredReplicas(rs); ok && v != replicas && stale == nil {
			stale = rs
		}
	}
	// One active ReplicaSet (several are scaled proportionally, which
	// writes), already at spec.replicas, and not the new one (whose
	// rollout would be done).
	if stale == nil || n != 1 || *active.Spec.Replicas != replicas || active == newRS {
		return Blocker{}, false
	}
	v, _ := revision.DesiredReplicas(stale)
	msg := fmt.Sprintf("replica set %s has the annotation %s: %q, but spec.replicas is %d: every sync takes that for a scaling event and only resizes the one active replica set, "+
		"which already has %d replicas, so it writes nothing and ends before the rollout: the new template is never rolled out and no progress deadline is checked (upstream's sync does the same). "+
		"Remove the stale annotation, and the next sync starts the rollout: kubectl annotate rs %s -n %s %s-",
		stale.Name, revision.DesiredReplicasAnnotation, fmt.Sprint(v), replicas, replicas, stale.Name, d.Namespace, revision.DesiredReplicasAnnotation)
	return Blocker{Reason: StaleDesiredReplicas, Message: msg, Examples: []string{stale.Name}}, true
}
