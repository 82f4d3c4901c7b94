package rollout

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"pgregory.net/rapid"
)

// One Planner, reused for a run of drawn snapshots (the generator's and the
// fuzz builder's, which also reaches validation errors, the selector that
// selects everything, rollbacks and claims) and with drawn options, gives
// exactly PlanWith's Result every time (nil lists included), and mutates
// no input.
func TestPropertyPlannerEqualsPlanWith(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var pl Planner
		for i := range rapid.IntRange(1, 6).Draw(t, "plans") {
			var s Snapshot
			if rapid.Bool().Draw(t, "fuzzBuilder") {
				s = fuzzSnapshot(rapid.SliceOfN(rapid.Byte(), 0, 64).Draw(t, "bytes"))
			} else {
				s = genSnapshot(t)
			}
			pl.Options = Options{
				Quiet:                      rapid.Bool().Draw(t, "quiet"),
				FixProportionOverflow:      rapid.Bool().Draw(t, "fixOverflow"),
				DisableTerminatingReplicas: rapid.Bool().Draw(t, "noTerminating"),
			}
			want, wantErr := PlanWith(deepCopySnapshot(s), pl.Options)
			before := deepCopySnapshot(s)
			got, err := pl.Plan(s)
			if diff := cmp.Diff(before, s); diff != "" {
				t.Fatalf("plan %d: input mutated (-before +after):\n%s", i, diff)
			}
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Fatalf("plan %d: error %v, PlanWith's %v", i, err, wantErr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("plan %d: Planner differs from PlanWith (-PlanWith +Planner):\n%s", i, diff)
			}
		}
	})
}

// A Planner that plans the same objects again (its memo of the new
// ReplicaSet's look-up valid), then the same objects with their status
// changed in place, as the simulator's status writes do, gives PlanWith's
// Result each time.
func TestPropertyPlannerMemo(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var pl Planner
		pl.Options = Options{Quiet: rapid.Bool().Draw(t, "quiet")}
		s := genSnapshot(t)
		for i := range 4 {
			if i == 2 {
				for _, rs := range s.ReplicaSets {
					rs.Status.AvailableReplicas = rapid.Int32Range(0, rs.Status.Replicas).Draw(t, "available")
				}
			}
			if i == 3 && len(s.ReplicaSets) > 0 {
				// A write replaces a ReplicaSet (same Deployment object):
				// its spec, generation or annotations change, as a scale,
				// an update or a revision bump would.
				k := rapid.IntRange(0, len(s.ReplicaSets)-1).Draw(t, "replaced")
				c := s.ReplicaSets[k].DeepCopy()
				if rapid.Bool().Draw(t, "in place") {
					// or the stored object is written in place, its
					// generation bumped (the simulator's scale)
					c = s.ReplicaSets[k]
				}
				switch rapid.IntRange(0, 2).Draw(t, "change") {
				case 0:
					c.Spec.Replicas = new(rapid.Int32Range(0, 10).Draw(t, "replicas"))
					c.Generation++
				case 1: // a new annotations map (maps are replaced, not edited)
					c.Annotations = map[string]string{"deployment.kubernetes.io/revision": rapid.SampledFrom([]string{"1", "7", "99"}).Draw(t, "revision")}
				case 2:
					c.Spec.Template.Spec.Containers[0].Image = "other:1"
					c.Generation++
				}
				s.ReplicaSets = append(slices.Clone(s.ReplicaSets[:k]), append([]*appsv1.ReplicaSet{c}, s.ReplicaSets[k+1:]...)...)
			}
			want, wantErr := PlanWith(deepCopySnapshot(s), pl.Options)
			got, err := pl.Plan(s)
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Fatalf("plan %d: error %v, PlanWith's %v", i, err, wantErr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("plan %d: Planner differs from PlanWith (-PlanWith +Planner):\n%s", i, diff)
			}
		}
	})
}

// deepCopySnapshot is copySnapshot with the pods.
func deepCopySnapshot(s Snapshot) Snapshot {
	c := copySnapshot(s)
	for _, p := range s.Pods {
		c.Pods = append(c.Pods, p.DeepCopy())
	}
	return c
}

// A whole rolling update planned with one Planner takes the same steps as
// with PlanWith; each Result is applied before the next plan, as the
// lifetime rules ask.
func TestPlannerRollout(t *testing.T) {
	d := withImage(testDeployment(10, "25%", "25%"), "nginx:1")
	old := testRS(d, "old", 1, 10, 10, t0)
	s := settle(Snapshot{Deployment: withImage(d, "nginx:2"), ReplicaSets: []*appsv1.ReplicaSet{old}, Now: t0.Add(time.Minute)})
	ref := s
	var pl Planner
	for i := 0; ; i++ {
		if i == 50 {
			t.Fatalf("no convergence after %d syncs: %s", i, sizes(s))
		}
		want, err := Plan(ref)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pl.Plan(s)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("sync %d: (-Plan +Planner):\n%s", i, diff)
		}
		if len(got.Actions) == 0 && got.Requeue == (Requeue{}) {
			break
		}
		if s, err = Apply(s, got); err != nil {
			t.Fatalf("sync %d: %v", i, err)
		}
		if ref, err = Apply(ref, want); err != nil {
			t.Fatalf("sync %d: %v", i, err)
		}
		s, ref = settle(s), settle(ref)
		s.Now = s.Now.Add(time.Second)
		ref.Now = s.Now
	}
	if len(s.ReplicaSets) != 2 || *s.ReplicaSets[0].Spec.Replicas != 0 || *s.ReplicaSets[1].Spec.Replicas != 10 {
		t.Fatalf("final sizes %s, want the old ReplicaSet at 0 and the new one at 10", sizes(s))
	}
}

// The Planner hands out the same Result and Deployment copy again: the
// lifetime its documentation states is the real one.
func TestPlannerReusesItsMemory(t *testing.T) {
	d := withImage(testDeployment(10, "25%", "25%"), "nginx:2")
	s := Snapshot{Deployment: d, Now: t0.Add(time.Minute)}
	var pl Planner
	r1, err := pl.Plan(s)
	if err != nil {
		t.Fatal(err)
	}
	st1, ok := r1.Actions[len(r1.Actions)-1].(UpdateDeploymentStatus)
	if !ok {
		t.Fatalf("last action %T, want a status write", r1.Actions[len(r1.Actions)-1])
	}
	r2, err := pl.Plan(s)
	if err != nil {
		t.Fatal(err)
	}
	st2 := r2.Actions[len(r2.Actions)-1].(UpdateDeploymentStatus)
	if r1 != r2 || st1.Deployment != st2.Deployment || &r1.Actions[0] != &r2.Actions[0] {
		t.Errorf("memory not reused: results %p %p, deployments %p %p", r1, r2, st1.Deployment, st2.Deployment)
	}
	if st1.Deployment == d {
		t.Error("the written Deployment is the snapshot's")
	}
}
