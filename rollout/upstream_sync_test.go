package rollout_test

// Conformance with upstream's sync_test.go: TestScale (proportional
// scaling), TestDeploymentController_cleanupDeployment and
// TestDeploymentController_cleanupDeploymentOrder.

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/fencepost"
	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// scaleCase is one case of upstream's TestScale. Upstream calls scale()
// with the given new and old ReplicaSets; every ReplicaSet carries the
// desired-/max-replicas annotations of oldDeployment (the size it was last
// scaled for). We reach scale() two ways:
//   - paused: a paused Deployment syncs by scale + cleanup only;
//   - event: an active ReplicaSet whose desired-replicas annotation differs
//     from spec.replicas is a scaling event (only when the case is one).
type scaleCase struct {
	name string
	// replicas, maxSurge, maxUnavailable of the Deployment now and before.
	replicas, surge, unavailable          int32
	oldReplicas, oldSurge, oldUnavailable int32
	// templateChanged: the Deployment's template matches none of the
	// ReplicaSets (upstream passes newRS nil).
	templateChanged bool
	newRS           *rsSpec
	oldRSs          []rsSpec
	// desired overrides the desired-replicas annotation per ReplicaSet.
	desired map[string]int32
	// want is the size of every ReplicaSet afterwards; wantWrites the
	// ReplicaSets written (in order), nil meaning every ReplicaSet whose
	// size changes.
	want       map[string]int32
	wantWrites []string
	events     []string
}

type rsSpec struct {
	name      string
	replicas  int32
	created   time.Time
	available int32 // -1: all available
}

func rsv(name string, replicas int32, created time.Time) rsSpec {
	return rsSpec{name: name, replicas: replicas, created: created, available: -1}
}

