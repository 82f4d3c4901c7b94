package rollout

import (
	"fmt"
	"testing"
	"time"

	"github.com/deploymath/deploymath/fencepost"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"
)

var images = []string{"nginx:1", "nginx:2", "nginx:3", "nginx:4", "nginx:5"}

// genFencepost draws an int or percent value.
func genFencepost(t *rapid.T, label string) intstr.IntOrString {
	if rapid.Bool().Draw(t, label+"IsPercent") {
		return intstr.FromString(fmt.Sprintf("%d%%", rapid.IntRange(0, 100).Draw(t, label+"Percent")))
	}
	return intstr.FromInt32(int32(rapid.IntRange(0, 5).Draw(t, label)))
}

// genDeployment draws a valid, defaulted Deployment.
func genDeployment(t *rapid.T) *appsv1.Deployment {
	d := testDeployment(int32(rapid.IntRange(0, 20).Draw(t, "replicas")), "25%", "25%")
	if rapid.IntRange(0, 3).Draw(t, "strategy") == 0 {
		d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	} else {
		for {
			surge, unavail := genFencepost(t, "maxSurge"), genFencepost(t, "maxUnavailable")
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavail}
			if fencepost.Validate(d) == nil {
				break
			}
		}
	}
	d.Spec.RevisionHistoryLimit = ptr(int32(rapid.IntRange(0, 3).Draw(t, "revisionHistoryLimit")))
	d.Spec.Template.Spec.Containers[0].Image = rapid.SampledFrom(images).Draw(t, "image")
	d.Spec.Paused = rapid.IntRange(0, 5).Draw(t, "paused") == 0
	d.Generation = 2
	return d
}

// genSnapshot draws a Deployment with up to five owned ReplicaSets in
// arbitrary, status-consistent states.
func genSnapshot(t *rapid.T) Snapshot {
	d := genDeployment(t)
	n := rapid.IntRange(0, 5).Draw(t, "replicaSets")
	var rss []*appsv1.ReplicaSet
	for i := 0; i < n; i++ {
		img := images[i]
		dd := d.DeepCopy()
		dd.Spec.Template.Spec.Containers[0].Image = img
		spec := int32(rapid.IntRange(0, 12).Draw(t, fmt.Sprintf("rs%dSpec", i)))
		running := int32(rapid.IntRange(0, int(spec)+2).Draw(t, fmt.Sprintf("rs%dRunning", i)))
		avail := int32(rapid.IntRange(0, int(running)).Draw(t, fmt.Sprintf("rs%dAvailable", i)))
		rs := testRS(dd, fmt.Sprintf("h%d", i), i+1, spec, avail, t0.Add(time.Duration(i)*time.Minute))
		rs.Status.Replicas = running
		rs.Annotations["deployment.kubernetes.io/desired-replicas"] = fmt.Sprint(rapid.SampledFrom([]int32{*d.Spec.Replicas, *d.Spec.Replicas, spec}).Draw(t, fmt.Sprintf("rs%dDesired", i)))
		rss = append(rss, rs)
	}
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		// Recreate never runs two ReplicaSets at once; from such a state
		// upstream can stall (see TestRecreateScalingEventWithTwoActiveStalls).
		for _, rs := range rss[:max(len(rss)-1, 0)] {
			rs.Spec.Replicas = ptr(int32(0))
		}
	}
	return Snapshot{Deployment: d, ReplicaSets: rss, Now: t0.Add(time.Hour)}
}

func copySnapshot(s Snapshot) Snapshot {
	c := Snapshot{Deployment: s.Deployment.DeepCopy(), Now: s.Now}
	for _, rs := range s.ReplicaSets {
		c.ReplicaSets = append(c.ReplicaSets, rs.DeepCopy())
	}
	return c
}

func TestPropertyPlanIsPureAndDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSnapshot(t)
		before := copySnapshot(s)
		r1, err := Plan(s)
		if err != nil {
			t.Fatalf("valid snapshot refused: %v", err)
		}
		if diff := cmp.Diff(before, s); diff != "" {
			t.Fatalf("input mutated (-before +after):\n%s", diff)
		}
		r2, _ := Plan(copySnapshot(s))
		if diff := cmp.Diff(r1, r2, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("two plans of the same snapshot differ:\n%s", diff)
		}
	})
}

func TestPropertyPlanSafety(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSnapshot(t)
		// The availability bound holds when every ReplicaSet's status has
		// caught up with its size (see TestStaleStatusCanDropAvailability).
		for _, rs := range s.ReplicaSets {
			rs.Status.AvailableReplicas = min(rs.Status.AvailableReplicas, *rs.Spec.Replicas)
		}
		r, err := Plan(s)
		if err != nil {
			t.Fatal(err)
		}
		byUID := map[types.UID]*appsv1.ReplicaSet{}
		for _, rs := range s.ReplicaSets {
			byUID[rs.UID] = rs
		}
		for _, a := range r.Actions {
			if del, ok := a.(DeleteReplicaSet); ok {
				rs := byUID[del.UID]
				if rs == nil || *rs.Spec.Replicas != 0 || rs.Status.Replicas != 0 {
					t.Fatalf("deletes a replica set with replicas: %s", del.Explain())
				}
			}
		}
		d := s.Deployment
		if d.Spec.Paused || d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || scalingEvent(s) {
			return
		}
		after, err := Apply(s, r)
		if err != nil {
			t.Fatal(err)
		}
		// Surge bound: a rolling update never grows the total above
		// replicas + maxSurge.
		limit := *d.Spec.Replicas + fencepost.MaxSurge(d)
		if b, a := sumSpec(s.ReplicaSets), sumSpec(after.ReplicaSets); a > max(b, limit) {
			t.Fatalf("total %d -> %d exceeds replicas+maxSurge %d:\n%s", b, a, limit, r.Explain())
		}
		// Availability bound: scale-downs remove unavailable pods first and
		// never take available pods below minAvailable.
		minAvail := *d.Spec.Replicas - fencepost.MaxUnavailable(d)
		if before, kept := keptAvailable(s), keptAvailable(after); kept < before && kept < minAvail {
			t.Fatalf("available %d -> at most %d, below minAvailable %d:\n%s", before, kept, minAvail, r.Explain())
		}
	})
}

