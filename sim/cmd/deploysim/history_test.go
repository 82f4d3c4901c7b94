package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/revision"
	"github.com/deploymath/deploymath/sim/snapshot"
)

// TestHistoryUndoGoldens: deploysim history and undo on the dumps of
// testdata/clusters, each output a golden beside its dump, read and
// checked by hand (testdata/clusters/README.md; go test -update rewrites
// them).
func TestHistoryUndoGoldens(t *testing.T) {
	type golden struct {
		golden string
		args   []string
		code   int
		stderr string
	}
	var cases []golden
	dumps, err := filepath.Glob(clusters + "*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range append(dumps, clusters+"imagepull.json") {
		base := strings.TrimSuffix(filepath.Base(d), filepath.Ext(d))
		cases = append(cases, golden{base + ".history.txt", []string{"history", d}, 0, ""})
	}
	cases = append(cases,
		golden{"rolling.history-web-1.txt", []string{"history", "--revision", "1", clusters + "rolling.yaml", "web"}, 0, ""},
		golden{"crashloop.history-checkout-2.txt", []string{"history", "-n", "payments", "--revision=2", clusters + "crashloop.yaml"}, 0, ""},
		// the unready rollout of shop/web rolled back to revision 1: the
		// old ReplicaSet is the new one again (revision 3).
		golden{"rolling.undo-web.txt", []string{"undo", clusters + "rolling.yaml", "web"}, 0, ""},
		// the crash-looping checkout rolled back: complete at once.
		golden{"crashloop.undo-checkout.txt", []string{"undo", "--to-revision", "1", clusters + "crashloop.yaml", "checkout"}, 0, ""},
	)
	if len(cases) != 11 {
		t.Fatalf("%d cases: the dumps changed (%q)", len(cases), dumps)
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tc.args, &out, &errb)
			if code != tc.code || errb.String() != tc.stderr {
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

// TestHistoryRefusals: what kubectl refuses, and what matches nothing,
// exits 2 naming the filter, the revision or the file.
func TestHistoryRefusals(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"history"}, "deploysim history: want a dump and at most one Deployment name, got 0 arguments"},
		{[]string{"history", clusters + "rolling.yaml", "web", "api"}, "got 3 arguments"},
		{[]string{"history", "--revision", "-1", clusters + "rolling.yaml"}, "error: revision must be a positive integer: -1"},
		{[]string{"history", clusters + "rolling.yaml", "nosuch"}, `deploysim history: deployments.apps "nosuch" not found in ` + clusters + "rolling.yaml; its Deployments: shop/api, shop/web"},
		{[]string{"history", "-n", "other", clusters + "rolling.yaml"}, `deploysim history: no Deployment in ` + clusters + `rolling.yaml in namespace "other"`},
		{[]string{"history", "--revision", "3", clusters + "rolling.yaml", "web"}, "error: unable to find the specified revision (deployment.apps/web has 1, 2)"},
		{[]string{"history", clusters + "missing.yaml"}, "no such file"},
		{[]string{"history", "-bogus", clusters + "rolling.yaml"}, "flag provided but not defined: -bogus"},
		{[]string{"undo", clusters + "rolling.yaml"}, "deploysim undo: want a dump and a Deployment name, got 1 arguments"},
		{[]string{"undo", clusters + "rolling.yaml", "api"}, `error: no rollout history found for deployment "api"`},
		{[]string{"undo", "--to-revision", "7", clusters + "rolling.yaml", "web"}, "error: unable to find specified revision 7 in history"},
		{[]string{"undo", clusters + "paused.yaml", "frontend"}, "error: you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again"},
		{[]string{"undo", "-n", "shop", clusters + "rolling.yaml", "nosuch"}, `deploysim undo: deployments.apps "nosuch" not found in ` + clusters + `rolling.yaml in namespace "shop"`},
		{[]string{"undo", "-seeds", "3", clusters + "rolling.yaml", "web"}, "-seeds: deploysim undo runs the rollback once from the dump; not with -seeds"},
		{[]string{"undo", "../../../testdata/manifests/nginx-deployment.yaml", "nginx-deployment"}, "not cluster state (no ReplicaSet or pod)"},
	} {
		var out, errb bytes.Buffer
		if code := run(tc.args, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), tc.stderr) || out.Len() > 0 {
			t.Errorf("%q: exit %d, stderr %q, stdout %.100q; want 2 and %q", tc.args, code, errb.String(), out.String(), tc.stderr)
		}
	}
}

