package differential

// The blocks upstream has no function for, against real syncs of the
// v1.37.1 controller built so that the sync takes that decision: the
// blocks' generator gives a Deployment whose ReplicaSets are all its own
// and match its selector (nothing to adopt or release), not paused, no
// rollback annotation, so that a sync is a scaling event (proportional
// scaling: ActiveOrLatest, IsSaturated, Proportions composed as the
// package documentation says) or a RollingUpdate step (RollingStep; and
// MaxScaledDown, CleanupUnhealthy and ScaleDownOld composed as its
// documentation says) followed, when nothing scaled and the rollout is
// complete, by the history cleanup (HistoryToDelete). What is compared is
// what the sync leaves: every ReplicaSet's size and which ones it deleted.
// A sync that writes nothing is compared with RequeueAfter.

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/revision"
	"github.com/deploymath/deploymath/rollout"
	"pgregory.net/rapid"

	appsv1 "k8s.io/api/apps/v1"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"
)

// leftState is what a sync leaves: the ReplicaSets' sizes and the deleted
// ones.
type leftState struct {
	Sizes   map[string]int32
	Deleted []string
}

func outcomeOf(before, after []*appsv1.ReplicaSet) leftState {
	o := leftState{Sizes: map[string]int32{}}
	for _, rs := range after {
		o.Sizes[rs.Name] = *rs.Spec.Replicas
	}
	for _, rs := range before {
		if _, ok := o.Sizes[rs.Name]; !ok {
			o.Deleted = append(o.Deleted, rs.Name)
		}
	}
	sort.Strings(o.Deleted)
	return o
}

func (o leftState) String() string {
	var parts []string
	for _, n := range slices.Sorted(mapsKeys(o.Sizes)) {
		parts = append(parts, fmt.Sprintf("%s=%d", n, o.Sizes[n]))
	}
	return strings.Join(parts, " ") + " deleted " + fmt.Sprint(o.Deleted)
}