var scaleCases = []scaleCase{
	{
		name:     "normal scaling event: 10 -> 12",
		replicas: 12, oldReplicas: 10,
		newRS: &rsSpec{"foo-v1", 10, upNew, -1},
		want:  map[string]int32{"foo-v1": 12},
		events: []string{
			"Normal ScalingReplicaSet Scaled up replica set foo-v1 from 10 to 12",
		},
	},
	{
		name:     "normal scaling event: 10 -> 5",
		replicas: 5, oldReplicas: 10,
		newRS: &rsSpec{"foo-v1", 10, upNew, -1},
		want:  map[string]int32{"foo-v1": 5},
		events: []string{
			"Normal ScalingReplicaSet Scaled down replica set foo-v1 from 10 to 5",
		},
	},
	{
		name:     "proportional scaling: 5 -> 10",
		replicas: 10, oldReplicas: 5,
		newRS:  &rsSpec{"foo-v2", 2, upNew, -1},
		oldRSs: []rsSpec{rsv("foo-v1", 3, upOld)},
		want:   map[string]int32{"foo-v2": 4, "foo-v1": 6},
		// Largest first: foo-v1 (3) then foo-v2 (2).
		wantWrites: []string{"scale foo-v1 3->6", "scale foo-v2 2->4"},
		events: []string{
			"Normal ScalingReplicaSet Scaled up replica set foo-v1 from 3 to 6",
			"Normal ScalingReplicaSet Scaled up replica set foo-v2 from 2 to 4",
		},
	},
	{
		name:     "proportional scaling: 5 -> 3",
		replicas: 3, oldReplicas: 5,
		newRS:      &rsSpec{"foo-v2", 2, upNew, -1},
		oldRSs:     []rsSpec{rsv("foo-v1", 3, upOld)},
		want:       map[string]int32{"foo-v2": 1, "foo-v1": 2},
		wantWrites: []string{"scale foo-v1 3->2", "scale foo-v2 2->1"},
		events: []string{
			"Normal ScalingReplicaSet Scaled down replica set foo-v1 from 3 to 2",
			"Normal ScalingReplicaSet Scaled down replica set foo-v2 from 2 to 1",
		},
	},
	{
		name:     "proportional scaling: 9 -> 4",
		replicas: 4, oldReplicas: 9,
		newRS:      &rsSpec{"foo-v2", 8, upNew, -1},
		oldRSs:     []rsSpec{rsv("foo-v1", 1, upOld)},
		want:       map[string]int32{"foo-v2": 4, "foo-v1": 0},
		wantWrites: []string{"scale foo-v2 8->4", "scale foo-v1 1->0"},
	},
	{
		name:     "proportional scaling: 7 -> 10",
		replicas: 10, oldReplicas: 7,
		newRS:  &rsSpec{"foo-v3", 2, upNew, -1},
		oldRSs: []rsSpec{rsv("foo-v2", 3, upOld), rsv("foo-v1", 2, upOlder)},
		want:   map[string]int32{"foo-v3": 3, "foo-v2": 4, "foo-v1": 3},
		// Growing: largest first, among equals the newer first.
		wantWrites: []string{"scale foo-v2 3->4", "scale foo-v3 2->3", "scale foo-v1 2->3"},
	},
	{
		name:     "proportional scaling: 13 -> 8",
		replicas: 8, oldReplicas: 13,
		newRS:  &rsSpec{"foo-v3", 2, upNew, -1},
		oldRSs: []rsSpec{rsv("foo-v2", 8, upOld), rsv("foo-v1", 3, upOlder)},
		want:   map[string]int32{"foo-v3": 1, "foo-v2": 5, "foo-v1": 2},
		// Shrinking: largest first, among equals the older first.
		wantWrites: []string{"scale foo-v2 8->5", "scale foo-v1 3->2", "scale foo-v3 2->1"},
	},
	{
		// Scales up the new replica set.
		name:     "leftover distribution: 3 -> 4",
		replicas: 4, oldReplicas: 3,
		newRS:  &rsSpec{"foo-v3", 1, upNew, -1},
		oldRSs: []rsSpec{rsv("foo-v2", 1, upOld), rsv("foo-v1", 1, upOlder)},
		want:   map[string]int32{"foo-v3": 2, "foo-v2": 1, "foo-v1": 1},
		// Every active ReplicaSet is written so that its annotations record
		// the new size; only foo-v3 changes size.
		wantWrites: []string{"scale foo-v3 1->2", "scale foo-v2 1->1", "scale foo-v1 1->1"},
		events: []string{
			"Normal ScalingReplicaSet Scaled up replica set foo-v3 from 1 to 2",
		},
	},
	{
		// Scales down the older replica set.
		name:     "leftover distribution: 3 -> 2",
		replicas: 2, oldReplicas: 3,
		newRS:      &rsSpec{"foo-v3", 1, upNew, -1},
		oldRSs:     []rsSpec{rsv("foo-v2", 1, upOld), rsv("foo-v1", 1, upOlder)},
		want:       map[string]int32{"foo-v3": 1, "foo-v2": 1, "foo-v1": 0},
		wantWrites: []string{"scale foo-v1 1->0", "scale foo-v2 1->1", "scale foo-v3 1->1"},
		events: []string{
			"Normal ScalingReplicaSet Scaled down replica set foo-v1 from 1 to 0",
		},
	},
	{
		// Scales up the latest replica set first.
		name:     "proportional scaling (no new rs): 4 -> 5",
		replicas: 5, oldReplicas: 4, templateChanged: true,
		oldRSs:     []rsSpec{rsv("foo-v2", 2, upOld), rsv("foo-v1", 2, upOlder)},
		want:       map[string]int32{"foo-v2": 3, "foo-v1": 2},
		wantWrites: []string{"scale foo-v2 2->3", "scale foo-v1 2->2"},
	},
	{
		name:     "proportional scaling: 6 -> 0",
		replicas: 0, oldReplicas: 6,
		newRS:      &rsSpec{"foo-v3", 3, upNew, -1},
		oldRSs:     []rsSpec{rsv("foo-v2", 2, upOld), rsv("foo-v1", 1, upOlder)},
		want:       map[string]int32{"foo-v3": 0, "foo-v2": 0, "foo-v1": 0},
		wantWrites: []string{"scale foo-v3 3->0", "scale foo-v2 2->0", "scale foo-v1 1->0"},
		events: []string{
			"Normal ScalingReplicaSet Scaled down replica set foo-v3 from 3 to 0",
			"Normal ScalingReplicaSet Scaled down replica set foo-v2 from 2 to 0",
			"Normal ScalingReplicaSet Scaled down replica set foo-v1 from 1 to 0",
		},
	},
	{
		// No active ReplicaSet: the new one takes everything, the old ones
		// are not written. Not a scaling event (nothing is active).
		name:     "proportional scaling: 0 -> 6",
		replicas: 6, oldReplicas: 6,
		newRS:      &rsSpec{"foo-v3", 0, upNew, -1},
		oldRSs:     []rsSpec{rsv("foo-v2", 0, upOld), rsv("foo-v1", 0, upOlder)},
		want:       map[string]int32{"foo-v3": 6, "foo-v2": 0, "foo-v1": 0},
		wantWrites: []string{"scale foo-v3 0->6"},
		events: []string{
			"Normal ScalingReplicaSet Scaled up replica set foo-v3 from 0 to 6",
		},
	},
	{
		// Upstream's "failed rs update": foo-v2 was last scaled for a
		// Deployment of 3, the others for 5. Only foo-v2 grows.
		name:     "failed rs update",
		replicas: 5, oldReplicas: 5,
		newRS:      &rsSpec{"foo-v3", 2, upNew, -1},
		oldRSs:     []rsSpec{rsv("foo-v2", 1, upOld), rsv("foo-v1", 1, upOlder)},
		desired:    map[string]int32{"foo-v2": 3},
		want:       map[string]int32{"foo-v3": 2, "foo-v2": 2, "foo-v1": 1},
		wantWrites: []string{"scale foo-v2 1->2"},
	},
	{
		name:     "deployment with surge pods",
		replicas: 20, surge: 2, oldReplicas: 10, oldSurge: 2,
		newRS:      &rsSpec{"foo-v2", 6, upNew, -1},
		oldRSs:     []rsSpec{rsv("foo-v1", 6, upOld)},
		want:       map[string]int32{"foo-v2": 11, "foo-v1": 11},
		wantWrites: []string{"scale foo-v2 6->11", "scale foo-v1 6->11"},
	},
	{
		name:     "change both surge and size",
		replicas: 50, surge: 6, oldReplicas: 10, oldSurge: 3,
		newRS:      &rsSpec{"foo-v2", 5, upNew, -1},
		oldRSs:     []rsSpec{rsv("foo-v1", 8, upOld)},
		want:       map[string]int32{"foo-v2": 22, "foo-v1": 34},
		wantWrites: []string{"scale foo-v1 8->34", "scale foo-v2 5->22"},
	},
	{
		name:     "change both size and template",
		replicas: 14, oldReplicas: 10, templateChanged: true,
		oldRSs:     []rsSpec{rsv("foo-v2", 7, upNew), rsv("foo-v1", 3, upOld)},
		want:       map[string]int32{"foo-v2": 10, "foo-v1": 4},
		wantWrites: []string{"scale foo-v2 7->10", "scale foo-v1 3->4"},
	},
	{
		name:     "saturated but broken new replica set does not affect old pods",
		replicas: 2, surge: 1, unavailable: 1, oldReplicas: 2, oldSurge: 1, oldUnavailable: 1,
		newRS:      &rsSpec{"foo-v2", 2, upNew, 0},
		oldRSs:     []rsSpec{rsv("foo-v1", 1, upOld)},
		want:       map[string]int32{"foo-v2": 2, "foo-v1": 1},
		wantWrites: []string{},
	},
}

