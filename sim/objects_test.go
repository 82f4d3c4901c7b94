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
