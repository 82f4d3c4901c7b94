package bluegreen_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	v1 "github.com/deploymath/deploymath/examples/bluegreen/api/v1"
	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/sim"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
)

// Images of the property test: web:N run; web:broken crash-loops (every
// pod); web:flaky crash-loops with probability 1/2 (each pod).
const (
	imageBroken = "web:broken"
	imageFlaky  = "web:flaky"
)

// rollout is one drawn case: a BlueGreen, the cluster's timings, a
// sequence of template changes and maybe a node failure.
type rollout struct {
	Replicas           int32
	Nodes              int
	Startup, Readiness [2]time.Duration
	InformerDelay      time.Duration
	Images             []string        // the first is the object's, the others apply steps
	At                 []time.Duration // when each apply step happens
	FailNode           bool
	FailAt, RecoverAt  time.Duration
}

func drawRollout(t *rapid.T) rollout {
	r := rollout{
		Replicas:      rapid.Int32Range(1, 8).Draw(t, "replicas"),
		Nodes:         rapid.IntRange(1, 3).Draw(t, "nodes"),
		InformerDelay: time.Duration(rapid.SampledFrom([]int{0, 0, 20, 200}).Draw(t, "informerDelayMs")) * time.Millisecond,
	}
	for i, d := range []*[2]time.Duration{&r.Startup, &r.Readiness} {
		lo := time.Duration(rapid.IntRange(0, 3000).Draw(t, fmt.Sprintf("delay%dMin", i))) * time.Millisecond
		d[0], d[1] = lo, lo+time.Duration(rapid.IntRange(0, 5000).Draw(t, fmt.Sprintf("delay%dSpread", i)))*time.Millisecond
	}
	steps := rapid.IntRange(1, 4).Draw(t, "steps")
	at := time.Duration(0)
	for i := 0; i <= steps; i++ {
		img := rapid.SampledFrom([]string{"good", "good", imageBroken, imageFlaky}).Draw(t, fmt.Sprintf("image%d", i))
		if img == "good" {
			img = fmt.Sprintf("web:%d", i+1)
		}
		r.Images = append(r.Images, img)
		if i > 0 {
			at += time.Duration(rapid.IntRange(5, 60).Draw(t, fmt.Sprintf("gap%d", i))) * time.Second
			r.At = append(r.At, at)
		}
	}
	if r.Nodes > 1 && rapid.IntRange(0, 3).Draw(t, "nodeFailure") == 0 {
		r.FailNode = true
		r.FailAt = time.Duration(rapid.IntRange(1, int(at/time.Second)+30).Draw(t, "failAt")) * time.Second
		r.RecoverAt = r.FailAt + time.Duration(rapid.IntRange(1, 90).Draw(t, "downFor"))*time.Second
	}
	return r
}

// scenario writes the case as a scenario file.
func (r rollout) scenario(seed uint64) string {
	var b strings.Builder
	last := time.Duration(0)
	if len(r.At) > 0 {
		last = r.At[len(r.At)-1]
	}
	if r.RecoverAt > last {
		last = r.RecoverAt
	}
	fmt.Fprintf(&b, "name: bluegreen-property\nseed: %d\nuntil: %s\ncluster:\n  deploymentController: false\n", seed, last+5*time.Minute)
	b.WriteString("  nodes:\n")
	for i := 1; i <= r.Nodes; i++ {
		fmt.Fprintf(&b, "  - {name: node-%d, capacity: %d}\n", i, 3*r.Replicas)
	}
	fmt.Fprintf(&b, "  startup: {min: %s, max: %s}\n  readiness: {min: %s, max: %s}\n", r.Startup[0], r.Startup[1], r.Readiness[0], r.Readiness[1])
	fmt.Fprintf(&b, "  informerDelay: %s\n  evictionTimeout: 30s\n", r.InformerDelay)
	fmt.Fprintf(&b, "  failures:\n  - {image: %q, mode: crashloop}\n  - {image: %q, mode: crashloop, probability: 0.5}\n", imageBroken, imageFlaky)
	b.WriteString("objects:\n")
	b.WriteString(manifest("- ", r.Replicas, r.Images[0]))
	b.WriteString("steps:\n")
	type step struct {
		at   time.Duration
		text string
	}
	var steps []step
	for i, at := range r.At {
		steps = append(steps, step{at, fmt.Sprintf("- at: %s\n  apply:\n%s", at, manifest("    ", r.Replicas, r.Images[i+1]))})
	}
	if r.FailNode {
		steps = append(steps, step{r.FailAt, fmt.Sprintf("- at: %s\n  failNode: node-1\n", r.FailAt)},
			step{r.RecoverAt, fmt.Sprintf("- at: %s\n  recoverNode: node-1\n", r.RecoverAt)})
	}
	for i := range steps { // insertion sort by time, stable
		for j := i; j > 0 && steps[j].at < steps[j-1].at; j-- {
			steps[j], steps[j-1] = steps[j-1], steps[j]
		}
	}
	for _, s := range steps {
		b.WriteString(s.text)
	}
	return b.String()
}

