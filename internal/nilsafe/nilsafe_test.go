package nilsafe_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/fencepost"
	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/internal/apirules"
	"github.com/deploymath/deploymath/restart"
	"github.com/deploymath/deploymath/revision"
	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/rollout/defaulting"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Zero values and nils of every shape the functions take.
var (
	nilD   *appsv1.Deployment
	zeroD  = func() *appsv1.Deployment { return &appsv1.Deployment{} }
	nilRS  *appsv1.ReplicaSet
	zeroRS = func() *appsv1.ReplicaSet { return &appsv1.ReplicaSet{} }
	// rsLists: nil, empty, and lists holding nil and zero ReplicaSets.
	rsLists = func() [][]*appsv1.ReplicaSet {
		return [][]*appsv1.ReplicaSet{nil, {}, {nil}, {zeroRS()}, {nil, zeroRS(), nil}}
	}
	pods = func() [][]*corev1.Pod { return [][]*corev1.Pod{nil, {nil}, {{}}} }
	// deployments: nil, zero, and zero-but-for one field the code may read
	// through (strategy, status conditions without times).
	deployments = func() []*appsv1.Deployment {
		withRU := zeroD()
		withRU.Spec.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
		withRU.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		withReplicas := zeroD()
		withReplicas.Spec.Replicas = new(int32)
		withReplicas.Spec.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
		withCond := zeroD()
		withCond.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing}}
		return []*appsv1.Deployment{nilD, zeroD(), withRU, withReplicas, withCond}
	}
	templates = []*corev1.PodTemplateSpec{nil, {}}
	intstrs   = []*intstr.IntOrString{nil, {}, {Type: intstr.String}}
	now       = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	times     = []time.Time{{}, now}
	objects   = func() []runtime.Object {
		return []runtime.Object{nil, nilD, nilRS, (*corev1.ConfigMap)(nil), (*corev1.Secret)(nil), zeroD(), &corev1.ConfigMap{}, &corev1.Secret{}, &appsv1.StatefulSet{}, &appsv1.DaemonSet{}, (*appsv1.StatefulSet)(nil), (*appsv1.DaemonSet)(nil), &corev1.Pod{}}
	}
	values     = [][]rollout.ReplicaSet{nil, {}, {{}}, {{}, {}}}
	statuses   = []*appsv1.DeploymentStatus{nil, {}}
	conditions = []*appsv1.DeploymentCondition{nil, {}, {Reason: rollout.TimedOutReason}}
	params     = []rollout.Params{{}, {Strategy: appsv1.RollingUpdateDeploymentStrategyType}, {ProgressDeadlineSeconds: new(int32), RevisionHistoryLimit: new(int32)}}
)