// build returns the snapshot of a scale case; paused selects the variant.
func (c scaleCase) build(paused bool) (*appsv1.Deployment, []*appsv1.ReplicaSet) {
	d := upDeployment(c.replicas, int(c.surge), int(c.unavailable))
	old := upDeployment(c.oldReplicas, int(c.oldSurge), int(c.oldUnavailable))
	d.Spec.Paused = paused
	if c.templateChanged {
		d.Spec.Template = withImage(d.Spec.Template, "foo/bar:new")
	}
	var rss []*appsv1.ReplicaSet
	specs := slices.Clone(c.oldRSs)
	if c.newRS != nil {
		specs = append(specs, *c.newRS)
	}
	// Revisions follow creation order.
	byAge := slices.Clone(specs)
	slices.SortFunc(byAge, func(a, b rsSpec) int { return a.created.Compare(b.created) })
	rev := map[string]int{}
	for i, s := range byAge {
		rev[s.name] = i + 1
	}
	maxRev := 0
	for _, s := range specs {
		image := "foo/bar:" + s.name
		if c.newRS != nil && s.name == c.newRS.name {
			image = ""
		}
		rs := upRS(d, s.name, rev[s.name], s.replicas, s.created, image)
		if s.available >= 0 {
			setStatus(rs, s.replicas, s.available)
		}
		desired := *old.Spec.Replicas
		if v, ok := c.desired[s.name]; ok {
			desired = v
		}
		setReplicaAnnotations(rs, desired, desired+fencepost.MaxSurge(old))
		rss = append(rss, rs)
		maxRev = max(maxRev, rev[s.name])
	}
	newRev := 0
	if c.newRS != nil {
		newRev = rev[c.newRS.name]
	}
	inSync(d, newRev)
	d.Status.Replicas = *old.Spec.Replicas
	return d, rss
}

