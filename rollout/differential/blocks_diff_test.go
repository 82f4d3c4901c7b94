package differential

// The building blocks of package rollout, each against the upstream
// v1.37.1 function of the same meaning (k8s.io/kubernetes/pkg/controller/
// deployment/util), on the blocks' generator (blocks_gen_test.go), used as
// the package documentation says: Params from ParamsOf, ReplicaSet values
// from ReplicaSetOf. The blocks upstream has no function for are compared
// with real syncs in blocks_sync_test.go.
//
//	go test -run 'TestBlock' .                               # CI: 2,000 cases each (300 for the syncs)
//	go test -run 'TestBlock' -rapid.checks=100000 -timeout 6h .

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"pgregory.net/rapid"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/klog/v2"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"
)

// blockCase is one drawn world, as objects and as the blocks' values.
type blockCase struct {
	w    *blockWorld
	d    *appsv1.Deployment
	rss  []*appsv1.ReplicaSet
	p    rollout.Params
	vals []rollout.ReplicaSet
}

func drawBlockCase(t *rapid.T) blockCase {
	w := genBlockWorld(t)
	base := time.Now().Truncate(time.Second)
	c := blockCase{w: w, d: w.deployment(base), rss: w.replicaSets(base)}
	var err error
	if c.p, err = rollout.ParamsOf(c.d); err != nil {
		t.Fatalf("ParamsOf refuses a Deployment the API server holds: %v", err)
	}
	for _, rs := range c.rss {
		v, err := rollout.ReplicaSetOf(rs)
		if err != nil {
			t.Fatalf("ReplicaSetOf refuses a ReplicaSet the API server holds: %v", err)
		}
		c.vals = append(c.vals, v)
	}
	return c
}

func TestBlockFenceposts(t *testing.T) {
	checks(t, 2000)
	rapid.Check(t, func(t *rapid.T) {
		c := drawBlockCase(t)
		s, u := c.p.Limits()
		if ws, wu := deploymentutil.MaxSurge(*c.d), deploymentutil.MaxUnavailable(*c.d); s != ws || u != wu {
			t.Fatalf("Limits = %d, %d; upstream MaxSurge, MaxUnavailable = %d, %d", s, u, ws, wu)
		}
		if got, want := c.p.MinAvailable(), deploymentutil.MinAvailable(c.d); got != want {
			t.Fatalf("MinAvailable = %d, upstream %d", got, want)
		}
	})
}

func TestBlockNewRSNewReplicas(t *testing.T) {
	checks(t, 2000)
	rapid.Check(t, func(t *rapid.T) {
		c := drawBlockCase(t)
		i := rapid.IntRange(0, len(c.rss)-1).Draw(t, "new")
		want, werr := deploymentutil.NewRSNewReplicas(c.d, slices.Clone(c.rss), c.rss[i])
		got, err := rollout.NewRSNewReplicas(&c.p, c.vals, i)
		if werr != nil {
			t.Fatalf("upstream fails on a valid Deployment: %v", werr)
		}
		if err != nil && !errors.Is(err, rollout.ErrOverflow) {
			t.Fatalf("NewRSNewReplicas: %v", err)
		}
		if got.Size != want {
			t.Fatalf("NewRSNewReplicas = %d (%s, %v), upstream %d", got.Size, got, err, want)
		}
		if (err != nil) != got.Overflow {
			t.Fatalf("error %v but Overflow %v", err, got.Overflow)
		}
	})
}

// FindNewReplicaSet and FindOldReplicaSets: the same objects, and the old
// ones in upstream's order (its look-up sorts the list it is given).
func TestBlockFindReplicaSets(t *testing.T) {
	checks(t, 2000)
	rapid.Check(t, func(t *rapid.T) {
		c := drawBlockCase(t)
		order := rapid.Permutation(c.rss).Draw(t, "order")
		if got, want := rollout.FindNewReplicaSet(c.d, order), deploymentutil.FindNewReplicaSet(c.d, slices.Clone(order)); got != want {
			t.Fatalf("FindNewReplicaSet = %v, upstream %v", nameOf(got), nameOf(want))
		}
		active, all := rollout.FindOldReplicaSets(c.d, order)
		wActive, wAll := deploymentutil.FindOldReplicaSets(c.d, slices.Clone(order))
		if !slices.Equal(active, wActive) || !slices.Equal(all, wAll) {
			t.Fatalf("FindOldReplicaSets = %v, %v; upstream %v, %v", names(active), names(all), names(wActive), names(wAll))
		}
	})
}