// calls holds, per exported function or method ("pkg.Func",
// "pkg.Type.Method"), a call of it with zero values and nils. Each is run
// and must return without a panic; results are ignored (errors are the
// right answer to most of these inputs).
func calls() map[string]func() {
	c := map[string]func(){}
	// fencepost
	c["fencepost.Limits"] = func() {
		for _, d := range deployments() {
			fencepost.Limits(d)
		}
	}
	c["fencepost.MaxSurge"] = func() {
		for _, d := range deployments() {
			fencepost.MaxSurge(d)
		}
	}
	c["fencepost.MaxUnavailable"] = func() {
		for _, d := range deployments() {
			fencepost.MaxUnavailable(d)
		}
	}
	c["fencepost.MinAvailable"] = func() {
		for _, d := range deployments() {
			fencepost.MinAvailable(d)
		}
	}
	c["fencepost.Resolve"] = func() {
		for _, a := range intstrs {
			for _, b := range intstrs {
				fencepost.Resolve("", 0, a, b)
				fencepost.Resolve(appsv1.RollingUpdateDeploymentStrategyType, 0, a, b)
			}
		}
	}
	c["fencepost.ResolveFenceposts"] = func() {
		for _, a := range intstrs {
			for _, b := range intstrs {
				_, _, _ = fencepost.ResolveFenceposts(a, b, 0)
			}
		}
	}
	c["fencepost.Scaled"] = func() {
		for _, a := range intstrs {
			_, _ = fencepost.Scaled(a, 0, true)
		}
	}
	c["fencepost.Validate"] = func() {
		for _, d := range deployments() {
			_ = fencepost.Validate(d)
		}
	}
	// hashing
	c["hashing.EqualIgnoreHash"] = func() {
		for _, a := range templates {
			for _, b := range templates {
				hashing.EqualIgnoreHash(a, b)
			}
		}
	}
	c["hashing.LabelsWithHash"] = func() { hashing.LabelsWithHash(nil, "") }
	c["hashing.LabelsWithoutHash"] = func() { hashing.LabelsWithoutHash(nil) }
	c["hashing.PodTemplateHash"] = func() {
		for _, t := range templates {
			hashing.PodTemplateHash(t, nil)
			hashing.PodTemplateHash(t, new(int32))
		}
	}
	c["hashing.SelectorWithHash"] = func() {
		hashing.SelectorWithHash(nil, "")
		hashing.SelectorWithHash(&metav1.LabelSelector{}, "")
	}
	c["hashing.TemplateWithHash"] = func() {
		for _, t := range templates {
			hashing.TemplateWithHash(t, "")
		}
	}
	// revision
	c["revision.AnnotationsForRollback"] = func() {
		for _, d := range deployments() {
			revision.AnnotationsForRollback(d, nil)
			revision.AnnotationsForRollback(d, zeroRS())
		}
	}
	c["revision.ByRevision"] = func() {
		for _, l := range rsLists() {
			revision.ByRevision(l)
		}
	}
	c["revision.DescribeHistory"] = func() {
		revision.DescribeHistory(nil)
		revision.DescribeHistory([]revision.Entry{{}})
	}
	c["revision.DesiredReplicas"] = func() { revision.DesiredReplicas(nil); revision.DesiredReplicas(zeroRS()) }
	c["revision.LastRevision"] = func() {
		for _, l := range rsLists() {
			revision.LastRevision(l)
		}
	}
	c["revision.MaxReplicas"] = func() { revision.MaxReplicas(nil); revision.MaxReplicas(zeroRS()) }
	c["revision.MaxRevision"] = func() {
		for _, l := range rsLists() {
			revision.MaxRevision(l)
		}
	}
	c["revision.NewReplicaSetAnnotations"] = func() {
		for _, d := range deployments() {
			for _, rs := range []*appsv1.ReplicaSet{nil, zeroRS()} {
				revision.NewReplicaSetAnnotations(d, rs, "", false, 0)
				revision.NewReplicaSetAnnotations(d, rs, "1", true, -1)
			}
		}
	}
	c["revision.Next"] = func() {
		for _, l := range rsLists() {
			revision.Next(l)
		}
	}
	c["revision.ReplicasAnnotations"] = func() { revision.ReplicasAnnotations(nil, 0, 0) }
	c["revision.ReplicasAnnotationsNeedUpdate"] = func() { revision.ReplicasAnnotationsNeedUpdate(nil, 0, 0) }
	c["revision.Revision"] = func() {
		_, _ = revision.Revision(nil)
		_, _ = revision.Revision(nilRS)
		_, _ = revision.Revision(nilD)
		_, _ = revision.Revision(zeroRS())
	}
	c["revision.SkipCopy"] = func() { sink = revision.SkipCopy("") }
	c["revision.WithRevision"] = func() { revision.WithRevision(nil, "") }
	c["revision.History"] = func() {
		for _, d := range deployments() {
			for _, l := range rsLists() {
				_, _ = revision.History(d, l)
			}
		}
	}
	c["revision.RollbackTarget"] = func() {
		for _, d := range deployments() {
			for _, l := range rsLists() {
				_, _ = revision.RollbackTarget(d, l, 0)
				_, _ = revision.RollbackTarget(d, l, 1)
			}
		}
	}
	c["revision.Rollback.Apply"] = func() {
		for _, d := range deployments() {
			revision.Rollback{}.Apply(d)
		}
	}
	// rollout: the building blocks
	c["rollout.ActiveOrLatest"] = func() {
		for _, v := range values {
			for _, i := range []int{-2, -1, 0, 1, 5} {
				rollout.ActiveOrLatest(v, i)
			}
		}
	}
	c["rollout.Complete"] = func() {
		for _, p := range params {
			for _, s := range statuses {
				rollout.Complete(&p, 0, s)
			}
		}
	}
	c["rollout.Default"] = func() {
		for _, d := range deployments() {
			rollout.Default(d)
		}
	}
	c["rollout.FindNewReplicaSet"] = func() {
		for _, d := range deployments() {
			for _, l := range rsLists() {
				rollout.FindNewReplicaSet(d, l)
			}
		}
	}
	c["rollout.FindOldReplicaSets"] = func() {
		for _, d := range deployments() {
			for _, l := range rsLists() {
				rollout.FindOldReplicaSets(d, l)
			}
		}
	}
	c["rollout.IsSaturated"] = func() {
		for _, p := range params {
			rollout.IsSaturated(&p, &rollout.ReplicaSet{})
			rollout.IsSaturated(&p, nil)
			rollout.IsSaturated(nil, nil)
		}
	}
	c["rollout.Progressing"] = func() {
		for _, a := range statuses {
			for _, b := range statuses {
				rollout.Progressing(a, b)
			}
		}
	}
	c["rollout.TimedOut"] = func() {
		for _, p := range params {
			for _, s := range statuses {
				for _, t := range times {
					rollout.TimedOut(&p, s, t)
				}
			}
		}
	}
	c["rollout.Validate"] = func() {
		for _, d := range deployments() {
			_ = rollout.Validate(d)
		}
	}
	c["rollout.MaxScaledDown"] = func() {
		for _, p := range params {
			for _, v := range values {
				_, _ = rollout.MaxScaledDown(&p, v, 0)
				_, _ = rollout.MaxScaledDown(&p, v, -1)
			}
		}
	}
	c["rollout.HistoryToDelete"] = func() {
		for _, p := range params {
			for _, v := range values {
				_, _ = rollout.HistoryToDelete(&p, v)
			}
		}
	}
	c["rollout.ParamsOf"] = func() {
		for _, d := range deployments() {
			_, _ = rollout.ParamsOf(d)
		}
	}
	c["rollout.Proportions"] = func() {
		for _, p := range params {
			for _, v := range values {
				_, _ = rollout.Proportions(&p, 0, v, rollout.ProportionOptions{})
				_, _ = rollout.Proportions(&p, 0, v, rollout.ProportionOptions{Wide: true, Shares: []rollout.Share{}})
			}
		}
	}
	c["rollout.ReplicaSetOf"] = func() { _, _ = rollout.ReplicaSetOf(nil); _, _ = rollout.ReplicaSetOf(zeroRS()) }
	c["rollout.RequeueAfter"] = func() {
		for _, p := range params {
			for _, cond := range conditions {
				for _, t := range times {
					rollout.RequeueAfter(&p, false, cond, t)
				}
			}
		}
	}
	c["rollout.RollingStep"] = func() {
		for _, p := range params {
			for _, v := range values {
				var r rollout.Rolling
				_ = rollout.RollingStep(&r, &p, v, 0)
				_ = rollout.RollingStep(&r, &p, v, len(v))
				_ = rollout.RollingStep(&r, &p, append(slices.Clone(v), rollout.ReplicaSet{}), len(v))
				_ = rollout.RollingStep(nil, &p, v, 0)
				_ = rollout.RollingStep(&r, nil, v, 0)
			}
		}
	}
	c["rollout.NewRSNewReplicas"] = func() {
		for _, p := range params {
			for _, v := range values {
				_, _ = rollout.NewRSNewReplicas(&p, v, 0)
				_, _ = rollout.NewRSNewReplicas(&p, v, len(v))
			}
		}
	}
	c["rollout.Counts"] = func() {
		for _, v := range values {
			for _, i := range []int{-2, -1, 0, 1} {
				_, _ = rollout.Counts(v, i)
			}
		}
	}
	c["rollout.CleanupUnhealthy"] = func() {
		for _, v := range values {
			_, _ = rollout.CleanupUnhealthy(nil, v, 0)
			_, _ = rollout.CleanupUnhealthy(nil, v, 1)
		}
	}
	c["rollout.ScaleDownOld"] = func() {
		for _, p := range params {
			for _, v := range values {
				_, _ = rollout.ScaleDownOld(nil, &p, v, &rollout.ReplicaSet{})
				_, _ = rollout.ScaleDownOld(nil, &p, v, nil)
				_, _ = rollout.ScaleDownOld(nil, nil, v, nil)
			}
		}
	}
	// rollout: values' methods
	c["rollout.Params.HasHistoryLimit"] = func() { rollout.Params{}.HasHistoryLimit() }
	c["rollout.Params.HasProgressDeadline"] = func() { rollout.Params{}.HasProgressDeadline() }
	c["rollout.Params.Limits"] = func() {
		for _, p := range params {
			p.Limits()
		}
	}
	c["rollout.Params.MinAvailable"] = func() {
		for _, p := range params {
			p.MinAvailable()
		}
	}
	c["rollout.Budget.String"] = func() { _ = rollout.Budget{}.String() }
	c["rollout.Budget.MaxScaledDown"] = func() {
		_ = rollout.Budget{}.MaxScaledDown()
		_ = rollout.Budget{AllPods: math.MinInt32, MinAvailable: math.MaxInt32, OldPods: 1}.MaxScaledDown()
	}
	c["rollout.History.String"] = func() { _ = rollout.History{}.String() }
	c["rollout.History.Excess"] = func() { _ = rollout.History{Limit: math.MaxInt32}.Excess() }
	c["rollout.Proportional.String"] = func() {
		_ = rollout.Proportional{}.String()
		_ = rollout.Proportional{Shares: []rollout.Share{{}}}.String()
	}
	c["rollout.Proportional.Head"] = func() {
		_ = rollout.Proportional{}.Head()
		_ = rollout.Proportional{DesiredReplicas: 1, Overflow: true}.Head()
	}
	c["rollout.Rolling.String"] = func() {
		_ = rollout.Rolling{}.String()
		_ = rollout.Rolling{ScaleNew: true, Sized: true, Budgeted: true}.String()
	}
	c["rollout.Share.String"] = func() {
		for _, from := range []string{"", "zero", "none", "nothing", "annotation", "status"} {
			_ = rollout.Share{BaseFrom: from}.String()
		}
	}
	c["rollout.Sizing.String"] = func() {
		_ = rollout.Sizing{}.String()
		_ = rollout.Sizing{Recreate: true}.String()
		_ = rollout.Sizing{MaxTotal: 1}.String()
	}
	c["rollout.Steps.String"] = func() { _ = rollout.Steps{}.String(); _ = rollout.Steps{Steps: []rollout.Step{{}}}.String() }
	c["rollout.Event.String"] = func() { _ = rollout.Event{}.String() }
	c["rollout.AdoptReplicaSet.Explain"] = func() { _ = rollout.AdoptReplicaSet{}.Explain() }
	c["rollout.CreateReplicaSet.Explain"] = func() {
		_ = rollout.CreateReplicaSet{}.Explain()
		_ = rollout.CreateReplicaSet{ReplicaSet: zeroRS()}.Explain()
	}
	c["rollout.DeleteReplicaSet.Explain"] = func() { _ = rollout.DeleteReplicaSet{}.Explain() }
	c["rollout.ReleaseReplicaSet.Explain"] = func() { _ = rollout.ReleaseReplicaSet{}.Explain() }
	c["rollout.ScaleReplicaSet.Explain"] = func() {
		_ = rollout.ScaleReplicaSet{}.Explain()
		_ = rollout.ScaleReplicaSet{ReplicaSet: zeroRS()}.Explain()
	}
	c["rollout.UpdateDeployment.Explain"] = func() {
		_ = rollout.UpdateDeployment{}.Explain()
		_ = rollout.UpdateDeployment{Deployment: zeroD()}.Explain()
	}
	c["rollout.UpdateDeploymentStatus.Explain"] = func() {
		_ = rollout.UpdateDeploymentStatus{}.Explain()
		_ = rollout.UpdateDeploymentStatus{Deployment: zeroD()}.Explain()
	}
	c["rollout.UpdateReplicaSet.Explain"] = func() {
		_ = rollout.UpdateReplicaSet{}.Explain()
		_ = rollout.UpdateReplicaSet{ReplicaSet: zeroRS()}.Explain()
	}
	c["rollout.Result.Explain"] = func() {
		_ = (*rollout.Result)(nil).Explain()
		_ = (&rollout.Result{}).Explain()
		_ = (&rollout.Result{Actions: []rollout.Action{nil, rollout.ScaleReplicaSet{}, rollout.CreateReplicaSet{}, rollout.UpdateDeployment{}}, Events: []rollout.Event{{}}}).Explain()
	}
	// rollout: planning, applying, executing
	snapshots := func() []rollout.Snapshot {
		var out []rollout.Snapshot
		for _, d := range deployments() {
			for _, l := range rsLists() {
				for _, p := range pods() {
					out = append(out, rollout.Snapshot{Deployment: d, ReplicaSets: l, Pods: p, Now: now})
				}
			}
		}
		return append(out, rollout.Snapshot{})
	}
	c["rollout.Plan"] = func() {
		for _, s := range snapshots() {
			_, _ = rollout.Plan(s)
		}
	}
	c["rollout.PlanWith"] = func() {
		for _, s := range snapshots() {
			_, _ = rollout.PlanWith(s, rollout.Options{Quiet: true})
		}
	}
	c["rollout.Planner.Plan"] = func() {
		for _, s := range snapshots() {
			_, _ = (*rollout.Planner)(nil).Plan(s)
			_, _ = (&rollout.Planner{}).Plan(s)
		}
	}
	c["rollout.CreateFailed"] = func() {
		for _, s := range snapshots() {
			_, _ = rollout.CreateFailed(s, "", nil)
		}
	}
	results := func() []*rollout.Result {
		return []*rollout.Result{nil, {}, {Actions: []rollout.Action{nil, rollout.ScaleReplicaSet{}, rollout.CreateReplicaSet{}, rollout.DeleteReplicaSet{},
			rollout.UpdateReplicaSet{}, rollout.UpdateDeployment{}, rollout.UpdateDeploymentStatus{}, rollout.AdoptReplicaSet{}, rollout.ReleaseReplicaSet{}},
			Events: []rollout.Event{{After: -1}, {After: 100}}}}
	}
	c["rollout.Apply"] = func() {
		for _, s := range snapshots() {
			for _, r := range results() {
				_, _ = rollout.Apply(s, r)
			}
		}
	}
	c["rollout.Execute"] = func() {
		for _, s := range snapshots() {
			for _, r := range results() {
				//lint:ignore SA1012 a nil context is one of the nils tried
				_ = rollout.Execute(nil, nil, s, r)
				_ = rollout.Execute(context.Background(), nil, s, r)
				_ = rollout.Execute(context.Background(), okWriter{}, s, r)
			}
		}
	}
	// rollout/defaulting
	c["defaulting.Deployment"] = func() {
		for _, d := range deployments() {
			defaulting.Deployment(d)
		}
	}
	c["defaulting.PodTemplate"] = func() {
		for _, t := range templates {
			defaulting.PodTemplate(t)
		}
	}
	c["defaulting.Stored"] = func() {
		for _, t := range templates {
			defaulting.Stored(t)
		}
	}
	// internal/apirules
	c["apirules.ConflictMessage"] = func() { apirules.ConflictMessage("", "") }
	c["apirules.DeploymentGenerationBumps"] = func() {
		for _, a := range deployments() {
			for _, b := range deployments() {
				apirules.DeploymentGenerationBumps(a, b)
			}
		}
	}
	c["apirules.ReplicaSetGenerationBumps"] = func() {
		for _, a := range []*appsv1.ReplicaSetSpec{nil, {}} {
			for _, b := range []*appsv1.ReplicaSetSpec{nil, {}} {
				apirules.ReplicaSetGenerationBumps(a, b)
			}
		}
	}
	restartCalls(c)
	return c
}