// isScalingEvent: some active ReplicaSet was last scaled for another size.
func (c scaleCase) isScalingEvent() bool {
	specs := slices.Clone(c.oldRSs)
	if c.newRS != nil {
		specs = append(specs, *c.newRS)
	}
	for _, s := range specs {
		desired := c.oldReplicas
		if v, ok := c.desired[s.name]; ok {
			desired = v
		}
		if s.replicas > 0 && desired != c.replicas {
			return true
		}
	}
	return false
}

// TestUpstreamScale covers every case of upstream TestScale.
func TestUpstreamScale(t *testing.T) {
	for _, c := range scaleCases {
		for _, paused := range []bool{true, false} {
			variant := "paused"
			if !paused {
				variant = "scaling event"
				if !c.isScalingEvent() {
					continue
				}
			}
			t.Run(c.name+"/"+variant, func(t *testing.T) {
				d, rss := c.build(paused)
				s := snapshot(d, rss...)
				res := mustPlan(t, s)
				if res.Stop != "" {
					t.Errorf("Stop = %q, want a complete sync", res.Stop)
				}
				got := sizesAfter(s, res)
				for name, want := range c.want {
					if got[name] != want {
						t.Errorf("%s: %d replicas, want %d", name, got[name], want)
					}
				}
				writes := rsActions(res)
				if c.wantWrites != nil {
					if writes == nil {
						writes = []string{}
					}
					diffStrings(t, "replica set writes", c.wantWrites, writes)
				}
				if c.events != nil {
					diffStrings(t, "events", c.events, eventStrings(res))
				}
				checkScaleAnnotations(t, d, res)
				// Only the status is written to the Deployment.
				for _, a := range actionStrings(res) {
					if a == "update-deployment" {
						t.Errorf("unexpected Deployment write %q", a)
					}
				}
			})
		}
	}
}

// checkScaleAnnotations: a scaled ReplicaSet carries desired-replicas =
// spec.replicas and max-replicas = spec.replicas + maxSurge.
func checkScaleAnnotations(t *testing.T, d *appsv1.Deployment, res *rollout.Result) {
	t.Helper()
	wantDesired := strconv.Itoa(int(*d.Spec.Replicas))
	wantMax := strconv.Itoa(int(*d.Spec.Replicas + fencepost.MaxSurge(d)))
	for _, a := range res.Actions {
		sc, ok := a.(rollout.ScaleReplicaSet)
		if !ok {
			continue
		}
		ann := sc.ReplicaSet.Annotations
		if ann[annDesired] != wantDesired || ann[annMax] != wantMax {
			t.Errorf("%s: desired-/max-replicas annotations %q/%q, want %q/%q", sc.ReplicaSet.Name, ann[annDesired], ann[annMax], wantDesired, wantMax)
		}
	}
}

// cleanupRS mirrors upstream's newRSWithStatus / the cleanupDeploymentOrder
// builder: an old ReplicaSet with spec and status replicas, a revision
// ("" for none) and a creation time.
type cleanupRS struct {
	name           string
	spec, status   int32
	revision       string
	created        time.Time
	beingDeleted   bool
	unobservedSpec bool
}