// manifest is a BlueGreen named web, each line after the first indented.
func manifest(first string, replicas int32, image string) string {
	pad := strings.Repeat(" ", len(first))
	lines := []string{
		"apiVersion: example.deploymath.dev/v1", "kind: BlueGreen", "metadata: {name: web}", "spec:",
		fmt.Sprintf("  replicas: %d", replicas), "  template:", "    metadata: {labels: {app: web}}", "    spec:",
		fmt.Sprintf("      containers: [{name: web, image: %q}]", image),
	}
	var b strings.Builder
	for i, l := range lines {
		if i == 0 {
			b.WriteString(first)
		} else {
			b.WriteString(pad)
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

// templateHash is the hash the controller gives the template of image.
func templateHash(image string) string {
	t := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: image}}}}
	return hashing.PodTemplateHash(&t, nil)
}

// checker checks the properties at every change of the BlueGreen and its
// ReplicaSets, reading the API server (a controller that watches and
// never reconciles):
//
//   - a template whose image is web:broken never becomes active;
//   - every switch is recorded by one Switched event (checked at the end);
//   - without a node failure: once a colour is active, the two colours
//     together never have fewer available pods than spec.replicas, and a
//     colour that becomes active has all its replicas available.
type checker struct {
	ctx        *sim.Context
	faults     bool
	broken     string // hash of web:broken's template
	active     v1.Colour
	switches   int32
	violations []string
}

func (*checker) Name() string             { return "checker" }
func (c *checker) Start(ctx *sim.Context) { c.ctx = ctx }
func (c *checker) Reconcile(*sim.Context, sim.Request) (sim.ReconcileResult, error) {
	return sim.ReconcileResult{}, nil
}

func (c *checker) Watches() []sim.Watch {
	check := func(sim.Change) []sim.Request { c.check(); return nil }
	return []sim.Watch{sim.Watches(&v1.BlueGreen{}, check), sim.Watches(&appsv1.ReplicaSet{}, check)}
}

func (c *checker) fail(format string, args ...any) {
	if len(c.violations) < 10 {
		c.violations = append(c.violations, fmt.Sprintf("t=%s: ", c.ctx.Now().Sub(sim.Epoch))+fmt.Sprintf(format, args...))
	}
}

func (c *checker) check() {
	r := c.ctx.APIReader()
	var bg v1.BlueGreen
	if err := r.Get(types.NamespacedName{Namespace: "default", Name: "web"}, &bg); err != nil {
		return
	}
	rss := map[v1.Colour]*appsv1.ReplicaSet{}
	available := int32(0)
	for _, col := range []v1.Colour{v1.Blue, v1.Green} {
		var rs appsv1.ReplicaSet
		if err := r.Get(types.NamespacedName{Namespace: "default", Name: "web-" + string(col)}, &rs); err == nil {
			rss[col] = &rs
			available += rs.Status.AvailableReplicas
		}
	}
	st, replicas := bg.Status, bg.Spec.Replicas
	if st.ActiveHash == c.broken {
		c.fail("the broken template %s is active (%s)", st.ActiveHash, st.Active)
	}
	if st.Active != c.active && st.Active != "" {
		rs := rss[st.Active]
		if !c.faults && (rs == nil || rs.Status.AvailableReplicas < replicas) {
			c.fail("%s became active with %v available of %d", st.Active, rs.Status.AvailableReplicas, replicas)
		}
		c.active = st.Active
		c.switches++
	}
	if c.active != "" && !c.faults && available < replicas {
		c.fail("%d pods available in both colours, below spec.replicas %d", available, replicas)
	}
}

