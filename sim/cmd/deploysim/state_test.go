package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim"
	"github.com/deploymath/deploymath/sim/snapshot"
)

var update = flag.Bool("update", false, "rewrite the what-next goldens in testdata/clusters")

// TestClusterState: deploysim on a cluster dump runs on from the dump's
// state (its ReplicaSets, pods, revisions and conditions), with the
// assumptions of an -overlay, and -from DUMP applies a manifest to that
// state at once. Each run's trace is a golden beside the dump
// (NAME.next.txt), read and checked by hand (testdata/clusters/README.md).
func TestClusterState(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
		code   int
		stderr string
	}{
		// web's two unready pods become ready (the default readiness
		// model), the rollout completes.
		{"rolling.next.txt", []string{clusters + "rolling.yaml"}, 0, ""},
		// they never do: the progress deadline (10 min from the state's
		// last update, +1 s) is exceeded at t=10m1s, exit 1.
		{"rolling.unready.next.txt", []string{"-overlay", clusters + "whatif/web-stays-unready.yaml", clusters + "rolling.yaml"}, 1,
			"deploysim: deployment shop/web ended ProgressDeadlineExceeded"},
		// applying the old image now: the old ReplicaSet is the new one
		// again (revision 3), the unready pods go at once.
		{"rolling.undo.next.txt", []string{"-from", clusters + "rolling.yaml", "-overlay", clusters + "whatif/web-stays-unready.yaml", clusters + "whatif/web-1.0.yaml"}, 0, ""},
		// Recreate: the old pods are gone at their deletionTimestamp
		// (t=30s), then the new ReplicaSet is created.
		{"recreate.next.txt", []string{clusters + "recreate.yaml"}, 0, ""},
		// the quota in force (the dump plus its ResourceQuota): the surge
		// pod stays forbidden, maxUnavailable 0 lets no old pod go, the
		// deadline passes at t=10m1s, exit 1.
		{"quota.next.txt", []string{clusters + "whatif/quota-in-force.yaml"}, 1,
			"deploysim: deployment search/indexer ended ProgressDeadlineExceeded"},
		// the crash-looping pod keeps crash-looping: nothing moves, and
		// the deadline already exceeded fails the run.
		{"crashloop.next.txt", []string{"-until", "5m", clusters + "crashloop.yaml"}, 1,
			"deploysim: deployment payments/checkout ended ProgressDeadlineExceeded"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tc.args, &out, &errb)
			if code != tc.code || !strings.Contains(errb.String(), tc.stderr) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", code, tc.code, errb.String(), tc.stderr)
			}
			path := clusters + tc.golden
			if *update {
				if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != string(want) {
				t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, out.String())
			}
		})
	}
}

