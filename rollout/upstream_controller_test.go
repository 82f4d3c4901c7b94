package rollout_test

// Conformance with the sync cases of upstream's deployment_controller_test.go
// and the ReplicaSet-level cases of util/deployment_util_test.go that a
// sync exercises (TestFindNewReplicaSet, TestFindOldReplicaSets,
// TestNewRSNewReplicas, TestAnnotationUtils).
//
// Upstream's fake client accepts every write; a real API server refuses a
// second write of the Deployment that sends the resourceVersion read at the
// start of the sync, and so does the plan: it ends the sync there (Stop)
// and asks for a rate-limited requeue, as upstream's sync does on the
// Conflict error. Where upstream's fake client lists two status updates,
// the plan has the first and a Stop.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestUpstreamSyncDeploymentCreatesReplicaSet covers
// TestSyncDeploymentCreatesReplicaSet.
func TestUpstreamSyncDeploymentCreatesReplicaSet(t *testing.T) {
	d := upDeployment(1, 0, 0)
	res := mustPlan(t, snapshot(d))
	hash := hashing.PodTemplateHash(&d.Spec.Template, nil)
	name := "foo-" + hash

	diffStrings(t, "writes", []string{fmt.Sprintf("create %s (1)", name), "update-status"}, actionStrings(res))
	diffStrings(t, "events", []string{"Normal ScalingReplicaSet Scaled up replica set " + name + " from 0 to 1"}, eventStrings(res))
	if res.Stop == "" || !res.Requeue.RateLimited {
		t.Errorf("Stop = %q, Requeue = %+v: want the second status write refused and a rate-limited requeue", res.Stop, res.Requeue)
	}

	rs := res.Actions[0].(rollout.CreateReplicaSet).ReplicaSet
	if rs.Namespace != upNS {
		t.Errorf("namespace %q", rs.Namespace)
	}
	for what, labels := range map[string]map[string]string{
		"labels": rs.Labels, "selector": rs.Spec.Selector.MatchLabels, "template labels": rs.Spec.Template.Labels,
	} {
		if labels[hashLabel] != hash || labels["foo"] != "bar" {
			t.Errorf("%s = %v, want foo=bar and %s=%s", what, labels, hashLabel, hash)
		}
	}
	if ref := metav1.GetControllerOf(rs); ref == nil || ref.UID != d.UID || ref.Kind != "Deployment" || ref.APIVersion != "apps/v1" ||
		ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("controller reference %+v", ref)
	}
	wantAnn := map[string]string{annRevision: "1", annDesired: "1", annMax: "1"}
	if !reflect.DeepEqual(rs.Annotations, wantAnn) {
		t.Errorf("annotations %v, want %v", rs.Annotations, wantAnn)
	}
	if !hashing.EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
		t.Errorf("template differs from the Deployment's")
	}

	st := res.Actions[1].(rollout.UpdateDeploymentStatus).Deployment
	if st.Annotations[annRevision] != "1" {
		t.Errorf("Deployment revision annotation %q, want 1", st.Annotations[annRevision])
	}
	checkCond(t, st.Status, appsv1.DeploymentProgressing, &wantCond{Status: corev1.ConditionTrue, Reason: "NewReplicaSetCreated",
		Message: fmt.Sprintf("Created new replica set %q", name), LastUpdate: upNow, LastTransition: upNow})
}

// TestUpstreamSyncDeploymentDontDoAnythingDuringDeletion covers
// TestSyncDeploymentDontDoAnythingDuringDeletion and, for the adoption
// that TestSyncDeploymentDeletionRace guards, a matching orphan: a
// Deployment being deleted only gets its status written.
func TestUpstreamSyncDeploymentDontDoAnythingDuringDeletion(t *testing.T) {
	for _, orphan := range []bool{false, true} {
		t.Run(fmt.Sprintf("orphan=%v", orphan), func(t *testing.T) {
			d := upDeployment(1, 0, 0)
			ts := metav1.NewTime(upOld)
			d.DeletionTimestamp = &ts
			var rss []*appsv1.ReplicaSet
			if orphan {
				rs := upRS(d, "rs1", 1, 1, upOld, "")
				rs.OwnerReferences = nil
				rss = append(rss, rs)
			}
			res := mustPlan(t, snapshot(d, rss...))
			diffStrings(t, "writes", []string{"update-status"}, actionStrings(res))
			if len(res.Events) != 0 {
				t.Errorf("events %v", eventStrings(res))
			}
			if res.Status.Replicas != 0 {
				t.Errorf("status.replicas %d: the orphan must not be counted", res.Status.Replicas)
			}
		})
	}
}

