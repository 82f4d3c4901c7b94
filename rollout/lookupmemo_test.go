package rollout

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

// applyInPlace applies r's writes to s as the simulator stores them: a
// scale copies the written ReplicaSet into the stored object (a new
// generation when the size changed, the status kept), a status write goes
// into the Deployment object; any other write goes through Apply (new
// objects). It returns the next snapshot.
func applyInPlace(t *rapid.T, s Snapshot, r *Result) Snapshot {
	inPlace := true
	for _, a := range r.Actions {
		switch a.(type) {
		case ScaleReplicaSet, UpdateDeploymentStatus:
		default:
			inPlace = false
		}
	}
	if !inPlace {
		next, err := Apply(s, r)
		if err != nil && r.Stop == "" {
			t.Fatalf("Apply: %v", err)
		}
		return next
	}
	for _, a := range r.Actions {
		switch a := a.(type) {
		case ScaleReplicaSet:
			i := s.indexOf(a.ReplicaSet.Namespace, a.ReplicaSet.Name)
			if i < 0 {
				t.Fatalf("scale of %s, which the snapshot does not hold", a.ReplicaSet.Name)
			}
			stored := s.ReplicaSets[i]
			kept := *stored
			*stored = *a.ReplicaSet
			stored.Status, stored.Generation, stored.UID = kept.Status, kept.Generation, kept.UID
			if *kept.Spec.Replicas != *stored.Spec.Replicas {
				stored.Generation++
			}
		case UpdateDeploymentStatus:
			applyStatusInPlace(s, a)
		}
	}
	return s
}

// editObjects changes s the ways the look-up and claim memos must notice
// (see memo.go), each as an API server's objects change: a ReplicaSet
// scaled or its pod template replaced in place with a new generation (its
// image then possibly the Deployment's), its annotations, labels or owner
// references replaced, a deletion timestamp set, the ReplicaSets in
// another order, one gone or a new orphan, the Deployment copied, deleted,
// or its template changed with a new generation.
func editObjects(t *rapid.T, s *Snapshot) {
	if len(s.ReplicaSets) == 0 {
		return
	}
	k := rapid.IntRange(0, len(s.ReplicaSets)-1).Draw(t, "edited")
	rs := s.ReplicaSets[k]
	switch rapid.IntRange(0, 11).Draw(t, "objectEdit") {
	case 0, 1: // the simulator's in-place scale
		rs.Spec.Replicas = new(int32(rapid.IntRange(0, 12).Draw(t, "size")))
		rs.Generation++
	case 2, 3: // the template replaced in place, with a new generation
		rs.Spec.Template.Spec.Containers = slices.Clone(rs.Spec.Template.Spec.Containers)
		img := rapid.SampledFrom(images).Draw(t, "rsImage")
		if rapid.Bool().Draw(t, "deploymentsImage") {
			img = s.Deployment.Spec.Template.Spec.Containers[0].Image
		}
		rs.Spec.Template.Spec.Containers[0].Image = img
		rs.Generation++
	case 4:
		ann := editableCopy(rs.Annotations)
		switch rapid.IntRange(0, 2).Draw(t, "rsAnnotation") {
		case 0:
			ann["deployment.kubernetes.io/desired-replicas"] = fmt.Sprint(rapid.IntRange(0, 20).Draw(t, "desired"))
		case 1:
			ann["deployment.kubernetes.io/revision"] = fmt.Sprint(rapid.IntRange(0, 6).Draw(t, "revision"))
		}
		rs.Annotations = ann
	case 5:
		rs.Labels = relabeled(t, rs.Labels)
	case 6:
		switch rapid.IntRange(0, 2).Draw(t, "owners") {
		case 0:
			rs.OwnerReferences = nil
		case 1:
			rs.OwnerReferences = slices.Clone(rs.OwnerReferences)
		case 2:
			refs := slices.Clone(rs.OwnerReferences)
			for i := range refs {
				refs[i].UID += "-other"
			}
			rs.OwnerReferences = refs
		}
	case 7:
		rs.DeletionTimestamp = new(metav1.NewTime(s.Now.Truncate(time.Second)))
	case 8: // another order
		s.ReplicaSets = slices.Clone(s.ReplicaSets)
		j := rapid.IntRange(0, len(s.ReplicaSets)-1).Draw(t, "swapWith")
		s.ReplicaSets[k], s.ReplicaSets[j] = s.ReplicaSets[j], s.ReplicaSets[k]
	case 9:
		if rapid.Bool().Draw(t, "gone") {
			s.ReplicaSets = slices.Delete(slices.Clone(s.ReplicaSets), k, k+1)
		} else {
			c := rs.DeepCopy()
			c.Name, c.UID, c.OwnerReferences = c.Name+"x", c.UID+"x", nil
			s.ReplicaSets = append(slices.Clone(s.ReplicaSets), c)
		}
	case 10:
		switch rapid.IntRange(0, 3).Draw(t, "deploymentEdit") {
		case 0:
			s.Deployment = s.Deployment.DeepCopy()
		case 1:
			s.Deployment.DeletionTimestamp = new(metav1.NewTime(s.Now.Truncate(time.Second)))
		case 2:
			d := s.Deployment
			d.Generation++
			d.Spec.Template.Spec.Containers = slices.Clone(d.Spec.Template.Spec.Containers)
			d.Spec.Template.Spec.Containers[0].Image = rapid.SampledFrom(images).Draw(t, "image")
		case 3: // another selector (and template labels), in place
			d := s.Deployment
			d.Generation++
			lab := map[string]string{"app": "other"}
			d.Spec.Selector = &metav1.LabelSelector{MatchLabels: lab}
			d.Spec.Template.Labels = lab
		}
	case 11: // nothing
	}
}