// TestClusterStateRefusals: -now only with cluster state, parsed; a state
// without any time needs -now; -from a dump needs something to apply.
func TestClusterStateRefusals(t *testing.T) {
	dir := t.TempDir()
	noTime := dir + "/notime.yaml"
	if err := os.WriteFile(noTime, []byte(`apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-1, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: web:1}]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	svc := dir + "/svc.yaml"
	if err := os.WriteFile(svc, []byte("apiVersion: v1\nkind: Service\nmetadata: {name: web}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"-now", "2026-11-23T22:40:00Z", nginx}, 2, "-now: " + nginx + " is a scenario"},
		{[]string{"-now", "soon", clusters + "rolling.yaml"}, 2, `-now "soon": want an RFC 3339 time`},
		{[]string{noTime}, 2, noTime + ": the state holds no time to start from: say when it was taken with -now (RFC 3339)"},
		{[]string{"-from", clusters + "rolling.yaml", svc}, 2, svc + ": no Deployment, ConfigMap or Secret to apply"},
	} {
		var out, errb bytes.Buffer
		if code := run(tc.args, &out, &errb); code != tc.code || !strings.Contains(errb.String(), tc.stderr) {
			t.Errorf("%v: exit %d (want %d), stderr %q (want %q)", tc.args, code, tc.code, errb.String(), tc.stderr)
		}
	}
	// -now moves the state's moment: 5 minutes later, web's unready pods
	// have been unready for 5 minutes and the deadline comes 5 minutes
	// sooner.
	var out, errb bytes.Buffer
	code := run([]string{"-now", "2026-11-23T22:39:19Z", "-overlay", clusters + "whatif/web-stays-unready.yaml", clusters + "rolling.yaml"}, &out, &errb)
	if code != 1 || !strings.Contains(out.String(), "t=5m1s\n") {
		t.Errorf("-now: exit %d, want the deadline at t=5m1s:\n%s", code, out.String())
	}
}

// TestStateFirstSync: on every dump, a run from its state begins with
// the syncs `deploysim explain` predicts: the Deployment controller's
// first writes at t=0 (before the ReplicaSet controller's) are the
// actions of rollout.Plan on the same objects at the same moment,
// Deployment by Deployment, and each Deployment's events at t=0 start
// with the plan's. Each dump is tried as taken, 15 minutes later (past
// the progress deadlines), and with every Deployment's image changed (a
// generation the controller has not observed).
func TestStateFirstSync(t *testing.T) {
	files, err := filepath.Glob(clusters + "*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	json, _ := filepath.Glob(clusters + "*.json")
	planned := 0
	for _, f := range append(files, json...) {
		if strings.Contains(f, ".explain.") {
			continue
		}
		snap, err := snapshot.ReadFile(f, snapshot.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []struct {
			name  string
			later time.Duration
			edit  bool
		}{{"as taken", 0, false}, {"15m later", 15 * time.Minute, false}, {"new image", 0, true}} {
			t.Run(filepath.Base(f)+"/"+v.name, func(t *testing.T) {
				now := snap.Latest().Add(v.later)
				deps := snap.Deployments
				if v.edit {
					deps = nil
					for _, d := range snap.Deployments {
						d = d.DeepCopy()
						d.Spec.Template.Spec.Containers[0].Image += "-next"
						d.Generation++
						deps = append(deps, d)
					}
				}
				edited := *snap
				edited.Deployments = deps
				want := map[string][]string{}
				var wantWrites []string
				for _, r := range edited.Rollouts() {
					res, err := rollout.Plan(r.Input(now))
					if err != nil {
						t.Fatal(err)
					}
					for _, a := range res.Actions {
						wantWrites = append(wantWrites, actionWrite(t, a))
					}
					for _, e := range res.Events {
						want[r.Deployment.Name] = append(want[r.Deployment.Name], e.Message)
					}
				}
				planned += len(wantWrites)
				sc := sim.NewScenario("first").WithState(&sim.State{Now: now, Deployments: deps, ReplicaSets: snap.ReplicaSets, Pods: snap.Pods})
				res, err := sim.Run(sc, sim.Options{Until: time.Millisecond, Writes: true})
				if err != nil {
					t.Fatal(err)
				}
				var gotWrites []string
				for _, w := range res.Writes {
					if w.At != 0 || w.By != "deployment-controller" {
						break
					}
					gotWrites = append(gotWrites, w.Kind+" "+w.Verb+" "+w.Name)
				}
				if !slices.Equal(wantWrites, gotWrites) {
					t.Errorf("first writes %q, rollout.Plan's %q", gotWrites, wantWrites)
				}
				got := map[string][]string{}
				if f0 := res.Trace.Frames[0]; f0.At == 0 {
					for _, e := range f0.Events {
						name := strings.TrimPrefix(e.Object, "deployment/")
						got[name] = append(got[name], e.Message)
					}
				}
				for name, w := range want {
					g := got[name]
					if len(g) > len(w) {
						g = g[:len(w)] // later syncs of the same instant
					}
					if !slices.Equal(w, g) {
						t.Errorf("%s: first events %q, rollout.Plan's %q", name, g, w)
					}
				}
			})
		}
	}
	if planned < 10 {
		t.Errorf("only %d writes planned over all dumps: the test compares too little", planned)
	}
}

// actionWrite is the write log's "Kind verb name" of a planned action
// (the name as the log gives it: NAMESPACE/NAME outside default).
func actionWrite(t *testing.T, a rollout.Action) string {
	name := func(ns, n string) string {
		if ns == "" || ns == "default" {
			return n
		}
		return ns + "/" + n
	}
	switch a := a.(type) {
	case rollout.CreateReplicaSet:
		return "ReplicaSet create " + name(a.ReplicaSet.Namespace, a.ReplicaSet.Name)
	case rollout.UpdateReplicaSet:
		return "ReplicaSet update " + name(a.ReplicaSet.Namespace, a.ReplicaSet.Name)
	case rollout.ScaleReplicaSet:
		return "ReplicaSet update " + name(a.ReplicaSet.Namespace, a.ReplicaSet.Name)
	case rollout.AdoptReplicaSet:
		return "ReplicaSet update " + name(a.ReplicaSet.Namespace, a.ReplicaSet.Name)
	case rollout.ReleaseReplicaSet:
		return "ReplicaSet update " + name(a.ReplicaSet.Namespace, a.ReplicaSet.Name)
	case rollout.DeleteReplicaSet:
		return "ReplicaSet delete " + name(a.Namespace, a.Name)
	case rollout.UpdateDeployment:
		return "Deployment update " + name(a.Deployment.Namespace, a.Deployment.Name)
	case rollout.UpdateDeploymentStatus:
		return "Deployment status " + name(a.Deployment.Namespace, a.Deployment.Name)
	}
	t.Fatalf("unknown action %T", a)
	return ""
}

// TestStateSweep: -sweep compares strategies from a dump's state: under
// the quota, maxUnavailable 1 completes the rollout (an old pod goes,
// freeing room for a new one) where 0 cannot.
func TestStateSweep(t *testing.T) {
	var q, qerr bytes.Buffer
	if code := run([]string{"-sweep", "maxUnavailable=0,1", "-seeds", "2", clusters + "whatif/quota-in-force.yaml"}, &q, &qerr); code != 0 {
		t.Fatalf("exit %d: %s", code, qerr.String())
	}
	for _, want := range []string{"maxUnavailable=0     0/2", "maxUnavailable=1     2/2"} {
		if !strings.Contains(q.String(), want) {
			t.Errorf("quota table lacks %q:\n%s", want, q.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"-sweep", "maxSurge=0,2", "-seeds", "2", clusters + "rolling.yaml"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"scenario rolling, seeds 0..1", "maxSurge=0      2/2", "maxSurge=2      2/2"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}