// restartCalls adds the calls of package restart.
func restartCalls(c map[string]func()) {
	c["restart.ChecksumConfigMap"] = func() { restart.ChecksumConfigMap(nil); restart.ChecksumConfigMap(&corev1.ConfigMap{}) }
	c["restart.ChecksumSecret"] = func() { restart.ChecksumSecret(nil); restart.ChecksumSecret(&corev1.Secret{}) }
	c["restart.XingChecksumConfigMap"] = func() { restart.XingChecksumConfigMap(nil); restart.XingChecksumConfigMap(&corev1.ConfigMap{}) }
	c["restart.XingChecksumSecret"] = func() { restart.XingChecksumSecret(nil); restart.XingChecksumSecret(&corev1.Secret{}) }
	c["restart.ConfigKey"] = func() { sink = restart.ConfigKey("", "", "") }
	c["restart.WorkloadKey"] = func() { sink = restart.WorkloadKey("", "", "") }
	c["restart.FormatChecksums"] = func() { restart.FormatChecksums(nil) }
	c["restart.ParseChecksums"] = func() { _, _ = restart.ParseChecksums("", "") }
	c["restart.ChecksumAlgorithm.String"] = func() { _ = restart.ChecksumAlgorithm(0).String(); _ = restart.ChecksumAlgorithm(-1).String() }
	c["restart.DiffChecksums"] = func() {
		for _, o := range []restart.Options{{}, restart.DefaultOptions()} {
			for _, refs := range [][]restart.Ref{nil, {{}}} {
				_, _ = restart.DiffChecksums(o, refs, "", nil, nil)
				_, _ = restart.DiffChecksums(o, refs, "{}", func(restart.Ref) (runtime.Object, error) { return nil, nil }, nil)
			}
		}
	}
	c["restart.ConfigOf"] = func() {
		for _, o := range objects() {
			_, _ = restart.ConfigOf(o, 0)
		}
	}
	c["restart.Config.Key"] = func() { _ = restart.Config{}.Key() }
	c["restart.Decision.Key"] = func() { _ = restart.Decision{}.Key() }
	c["restart.New"] = func() { _, _ = restart.New(restart.Options{}) }
	c["restart.DefaultOptions"] = func() { sink = restart.DefaultOptions() }
	c["restart.XingKeys"] = func() { sink = restart.XingKeys() }
	c["restart.Options.Tracked"] = func() {
		_, _ = restart.Options{}.Tracked(restart.Workload{})
		_, _ = restart.DefaultOptions().Tracked(restart.Workload{})
	}
	c["restart.Options.Validate"] = func() { _ = restart.Options{}.Validate() }
	c["restart.Patch.Apply"] = func() {
		for _, o := range objects() {
			_, _ = restart.Patch{}.Apply(o)
		}
	}
	c["restart.Patch.JSON"] = func() { _ = restart.Patch{}.JSON() }
	c["restart.References"] = func() { restart.References("", nil); restart.References("", &corev1.PodSpec{}) }
	c["restart.Ref.Key"] = func() { _ = restart.Ref{}.Key() }
	c["restart.WorkloadOf"] = func() {
		for _, o := range objects() {
			_, _ = restart.WorkloadOf(o)
		}
	}
	c["restart.Workload.Key"] = func() { _ = restart.Workload{}.Key() }
	c["restart.PodTemplate"] = func() {
		for _, o := range objects() {
			_, _, _ = restart.PodTemplate(o)
		}
	}
	c["restart.WorkloadKind.TemplatePath"] = func() { _ = restart.WorkloadKind("").TemplatePath() }
	engines := func() []*restart.Engine {
		e, err := restart.New(restart.DefaultOptions())
		if err != nil {
			panic(err)
		}
		return []*restart.Engine{nil, {}, e}
	}
	each := func(f func(e *restart.Engine)) func() {
		return func() {
			for _, e := range engines() {
				f(e)
			}
		}
	}
	c["restart.Engine.Configs"] = each(func(e *restart.Engine) { e.Configs() })
	c["restart.Engine.Counters"] = each(func(e *restart.Engine) { e.Counters() })
	c["restart.Engine.Drain"] = each(func(e *restart.Engine) { e.Drain(now) })
	c["restart.Engine.Due"] = each(func(e *restart.Engine) { e.Due(now) })
	c["restart.Engine.Forget"] = each(func(e *restart.Engine) {
		for _, o := range objects() {
			_ = e.Forget(o)
		}
	})
	c["restart.Engine.ForgetConfig"] = each(func(e *restart.Engine) { e.ForgetConfig("", "", "") })
	c["restart.Engine.ForgetWorkload"] = each(func(e *restart.Engine) { e.ForgetWorkload("", "", "") })
	c["restart.Engine.NextRelease"] = each(func(e *restart.Engine) { e.NextRelease(time.Time{}) })
	c["restart.Engine.Observe"] = each(func(e *restart.Engine) {
		for _, o := range objects() {
			_ = e.Observe(o, now)
		}
	})
	c["restart.Engine.ObserveConfig"] = each(func(e *restart.Engine) { _ = e.ObserveConfig(restart.Config{}, now) })
	c["restart.Engine.ObserveWorkload"] = each(func(e *restart.Engine) { _ = e.ObserveWorkload(restart.Workload{}, now) })
	c["restart.Engine.Options"] = each(func(e *restart.Engine) { e.Options() })
	c["restart.Engine.PatchFailed"] = each(func(e *restart.Engine) { e.PatchFailed(restart.Decision{}, now) })
	c["restart.Engine.Release"] = each(func(e *restart.Engine) { e.Release(now) })
	c["restart.Engine.Waiting"] = each(func(e *restart.Engine) { e.Waiting() })
	c["restart.Engine.Workloads"] = each(func(e *restart.Engine) { e.Workloads() })
}