// ActiveOrLatest against FindActiveOrLatest, with the new ReplicaSet as
// upstream finds it (or none).
func TestBlockActiveOrLatest(t *testing.T) {
	checks(t, 2000)
	rapid.Check(t, func(t *rapid.T) {
		c := drawBlockCase(t)
		newRS := deploymentutil.FindNewReplicaSet(c.d, slices.Clone(c.rss))
		if rapid.IntRange(0, 3).Draw(t, "dropNew") == 0 {
			newRS = nil
		}
		var old []*appsv1.ReplicaSet
		var all []rollout.ReplicaSet
		var objs []*appsv1.ReplicaSet
		newIdx := -1
		for i, rs := range c.rss {
			if rs == newRS {
				continue
			}
			old = append(old, rs)
			all, objs = append(all, c.vals[i]), append(objs, rs)
		}
		if newRS != nil {
			v, _ := rollout.ReplicaSetOf(newRS)
			all, objs, newIdx = append(all, v), append(objs, newRS), len(all)
		}
		want := deploymentutil.FindActiveOrLatest(newRS, slices.Clone(old))
		i := rollout.ActiveOrLatest(all, newIdx)
		var got *appsv1.ReplicaSet
		if i >= 0 {
			got = objs[i]
		}
		if got != want {
			t.Fatalf("ActiveOrLatest = %s, upstream %s", nameOf(got), nameOf(want))
		}
	})
}

// IsSaturated through ReplicaSetOf, the desired-replicas annotation
// spelled every way.
func TestBlockIsSaturated(t *testing.T) {
	checks(t, 2000)
	rapid.Check(t, func(t *rapid.T) {
		c := drawBlockCase(t)
		i := rapid.IntRange(0, len(c.rss)-1).Draw(t, "rs")
		rs := c.rss[i]
		if rapid.Bool().Draw(t, "atSize") {
			// Make the sizes agree so that the annotation decides.
			rs.Spec.Replicas = ptr(c.w.replicas)
			rs.Status.AvailableReplicas = c.w.replicas
		}
		v, err := rollout.ReplicaSetOf(rs)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := rollout.IsSaturated(&c.p, &v), deploymentutil.IsSaturated(c.d, rs); got != want {
			t.Fatalf("IsSaturated = %v, upstream %v (desired-replicas %q)", got, want, rs.Annotations["deployment.kubernetes.io/desired-replicas"])
		}
	})
}

// Counts against upstream's sums, as calculateStatus composes them.
func TestBlockCounts(t *testing.T) {
	checks(t, 2000)
	rapid.Check(t, func(t *rapid.T) {
		c := drawBlockCase(t)
		newIdx := rapid.IntRange(-1, len(c.rss)-1).Draw(t, "new")
		got, err := rollout.Counts(c.vals, newIdx)
		if err != nil && !errors.Is(err, rollout.ErrOverflow) {
			t.Fatal(err)
		}
		available := deploymentutil.GetAvailableReplicaCountForReplicaSets(c.rss)
		want := rollout.StatusCounts{
			Replicas:            deploymentutil.GetActualReplicaCountForReplicaSets(c.rss),
			ReadyReplicas:       deploymentutil.GetReadyReplicaCountForReplicaSets(c.rss),
			AvailableReplicas:   available,
			UnavailableReplicas: max(deploymentutil.GetReplicaCountForReplicaSets(c.rss)-available, 0),
		}
		if newIdx >= 0 {
			want.UpdatedReplicas = deploymentutil.GetActualReplicaCountForReplicaSets([]*appsv1.ReplicaSet{c.rss[newIdx]})
		}
		if n := deploymentutil.GetTerminatingReplicaCountForReplicaSets(c.rss); n != nil {
			want.TerminatingReplicas, want.Terminating = *n, true
		}
		if got != want {
			t.Fatalf("Counts = %+v, upstream %+v", got, want)
		}
	})
}