func buildCleanup(limit int32, olds []cleanupRS, paused bool) rollout.Snapshot {
	d := upDeployment(1, 0, 0)
	d.Spec.RevisionHistoryLimit = &limit
	d.Spec.Paused = paused
	maxRev := 0
	var rss []*appsv1.ReplicaSet
	for _, o := range olds {
		rs := upRS(d, o.name, 0, o.spec, o.created, "foo/bar:"+o.name)
		if o.revision != "" {
			rs.Annotations[annRevision] = o.revision
			if n, err := strconv.Atoi(o.revision); err == nil {
				maxRev = max(maxRev, n)
			}
		}
		setStatus(rs, o.status, o.status)
		if o.beingDeleted {
			ts := metav1.NewTime(upOlder)
			rs.DeletionTimestamp = &ts
		}
		if o.unobservedSpec {
			rs.Generation = 2
		}
		rss = append(rss, rs)
	}
	newRS := upRS(d, "foo-new", maxRev+1, 1, upNow.Add(-time.Minute), "")
	rss = append(rss, newRS)
	inSync(d, maxRev+1)
	// A complete rollout: everything updated and available.
	d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.AvailableReplicas, d.Status.ReadyReplicas = 1, 1, 1, 1
	return snapshot(d, rss...)
}

// TestUpstreamCleanupDeployment covers upstream
// TestDeploymentController_cleanupDeployment. Cleanup runs when a paused
// Deployment syncs, and after a complete rollout.
func TestUpstreamCleanupDeployment(t *testing.T) {
	cases := []struct {
		name  string
		olds  []cleanupRS
		limit int32
		want  []string
		// complete: the rollout path reaches cleanup (no active old RS).
		complete bool
	}{
		{
			name: "three empty, limit 1",
			olds: []cleanupRS{
				{name: "foo-1", revision: "1", created: upOlder},
				{name: "foo-2", revision: "2", created: upOlder.Add(time.Minute)},
				{name: "foo-3", revision: "3", created: upOlder.Add(2 * time.Minute)},
			},
			limit: 1, want: []string{"delete foo-1", "delete foo-2"}, complete: true,
		},
		{
			name: "only the one with spec and status replicas 0",
			olds: []cleanupRS{
				{name: "foo-1", spec: 0, status: 0, revision: "1", created: upOlder},
				{name: "foo-2", spec: 0, status: 1, revision: "2", created: upOlder.Add(time.Minute)},
				{name: "foo-3", spec: 1, status: 0, revision: "3", created: upOlder.Add(2 * time.Minute)},
				{name: "foo-4", spec: 1, status: 1, revision: "4", created: upOlder.Add(3 * time.Minute)},
			},
			limit: 0, want: []string{"delete foo-1"},
		},
		{
			name: "two empty, limit 0",
			olds: []cleanupRS{
				{name: "foo-1", revision: "1", created: upOlder},
				{name: "foo-2", revision: "2", created: upOlder.Add(time.Minute)},
			},
			limit: 0, want: []string{"delete foo-1", "delete foo-2"}, complete: true,
		},
		{
			name: "two with replicas, limit 0",
			olds: []cleanupRS{
				{name: "foo-1", spec: 1, status: 1, revision: "1", created: upOlder},
				{name: "foo-2", spec: 1, status: 1, revision: "2", created: upOlder.Add(time.Minute)},
			},
			limit: 0, want: nil,
		},
		{
			name:  "already being deleted",
			olds:  []cleanupRS{{name: "foo-1", revision: "1", created: upOlder, beingDeleted: true}},
			limit: 0, want: nil, complete: true,
		},
		{
			name: "unlimited revisionHistoryLimit",
			olds: []cleanupRS{
				{name: "foo-1", revision: "1", created: upOlder},
				{name: "foo-2", revision: "2", created: upOlder.Add(time.Minute)},
				{name: "foo-3", revision: "3", created: upOlder.Add(2 * time.Minute)},
			},
			limit: math.MaxInt32, want: nil, complete: true,
		},
		{
			// Not in upstream's table, but in the function it tests: a
			// ReplicaSet whose latest spec its controller has not observed
			// is kept.
			name: "unobserved generation is kept",
			olds: []cleanupRS{
				{name: "foo-1", revision: "1", created: upOlder, unobservedSpec: true},
				{name: "foo-2", revision: "2", created: upOlder.Add(time.Minute)},
			},
			limit: 0, want: []string{"delete foo-2"}, complete: true,
		},
	}
	for _, c := range cases {
		for _, paused := range []bool{true, false} {
			if !paused && !c.complete {
				continue
			}
			name := c.name + "/paused"
			if !paused {
				name = c.name + "/complete rollout"
			}
			t.Run(name, func(t *testing.T) {
				s := buildCleanup(c.limit, c.olds, paused)
				res := mustPlan(t, s)
				diffStrings(t, "deletions", c.want, onlyDeletes(res))
				for _, a := range res.Actions {
					if del, ok := a.(rollout.DeleteReplicaSet); ok {
						if del.UID != types.UID("uid-"+del.Name) || del.Namespace != upNS {
							t.Errorf("delete %s: namespace %q UID precondition %q", del.Name, del.Namespace, del.UID)
						}
					}
				}
			})
		}
	}
}

