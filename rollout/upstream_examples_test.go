package rollout_test

// Worked examples from upstream's comments, played sync by sync:
//   - reconcileOldReplicaSets' "concrete example" (rolling.go): 10
//     replicas, maxUnavailable 2, maxSurge 3; case 1 crash-looping new pods
//     then undo, case 2 the roll-over;
//   - the Deployment design's update in the middle of a rollout
//     (v1 → v2 → v3): the controller stops growing v2 and moves to v3.
//
// Each step plans, applies the plan to the in-test cluster model, then sets
// how many pods of each ReplicaSet are available, as the example says.

import (
	"testing"
	"time"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// exampleCluster: 10 replicas of foo/bar:v1 (ReplicaSet foo-v1, revision 1),
// all available, maxSurge 3, maxUnavailable 2.
func exampleCluster(surge, unavail int) *cluster {
	d := upDeployment(10, surge, unavail)
	d.Spec.Template = withImage(d.Spec.Template, "foo/bar:v1")
	v1 := upRS(d, "foo-v1", 1, 10, upOld, "")
	inSync(d, 1)
	d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas = 10, 10, 10, 10
	return &cluster{d: d, rss: []*appsv1.ReplicaSet{v1}, now: upNow}
}

// setImage changes the Deployment's template (a new generation) and
// returns the name its new ReplicaSet will get.
func (c *cluster) setImage(image string) string {
	d := c.d.DeepCopy()
	d.Spec.Template = withImage(d.Spec.Template, image)
	d.Generation++
	c.d = d
	return "foo-" + hashing.PodTemplateHash(&d.Spec.Template, nil)
}

// sync plans, checks the ReplicaSet writes, applies the plan and advances
// the clock by 10 seconds.
func (c *cluster) sync(t *testing.T, step string, want []string) *rollout.Result {
	t.Helper()
	res := mustPlan(t, c.snapshot())
	got := rsActions(res)
	if got == nil {
		got = []string{}
	}
	if want != nil {
		diffStrings(t, step+": replica set writes", want, got)
	}
	c.apply(t, res)
	c.now = c.now.Add(10 * time.Second)
	return res
}

func (c *cluster) total() (spec int32) {
	for _, rs := range c.rss {
		spec += *rs.Spec.Replicas
	}
	return spec
}

// TestUpstreamExampleCrashLoopThenUndo is case 1 of the concrete example.
func TestUpstreamExampleCrashLoopThenUndo(t *testing.T) {
	c := exampleCluster(3, 2)
	v2 := c.setImage("foo/bar:v2")

	// The new ReplicaSet is created with 3 replicas (10 + maxSurge 3 − 10),
	// and the old one goes to 8: 13 pods − minAvailable 8 − 3 unavailable
	// new pods = 2 may go.
	c.sync(t, "update to v2", []string{"create " + v2 + " (3)", "scale foo-v1 10->8"})
	c.run("foo-v1", 8)
	c.run(v2, 0) // crash loop
	// Room for 2 more new pods: 5.
	c.sync(t, "grow v2", []string{"scale " + v2 + " 3->5"})
	c.run(v2, 0)
	// 13 pods − 8 − 5 unavailable new pods = 0: nothing moves.
	c.sync(t, "stuck", []string{})
	// A node fails: one old pod unavailable. Still 0.
	c.run("foo-v1", 7)
	c.sync(t, "node failure", []string{})
	if got := c.total(); got != 13 {
		t.Fatalf("pods %d, want 13", got)
	}

	// kubectl rollout undo: the template goes back to v1's.
	d := c.d.DeepCopy()
	d.Spec.Template = withImage(d.Spec.Template, "foo/bar:v1")
	d.Generation++
	c.d = d
	// foo-v1 is the new ReplicaSet again: it takes revision 3. The rollout's
	// second look at the cached foo-v1 would write a stale object: the sync
	// stops there.
	res := c.sync(t, "undo: revision", []string{"update-rs foo-v1"})
	if res.Stop == "" {
		t.Errorf("undo: Stop empty")
	}
	if rev := c.find("foo-v1").Annotations[annRevision]; rev != "3" {
		t.Errorf("foo-v1 revision %q, want 3", rev)
	}
	// Now only 1 new pod is unavailable: 13 − 8 − 1 = 4 crash-looping pods go.
	c.sync(t, "undo: scale down v2", []string{"scale " + v2 + " 5->1"})
	c.run(v2, 0)
	if got := c.total(); got != 9 {
		t.Errorf("pods %d, want 9", got)
	}
	// And foo-v1 grows back to 10.
	c.sync(t, "undo: grow v1", []string{"scale foo-v1 8->10"})
	c.run("foo-v1", 10)
	// The last crash-looping pod goes.
	c.sync(t, "undo: finish", []string{"scale " + v2 + " 1->0"})
	converge(t, c, 10)
	if got := *c.find("foo-v1").Spec.Replicas; got != 10 {
		t.Errorf("foo-v1 %d replicas, want 10", got)
	}
}

// TestUpstreamExampleRollOver is case 2 of the concrete example: a new
// template instead of the undo.
func TestUpstreamExampleRollOver(t *testing.T) {
	c := exampleCluster(3, 2)
	v2 := c.setImage("foo/bar:v2")
	c.sync(t, "update to v2", []string{"create " + v2 + " (3)", "scale foo-v1 10->8"})
	c.run("foo-v1", 8)
	c.run(v2, 0)
	c.sync(t, "grow v2", []string{"scale " + v2 + " 3->5"})
	c.run(v2, 0)
	c.sync(t, "stuck", []string{})

	v3 := c.setImage("foo/bar:v3")
	// The new ReplicaSet starts with 0 replicas (13 pods already); with no
	// unavailable new pod, the old ReplicaSets may lose 13 − 8 − 0 = 5: the
	// 5 crash-looping v2 pods (unhealthy ones first).
	c.sync(t, "update to v3", []string{"create " + v3 + " (0)", "scale " + v2 + " 5->0"})
	c.run(v2, 0)
	// Which lets v3 grow by 5.
	c.sync(t, "grow v3", []string{"scale " + v3 + " 0->5"})
	converge(t, c, 10)
	if got := *c.find(v3).Spec.Replicas; got != 10 {
		t.Errorf("%s %d replicas, want 10", v3, got)
	}
}

// TestUpstreamExampleMidRolloutUpdate is the design's v1 → v2 → v3 case:
// 10 replicas with the default 25% fenceposts (maxSurge 3, maxUnavailable
// 2); v3 arrives while v2 has 5 pods. The controller does not finish v2:
// v3 is created, the old ReplicaSets shrink oldest first, v2 never grows
// again, and the rollout converges on v3.
func TestUpstreamExampleMidRolloutUpdate(t *testing.T) {
	c := exampleCluster(0, 0)
	c.d.Spec.Strategy = rollout.Default(&appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: i32(10)}}).Spec.Strategy
	v2 := c.setImage("foo/bar:v2")
	c.sync(t, "update to v2", []string{"create " + v2 + " (3)", "scale foo-v1 10->8"})
	c.run("foo-v1", 8)
	c.run(v2, 0)
	c.sync(t, "grow v2", []string{"scale " + v2 + " 3->5"})
	c.run(v2, 5) // v2's 5 pods come up

	v3 := c.setImage("foo/bar:v3")
	// 13 pods, all available: 5 may go, oldest first (foo-v1 8 → 3).
	c.sync(t, "update to v3", []string{"create " + v3 + " (0)", "scale foo-v1 8->3"})
	c.run("foo-v1", 3)
	c.sync(t, "grow v3", []string{"scale " + v3 + " 0->5"})

	v2Size := *c.find(v2).Spec.Replicas
	for i := 0; i < 20 && !converged(c, 10); i++ {
		c.settle()
		c.sync(t, "converge", nil)
		if got := c.total(); got > 13 {
			t.Fatalf("step %d: %d pods > replicas + maxSurge 13 (%s)", i, got, c.sizes())
		}
		if rs := c.find(v2); rs != nil {
			if *rs.Spec.Replicas > v2Size {
				t.Fatalf("step %d: v2 grew from %d to %d", i, v2Size, *rs.Spec.Replicas)
			}
			v2Size = *rs.Spec.Replicas
		}
	}
	if !converged(c, 10) {
		t.Fatalf("no convergence: %s", c.sizes())
	}
	if got := *c.find(v3).Spec.Replicas; got != 10 {
		t.Errorf("%s %d replicas, want 10 (%s)", v3, got, c.sizes())
	}
	cond := condition(c.d.Status, appsv1.DeploymentProgressing)
	if cond == nil || cond.Status != corev1.ConditionTrue || cond.Reason != "NewReplicaSetAvailable" {
		t.Errorf("Progressing %+v, want True/NewReplicaSetAvailable", cond)
	}
}

