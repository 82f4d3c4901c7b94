package simtest_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim"
	"github.com/deploymath/deploymath/sim/simtest"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

func TestPoolProperty(t *testing.T) {
	simtest.Check(t, poolConfig())
}

// forgetfulPool is the pool controller with a bug: it remembers in memory
// that it created a pool's ReplicaSet (named by the API server from a
// generateName) instead of reading it, so a restarted instance creates a
// second one.
type forgetfulPool struct {
	created map[string]bool
}

func (*forgetfulPool) Name() string            { return "pool" }
func (*forgetfulPool) Watches() []sim.Watch    { return poolController{}.Watches() }
func (*forgetfulPool) Restart() sim.Controller { return &forgetfulPool{} }

func (c *forgetfulPool) Reconcile(ctx *sim.Context, req sim.Request) (sim.ReconcileResult, error) {
	cl := ctx.Client()
	var p Pool
	if err := cl.Get(req.NamespacedName, &p); err != nil {
		if apierrors.IsNotFound(err) {
			return sim.ReconcileResult{}, nil
		}
		return sim.ReconcileResult{}, err
	}
	rs := poolReplicaSet(&p)
	if c.created == nil {
		c.created = map[string]bool{}
	}
	if !c.created[p.Name] {
		rs.Name, rs.GenerateName = "", p.Name+"-"
		if err := cl.Create(rs); err != nil {
			return sim.ReconcileResult{}, err
		}
		c.created[p.Name] = true
		return sim.ReconcileResult{}, nil
	}
	var rss appsv1.ReplicaSetList
	if err := cl.List(&rss, sim.InNamespace(p.Namespace), sim.MatchingLabels(rs.Labels)); err != nil {
		return sim.ReconcileResult{}, err
	}
	for i := range rss.Items {
		if cur := &rss.Items[i]; *cur.Spec.Replicas != p.Spec.Replicas {
			cur.Spec.Replicas = &p.Spec.Replicas
			if err := cl.Update(cur); err != nil {
				return sim.ReconcileResult{}, err
			}
		}
	}
	return sim.ReconcileResult{}, nil
}

// recorder is a rapid.TB that records what rapid reports.
type recorder struct {
	name   string
	failed bool
	out    strings.Builder
}

func (*recorder) Helper()                          {}
func (r *recorder) Name() string                   { return r.name }
func (r *recorder) Logf(f string, a ...any)        { fmt.Fprintf(&r.out, f+"\n", a...) }
func (r *recorder) Log(a ...any)                   { fmt.Fprintln(&r.out, a...) }
func (r *recorder) Skipf(f string, a ...any)       { r.Logf(f, a...) }
func (r *recorder) Skip(a ...any)                  { r.Log(a...) }
func (*recorder) SkipNow()                         {}
func (r *recorder) Errorf(f string, a ...any)      { r.failed = true; r.Logf(f, a...) }
func (r *recorder) Error(a ...any)                 { r.failed = true; r.Log(a...) }
func (r *recorder) Fatalf(f string, a ...any)      { r.Errorf(f, a...) }
func (r *recorder) Fatal(a ...any)                 { r.Error(a...) }
func (r *recorder) FailNow()                       { r.failed = true }
func (r *recorder) Fail()                          { r.failed = true }
func (r *recorder) Failed() bool                   { return r.failed }
func (r *recorder) contains(s string) bool         { return strings.Contains(r.out.String(), s) }
func (r *recorder) String() string                 { return r.out.String() }
func (r *recorder) setName(t *testing.T) *recorder { r.name = t.Name(); return r }

// noFailFile keeps rapid from writing its own fail file under testdata
// for a failure a test expects.
func noFailFile(t *testing.T) {
	if err := flag.Set("rapid.nofailfile", "true"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = flag.Set("rapid.nofailfile", "false") })
}

// A controller that remembers in memory what it created, instead of
// reading it, creates a second ReplicaSet once restarted: the property
// test finds a case with a restart, writes it as a scenario file, and
// the file replays the failure with the same trace; with the bug fixed
// it passes.
func TestRestartBugCaught(t *testing.T) {
	noFailFile(t)
	cfg := poolConfig()
	cfg.Controllers = func() []sim.Controller { return []sim.Controller{&forgetfulPool{}} }
	cfg.Dir = t.TempDir()
	rec := (&recorder{}).setName(t)
	simtest.Check(rec, cfg)
	if !rec.failed {
		t.Fatal("the property test passed a controller that forgets on restart")
	}
	file := filepath.Join(cfg.Dir, "TestRestartBugCaught.yaml")
	for _, want := range []string{
		"violated pool: one replica set",
		"the shrunk case is in " + file,
		fmt.Sprintf("simtest.Replay(t, %q, cfg)", file),
		"trace of the failing run",
	} {
		if !rec.contains(want) {
			t.Errorf("the report lacks %q:\n%s", want, rec)
		}
	}
	if rec.contains("deploysim") {
		t.Errorf("deploysim offered for a case of a controller of one's own:\n%s", rec)
	}
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "restartController: pool") || !strings.Contains(string(src), "kind: Pool") {
		t.Errorf("the case has no restart or no pool:\n%s", src)
	}
	golden, err := os.ReadFile(strings.TrimSuffix(file, ".yaml") + ".golden")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := sim.LoadScenario(file)
	if err != nil {
		t.Fatal(err)
	}
	c, err := simtest.Run(sc, cfg)
	if err == nil || !strings.Contains(err.Error(), "violated pool: one replica set") {
		t.Fatalf("the file replays with %v", err)
	}
	if got := c.Result.Text(); got != string(golden) {
		t.Errorf("the replay's trace differs from the failing run's:\n--- golden\n%s\n--- replay\n%s", golden, got)
	}
	// The fixed controller passes the same case.
	simtest.Replay(t, file, poolConfig())
}