func mapsKeys(m map[string]int32) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// expected is what the blocks decide for the objects d and rss as the
// controller reads them, and which blocks decided it.
func expected(t *rapid.T, d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (leftState, string) {
	p, err := rollout.ParamsOf(d)
	if err != nil {
		t.Fatal(err)
	}
	o := leftState{Sizes: map[string]int32{}}
	for _, rs := range rss {
		o.Sizes[rs.Name] = *rs.Spec.Replicas
	}
	// write sets a size as the API server would: a negative one is
	// refused, and the sync stops there.
	stopped := false
	write := func(name string, size int32) {
		if stopped {
			return
		}
		if size < 0 {
			stopped = true
			return
		}
		o.Sizes[name] = size
	}
	valueOf := func(rs *appsv1.ReplicaSet) rollout.ReplicaSet {
		v, err := rollout.ReplicaSetOf(rs)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	newRS := rollout.FindNewReplicaSet(d, rss)
	_, old := rollout.FindOldReplicaSets(d, rss)

	if scalingEvent(d, rss) {
		// ActiveOrLatest, IsSaturated, Proportions, as the package doc
		// composes them; upstream's look-up orders the old ones newest
		// first.
		var all []rollout.ReplicaSet
		objs := slices.Clone(old)
		slices.Reverse(objs)
		for _, rs := range objs {
			all = append(all, valueOf(rs))
		}
		newIdx := -1
		if newRS != nil {
			all, objs, newIdx = append(all, valueOf(newRS)), append(objs, newRS), len(all)
		}
		if i := rollout.ActiveOrLatest(all, newIdx); i >= 0 {
			write(objs[i].Name, p.Replicas)
			return o, "scaling event: ActiveOrLatest|"
		}
		if newRS != nil && rollout.IsSaturated(&p, &all[newIdx]) {
			for i, v := range all {
				if i != newIdx && v.Replicas > 0 {
					write(objs[i].Name, 0)
				}
			}
			return o, "scaling event: IsSaturated|"
		}
		if p.Strategy != appsv1.RollingUpdateDeploymentStrategyType {
			return o, "scaling event: Recreate, nothing|"
		}
		var active []rollout.ReplicaSet
		var activeObjs []*appsv1.ReplicaSet
		for i, v := range all {
			if v.Replicas > 0 {
				active, activeObjs = append(active, v), append(activeObjs, objs[i])
			}
		}
		props, err := rollout.Proportions(&p, d.Status.Replicas, active, rollout.ProportionOptions{})
		if err != nil && !errors.Is(err, rollout.ErrOverflow) {
			t.Fatal(err)
		}
		for _, s := range props.Shares {
			write(activeObjs[s.Index].Name, s.To)
		}
		return o, "scaling event: Proportions|" + props.String()
	}
	if p.Strategy != appsv1.RollingUpdateDeploymentStrategyType || newRS == nil {
		t.Skip("not a RollingUpdate step of an existing new ReplicaSet")
	}
	var oldVals []rollout.ReplicaSet
	for _, rs := range old {
		oldVals = append(oldVals, valueOf(rs))
	}
	var r rollout.Rolling
	err = rollout.RollingStep(&r, &p, append(slices.Clone(oldVals), valueOf(newRS)), len(oldVals))
	if err != nil && !errors.Is(err, rollout.ErrOverflow) && len(r.Cleanup.Steps) == 0 && !strings.Contains(err.Error(), "invalid request") {
		t.Fatal(err)
	}
	if !r.ScaleNew {
		// MaxScaledDown, CleanupUnhealthy and ScaleDownOld composed as
		// their documentation says give RollingStep's steps.
		if got, want := composedOld(t, p, valueOf(newRS), oldVals), r.Cleanup.Steps; !slices.Equal(got.cleanup, want) || !slices.Equal(got.down, r.ScaleDown.Steps) {
			t.Fatalf("MaxScaledDown + CleanupUnhealthy + ScaleDownOld give %v then %v; RollingStep %v then %v", got.cleanup, got.down, want, r.ScaleDown.Steps)
		}
	}
	if r.ScaleNew {
		write(newRS.Name, r.NewRS.To)
		return o, "RollingStep: new replica set|" + r.String()
	}
	for _, st := range append(slices.Clone(r.Cleanup.Steps), r.ScaleDown.Steps...) {
		write(old[st.Index].Name, st.To)
	}
	if len(r.Cleanup.Steps)+len(r.ScaleDown.Steps) > 0 {
		return o, "RollingStep: old replica sets|" + r.String()
	}
	if !rollout.Complete(&p, d.Generation, &d.Status) {
		return o, "RollingStep: nothing|" + r.String()
	}
	h, err := rollout.HistoryToDelete(&p, oldVals)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range h.Delete {
		o.Deleted = append(o.Deleted, old[i].Name)
		delete(o.Sizes, old[i].Name)
	}
	sort.Strings(o.Deleted)
	return o, "RollingStep: nothing, then HistoryToDelete|" + h.String()
}

type oldSteps struct{ cleanup, down []rollout.Step }

// composedOld is the old ReplicaSets' scale-down from the three blocks, as
// their documentation composes them: the budget of MaxScaledDown over all
// ReplicaSets, CleanupUnhealthy over the old ones with a size above 0,
// then ScaleDownOld over those with the sizes the cleanup left. Step
// indexes are positions in old.
func composedOld(t *rapid.T, p rollout.Params, newRS rollout.ReplicaSet, old []rollout.ReplicaSet) oldSteps {
	var out oldSteps
	all := append(slices.Clone(old), newRS)
	b, err := rollout.MaxScaledDown(&p, all, len(old))
	if err != nil && !errors.Is(err, rollout.ErrOverflow) {
		t.Fatal(err)
	}
	if b.MaxScaledDown() <= 0 {
		return out
	}
	var active []rollout.ReplicaSet
	var at []int
	for i, v := range old {
		if v.Replicas > 0 {
			active, at = append(active, v), append(at, i)
		}
	}
	c, err := rollout.CleanupUnhealthy(nil, active, b.MaxScaledDown())
	for _, st := range c.Steps {
		active[st.Index].Replicas = st.To
		st.Index = at[st.Index]
		out.cleanup = append(out.cleanup, st)
	}
	if err != nil {
		return out // upstream writes the steps before the error, then stops
	}
	d, err := rollout.ScaleDownOld(nil, &p, active, &newRS)
	for _, st := range d.Steps {
		st.Index = at[st.Index]
		out.down = append(out.down, st)
	}
	if err != nil && !errors.Is(err, rollout.ErrOverflow) {
		return out
	}
	return out
}

// completeMode makes the rollout complete (the new ReplicaSet k at replicas,
// all available, the status saying so, the old ones at 0 mostly with no
// pods and observed), so that the sync reaches the history cleanup.
func completeMode(t *rapid.T, w *blockWorld, k int) {
	r := w.replicas
	w.status = appsv1.DeploymentStatus{ObservedGeneration: w.gen, Replicas: r, UpdatedReplicas: r, ReadyReplicas: r, AvailableReplicas: r}
	w.limit = ptr(rapid.Int32Range(0, 3).Draw(t, "limit"))
	for i := range w.rss {
		rs := &w.rss[i]
		if i == k {
			rs.replicas = r
			rs.status.Replicas, rs.status.ReadyReplicas, rs.status.AvailableReplicas = r, r, r
			rs.ann["deployment.kubernetes.io/desired-replicas"] = strconv.Itoa(int(r))
			continue
		}
		rs.replicas = 0
		if rapid.IntRange(0, 4).Draw(t, "oldHasPods") > 0 {
			rs.status.Replicas, rs.status.ReadyReplicas, rs.status.AvailableReplicas = 0, 0, 0
		}
		if rapid.IntRange(0, 4).Draw(t, "oldObserved") > 0 {
			rs.status.ObservedGeneration = rs.generation
		}
	}
}

// saturatedMode makes the new ReplicaSet k saturated (at replicas, all
// available, its desired-replicas annotation equal to replicas as
// upstream's IsSaturated reads it, in any spelling) and another one active
// with a stale annotation, so that a scaling event reaches IsSaturated.
func saturatedMode(t *rapid.T, w *blockWorld, k int) {
	if len(w.rss) < 2 || w.replicas == 0 {
		return
	}
	r := w.replicas
	rs := &w.rss[k]
	rs.replicas = r
	rs.status.Replicas, rs.status.ReadyReplicas, rs.status.AvailableReplicas = r, r, r
	rs.ann["deployment.kubernetes.io/desired-replicas"] = rapid.SampledFrom([]string{
		strconv.Itoa(int(r)), "+" + strconv.Itoa(int(r)), "00" + strconv.Itoa(int(r)), strconv.FormatInt(int64(r)+1<<32, 10)}).Draw(t, "saturatedDesired")
	j := (k + 1 + rapid.IntRange(0, len(w.rss)-2).Draw(t, "staleOther")) % len(w.rss)
	w.rss[j].replicas = max(w.rss[j].replicas, 1)
	w.rss[j].status.Replicas = min(w.rss[j].status.Replicas, w.rss[j].replicas)
	w.rss[j].status.ReadyReplicas = min(w.rss[j].status.ReadyReplicas, w.rss[j].status.Replicas)
	w.rss[j].status.AvailableReplicas = min(w.rss[j].status.AvailableReplicas, w.rss[j].status.ReadyReplicas)
	w.rss[j].ann["deployment.kubernetes.io/desired-replicas"] = strconv.Itoa(int(r) - 1)
}

// scalingEvent reports whether a sync of d is a scaling event: an active
// ReplicaSet's desired-replicas annotation, read as upstream's check reads
// it (revision.DesiredReplicas), differs from replicas.
func scalingEvent(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) bool {
	for _, rs := range rss {
		if *rs.Spec.Replicas == 0 {
			continue
		}
		if n, ok := revision.DesiredReplicas(rs); ok && n != *d.Spec.Replicas {
			return true
		}
	}
	return false
}

// TestBlockSync compares what one real sync leaves with what the blocks
// decide, and, when a sync writes nothing, its requeue with RequeueAfter.
func TestBlockSync(t *testing.T) {
	checks(t, 300)
	u := controller()
	paths := map[string]int{}
	defer func() { t.Logf("cases by the blocks that decided: %v", paths) }()
	rapid.Check(t, func(t *rapid.T) {
		w := genBlockWorld(t)
		if rapid.IntRange(0, 3).Draw(t, "withNew") > 0 {
			// Most often one ReplicaSet has the Deployment's template.
			w.dTemplate = w.rss[rapid.IntRange(0, len(w.rss)-1).Draw(t, "newIndex")].template
		}
		// The new ReplicaSet (the oldest with the Deployment's template)
		// has its revision in sync: above every other one, or
		// unparsable. A sync that first records a revision on it sends a
		// stale object when it scales it (a conflict, which is Plan's
		// business, measured by TestSingleSync, not a block's).
		if k := w.newIndex(); k >= 0 && w.rss[k].ann["deployment.kubernetes.io/revision"] != "x" {
			top := 0
			for i, rs := range w.rss {
				if n, err := strconv.Atoi(rs.ann["deployment.kubernetes.io/revision"]); err == nil && i != k {
					top = max(top, n)
				}
			}
			w.rss[k].ann["deployment.kubernetes.io/revision"] = strconv.Itoa(top + 1 + rapid.IntRange(0, 1).Draw(t, "newRevisionAhead"))
		}
		if k := w.newIndex(); k >= 0 {
			switch rapid.IntRange(0, 5).Draw(t, "mode") {
			case 0:
				completeMode(t, w, k)
			case 1:
				saturatedMode(t, w, k)
			}
		}
		base := clock().Truncate(time.Second)
		srv := w.world().build(base)
		d, rss := srv.deployments()[0], srv.replicaSets()
		want, how := expected(t, d, rss)
		paths[strings.SplitN(how, "|", 2)[0]]++
		upstreamStep(u, srv)
		if got := outcomeOf(rss, srv.replicaSets()); !outcomeEqual(got, want) {
			t.Fatalf("the real sync leaves\n  %s\nthe blocks decide\n  %s\n(%s)\nwrites: %v", got, want, how, srv.log)
		}
		paths[checkRequeue(t, u, srv)]++
	})
}

func outcomeEqual(a, b leftState) bool {
	if len(a.Sizes) != len(b.Sizes) || !slices.Equal(a.Deleted, b.Deleted) {
		return false
	}
	for k, v := range a.Sizes {
		if w, ok := b.Sizes[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// checkRequeue syncs srv again until a sync writes nothing (at most
// three), and compares that sync's requeue with RequeueAfter of the
// objects it read, at the instants before and after it.
func checkRequeue(t *rapid.T, u *upstream, srv *server) string {
	for range 3 {
		d, rss := srv.deployments()[0], srv.replicaSets()
		t0 := clock()
		st := upstreamStep(u, srv)
		t1 := clock()
		if len(st.Writes) > 0 || st.Failed {
			continue
		}
		if scalingEvent(d, rss) {
			// Scaling events end with a status write, never a requeue.
			if st.RateLimited || st.After != 0 {
				t.Fatalf("a scaling event that writes nothing requeues: after %v, rate-limited %v", st.After, st.RateLimited)
			}
			return "requeue: scaling event, none"
		}
		p, err := rollout.ParamsOf(d)
		if err != nil {
			t.Fatal(err)
		}
		cond := deploymentCondition(d)
		complete := rollout.Complete(&p, d.Generation, &d.Status)
		early, late := rollout.RequeueAfter(&p, complete, cond, t0), rollout.RequeueAfter(&p, complete, cond, t1)
		if early.RateLimited != late.RateLimited || (early.After == 0) != (late.After == 0) {
			return "requeue: clock window" // the deadline falls within it
		}
		if st.RateLimited != early.RateLimited || (st.After == 0) != (early.After == 0) ||
			st.After != 0 && (st.After > early.After || st.After < late.After) {
			t.Fatalf("requeue: upstream after %v (rate-limited %v); RequeueAfter %+v..%+v", st.After, st.RateLimited, late, early)
		}
		return fmt.Sprintf("requeue: RequeueAfter (rate-limited %v, after %v)", early.RateLimited, early.After != 0)
	}
	return "requeue: every sync wrote"
}

func deploymentCondition(d *appsv1.Deployment) *appsv1.DeploymentCondition {
	return deploymentutil.GetDeploymentCondition(d.Status, appsv1.DeploymentProgressing)
}