// TestUpstreamDontSyncDeploymentsWithEmptyPodSelector covers
// TestDontSyncDeploymentsWithEmptyPodSelector: a warning, and only
// observedGeneration is recorded (nothing to write when it is current).
func TestUpstreamDontSyncDeploymentsWithEmptyPodSelector(t *testing.T) {
	for _, gen := range []int64{1, 2} {
		t.Run(fmt.Sprintf("generation %d observed 1", gen), func(t *testing.T) {
			d := upDeployment(1, 0, 0)
			d.Spec.Selector = &metav1.LabelSelector{}
			d.Generation = gen
			rs := upRS(upDeployment(1, 0, 0), "rs1", 1, 1, upOld, "")
			res := mustPlan(t, snapshot(d, rs))
			diffStrings(t, "events", []string{"Warning SelectingAll This deployment is selecting all pods. A non-empty selector is required."}, eventStrings(res))
			var want []string
			if gen > 1 {
				want = []string{"update-status"}
			}
			diffStrings(t, "writes", want, actionStrings(res))
			if res.Status.ObservedGeneration != gen {
				t.Errorf("observedGeneration %d, want %d", res.Status.ObservedGeneration, gen)
			}
			want0 := d.Status.DeepCopy()
			want0.ObservedGeneration = gen
			if !reflect.DeepEqual(res.Status, *want0) {
				t.Errorf("status changed beyond observedGeneration: %+v", res.Status)
			}
		})
	}
}

// rollbackFixture: upstream TestReentrantRollback's objects. The Deployment
// is at revision 2 (deploymentrs-new, its template); deploymentrs-old
// (revision 1) differs by terminationGracePeriodSeconds.
func rollbackFixture(to string) (*appsv1.Deployment, *appsv1.ReplicaSet, *appsv1.ReplicaSet) {
	d := upDeployment(1, 0, 0)
	inSync(d, 2)
	d.Annotations[annRollbackTo] = to
	rs1 := upRS(d, "deploymentrs-old", 1, 0, upOld, "")
	one := int64(1)
	rs1.Spec.Template.Spec.TerminationGracePeriodSeconds = &one
	rs2 := upRS(d, "deploymentrs-new", 2, 1, upNew, "")
	return d, rs1, rs2
}

// TestUpstreamReentrantRollback covers TestReentrantRollback and the other
// outcomes of upstream's rollback: only the Deployment is written, with
// the rollback annotation removed.
func TestUpstreamReentrantRollback(t *testing.T) {
	cases := []struct {
		name     string
		to       string
		onlyRS2  bool
		event    string
		rollback bool
	}{
		{name: "to last revision (0)", to: "0", rollback: true,
			event: `Normal DeploymentRollback Rolled back deployment "foo" to revision 1`},
		{name: "to revision 1", to: "1", rollback: true,
			event: `Normal DeploymentRollback Rolled back deployment "foo" to revision 1`},
		{name: "revision not found", to: "5",
			event: "Warning DeploymentRollbackRevisionNotFound Unable to find the revision to rollback to."},
		{name: "template unchanged", to: "2",
			event: `Warning DeploymentRollbackTemplateUnchanged The rollback revision contains the same template as current deployment "foo"`},
		{name: "no last revision", to: "0", onlyRS2: true,
			event: "Warning DeploymentRollbackRevisionNotFound Unable to find last revision."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, rs1, rs2 := rollbackFixture(c.to)
			rss := []*appsv1.ReplicaSet{rs1, rs2}
			if c.onlyRS2 {
				rss = rss[1:]
			}
			res := mustPlan(t, snapshot(d, rss...))
			diffStrings(t, "writes", []string{"update-deployment"}, actionStrings(res))
			diffStrings(t, "events", []string{c.event}, eventStrings(res))
			got := res.Actions[0].(rollout.UpdateDeployment).Deployment
			if _, ok := got.Annotations[annRollbackTo]; ok {
				t.Errorf("rollback annotation still set")
			}
			if got.Annotations[annRevision] != "2" {
				t.Errorf("revision annotation %q, want 2 (kept until the next sync)", got.Annotations[annRevision])
			}
			want := d.Spec.Template
			if c.rollback {
				want = *rs1.Spec.Template.DeepCopy()
				want.Labels = hashing.LabelsWithoutHash(want.Labels)
			}
			if !reflect.DeepEqual(got.Spec.Template, want) {
				t.Errorf("template:\n got %+v\nwant %+v", got.Spec.Template, want)
			}
		})
	}
}