// lookUpStats counts, over TestPropertyLookUpAndClaimMemos's runs, the
// plans made, those whose claim the memo answered, and those whose
// look-up it answered with a ReplicaSet of a new generation.
var lookUpStats struct {
	sync.Mutex
	plans, claims, lookUpsAfterScale int
}

// Over a long-lived Planner whose ReplicaSets are scaled in place, as the
// simulator stores a plan's scales, and whose objects change in the ways
// the look-up and claim memos must notice (editObjects), every plan is
// PlanWith's. Plans that reuse the remembered claim, and look-ups that
// reuse the memo with a ReplicaSet of a new generation, are counted: a
// share of them must be.
func TestPropertyLookUpAndClaimMemos(t *testing.T) {
	lookUpStats.Lock()
	lookUpStats.plans, lookUpStats.claims, lookUpStats.lookUpsAfterScale = 0, 0, 0
	lookUpStats.Unlock()
	rapid.Check(t, func(t *rapid.T) {
		s := genSnapshot(t)
		s.Deployment.Spec.Paused = false
		pl := Planner{Options: Options{Quiet: rapid.IntRange(0, 7).Draw(t, "quiet") > 0}}
		for i := range rapid.IntRange(1, 40).Draw(t, "syncs") {
			claimed, newGen := false, false
			if m := pl.memos[s.Deployment]; m != nil && !m.quiet.matches(s, pl.Options) && m.quiet.resumeAt(s, pl.Options) == resumeNone {
				claimed = m.claimOK && m.claimSame(s.Deployment, s.ReplicaSets)
				if claimed && m.gen == s.Deployment.Generation && len(m.in) == len(m.claimed) {
					for j, e := range m.in {
						if e.rs == m.claimed[j] && e.gen != e.rs.Generation {
							newGen = true
						}
					}
				}
			}
			r, err := planLikePlanWith(t, &pl, s, pl.Options, fmt.Sprintf("sync %d (claim remembered %v)", i, claimed))
			if err != nil {
				return // invalid input (an edit can make one)
			}
			lookUpStats.Lock()
			lookUpStats.plans++
			if claimed {
				lookUpStats.claims++
			}
			if newGen {
				lookUpStats.lookUpsAfterScale++
			}
			lookUpStats.Unlock()
			if rapid.IntRange(0, 9).Draw(t, "writesLost") > 0 {
				s = applyInPlace(t, s, r)
			}
			if rapid.IntRange(0, 2).Draw(t, "statuses") == 0 {
				moveStatuses(t, &s)
			}
			if rapid.IntRange(0, 3).Draw(t, "passes") == 0 {
				s.Now = s.Now.Add(time.Duration(rapid.IntRange(1, 3000).Draw(t, "passMs")) * time.Millisecond)
			}
			for range rapid.IntRange(0, 3).Draw(t, "edits") {
				editObjects(t, &s)
			}
		}
	})
	lookUpStats.Lock()
	defer lookUpStats.Unlock()
	st := &lookUpStats
	t.Logf("%d plans: %d claims answered by the memo, %d of them with a look-up reusing the memo after a new generation", st.plans, st.claims, st.lookUpsAfterScale)
	if st.claims*10 < st.plans || st.lookUpsAfterScale*20 < st.plans {
		t.Errorf("only %d claims and %d look-ups after a new generation answered by the memos in %d plans: the property tests too little", st.claims, st.lookUpsAfterScale, st.plans)
	}
}
