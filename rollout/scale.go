package rollout

import (
	"fmt"
	"strconv"

	"github.com/deploymath/deploymath/revision"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// scaleReplicaSet sets rs to size newScale and refreshes its
// desired-/max-replicas annotations; it writes only if one of them changes
// and records the ScalingReplicaSet event only if the size changed.
// The event says "up" or "down" by comparing the two sizes, as v1.37 does.
func (p *planner) scaleReplicaSet(rs *appsv1.ReplicaSet, newScale int32, why string) (bool, *appsv1.ReplicaSet, error) {
	d := p.d
	desired := *d.Spec.Replicas
	maxReplicas := desired + p.annotationSurge()
	annotationsChange := revision.ReplicasAnnotationsNeedUpdate(rs.Annotations, desired, maxReplicas)
	sizeChange := *rs.Spec.Replicas != newScale
	if !sizeChange && !annotationsChange {
		return false, rs, nil
	}
	from := *rs.Spec.Replicas
	if newScale < 0 {
		// A wrapped size the API server refuses (updateRS stops there):
		// the note keeps the numbers that gave it.
		p.note("replica set %s: the size %d is upstream's int32 arithmetic wrapped around: %s", rs.Name, newScale, why)
	}
	if !sizeChange {
		why = fmt.Sprintf("record desired-replicas %d and max-replicas %d", desired, maxReplicas)
	}
	updated, err := p.w.updateRS(rs, func(c *appsv1.ReplicaSet) {
		c.Spec.Replicas = &newScale
		if annotationsChange { // else the map stays shared: its content is what it would be
			c.Annotations, _ = revision.ReplicasAnnotations(c.Annotations, desired, maxReplicas)
		}
	}, func(c *appsv1.ReplicaSet) Action {
		return ScaleReplicaSet{ReplicaSet: c, From: from, To: newScale, Why: why}
	})
	if err != nil {
		return false, rs, err
	}
	if sizeChange {
		operation := "down"
		if from < newScale {
			operation = "up"
		}
		// Built in a stack buffer: one allocation, the string.
		var buf [128]byte
		msg := append(buf[:0], "Scaled "...)
		msg = append(msg, operation...)
		msg = append(msg, " replica set "...)
		msg = append(msg, updated.Name...)
		msg = append(msg, " from "...)
		msg = strconv.AppendInt(msg, int64(from), 10)
		msg = append(msg, " to "...)
		msg = strconv.AppendInt(msg, int64(newScale), 10)
		p.w.addEvent(Event{Type: corev1.EventTypeNormal, Reason: "ScalingReplicaSet", Message: string(msg), After: len(p.w.res.Actions)})
	}
	return sizeChange, updated, nil
}

// scaleAndRecord scales rs to newScale if its size differs.
func (p *planner) scaleAndRecord(rs *appsv1.ReplicaSet, newScale int32, why string) (bool, *appsv1.ReplicaSet, error) {
	if *rs.Spec.Replicas == newScale {
		return false, rs, nil
	}
	return p.scaleReplicaSet(rs, newScale, why)
}