// TestHistoryTable: change causes and several namespaces, on a dump
// written for the test: the table is revision.DescribeHistory's under
// kubectl's "deployment.apps/NAME " line, and a dump with Deployments
// in two namespaces needs -n (or a name found in one of them).
func TestHistoryTable(t *testing.T) {
	dump := filepath.Join(t.TempDir(), "two.yaml")
	rs := func(ns, name, hash, rev, cause, image string) string {
		return `- apiVersion: apps/v1
  kind: ReplicaSet
  metadata:
    name: ` + name + `
    namespace: ` + ns + `
    labels: {app: web, pod-template-hash: "` + hash + `"}
    annotations: {deployment.kubernetes.io/revision: "` + rev + `", kubernetes.io/change-cause: "` + cause + `"}
    ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: uid-` + ns + `, controller: true}]
  spec:
    replicas: 0
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web, pod-template-hash: "` + hash + `"}}
      spec: {containers: [{name: web, image: "` + image + `"}]}
`
	}
	dep := func(ns string) string {
		return `- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: ` + ns + `, uid: uid-` + ns + `, annotations: {deployment.kubernetes.io/revision: "2"}}
  spec:
    replicas: 1
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec: {containers: [{name: web, image: "web:2"}]}
`
	}
	src := "apiVersion: v1\nkind: List\nitems:\n" + dep("a") + rs("a", "web-1", "aaa", "1", "kubectl create --filename=web.yaml", "web:1") +
		rs("a", "web-2", "bbb", "2", "", "web:2") + dep("b") + rs("b", "web-9", "ccc", "9", "image web:2", "web:2")
	if err := os.WriteFile(dump, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runOut("history", "-n", "a", dump)
	want := "deployment.apps/web \nREVISION  CHANGE-CAUSE\n1         kubectl create --filename=web.yaml\n2         <none>\n\n"
	if code != 0 || out != want {
		t.Errorf("-n a: exit %d %s\n%q\nwant\n%q", code, errs, out, want)
	}
	entries := []revision.Entry{{Revision: 1, ChangeCause: "kubectl create --filename=web.yaml"}, {Revision: 2}}
	if want != "deployment.apps/web \n"+revision.DescribeHistory(entries)+"\n" {
		t.Errorf("the table is not revision.DescribeHistory's")
	}
	if code, _, errs := runOut("history", dump); code != exitUsage || !strings.Contains(errs, "holds Deployments in 2 namespaces (a, b): choose one with -n") {
		t.Errorf("two namespaces: exit %d, %s", code, errs)
	}
	if code, _, errs := runOut("history", dump, "web"); code != exitUsage || !strings.Contains(errs, `deployment "web" is in 2 namespaces of `+dump+` (a, b): choose one with -n`) {
		t.Errorf("a name in two namespaces: exit %d, %s", code, errs)
	}
	code, out, _ = runOut("history", "-n", "b", "--revision", "9", dump, "web")
	if code != 0 || !strings.Contains(out, "deployment.apps/web with revision #9\nPod Template:\n  Labels:\tapp=web\n\tpod-template-hash=ccc\n  Annotations:\tkubernetes.io/change-cause: image web:2\n  Containers:\n") {
		t.Errorf("--revision 9: exit %d:\n%s", code, out)
	}
}

// TestUndoWrite: the write deploysim undo shows is the JSON patch kubectl
// sends, the run applies the same rollback (its step names the same
// revision and ReplicaSet), and -format json wraps the run's JSON with
// the rollback.
func TestUndoWrite(t *testing.T) {
	code, out, errs := runOut("undo", clusters+"rolling.yaml", "web")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	head, trace, ok := strings.Cut(out, "\n\nscenario rolling (seed 0)")
	if !ok {
		t.Fatalf("no run after the write:\n%s", out)
	}
	lines := strings.Split(head, "\n")
	if len(lines) != 7 || lines[0] != "kubectl rollout undo deployment/web -n shop" ||
		lines[1] != "writes revision 1 (ReplicaSet web-6668d746d9) back:" ||
		lines[2] != "PATCH /apis/apps/v1/namespaces/shop/deployments/web" || lines[3] != "Content-Type: application/json-patch+json" ||
		lines[6] != "deployment.apps/web rolled back" {
		t.Fatalf("head:\n%s", head)
	}
	var patch []struct {
		Op, Path string
		Value    json.RawMessage
	}
	if err := json.Unmarshal([]byte(lines[5]), &patch); err != nil {
		t.Fatal(err)
	}
	// the template kubectl restores: the ReplicaSet's as the dump has it
	// (the API server's defaults), without the pod-template-hash label
	snap, err := snapshot.ReadFile(clusters+"rolling.yaml", snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var tmpl []byte
	for _, rs := range snap.ReplicaSets {
		if rs.Name == "web-6668d746d9" {
			want := rs.Spec.Template.DeepCopy()
			delete(want.Labels, "pod-template-hash")
			tmpl, err = json.Marshal(want)
		}
	}
	if err != nil || len(tmpl) == 0 {
		t.Fatalf("template of web-6668d746d9: %v", err)
	}
	if len(patch) != 2 || patch[0].Op != "replace" || patch[0].Path != "/spec/template" || patch[1].Op != "replace" || patch[1].Path != "/metadata/annotations" ||
		string(patch[0].Value) != string(tmpl) || string(patch[1].Value) != `{"deployment.kubernetes.io/revision":"2"}` {
		t.Errorf("patch %s\nwant the template %s", lines[5], tmpl)
	}
	if !strings.Contains(trace, "# step 1: rollout undo web: rolled back to revision 1 (web-6668d746d9)\n") {
		t.Errorf("the run's undo differs from the write shown:\n%.600s", trace)
	}
	code, out, errs = runOut("undo", "-format", "json", clusters+"rolling.yaml", "web")
	var rep struct {
		Command, Namespace, Deployment, ReplicaSet, Result string
		Revision                                           int64
		Patch                                              []any
		Run                                                struct{ Scenario string }
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
		t.Fatalf("json: exit %d %v %s", code, err, errs)
	}
	if rep.Command != "kubectl rollout undo deployment/web -n shop" || rep.Revision != 1 || rep.ReplicaSet != "web-6668d746d9" ||
		rep.Result != "deployment.apps/web rolled back" || len(rep.Patch) != 2 || rep.Run.Scenario != "rolling" {
		t.Errorf("json: %+v", rep)
	}
}