// keptAvailable counts the available pods the ReplicaSets keep once their
// controllers have matched spec.replicas, deleting unavailable pods first.
func keptAvailable(s Snapshot) int32 {
	var n int32
	for _, rs := range s.ReplicaSets {
		n += min(*rs.Spec.Replicas, rs.Status.AvailableReplicas)
	}
	return n
}

// scalingEvent reports whether an active ReplicaSet records another desired size.
func scalingEvent(s Snapshot) bool {
	for _, rs := range s.ReplicaSets {
		if *rs.Spec.Replicas > 0 && rs.Annotations["deployment.kubernetes.io/desired-replicas"] != fmt.Sprint(*s.Deployment.Spec.Replicas) {
			return true
		}
	}
	return false
}

// TestPropertyConvergence: with every pod becoming available at once, a
// rollout from any state ends with the new ReplicaSet at spec.replicas, all
// old ones at zero and at most revisionHistoryLimit of them kept, and a
// converged snapshot plans nothing.
func TestPropertyConvergence(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSnapshot(t)
		s.Deployment.Spec.Paused = false
		s = settle(s)
		for i := 0; ; i++ {
			if i > 200 {
				t.Fatalf("no convergence: %s", sizes(s))
			}
			r, err := Plan(s)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Actions) == 0 {
				break
			}
			next, err := Apply(s, r)
			if err != nil {
				t.Fatal(err)
			}
			s = settle(next)
			s.Now = s.Now.Add(time.Second)
		}
		d := s.Deployment
		newRS := findNewReplicaSet(d, s.ReplicaSets)
		if newRS == nil || *newRS.Spec.Replicas != *d.Spec.Replicas {
			t.Fatalf("new replica set not at %d: %s", *d.Spec.Replicas, sizes(s))
		}
		old := 0
		for _, rs := range s.ReplicaSets {
			if rs.UID == newRS.UID {
				continue
			}
			old++
			if *rs.Spec.Replicas != 0 {
				t.Fatalf("old replica set %s still at %d", rs.Name, *rs.Spec.Replicas)
			}
		}
		if old > int(*d.Spec.RevisionHistoryLimit) {
			t.Fatalf("%d old replica sets kept, limit %d: %s", old, *d.Spec.RevisionHistoryLimit, sizes(s))
		}
		st := d.Status
		if st.ObservedGeneration != d.Generation || st.UpdatedReplicas != *d.Spec.Replicas || st.AvailableReplicas != *d.Spec.Replicas {
			t.Fatalf("status not converged: %+v", st)
		}
		if c := getCondition(st, appsv1.DeploymentProgressing); c == nil || c.Reason != NewRSAvailableReason {
			t.Fatalf("Progressing = %+v", c)
		}
	})
}

func TestPropertyRecreateNeverOverlaps(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSnapshot(t)
		s.Deployment.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
		s.Deployment.Spec.Paused = false
		for i := 0; i < 50; i++ {
			r, err := Plan(s)
			if err != nil {
				t.Fatal(err)
			}
			next, err := Apply(s, r)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range r.Actions {
				if scalingEvent(s) {
					break
				}
				var rs *appsv1.ReplicaSet
				switch a := a.(type) {
				case CreateReplicaSet:
					rs = a.ReplicaSet
				case ScaleReplicaSet:
					if a.To > a.From {
						rs = a.ReplicaSet
					}
				}
				if rs == nil {
					continue
				}
				for _, old := range s.ReplicaSets {
					if old.Name != rs.Name && old.Status.Replicas > 0 {
						t.Fatalf("%s grows while %s runs %d pods:\n%s", rs.Name, old.Name, old.Status.Replicas, r.Explain())
					}
				}
			}
			if len(r.Actions) == 0 {
				return
			}
			s = settle(next)
			// The last old pods may linger as terminating pods for a sync.
			s.Pods = nil
			s.Now = s.Now.Add(time.Second)
		}
	})
}

var _ = corev1.PodRunning
var _ = metav1.Now

// Quiet changes nothing but the explanations.
func TestPropertyQuietOnlyDropsExplanations(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSnapshot(t)
		loud, err := Plan(s)
		if err != nil {
			t.Fatal(err)
		}
		quiet, err := PlanWith(s, Options{Quiet: true})
		if err != nil {
			t.Fatal(err)
		}
		ignoreWhy := cmp.FilterPath(func(p cmp.Path) bool {
			if sf, ok := p.Last().(cmp.StructField); ok {
				return sf.Name() == "Why" || sf.Name() == "Notes"
			}
			return false
		}, cmp.Ignore())
		if diff := cmp.Diff(loud, quiet, ignoreWhy, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("Quiet changed the plan:\n%s", diff)
		}
	})
}
