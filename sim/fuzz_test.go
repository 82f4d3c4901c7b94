package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/fencepost"
	"github.com/deploymath/deploymath/sim/internal/cluster"
	"github.com/deploymath/deploymath/sim/snapshot"
)

// FuzzParseScenario: no input makes the scenario parser panic, and every
// refusal says where (a line, a field path or the scenario name).
func FuzzParseScenario(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(scenarioDir, "*.yaml"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("name: x\nsteps: [{at: -1s, scale: -3}]\n"))
	f.Add([]byte("{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := ParseScenario(data)
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("empty error")
			}
			return
		}
		if sc == nil {
			t.Fatal("nil scenario without an error")
		}
	})
}

// FuzzState: no cluster dump the snapshot reader accepts makes a run from
// its state panic or break an invariant (convergence aside: a stuck dump
// may stay stuck): the state is refused with an error naming the object,
// or it runs.
func FuzzState(f *testing.F) {
	for _, pat := range []string{"*.yaml", "*.json"} {
		files, _ := filepath.Glob(filepath.Join("..", "testdata", "clusters", pat))
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b)
			}
		}
	}
	// A small one, which the fuzzer mutates faster than the 30 KB dumps.
	f.Add([]byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, uid: d1, generation: 2, annotations: {deployment.kubernetes.io/revision: "2"}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: "web:2"}]}}
status: {observedGeneration: 2, replicas: 2, conditions: [{type: Progressing, status: "True", reason: ReplicaSetUpdated, lastUpdateTime: "2026-11-25T10:00:00Z", lastTransitionTime: "2026-11-25T09:00:00Z"}]}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-1, namespace: default, uid: r1, labels: {app: web, pod-template-hash: "1"}, ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d1, controller: true}], annotations: {deployment.kubernetes.io/revision: "1"}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web, pod-template-hash: "1"}}
  template: {metadata: {labels: {app: web, pod-template-hash: "1"}}, spec: {containers: [{name: web, image: "web:1"}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1-a, namespace: default, uid: p1, creationTimestamp: "2026-11-25T09:59:00Z", ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-1, uid: r1, controller: true}], labels: {app: web, pod-template-hash: "1"}}
spec: {nodeName: n1, containers: [{name: web, image: "web:1"}]}
status: {phase: Running, conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-11-25T09:59:30Z"}]}
`))
	f.Fuzz(func(t *testing.T, data []byte) {
		snap, err := snapshot.Parse(data, "dump", snapshot.Options{})
		if err != nil {
			return
		}
		size := len(snap.Pods) // keep each input quick: this is not a scale test
		for _, d := range snap.Deployments {
			size += int(replicas(d))
			if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
				surge, _ := fencepost.Resolve(d.Spec.Strategy.Type, replicas(d), ru.MaxSurge, ru.MaxUnavailable)
				size += int(surge) // maxSurge 100000% is 1,000 pods per replica
			}
		}
		for _, rs := range snap.ReplicaSets {
			size += int(cluster.Replicas(rs))
		}
		if size > 200 {
			return
		}
		now := snap.Latest()
		if now.IsZero() {
			now = Epoch
		}
		sc := NewScenario("fuzz").WithState(&State{Now: now, Deployments: snap.Deployments, ReplicaSets: snap.ReplicaSets,
			Pods: snap.Pods, ConfigMaps: snap.ConfigMaps, Secrets: snap.Secrets, Nodes: snap.Nodes})
		res, err := Run(sc, Options{Until: 2 * time.Minute, Check: true, NoTrace: true})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "scenario \"fuzz\": state: ") {
				t.Fatalf("a refusal that does not name the state's object: %v", err)
			}
			return
		}
		for _, v := range res.Violations {
			if v.Invariant != InvConvergence { // a stuck dump stays stuck
				t.Errorf("invariant: %s", v)
			}
		}
	})
}
