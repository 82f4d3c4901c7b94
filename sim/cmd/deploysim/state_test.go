package main

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
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
		{[]string{"-now", "2026-11-23T22:40:00Z", nginx}, 1, "-now: " + nginx + " is a scenario"},
		{[]string{"-now", "soon", clusters + "rolling.yaml"}, 2, `-now "soon": want an RFC 3339 time`},
		{[]string{noTime}, 1, noTime + ": the state holds no time to start from: say when it was taken with -now (RFC 3339)"},
		{[]string{"-from", clusters + "rolling.yaml", svc}, 1, svc + ": no Deployment, ConfigMap or Secret to apply"},
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