// Complete, Progressing and TimedOut against DeploymentComplete,
// DeploymentProgressing and DeploymentTimedOut, the new status drawn apart
// from the Deployment's. TimedOut reads the clock upstream: ours is asked
// at the instants before and after, and a case whose deadline falls
// between them is drawn again.
func TestBlockStatusPredicates(t *testing.T) {
	checks(t, 2000)
	rapid.Check(t, func(t *rapid.T) {
		c := drawBlockCase(t)
		w2 := genBlockWorld(t)
		s := w2.deployment(time.Now().Truncate(time.Second)).Status
		if rapid.Bool().Draw(t, "sameStatus") {
			s = *c.d.Status.DeepCopy()
		}
		if got, want := rollout.Complete(&c.p, c.d.Generation, &s), deploymentutil.DeploymentComplete(c.d, &s); got != want {
			t.Fatalf("Complete = %v, upstream %v", got, want)
		}
		if got, want := rollout.Progressing(&c.d.Status, &s), deploymentutil.DeploymentProgressing(c.d, &s); got != want {
			t.Fatalf("Progressing = %v, upstream %v", got, want)
		}
		t0 := time.Now()
		want := deploymentutil.DeploymentTimedOut(quietCtx, c.d, &s)
		t1 := time.Now()
		early, late := rollout.TimedOut(&c.p, &s, t0), rollout.TimedOut(&c.p, &s, t1)
		if early != late {
			t.Skip("the deadline falls within the clock window")
		}
		if early != want {
			t.Fatalf("TimedOut = %v, upstream %v", early, want)
		}
	})
}

// Each ReplicaSet's share of a scaling event against
// GetReplicaSetProportion, in the order Proportions gives (upstream's),
// with the leftover on the first as upstream's scale adds it.
func TestBlockProportionPerReplicaSet(t *testing.T) {
	checks(t, 2000)
	rapid.Check(t, func(t *rapid.T) {
		c := drawBlockCase(t)
		if c.p.Strategy != appsv1.RollingUpdateDeploymentStrategyType {
			t.Skip("proportional scaling is RollingUpdate's")
		}
		var active []rollout.ReplicaSet
		var objs []*appsv1.ReplicaSet
		for i, v := range c.vals {
			if v.Replicas > 0 {
				active, objs = append(active, v), append(objs, c.rss[i])
			}
		}
		props, err := rollout.Proportions(&c.p, c.d.Status.Replicas, active, rollout.ProportionOptions{})
		if err != nil && !errors.Is(err, rollout.ErrOverflow) {
			t.Fatal(err)
		}
		toAdd := int32(props.ToAdd)
		added := int32(0)
		logger := klog.FromContext(quietCtx)
		for k, sh := range props.Shares {
			prop := deploymentutil.GetReplicaSetProportion(logger, objs[sh.Index], *c.d, toAdd, added)
			added += prop
			want := sh.From + prop
			if k > 0 && sh.To != want {
				t.Fatalf("share %d (%s): %d -> %d, upstream's proportion %+d gives %d\n%s", k, sh.Name, sh.From, sh.To, prop, want, props)
			}
		}
		if len(props.Shares) > 0 && toAdd != 0 {
			sh := props.Shares[0]
			prop := deploymentutil.GetReplicaSetProportion(logger, objs[sh.Index], *c.d, toAdd, 0)
			want := max(sh.From+prop+(toAdd-added), 0)
			if sh.To != want {
				t.Fatalf("first share (%s): %d -> %d, upstream gives %d\n%s", sh.Name, sh.From, sh.To, want, props)
			}
		}
		// The allowed size as upstream's scale computes it.
		allowed := int32(0)
		if *c.d.Spec.Replicas > 0 {
			allowed = *c.d.Spec.Replicas + deploymentutil.MaxSurge(*c.d)
		}
		if int32(props.Allowed) != allowed || props.MaxReplicas != *c.d.Spec.Replicas+deploymentutil.MaxSurge(*c.d) {
			t.Fatalf("allowed %d and max-replicas %d, upstream %d and %d", props.Allowed, props.MaxReplicas, allowed, *c.d.Spec.Replicas+deploymentutil.MaxSurge(*c.d))
		}
	})
}

func nameOf(rs *appsv1.ReplicaSet) string {
	if rs == nil {
		return "<none>"
	}
	return rs.Name
}

func names(rss []*appsv1.ReplicaSet) []string {
	out := []string{}
	for _, rs := range rss {
		out = append(out, nameOf(rs))
	}
	return out
}
