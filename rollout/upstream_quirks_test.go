package rollout_test

// Upstream behaviour that looks like a bug but is what Kubernetes v1.37
// does, pinned so that nobody "fixes" it by accident.

import (
	"testing"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
)

// pausedAllZero is a paused Deployment of 3 replicas whose template
// changed while every ReplicaSet was at 0: three old ReplicaSets (revisions
// 1–3, foo-3 the newest), no new one, revisionHistoryLimit limit.
func pausedAllZero(limit int32) rollout.Snapshot {
	d := upDeployment(3, 1, 0)
	d.Spec.Paused = true
	d.Spec.RevisionHistoryLimit = &limit
	d.Spec.Template = withImage(d.Spec.Template, "foo/v4")
	d = inSync(d, 3)
	rss := []*appsv1.ReplicaSet{
		setStatus(upRS(d, "foo-1", 1, 0, upOlder, "foo/v1"), 0, 0),
		setStatus(upRS(d, "foo-2", 2, 0, upOld, "foo/v2"), 0, 0),
		setStatus(upRS(d, "foo-3", 3, 0, upNew, "foo/v3"), 0, 0),
	}
	return snapshot(d, rss...)
}

// TestUpstreamQuirkPausedScaleUpThenDelete pins a quirk of sync.go: a
// paused Deployment whose template changed while every ReplicaSet was at
// 0. sync() scales the newest old ReplicaSet (FindActiveOrLatest) up to
// spec.replicas, then cleanupDeployment runs on the old ReplicaSets as
// they were read at the start of the sync, where that ReplicaSet still
// has 0 replicas. With revisionHistoryLimit 0 it is deleted in the same
// sync, right after being scaled up; iterated to the fixpoint the
// Deployment has no ReplicaSet and no pod, and stays so until resumed.
// With a limit that keeps the newest old ReplicaSet, only older ones go.
func TestUpstreamQuirkPausedScaleUpThenDelete(t *testing.T) {
	s := pausedAllZero(0)
	res := mustPlan(t, s)
	diffStrings(t, "limit 0: writes", []string{"scale foo-3 0->3", "delete foo-1", "delete foo-2", "delete foo-3"}, rsActions(res))
	if got := sizesAfter(s, res); len(got) != 0 {
		t.Errorf("limit 0: replica sets after the sync %v, want none", got)
	}

	res = mustPlan(t, pausedAllZero(2))
	diffStrings(t, "limit 2: writes", []string{"scale foo-3 0->3", "delete foo-1"}, rsActions(res))

	// To the fixpoint: plan, apply, let the ReplicaSet controller report,
	// until a sync writes nothing to a ReplicaSet.
	c := &cluster{d: s.Deployment, rss: s.ReplicaSets, now: upNow}
	for i := 0; ; i++ {
		if i == 10 {
			t.Fatalf("no fixpoint after 10 syncs: %s", c.sizes())
		}
		res := mustPlan(t, c.snapshot())
		if len(rsActions(res)) == 0 {
			break
		}
		c.apply(t, res)
		c.settle()
	}
	if len(c.rss) != 0 {
		t.Errorf("fixpoint: replica sets %s, want none", c.sizes())
	}
	if !c.d.Spec.Paused || *c.d.Spec.Replicas != 3 {
		t.Errorf("fixpoint: paused %v replicas %d, want a paused Deployment of 3", c.d.Spec.Paused, *c.d.Spec.Replicas)
	}
}