// sink keeps results the checker would call unused.
var sink any

// okWriter accepts every write.
type okWriter struct{}

func (okWriter) CreateReplicaSet(context.Context, *appsv1.ReplicaSet) error { return nil }
func (okWriter) UpdateReplicaSet(context.Context, *appsv1.ReplicaSet) error { return nil }
func (okWriter) PatchReplicaSet(context.Context, string, string, []byte) error {
	return nil
}
func (okWriter) DeleteReplicaSet(context.Context, string, string, types.UID) error {
	return nil
}
func (okWriter) UpdateDeployment(context.Context, *appsv1.Deployment) error       { return nil }
func (okWriter) UpdateDeploymentStatus(context.Context, *appsv1.Deployment) error { return nil }
func (okWriter) Event(*appsv1.Deployment, rollout.Event)                          {}

// TestNoPanicOnZeroValuesAndNils calls every exported function and method
// with zero values and nils.
func TestNoPanicOnZeroValuesAndNils(t *testing.T) {
	for _, name := range sortedKeys(calls()) {
		f := calls()[name]
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s panics: %v", name, r)
				}
			}()
			f()
		})
	}
}

// TestEveryExportedFunctionCalled fails when an exported function or
// method of a library package has no call in calls.
func TestEveryExportedFunctionCalled(t *testing.T) {
	have := calls()
	dirs := map[string]string{
		"fencepost": "../../fencepost", "hashing": "../../hashing", "revision": "../../revision",
		"rollout": "../../rollout", "defaulting": "../../rollout/defaulting", "restart": "../../restart",
		"apirules": "../apirules",
	}
	var missing []string
	for pkg, dir := range dirs {
		for _, name := range exported(t, dir) {
			if _, ok := have[pkg+"."+name]; !ok {
				missing = append(missing, pkg+"."+name)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("exported functions without a call in this test:\n  %s", strings.Join(missing, "\n  "))
	}
}

// exported lists the exported functions ("Func") and the exported methods
// of exported types ("Type.Method") declared in dir's non-test files.
func exported(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() {
				continue
			}
			if fd.Recv == nil {
				out = append(out, fd.Name.Name)
				continue
			}
			typ := fd.Recv.List[0].Type
			if s, ok := typ.(*ast.StarExpr); ok {
				typ = s.X
			}
			if id, ok := typ.(*ast.Ident); ok && id.IsExported() {
				out = append(out, id.Name+"."+fd.Name.Name)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no exported function found", dir)
	}
	return out
}

func sortedKeys(m map[string]func()) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestNilAnswers pins what the documented nil cases answer.
func TestNilAnswers(t *testing.T) {
	if rollout.Complete(&rollout.Params{}, 0, nil) {
		t.Error("Complete of a nil status: true, want false")
	}
	if rollout.Complete(nil, 0, &appsv1.DeploymentStatus{}) {
		t.Error("Complete of nil params: true, want false")
	}
	if rollout.TimedOut(nil, &appsv1.DeploymentStatus{}, time.Time{}) {
		t.Error("TimedOut of nil params: true, want false")
	}
	if rollout.IsSaturated(nil, &rollout.ReplicaSet{}) || rollout.IsSaturated(&rollout.Params{}, nil) {
		t.Error("IsSaturated of nil params or ReplicaSet: true, want false")
	}
	if r := rollout.RequeueAfter(nil, false, &appsv1.DeploymentCondition{}, time.Time{}); r != (rollout.Requeue{}) {
		t.Errorf("RequeueAfter of nil params: %+v, want none", r)
	}
	if _, err := rollout.NewRSNewReplicas(nil, []rollout.ReplicaSet{{}}, 0); err == nil || err.Error() != "params: must not be nil" {
		t.Errorf("NewRSNewReplicas of nil params: %v, want params: must not be nil", err)
	}
	if err := rollout.RollingStep(nil, &rollout.Params{}, []rollout.ReplicaSet{{}}, 0); err == nil || err.Error() != "rolling: must not be nil" {
		t.Errorf("RollingStep into nil: %v, want rolling: must not be nil", err)
	}
	if rollout.Progressing(nil, nil) {
		t.Error("Progressing(nil, nil): true, want false")
	}
	if !rollout.Progressing(nil, &appsv1.DeploymentStatus{UpdatedReplicas: 1}) {
		t.Error("Progressing from nil (no pods) to one updated pod: false, want true")
	}
	p := rollout.Params{ProgressDeadlineSeconds: new(int32)}
	if rollout.TimedOut(&p, nil, now) {
		t.Error("TimedOut of a nil status: true, want false")
	}
	if got := (*rollout.Result)(nil).Explain(); got != "no result\n" {
		t.Errorf("nil Result explains %q", got)
	}
	if _, err := (*rollout.Planner)(nil).Plan(rollout.Snapshot{}); err == nil {
		t.Error("a nil Planner plans a snapshot without a Deployment")
	}
	var e *restart.Engine
	if err := e.Observe(&corev1.ConfigMap{}, now); err != restart.ErrNotNew {
		t.Errorf("nil Engine Observe: %v, want ErrNotNew", err)
	}
	if err := (&restart.Engine{}).ObserveWorkload(restart.Workload{}, now); err != restart.ErrNotNew {
		t.Errorf("zero Engine ObserveWorkload: %v, want ErrNotNew", err)
	}
	if _, err := rollout.Apply(rollout.Snapshot{}, &rollout.Result{Actions: []rollout.Action{rollout.UpdateDeployment{Deployment: zeroD()}}}); err == nil {
		t.Error("Apply of a Deployment write to a snapshot without a Deployment: no error")
	}
	if !apirules.DeploymentGenerationBumps(nil, zeroD()) || apirules.DeploymentGenerationBumps(nil, nil) {
		t.Error("DeploymentGenerationBumps: nil and non-nil must differ, two nils not")
	}
}