// TestUpstreamGetReplicaSetsForDeployment covers
// TestGetReplicaSetsForDeployment: a ReplicaSet controlled by another
// Deployment with the same selector is neither claimed nor counted.
func TestUpstreamGetReplicaSetsForDeployment(t *testing.T) {
	d1 := upDeployment(1, 0, 0)
	d2 := upDeployment(1, 0, 0)
	d2.Name, d2.UID = "bar", "uid-bar"
	rs1 := upRS(d1, "rs1", 1, 1, upOld, "")
	rs2 := upRS(d2, "rs2", 1, 1, upOld, "")
	for _, c := range []struct {
		d    *appsv1.Deployment
		mine string
	}{{d1, "rs1"}, {d2, "rs2"}} {
		t.Run(c.d.Name, func(t *testing.T) {
			d := inSync(c.d.DeepCopy(), 1)
			res := mustPlan(t, snapshot(d, rs1, rs2))
			if w := rsActions(res); len(w) != 0 {
				t.Errorf("unexpected replica set writes %v", w)
			}
			if res.Status.Replicas != 1 || res.Status.UpdatedReplicas != 1 {
				t.Errorf("status replicas %d updated %d, want 1 and 1 (only %s)", res.Status.Replicas, res.Status.UpdatedReplicas, c.mine)
			}
		})
	}
}

// TestUpstreamGetReplicaSetsForDeploymentAdoptRelease covers
// TestGetReplicaSetsForDeploymentAdoptRelease: the matching orphan is
// adopted and used, the owned ReplicaSet whose labels no longer match is
// released, with upstream's patches.
func TestUpstreamGetReplicaSetsForDeploymentAdoptRelease(t *testing.T) {
	d := inSync(upDeployment(1, 0, 0), 1)
	rsAdopt := upRS(d, "rsAdopt", 1, 1, upOld, "")
	rsAdopt.OwnerReferences = nil
	rsRelease := upRS(d, "rsRelease", 0, 1, upOlder, "")
	rsRelease.Labels = map[string]string{"foo": "notbar"}

	res := mustPlan(t, snapshot(d, rsAdopt, rsRelease))
	got := actionStrings(res)
	if len(got) < 2 {
		t.Fatalf("writes %v, want adopt and release first", got)
	}
	diffStrings(t, "claims", []string{"adopt rsAdopt", "release rsRelease"}, got[:2])
	if w := rsActions(res); len(w) != 2 {
		t.Errorf("replica set writes %v, want only the claims", w)
	}

	adopt := res.Actions[0].(rollout.AdoptReplicaSet)
	jsonEqual(t, "adopt patch", adopt.Patch,
		`{"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"foo","uid":"uid-foo","controller":true,"blockOwnerDeletion":true}],"uid":"uid-rsAdopt"}}`)
	if ref := metav1.GetControllerOf(adopt.ReplicaSet); ref == nil || ref.UID != d.UID {
		t.Errorf("adopted replica set controller %+v", ref)
	}
	release := res.Actions[1].(rollout.ReleaseReplicaSet)
	jsonEqual(t, "release patch", release.Patch,
		`{"metadata":{"uid":"uid-rsRelease","ownerReferences":[{"$patch":"delete","uid":"uid-foo"}]}}`)
	if ref := metav1.GetControllerOf(release.ReplicaSet); ref != nil {
		t.Errorf("released replica set still controlled by %+v", ref)
	}
	// The adopted ReplicaSet is the Deployment's; the released one is not.
	if res.Status.Replicas != 1 || res.Status.UpdatedReplicas != 1 {
		t.Errorf("status replicas %d updated %d, want 1 and 1", res.Status.Replicas, res.Status.UpdatedReplicas)
	}
}

func jsonEqual(t *testing.T, what string, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Errorf("%s: %q is not JSON: %v", what, got, err)
		return
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got %s\nwant %s", what, got, want)
	}
}

// TestUpstreamFindNewReplicaSet covers TestFindNewReplicaSet and
// TestFindOldReplicaSets: of two ReplicaSets with the Deployment's template
// (different pod-template-hash), the oldest is the new one; the other is
// old. The sync shows it by raising the older duplicate's revision above
// the other's (revision history kept) — and by nothing else: the second
// revision sync of the same cached object is refused (Stop).
func TestUpstreamFindNewReplicaSet(t *testing.T) {
	d := upDeployment(3, 1, 0)
	dup := upRS(d, "foo-different-hash", 1, 0, upOld, "")
	newer := upRS(d, "foo-hash", 2, 3, upNew, "")
	old := upRS(d, "foo-old-1", 0, 0, upOlder, "foo/bar:old")
	inSync(d, 2)
	res := mustPlan(t, snapshot(d, newer, old, dup))
	diffStrings(t, "writes", []string{"update-rs foo-different-hash"}, actionStrings(res))
	rs := res.Actions[0].(rollout.UpdateReplicaSet).ReplicaSet
	if rs.Annotations[annRevision] != "3" || rs.Annotations[annRevisionHistory] != "1" {
		t.Errorf("revision %q history %q, want 3 and 1", rs.Annotations[annRevision], rs.Annotations[annRevisionHistory])
	}
	if res.Stop == "" {
		t.Errorf("Stop empty: the rollout's second revision sync sends a stale object")
	}
}

