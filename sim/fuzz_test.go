package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/fencepost"
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
			size += int(rsReplicas(rs))
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