// converged: the newest template's ReplicaSet has every replica, all
// available, the others none, and the Deployment's status says so.
func converged(c *cluster, replicas int32) bool {
	var newRS *appsv1.ReplicaSet
	for _, rs := range c.rss {
		if hashing.EqualIgnoreHash(&rs.Spec.Template, &c.d.Spec.Template) {
			newRS = rs
		} else if *rs.Spec.Replicas != 0 || rs.Status.Replicas != 0 {
			return false
		}
	}
	s := c.d.Status
	return newRS != nil && *newRS.Spec.Replicas == replicas && newRS.Status.AvailableReplicas == replicas &&
		s.UpdatedReplicas == replicas && s.AvailableReplicas == replicas && s.Replicas == replicas &&
		s.ObservedGeneration == c.d.Generation
}

// converge syncs with every pod available at once until the rollout is
// done, checking the surge bound on the way.
func converge(t *testing.T, c *cluster, replicas int32) {
	t.Helper()
	for i := 0; i < 20; i++ {
		c.settle()
		if converged(c, replicas) {
			// One more sync must be a no-op for ReplicaSets.
			c.sync(t, "converged", []string{})
			return
		}
		c.sync(t, "converge", nil)
		if got := c.total(); got > replicas+3 {
			t.Fatalf("step %d: %d pods > %d (%s)", i, got, replicas+3, c.sizes())
		}
	}
	t.Fatalf("no convergence: %s", c.sizes())
}