func onlyDeletes(res *rollout.Result) []string {
	var out []string
	for _, a := range actionStrings(res) {
		if strings.HasPrefix(a, "delete ") {
			out = append(out, a)
		}
	}
	return out
}

// TestUpstreamCleanupDeploymentOrder covers upstream
// TestDeploymentController_cleanupDeploymentOrder: the oldest revisions
// go first (a missing revision counts as 0), ReplicaSets with replicas are
// skipped without being replaced by the next one.
func TestUpstreamCleanupDeploymentOrder(t *testing.T) {
	now := upOld
	minute := time.Minute
	rs := func(name string, replicas int32, created time.Time, rev string) cleanupRS {
		return cleanupRS{name: name, spec: replicas, status: replicas, revision: rev, created: created}
	}
	cases := []struct {
		name  string
		olds  []cleanupRS
		limit int32
		want  []string
	}{
		{
			name:  "revision order rs1 < rs2: delete rs1",
			olds:  []cleanupRS{rs("foo-1", 0, now.Add(-minute), "1"), rs("foo-2", 0, now, "2")},
			limit: 1, want: []string{"delete foo-1"},
		},
		{
			name:  "revision order rs2 < rs1: delete rs2",
			olds:  []cleanupRS{rs("foo-1", 0, now.Add(-minute), "2"), rs("foo-2", 0, now, "1")},
			limit: 1, want: []string{"delete foo-2"},
		},
		{
			name:  "rs2 has no revision: delete rs2",
			olds:  []cleanupRS{rs("foo-1", 0, now.Add(-minute), "1"), rs("foo-2", 0, now, "")},
			limit: 1, want: []string{"delete foo-2"},
		},
		{
			name:  "rs1 has no revision: delete rs1",
			olds:  []cleanupRS{rs("foo-1", 0, now.Add(-minute), ""), rs("foo-2", 0, now, "2")},
			limit: 1, want: []string{"delete foo-1"},
		},
		{
			name:  "rs1 has replicas: delete rs2",
			olds:  []cleanupRS{rs("foo-1", 1, now.Add(-minute), "1"), rs("foo-2", 0, now, "2"), rs("foo-3", 0, now.Add(minute), "3")},
			limit: 1, want: []string{"delete foo-2"},
		},
		{
			name:  "rs1 and rs2 have replicas: delete nothing",
			olds:  []cleanupRS{rs("foo-1", 1, now.Add(-minute), "1"), rs("foo-2", 1, now, "2"), rs("foo-3", 0, now.Add(minute), "3")},
			limit: 1, want: nil,
		},
		{
			name: "revision order rs2 < rs4 < rs1 < rs3: delete rs2 and rs4",
			olds: []cleanupRS{
				rs("foo-1", 0, now.Add(-minute), "3"), rs("foo-2", 0, now, "1"),
				rs("foo-3", 0, now.Add(minute), "4"), rs("foo-4", 0, now.Add(2*minute), "2"),
			},
			limit: 2, want: []string{"delete foo-2", "delete foo-4"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := buildCleanup(c.limit, c.olds, true)
			res := mustPlan(t, s)
			got := onlyDeletes(res)
			// Upstream compares sets; we also fix the order: oldest revision first.
			diffStrings(t, "deletions", c.want, got)
		})
	}
}

