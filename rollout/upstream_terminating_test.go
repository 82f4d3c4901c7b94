package rollout_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
)

// TestUpstreamTerminatingReplicasUnsyncedRS: upstream's
// GetTerminatingReplicaCountForReplicaSets (TestGetReplicaCountForReplicaSets,
// "scaling up rs3") skips a ReplicaSet its controller has never synced
// (status.observedGeneration 0) that has not reported terminatingReplicas;
// only a synced ReplicaSet without the field makes the sum unknown (nil).
// (Found by this suite; fixed in status.go.)
func TestUpstreamTerminatingReplicasUnsyncedRS(t *testing.T) {
	d := upDeployment(3, 1, 0)
	old := upRS(d, "foo-old", 1, 2, upOld, "foo/bar:old")
	old.Status.TerminatingReplicas = i32(1)
	newRS := upRS(d, "foo-new", 2, 2, upNew, "")
	// Just created: the ReplicaSet controller has not synced it yet.
	newRS.Status = appsv1.ReplicaSetStatus{}
	inSync(d, 2)
	res := mustPlan(t, snapshot(d, old, newRS))
	if res.Status.TerminatingReplicas == nil || *res.Status.TerminatingReplicas != 1 {
		t.Errorf("status.terminatingReplicas = %v, want 1 (the unsynced ReplicaSet contributes nothing)", res.Status.TerminatingReplicas)
	}

	// A synced ReplicaSet without the field: unknown.
	newRS.Status.ObservedGeneration = 1
	res = mustPlan(t, snapshot(d, old, newRS))
	if res.Status.TerminatingReplicas != nil {
		t.Errorf("status.terminatingReplicas = %d, want nil", *res.Status.TerminatingReplicas)
	}
}