// TestUpstreamAnnotationUtils covers TestAnnotationUtils'
// SetNewReplicaSetAnnotations through a sync: when the Deployment comes back
// to a ReplicaSet's template, the ReplicaSet takes the next revision and its
// previous revision joins its revision history, which is kept under 2000
// characters (upstream's default limit) by dropping the oldest entries.
func TestUpstreamAnnotationUtils(t *testing.T) {
	long := make([]string, 0, 400)
	for r := 1000; r < 1400; r++ {
		long = append(long, fmt.Sprint(r))
	}
	cases := []struct {
		name, rev, history   string
		wantRev, wantHistory string
	}{
		{name: "first rollback", rev: "10", history: "", wantRev: "12", wantHistory: "10"},
		{name: "second rollback", rev: "12", history: "10", wantRev: "14", wantHistory: "10,12"},
		{name: "third rollback", rev: "14", history: "10,12", wantRev: "16", wantHistory: "10,12,14"},
		{
			name: "history at the length limit", rev: "3000", history: strings.Join(long, ","),
			wantRev: "3002", wantHistory: strings.Join(long[1:], ",") + ",3000",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := upDeployment(1, 0, 0)
			rs := upRS(d, "foo-rs", 0, 1, upOld, "")
			rs.Annotations[annRevision] = c.rev
			if c.history != "" {
				rs.Annotations[annRevisionHistory] = c.history
			}
			n, _ := strconv.Atoi(c.rev)
			other := upRS(d, "foo-other", n+1, 0, upOlder, "foo/bar:other")
			inSync(d, n+1)
			res := mustPlan(t, snapshot(d, rs, other))
			if len(res.Actions) == 0 {
				t.Fatal("no write")
			}
			up, ok := res.Actions[0].(rollout.UpdateReplicaSet)
			if !ok {
				t.Fatalf("first write %s, want update-rs", actionString(res.Actions[0]))
			}
			if got := up.ReplicaSet.Annotations[annRevision]; got != c.wantRev {
				t.Errorf("revision %q, want %q", got, c.wantRev)
			}
			if got := up.ReplicaSet.Annotations[annRevisionHistory]; got != c.wantHistory {
				t.Errorf("history %q (%d chars), want %q (%d chars)", got, len(got), c.wantHistory, len(c.wantHistory))
			}
		})
	}
}

// TestUpstreamNewRSNewReplicas covers TestNewRSNewReplicas through the
// size a new ReplicaSet is created with.
func TestUpstreamNewRSNewReplicas(t *testing.T) {
	cases := []struct {
		name                   string
		replicas, surge, other int32
		recreate               bool
		want                   int32
	}{
		{name: "can not scale up", replicas: 1, surge: 1, other: 5, want: 0},
		{name: "scale up - to depReplicas", replicas: 6, surge: 10, other: 5, want: 6},
		{name: "scale up - to replicas + maxSurge", replicas: 6, surge: 1, other: 5, want: 2},
		{name: "recreate - to depReplicas", replicas: 3, other: 0, recreate: true, want: 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := upDeployment(c.replicas, int(c.surge), 1)
			if c.recreate {
				recreate(d)
			}
			rs5 := setStatus(upRS(d, "foo-5", 1, c.other, upOld, "foo/bar:old"), c.other, c.other)
			inSync(d, 0)
			res := mustPlan(t, snapshot(d, rs5))
			name := "foo-" + hashing.PodTemplateHash(&d.Spec.Template, nil)
			got := actionStrings(res)
			if len(got) == 0 || got[0] != fmt.Sprintf("create %s (%d)", name, c.want) {
				t.Errorf("writes %v, want first create %s (%d)", got, name, c.want)
			}
			// The creation's event (none for 0 replicas); later steps of the
			// sync may scale the old ReplicaSet down.
			var events, gotEvents []string
			if c.want > 0 {
				events = []string{fmt.Sprintf("Normal ScalingReplicaSet Scaled up replica set %s from 0 to %d", name, c.want)}
			}
			for _, e := range eventStrings(res) {
				if strings.Contains(e, " "+name+" ") {
					gotEvents = append(gotEvents, e)
				}
			}
			diffStrings(t, "events", events, gotEvents)
		})
	}
}