// With only the built-in controllers, a failing case is a plain scenario:
// sim.Run (what deploysim runs) replays it with the same trace.
func TestBuiltinCaseReplaysWithDeploysim(t *testing.T) {
	noFailFile(t)
	atMost3 := func() []sim.Invariant {
		return []sim.Invariant{{Name: "at most 3 available", Check: func(r sim.Reader) error {
			var ds appsv1.DeploymentList
			if err := r.List(&ds); err != nil {
				return err
			}
			for _, d := range ds.Items {
				if d.Status.AvailableReplicas > 3 {
					return fmt.Errorf("deployment %s: %d available", d.Name, d.Status.AvailableReplicas)
				}
			}
			return nil
		}}}
	}
	// Small faults, so that rapid shrinks quickly.
	faults := &simtest.Faults{Startup: 10 * time.Second, Nodes: 2, NodeCapacity: 100, NodeFaults: 1, MaxOutage: time.Minute,
		InformerDelay: 100 * time.Millisecond, Window: time.Minute, Settle: 5 * time.Minute}
	cfg := simtest.Config{Base: deploymentBase, Faults: faults, Invariants: atMost3, Converged: deploymentsComplete, Dir: t.TempDir()}
	rec := (&recorder{}).setName(t)
	simtest.Check(rec, cfg)
	if !rec.failed {
		t.Fatal("a false invariant passed")
	}
	file := filepath.Join(cfg.Dir, "TestBuiltinCaseReplaysWithDeploysim.yaml")
	if !rec.contains("go run ./sim/cmd/deploysim -check " + file) {
		t.Errorf("no deploysim command:\n%s", rec)
	}
	golden, err := os.ReadFile(strings.TrimSuffix(file, ".yaml") + ".golden")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := sim.LoadScenario(file)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(sc, sim.Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	// The same trace; the golden adds the violations of the test's own
	// invariant, which deploysim does not know.
	var kept []string
	for _, l := range strings.SplitAfter(string(golden), "\n") {
		if !strings.HasPrefix(l, "VIOLATION at most 3 available") {
			kept = append(kept, l)
		}
	}
	if got := res.Text(); got != strings.Join(kept, "") {
		t.Errorf("deploysim's run differs:\n--- golden\n%s\n--- deploysim\n%s", golden, got)
	}
	if !strings.Contains(string(golden), "VIOLATION at most 3 available") {
		t.Errorf("the golden lacks the violation:\n%s", golden)
	}
}

// deploymentBase draws a Deployment of 1 to 6 pods and an image change.
func deploymentBase(t *rapid.T) *sim.Scenario {
	replicas := rapid.Int32Range(1, 6).Draw(t, "replicas")
	labels := map[string]string{"app": "web"}
	d := rollout.Default(&appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web:1"}}},
			},
		},
	})
	at := sim.Duration(time.Duration(rapid.IntRange(0, 120).Draw(t, "setImageAt")) * time.Second)
	return sim.NewScenario("web").WithDeployment(d).
		WithSteps(sim.Step{At: at, SetImage: &sim.SetImage{Container: "web", Image: "web:2"}})
}

// deploymentsComplete: every Deployment is complete.
func deploymentsComplete(r sim.Reader) error {
	var ds appsv1.DeploymentList
	if err := r.List(&ds); err != nil {
		return err
	}
	for _, d := range ds.Items {
		want := *d.Spec.Replicas
		if d.Status.UpdatedReplicas != want || d.Status.AvailableReplicas != want || d.Status.Replicas != want {
			return fmt.Errorf("deployment %s: %d updated, %d available, %d in all, of %d", d.Name, d.Status.UpdatedReplicas, d.Status.AvailableReplicas, d.Status.Replicas, want)
		}
	}
	return nil
}

func TestDeploymentProperty(t *testing.T) {
	simtest.Check(t, simtest.Config{Base: deploymentBase, Converged: deploymentsComplete})
}