// TestUpstreamGetReplicaSetFraction covers upstream TestGetReplicaSetFraction
// through proportional scaling of a scaling event (several active old
// ReplicaSets, last scaled for another size). A ReplicaSet's share is
// round(spec × (replicas + maxSurge) / max-replicas annotation) − spec; a
// missing or zero annotation falls back to the Deployment's
// status.replicas, and without that the share is 0 (the leftover rule
// decides).
func TestUpstreamGetReplicaSetFraction(t *testing.T) {
	cases := []struct {
		name            string
		replicas, surge int32
		statusReplicas  int32
		maxAnnotation   string // "" removes it
		sizes           []int32
		want            []int32
	}{
		{
			name:     "unsynced deployment does not scale when max-replicas annotation is missing",
			replicas: 12, sizes: []int32{5, 5},
			// No share for either; the leftover 2 goes to the first in
			// order: equal sizes, growing, so the newer.
			want: []int32{5, 7},
		},
		{
			name:     "unsynced deployment does not scale when max-replicas annotation is 0",
			replicas: 12, maxAnnotation: "0", sizes: []int32{5, 5},
			want: []int32{5, 7},
		},
		{
			name:     "scale up by 1/5 when max-replicas annotation is missing",
			replicas: 120, statusReplicas: 100, sizes: []int32{50, 50},
			want: []int32{60, 60},
		},
		{
			name:     "scale up by 1/5 when max-replicas annotation is 0",
			replicas: 120, statusReplicas: 100, maxAnnotation: "0", sizes: []int32{50, 50},
			want: []int32{60, 60},
		},
		{
			name:     "scale up by 1/5",
			replicas: 120, maxAnnotation: "100", sizes: []int32{50, 50},
			want: []int32{60, 60},
		},
		{
			// Each share is 9 (59.09 rounded); the 12 left over go to the newer.
			name:     "scale up with maxSurge by about 1/5",
			replicas: 120, surge: 10, maxAnnotation: "110", sizes: []int32{50, 50},
			want: []int32{59, 71},
		},
		{
			name:     "scale down by 1/6",
			replicas: 10, maxAnnotation: "12", sizes: []int32{6, 6},
			want: []int32{5, 5},
		},
		{
			// 50 × 110 / 130 = 42.3: −8 each for the two of 50; the one of
			// 30 would lose 5 but only 4 remain to remove.
			name:     "scale down with maxSurge by about 1/6",
			replicas: 100, surge: 10, maxAnnotation: "130", sizes: []int32{50, 50, 30},
			want: []int32{42, 42, 26},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := upDeployment(c.replicas, int(c.surge), 1)
			d.Spec.Template = withImage(d.Spec.Template, "foo/bar:next")
			var rss []*appsv1.ReplicaSet
			for i, size := range c.sizes {
				name := string(rune('a' + i))
				rs := upRS(d, "foo-"+name, i+1, size, upOlder.Add(time.Duration(i)*time.Minute), "foo/bar:"+name)
				rs.Annotations[annDesired] = "1" // last scaled for another size
				if c.maxAnnotation == "" {
					delete(rs.Annotations, annMax)
				} else {
					rs.Annotations[annMax] = c.maxAnnotation
				}
				rss = append(rss, rs)
			}
			inSync(d, 0)
			d.Status.Replicas = c.statusReplicas
			s := snapshot(d, rss...)
			res := mustPlan(t, s)
			sizes := sizesAfter(s, res)
			for i, want := range c.want {
				name := "foo-" + string(rune('a'+i))
				if sizes[name] != want {
					t.Errorf("%s: %d replicas, want %d", name, sizes[name], want)
				}
			}
		})
	}
}
