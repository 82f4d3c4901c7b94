package sim_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/sim"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
)

// freshReplicator is a replicator that can be restarted; restarts counts
// the instances made.
type freshReplicator struct {
	*replicator
	restarts *int
}

func (r freshReplicator) Restart() sim.Controller {
	*r.restarts++
	return freshReplicator{&replicator{}, r.restarts}
}

// A restart replaces the controller with a fresh instance, which gets the
// key of every object it watches again; a name the run does not host is
// refused with the step's line.
func TestRestartController(t *testing.T) {
	src := replicatedScenario + "steps:\n- at: 10s\n  restartController: replicator\n"
	n := 0
	first := &replicator{}
	_, res := runReplicated(t, src, sim.Options{Scheme: testScheme(t), Controllers: []sim.Controller{freshReplicator{first, &n}}})
	if n != 1 {
		t.Fatalf("%d restarts, want 1", n)
	}
	if !strings.Contains(res.Text(), "step 1: restart controller replicator (its in-memory state is lost") {
		t.Errorf("no restart note:\n%s", res.Text())
	}
	if res.Stats.Reconciles <= first.reconciles {
		t.Errorf("the restarted controller never reconciled: %d reconciles in all, %d before the restart", res.Stats.Reconciles, first.reconciles)
	}
	sc, err := sim.ParseScenario([]byte(replicatedScenario + "steps:\n- at: 10s\n  restartController: nope\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.New(sc, sim.Options{Scheme: testScheme(t), Controllers: []sim.Controller{freshReplicator{first, &n}}}); err == nil ||
		!strings.Contains(err.Error(), `line 17: field "steps[0].restartController": no controller "nope"`) {
		t.Errorf("unknown controller: %v", err)
	}
	if _, err := sim.New(sc, sim.Options{Scheme: testScheme(t), Controllers: []sim.Controller{&replicator{}}}); err == nil {
		t.Error("a step restarting a controller that is not Restartable was accepted")
	}
}

// Injected conflicts refuse writes of hosted controllers, which retry
// (rate-limited) and still converge.
func TestWriteConflicts(t *testing.T) {
	src := strings.Replace(replicatedScenario, "  deploymentController: false\n", "  deploymentController: false\n  writeConflicts: 0.5\n", 1)
	ctrl := &replicator{}
	s, res := runReplicated(t, src, sim.Options{Scheme: testScheme(t), Controllers: []sim.Controller{ctrl}})
	if ctrl.conflicts == 0 || !strings.Contains(res.Text(), "409 Conflict (injected, cluster.writeConflicts)") {
		t.Errorf("no injected conflict (%d seen by the controller):\n%s", ctrl.conflicts, res.Text())
	}
	var r Replicated
	if err := s.APIReader().Get(types.NamespacedName{Namespace: "default", Name: "web"}, &r); err != nil {
		t.Fatal(err)
	}
	if r.Status.ReadyReplicas != 3 {
		t.Errorf("ready %d after the retries, want 3", r.Status.ReadyReplicas)
	}
	if _, err := sim.ParseScenario([]byte(strings.Replace(src, "0.5", "1.5", 1))); err == nil || !strings.Contains(err.Error(), `field "cluster.writeConflicts": 1.5: must be between 0 and 1`) {
		t.Errorf("out of range: %v", err)
	}
}

// An invariant is checked after the hosted controllers' writes and at
// every instant; a violation is recorded when it breaks, once while it
// stays broken.
func TestUserInvariants(t *testing.T) {
	atMost2 := sim.Invariant{Name: "at most 2 ready", Check: func(r sim.Reader) error {
		var rss appsv1.ReplicaSetList
		if err := r.List(&rss); err != nil {
			return err
		}
		for _, rs := range rss.Items {
			if rs.Status.ReadyReplicas > 2 {
				return fmt.Errorf("replica set %s has %d ready pods", rs.Name, rs.Status.ReadyReplicas)
			}
		}
		return nil
	}}
	holds := sim.Invariant{Name: "holds", Check: func(sim.Reader) error { return nil }}
	_, res := runReplicated(t, replicatedScenario, sim.Options{Scheme: testScheme(t), Controllers: []sim.Controller{&replicator{}},
		Invariants: []sim.Invariant{holds, atMost2}})
	if len(res.Violations) != 1 {
		t.Fatalf("violations %v, want the one of at most 2 ready", res.Violations)
	}
	v := res.Violations[0]
	if v.Invariant != "at most 2 ready" || !strings.Contains(v.Detail, "has 3 ready pods") || v.At == 0 {
		t.Errorf("violation %+v", v)
	}
	if _, err := sim.New(mustParse(t, replicatedScenario), sim.Options{Invariants: []sim.Invariant{{Name: "x"}}}); err == nil {
		t.Error("an invariant without Check was accepted")
	}
}

func mustParse(t *testing.T, src string) *sim.Scenario {
	t.Helper()
	sc, err := sim.ParseScenario([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// With cluster.informerDelay a hosted controller's client reads its
// informer view, which has not seen a write yet, while its APIReader reads
// the API server.
func TestHostedInformerDelay(t *testing.T) {
	src := strings.Replace(replicatedScenario, "  deploymentController: false\n", "  deploymentController: false\n  informerDelay: 100ms\n", 1)
	key := types.NamespacedName{Namespace: "default", Name: "web"}
	c := &scriptController{steps: []func(ctx *sim.Context) error{func(ctx *sim.Context) error {
		var r Replicated
		if err := ctx.Client().Get(key, &r); err != nil {
			return err
		}
		r.Spec.Replicas = 4
		if err := ctx.Client().Update(&r); err != nil {
			return err
		}
		var cached, stored Replicated
		if err := ctx.Client().Get(key, &cached); err != nil {
			return err
		}
		if err := ctx.APIReader().Get(key, &stored); err != nil {
			return err
		}
		if cached.Spec.Replicas != 3 || stored.Spec.Replicas != 4 {
			return fmt.Errorf("right after the write: view %d, API server %d; want 3 and 4", cached.Spec.Replicas, stored.Spec.Replicas)
		}
		cached.Spec.Replicas = 5
		if err := ctx.Client().Update(&cached); !apierrors.IsConflict(err) {
			return fmt.Errorf("a write from the stale view: %v, want a conflict", err)
		}
		return nil
	}}}
	runReplicated(t, src, sim.Options{Scheme: testScheme(t), Controllers: []sim.Controller{c}})
	if c.err != nil || c.step != 1 {
		t.Fatalf("step %d: %v", c.step, c.err)
	}
}

// A scenario's apply step of a custom object changes its spec (a new
// generation) and keeps its status.
func TestApplyCustomObject(t *testing.T) {
	src := replicatedScenario + `steps:
- at: 20s
  apply:
    apiVersion: test.deploymath.dev/v1
    kind: Replicated
    metadata: {name: web, annotations: {note: scaled}}
    spec:
      replicas: 5
      template:
        spec:
          containers: [{name: web, image: web:1}]
`
	s, res := runReplicated(t, src, sim.Options{Scheme: testScheme(t), Controllers: []sim.Controller{&replicator{}}})
	var r Replicated
	if err := s.APIReader().Get(types.NamespacedName{Namespace: "default", Name: "web"}, &r); err != nil {
		t.Fatal(err)
	}
	if r.Generation != 2 || r.Spec.Replicas != 5 || r.Status.ReadyReplicas != 5 || r.Annotations["note"] != "scaled" {
		t.Errorf("after the apply: generation %d, replicas %d, ready %d, annotations %v", r.Generation, r.Spec.Replicas, r.Status.ReadyReplicas, r.Annotations)
	}
	if !strings.Contains(res.Text(), "step 1: apply Replicated web") {
		t.Errorf("no apply note:\n%s", res.Text())
	}
}

// Without a Deployment, a pod step chooses among every ReplicaSet's pods.
func TestPodStepWithoutDeployment(t *testing.T) {
	src := replicatedScenario + "steps:\n- at: 20s\n  pod: {selector: {replicated: web}, index: 0, delete: true}\n- at: 21s\n  pod: {rs: new, index: 0, delete: true}\n"
	sc := mustParse(t, src)
	s, err := sim.New(sc, sim.Options{Scheme: testScheme(t), Controllers: []sim.Controller{&replicator{}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Run()
	if err == nil || !strings.Contains(err.Error(), `"new" needs a Deployment; the scenario has none: name a replica set (web-`) {
		t.Fatalf("rs new without a Deployment: %v", err)
	}
	_, res := runReplicated(t, strings.Split(src, "- at: 21s")[0], sim.Options{Scheme: testScheme(t), Controllers: []sim.Controller{&replicator{}}})
	if !strings.Contains(res.Text(), "step 1: delete pod web-") {
		t.Errorf("no pod deleted:\n%s", res.Text())
	}
}

// ticker asks for a tick every 10 s from its first reconcile, and once
// more at 12 s (an earlier tick pending stands), recording the instants.
type ticker struct {
	ticks []time.Duration
}

func (*ticker) Name() string         { return "ticker" }
func (*ticker) Watches() []sim.Watch { return []sim.Watch{sim.For(&Replicated{})} }
func (c *ticker) Reconcile(ctx *sim.Context, req sim.Request) (sim.ReconcileResult, error) {
	ctx.TickAt(ctx.Now().Add(10 * time.Second))
	ctx.TickAt(ctx.Now().Add(12 * time.Second)) // later than the pending one: ignored
	return sim.ReconcileResult{}, nil
}
func (c *ticker) Tick(ctx *sim.Context) {
	c.ticks = append(c.ticks, ctx.Now().Sub(sim.Epoch))
	if len(c.ticks) < 3 {
		ctx.TickAt(ctx.Now().Add(10 * time.Second))
	}
}

// A Ticker's ticks come at the times it asks for, one pending at a time.
func TestTicker(t *testing.T) {
	c := &ticker{}
	runReplicated(t, replicatedScenario, sim.Options{Scheme: testScheme(t), Controllers: []sim.Controller{c}})
	want := []time.Duration{10 * time.Second, 20 * time.Second, 30 * time.Second}
	if !slices.Equal(c.ticks, want) {
		t.Errorf("ticks at %v, want %v", c.ticks, want)
	}
}