// converged checks the end of a run whose last template is good and
// whose node is back: its colour is active with every replica
// available, the other colour has no replica.
func converged(s *sim.Sim) error {
	rd := s.APIReader()
	var bg v1.BlueGreen
	if err := rd.Get(types.NamespacedName{Namespace: "default", Name: "web"}, &bg); err != nil {
		return err
	}
	st := bg.Status
	want := hashing.PodTemplateHash(&bg.Spec.Template, nil)
	if st.ActiveHash != want || st.Phase != v1.PhaseStable || st.AvailableReplicas != bg.Spec.Replicas || st.ObservedGeneration != bg.Generation {
		return fmt.Errorf("status %+v (generation %d), want template %s active and stable with %d available", st, bg.Generation, want, bg.Spec.Replicas)
	}
	var idle appsv1.ReplicaSet
	if err := rd.Get(types.NamespacedName{Namespace: "default", Name: "web-" + string(st.Active.Other())}, &idle); err != nil {
		return err
	}
	if *idle.Spec.Replicas != 0 || idle.Status.Replicas != 0 {
		return fmt.Errorf("idle colour %s: %d replicas, %d pods, want none", idle.Name, *idle.Spec.Replicas, idle.Status.Replicas)
	}
	return nil
}

// TestProperties draws BlueGreens, cluster timings, template changes
// (good, crash-looping and half crash-looping images) and node failures,
// runs the controller on each in the simulator and checks the checker's
// properties throughout and convergence at the end.
func TestProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := drawRollout(t)
		seed := rapid.Uint64().Draw(t, "seed")
		src := r.scenario(seed)
		if _, err := checkRun(t, []byte(src), sim.Options{NoTrace: true}); err != nil {
			t.Fatalf("%v\nscenario (save it and run go test -run TestReplay -replay FILE):\n%s", err, src)
		}
	})
}

// checkRun runs a scenario with the controller and the checker, and
// checks convergence at the end when the last image is good (not
// web:broken nor web:flaky).
func checkRun(t interface{ Fatal(...any) }, src []byte, o sim.Options) (*sim.Result, error) {
	sc, err := sim.ParseScenario(src)
	if err != nil {
		return nil, err
	}
	chk := &checker{broken: templateHash(imageBroken)}
	for _, st := range sc.Steps {
		chk.faults = chk.faults || st.FailNode != "" || st.UnreachableNode != "" || st.DeleteNode != "" || st.KillPods != nil
	}
	o = setup(t, o)
	o.Controllers = append(o.Controllers, chk)
	s, err := sim.New(sc, o)
	if err != nil {
		return nil, err
	}
	res, err := s.Run()
	if err != nil {
		return res, err
	}
	if len(chk.violations) > 0 {
		return res, fmt.Errorf("%s", strings.Join(chk.violations, "\n"))
	}
	// Every switch is recorded by one Switched event, however many
	// writes were refused on the way.
	var events int32
	for _, e := range res.Events {
		if e.Object == "bluegreen/web" && e.Reason == "Switched" {
			events += e.Count
		}
	}
	if events != chk.switches {
		return res, fmt.Errorf("%d Switched events for %d switches", events, chk.switches)
	}
	var bg v1.BlueGreen
	if err := s.APIReader().Get(types.NamespacedName{Namespace: "default", Name: "web"}, &bg); err != nil {
		return res, err
	}
	if img := bg.Spec.Template.Spec.Containers[0].Image; img != imageBroken && img != imageFlaky {
		if err := converged(s); err != nil {
			return res, fmt.Errorf("no convergence: %w", err)
		}
	}
	return res, nil
}

var replay = flag.String("replay", "", "a scenario file printed by a failing TestProperties case, for TestReplay")

// TestReplay replays a scenario file (-replay FILE) with the checks of
// TestProperties and prints its trace.
func TestReplay(t *testing.T) {
	if *replay == "" {
		t.Skip("no -replay FILE")
	}
	src, err := os.ReadFile(*replay)
	if err != nil {
		t.Fatal(err)
	}
	res, err := checkRun(t, src, sim.Options{})
	if res != nil {
		t.Logf("trace:\n%s", sim.DescribeTrace(res.Trace))
	}
	if err != nil {
		t.Fatal(err)
	}
}
