package sim_test

import (
	"strings"
	"testing"

	"github.com/deploymath/deploymath/sim"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

const ownReplicaSetScenario = `name: own-rs
seed: 1
until: 1m
objects:
- apiVersion: v1
  kind: Node
  metadata: {name: big}
  status:
    allocatable: {pods: "10"}
    conditions: [{type: Ready, status: "True"}]
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata: {name: stable, labels: {app: web}}
  spec:
    replicas: 3
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: web, image: web:1}]
- apiVersion: v1
  kind: Pod
  metadata:
    name: stable-aaaaa
    labels: {app: web}
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: stable, controller: true}]
  spec:
    nodeName: big
    containers: [{name: web, image: web:1}]
  status:
    phase: Running
    conditions: [{type: Ready, status: "True"}]
steps:
- at: 15s
  recoverNode: big
`

// A scenario's own ReplicaSet, pod and node are stored as a state at
// time 0: the listed pod runs on, its ReplicaSet creates the two
// missing, on the node of the scenario; a step can name that node.
func TestScenarioReplicaSetPodNode(t *testing.T) {
	sc, err := sim.ParseScenario([]byte(ownReplicaSetScenario))
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(sc, sim.Options{Until: 20e9})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(); err != nil {
		t.Fatal(err)
	}
	r := s.APIReader()
	var rs appsv1.ReplicaSet
	if err := r.Get(types.NamespacedName{Namespace: "default", Name: "stable"}, &rs); err != nil {
		t.Fatal(err)
	}
	if rs.Status.ReadyReplicas != 3 {
		t.Errorf("ready %d, want 3", rs.Status.ReadyReplicas)
	}
	var pods corev1.PodList
	if err := r.List(&pods); err != nil {
		t.Fatal(err)
	}
	kept := false
	for _, p := range pods.Items {
		if p.Spec.NodeName != "big" {
			t.Errorf("pod %s on node %q, want big", p.Name, p.Spec.NodeName)
		}
		if p.Name == "stable-aaaaa" {
			kept = true
			if !p.CreationTimestamp.Time.Equal(sim.Epoch) {
				t.Errorf("the listed pod was created at %v, want time 0", p.CreationTimestamp)
			}
		}
	}
	if len(pods.Items) != 3 || !kept {
		t.Errorf("pods %d (listed one kept: %v), want 3", len(pods.Items), kept)
	}
}

func TestScenarioObjectErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"replica set without selector", "name: x\nobjects:\n- apiVersion: apps/v1\n  kind: ReplicaSet\n  metadata: {name: a}\n  spec:\n    template: {metadata: {labels: {a: b}}}\n",
			`field "objects[0].spec.selector": Required value (the API server refuses such an object)`},
		{"unknown field of a pod", "name: x\nobjects:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n  spec: {nodeNme: x}\n",
			`line 6: unknown field "objects[0].spec.nodeNme"`},
		{"built-in kind not supported", "name: x\nobjects:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: a}\n",
			`field "objects[0].kind": unsupported object apiVersion "v1" kind "Service"`},
		{"kind missing", "name: x\nobjects:\n- apiVersion: example.com/v1\n  metadata: {name: a}\n", `field "objects[0].kind": required`},
		{"node twice", "name: x\ncluster:\n  nodes: [{name: node-a, capacity: 1}]\nobjects:\n- {apiVersion: v1, kind: Node, metadata: {name: node-a}}\n",
			`field "objects[0].metadata.name": duplicate node "node-a"`},
	} {
		_, err := sim.ParseScenario([]byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// An object of a kind the run's scheme does not know is refused when the
// run starts, naming the object's line and what to do.
func TestScenarioUnregisteredKind(t *testing.T) {
	src := "name: x\nobjects:\n- apiVersion: example.com/v1\n  kind: Canary\n  metadata: {name: a}\n"
	sc, err := sim.ParseScenario([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = sim.New(sc, sim.Options{})
	if err == nil || !strings.Contains(err.Error(), `line 3: field "objects[0].kind": apiVersion "example.com/v1" kind "Canary": not registered: add its Go type to Options.Scheme`) {
		t.Fatalf("%v", err)
	}
	src = "name: x\nobjects:\n- apiVersion: test.deploymath.dev/v1\n  kind: Replicated\n  metadata: {name: a}\n  spec: {replicas: x}\n"
	sc, err = sim.ParseScenario([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = sim.New(sc, sim.Options{Scheme: testScheme(t)})
	if err == nil || !strings.Contains(err.Error(), `line 6: field "objects[0].spec.replicas": cannot use`) {
		t.Fatalf("%v", err)
	}
}

// starter records its context at the start and reads through it in its
// watch's map function, before its first reconcile.
type starter struct {
	ctx        *sim.Context
	mapped     []int32
	reconciles int
}

func (*starter) Name() string             { return "starter" }
func (c *starter) Start(ctx *sim.Context) { c.ctx = ctx }
func (c *starter) Watches() []sim.Watch {
	return []sim.Watch{sim.Watches(&Replicated{}, func(ch sim.Change) []sim.Request {
		var r Replicated
		if err := c.ctx.Client().Get(types.NamespacedName{Namespace: "default", Name: ch.Object().GetName()}, &r); err == nil {
			c.mapped = append(c.mapped, r.Spec.Replicas)
		}
		return []sim.Request{sim.RequestFor(ch.Object())}
	})}
}
func (c *starter) Reconcile(*sim.Context, sim.Request) (sim.ReconcileResult, error) {
	c.reconciles++
	return sim.ReconcileResult{}, nil
}

// An apply step of a custom kind replaces its spec and labels, merges its
// annotations and keeps its status, through the kind's rules (the
// generation moves); a Starter reads through its context from its first
// watch call on.
func TestApplyCustomStep(t *testing.T) {
	src := replicatedScenario + `steps:
- at: 30s
  apply:
    apiVersion: test.deploymath.dev/v1
    kind: Replicated
    metadata: {name: web, labels: {tier: front}, annotations: {note: scaled}}
    spec:
      replicas: 5
      template:
        spec:
          containers: [{name: web, image: web:2}]
- at: 40s
  apply:
    apiVersion: test.deploymath.dev/v1
    kind: Replicated
    metadata: {name: api}
    spec:
      replicas: 1
      template:
        spec:
          containers: [{name: api, image: api:1}]
`
	st := &starter{}
	s, res := runReplicated(t, src, sim.Options{Scheme: testScheme(t), Controllers: []sim.Controller{&replicator{}, st}, Writes: true})
	var web Replicated
	if err := s.APIReader().Get(types.NamespacedName{Namespace: "default", Name: "web"}, &web); err != nil {
		t.Fatal(err)
	}
	if web.Spec.Replicas != 5 || web.Spec.Template.Spec.Containers[0].Image != "web:2" || web.Generation != 2 {
		t.Errorf("web after the apply: replicas %d, image %s, generation %d; want 5, web:2, 2", web.Spec.Replicas, web.Spec.Template.Spec.Containers[0].Image, web.Generation)
	}
	if web.Labels["tier"] != "front" || web.Annotations["note"] != "scaled" {
		t.Errorf("web's labels %v, annotations %v", web.Labels, web.Annotations)
	}
	if web.Status.ReadyReplicas != 5 || web.Status.ObservedGeneration != 2 {
		t.Errorf("web's status %+v: want 5 ready of generation 2 (the replicator's, kept by the apply)", web.Status)
	}
	var api Replicated
	if err := s.APIReader().Get(types.NamespacedName{Namespace: "default", Name: "api"}, &api); err != nil || api.Generation != 1 {
		t.Errorf("api created by the apply: %v, generation %d", err, api.Generation)
	}
	applies := 0
	for _, w := range res.Writes {
		if w.By == "user" && w.Kind == "Replicated" {
			applies++
		}
	}
	if applies != 3 {
		t.Errorf("%d writes of Replicated objects by the user, want 3 (the scenario's object, then one per apply)", applies)
	}
	if st.ctx == nil || len(st.mapped) == 0 || st.mapped[0] != 3 || st.reconciles == 0 {
		t.Errorf("starter: context %v, replicas read in its map function %v, reconciles %d", st.ctx != nil, st.mapped, st.reconciles)
	}
}

func TestApplyCustomStepErrors(t *testing.T) {
	src := replicatedScenario + "steps:\n- at: 1s\n  apply:\n    apiVersion: test.deploymath.dev/v1\n    kind: Replicated\n    metadata: {name: web}\n    spec: {replicas: x}\n"
	sc, err := sim.ParseScenario([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = sim.New(sc, sim.Options{Scheme: testScheme(t)})
	if err == nil || !strings.Contains(err.Error(), `line 21: field "steps[0].apply.spec.replicas": cannot use`) {
		t.Fatalf("%v", err)
	}
	src = replicatedScenario + "steps:\n- at: 1s\n  apply:\n    apiVersion: example.com/v1\n    kind: Canary\n    metadata: {name: web}\n"
	if sc, err = sim.ParseScenario([]byte(src)); err != nil {
		t.Fatal(err)
	}
	_, err = sim.New(sc, sim.Options{Scheme: testScheme(t)})
	if err == nil || !strings.Contains(err.Error(), `line 17: field "steps[0].apply.kind": apiVersion "example.com/v1" kind "Canary": not registered`) {
		t.Fatalf("%v", err)
	}
}
