package rollout

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// rolloutRecreate is one sync of the Recreate strategy: old ReplicaSets to
// zero, wait for their pods to stop, then the new one at full size.
func (p *planner) rolloutRecreate() error {
	newRS, oldRSs, err := p.getAllReplicaSetsAndSyncRevision(false)
	if err != nil {
		return err
	}
	allRSs := p.w.appendRS(oldRSs, newRS)
	activeOld := p.w.filterActive(oldRSs)

	scaledDown := false
	for i, rs := range activeOld {
		scaled, updated, err := p.scaleAndRecord(rs, 0, "Recreate: old replica sets go to 0 before the new one starts")
		if err != nil {
			return err
		}
		if scaled {
			activeOld[i] = updated
			scaledDown = true
		}
	}
	if scaledDown {
		return p.syncRolloutStatus(allRSs, newRS)
	}
	if running, who := p.oldPodsRunning(newRS, oldRSs); running {
		p.note("Recreate: waiting for old pods to stop (%s)", who)
		return p.syncRolloutStatus(allRSs, newRS)
	}
	if newRS == nil {
		newRS, oldRSs, err = p.getAllReplicaSetsAndSyncRevision(true)
		if err != nil {
			return err
		}
		allRSs = p.w.appendRS(oldRSs, newRS)
	}
	if _, _, err := p.scaleAndRecord(newRS, *p.d.Spec.Replicas, "Recreate: no old pod is running any more"); err != nil {
		return err
	}
	if deploymentComplete(p.d, &p.d.Status) {
		if err := p.cleanupDeployment(oldRSs); err != nil {
			return err
		}
	}
	return p.syncRolloutStatus(allRSs, newRS)
}

// oldPodsRunning reports whether an old ReplicaSet still has replicas in its
// status or a pod that is not terminal. Like v1.37 it finds an old
// ReplicaSet's pods by their controller reference (kind ReplicaSet, the
// ReplicaSet's name and UID), whatever their labels.
func (p *planner) oldPodsRunning(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) (bool, string) {
	if n := sumStatus(oldRSs, statusReplicas); n > 0 {
		return true, fmt.Sprintf("old replica sets report %d replicas", n)
	}
	// The old ReplicaSets' identities. There are few, so a slice beats a map.
	var owners []ownerID
	for _, rs := range p.rsList {
		if newRS == nil || rs.UID != newRS.UID {
			owners = append(owners, ownerID{rs.UID, rs.Name})
		}
	}
	for _, pod := range p.w.snap.Pods {
		if pod == nil || pod.Namespace != p.d.Namespace {
			continue
		}
		ref := metav1.GetControllerOfNoCopy(pod)
		if ref == nil || !slices.Contains(owners, ownerID{ref.UID, ref.Name}) || ref.Kind != "ReplicaSet" {
			continue
		}
		switch pod.Status.Phase {
		case corev1.PodSucceeded, corev1.PodFailed:
			continue
		}
		return true, fmt.Sprintf("pod %s is %s", pod.Name, phaseOrPending(string(pod.Status.Phase)))
	}
	return false, ""
}

// ownerID is what upstream's pod index keys a controller reference by
// (besides the kind and the namespace).
type ownerID struct {
	uid  types.UID
	name string
}

func phaseOrPending(phase string) string {
	if phase == "" {
		return "not terminal"
	}
	return phase
}
