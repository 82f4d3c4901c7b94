package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// laughs is YAML whose aliases expand 500 bytes to 6.4 GiB, under
// key (indented by indent).
func laughs(key, indent string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:\n%s  l0: &l0 \"lol\"\n", key, indent)
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "%s  l%d: &l%d [%s]\n", indent, i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d,", i-1), 10), ","))
	}
	return b.String()
}

// TestInputLimits: every path that reads cluster state or manifests
// (explain of a file or of standard input, a what-happens-next run,
// -from, the manifest itself, -seeds, history, undo) or a scenario (a
// run, its steps' manifests, -overlay of a run and of undo) refuses input
// beyond the limit of its kind, as read and as its aliases expand it,
// before parsing it, with the same error naming the file and the limit,
// and exit status 2.
func TestInputLimits(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string, size int64) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if size > 0 {
			if err := os.Truncate(p, size); err != nil { // sparse
				t.Fatal(err)
			}
		}
		return p
	}
	manifest := "../../../testdata/manifests/nginx-deployment.yaml"
	dump := "../../../testdata/clusters/rolling.yaml"
	bigDump := write("big-dump.yaml", "apiVersion: v1\nitems: []\n", 100<<20)
	bigScenario := write("big-scenario.yaml", "name: big\ndescription: "+strings.Repeat("x", 3<<20)+"\n", 0)
	lolDump := write("lol-dump.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\n"+laughs("data", ""), 0)
	lolScenario := write("lol-scenario.yaml", "name: lol\n"+laughs("description", ""), 0)
	// the aliases in a step's manifest, a ConfigMap applied at 1m
	lolStep := write("lol-step.yaml", "name: lol\nsteps:\n- at: 1m\n  apply:\n    apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: lol}\n"+laughs("    data", "    "), 0)
	dumpErr := bigDump + ": 100 MiB, above the limit of 64 MiB for cluster state or manifests (snapshot.MaxBytes)"
	scenarioErr := bigScenario + ": 3 MiB, above the limit of 2 MiB for a scenario (sim.MaxScenarioBytes)"
	expanded := func(file, limit string) string {
		return file + ": its YAML aliases expand it to 6.4 GiB, above the limit of " + limit
	}
	lolDumpErr := expanded(lolDump, "64 MiB for cluster state or manifests (snapshot.MaxBytes)")
	lolScenarioErr := expanded(lolScenario, "2 MiB for a scenario (sim.MaxScenarioBytes)")
	lolStepErr := expanded(lolStep, "2 MiB for a scenario (sim.MaxScenarioBytes)")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"explain", bigDump}, dumpErr},
		{[]string{bigDump}, dumpErr},
		{[]string{"-from", bigDump, manifest}, dumpErr},
		{[]string{"-from", dump, bigDump}, dumpErr},
		{[]string{"explain", lolDump}, lolDumpErr},
		{[]string{lolDump}, lolDumpErr},
		{[]string{"-from", lolDump, manifest}, lolDumpErr},
		{[]string{bigScenario}, scenarioErr},
		{[]string{"-overlay", bigScenario, manifest}, scenarioErr},
		{[]string{lolScenario}, lolScenarioErr},
		{[]string{"-overlay", lolScenario, dump}, lolScenarioErr},
		// and each other command and flag that reads a file
		{[]string{"-from", dump, lolDump}, lolDumpErr},
		{[]string{"-overlay", bigScenario, dump}, scenarioErr},
		{[]string{"-seeds", "2", bigDump}, dumpErr},
		{[]string{"-seeds", "2", lolDump}, lolDumpErr},
		{[]string{"history", bigDump}, dumpErr},
		{[]string{"history", lolDump}, lolDumpErr},
		{[]string{"undo", bigDump, "web"}, dumpErr},
		{[]string{"undo", lolDump, "web"}, lolDumpErr},
		{[]string{"undo", "-n", "shop", "-overlay", bigScenario, dump, "web"}, scenarioErr},
		{[]string{"undo", "-n", "shop", "-overlay", lolScenario, dump, "web"}, lolScenarioErr},
		{[]string{lolStep}, lolStepErr},
	} {
		var out, errb bytes.Buffer
		code := run(tc.args, &out, &errb)
		if code != exitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("deploysim %s: exit %d, stderr:\n%s\nwant exit %d and:\n%s", strings.Join(tc.args, " "), code, errb.String(), exitUsage, tc.want)
		}
	}
	// explain - reads standard input: the same limits, for "<stdin>"
	// (whose size is not known before it is read).
	for _, tc := range []struct {
		name  string
		stdin io.Reader
		want  string
	}{
		{"larger", io.MultiReader(strings.NewReader("apiVersion: v1\nkind: List\nitems:\n"), zeros{}), "<stdin>: larger than the limit of 64 MiB for cluster state or manifests (snapshot.MaxBytes)"},
		{"aliases", strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\n" + laughs("data", "")), expanded("<stdin>", "64 MiB for cluster state or manifests (snapshot.MaxBytes)")},
	} {
		var out, errb bytes.Buffer
		code := runExplain([]string{"-"}, tc.stdin, &out, &errb)
		if code != exitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("explain - (%s): exit %d, stderr:\n%s\nwant exit %d and:\n%s", tc.name, code, errb.String(), exitUsage, tc.want)
		}
	}
}

// zeros reads as an endless run of spaces.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// TestIsManifest: objects and scenarios told apart by the first
// document's top-level keys, whatever its size and layout.
func TestIsManifest(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want bool
	}{
		{"apiVersion: v1\nitems:\n- kind: Pod\nkind: List\n", true},
		{"items:\n- kind: Pod\n  apiVersion: v1\nkind: List\n", true}, // a List whose apiVersion comes last
		{"# a comment\n---\nkind: Deployment\n", true},
		{"\ufeffapiVersion: apps/v1\n", true},
		{"- apiVersion: v1\n  kind: Pod\n", true},
		{`{"apiVersion": "v1", "items": []}`, true},
		{`{"items": [{"kind": "Pod"}], "kind": "List"}`, true},
		{"{apiVersion: v1, kind: Pod}", true},
		{"--- {kind: Pod}\n", true},
		{"name: web\nsteps:\n- at: 1s\n  kind: x\n", false}, // kind below the top level
		{"name: web\n---\nkind: Pod\n", false},              // the second document
		{`{"name": "web", "objects": [{"kind": "Deployment"}]}`, false},
		{"{name: web, objects: [{kind: Deployment}]}", false},
		{"status:\n  replicas: 3\n", true},                      // a part of an object: the reader of objects says so
		{"Name:       web\nNamespace:  shop\n", true},           // kubectl describe
		{"NAME   READY   UP-TO-DATE   AVAILABLE   AGE\n", true}, // kubectl get's table
		{"", false},
	} {
		if got := isManifest([]byte(tc.doc)); got != tc.want {
			t.Errorf("isManifest(%q) = %v, want %v", tc.doc, got, tc.want)
		}
	}
}

// TestOneValidity: explain and a what-happens-next run read a dump
// through the same checks, so they refuse the same dumps with the same
// error, naming the file, the line and the field.
func TestOneValidity(t *testing.T) {
	dir := t.TempDir()
	rs := func(spec string) string {
		return "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: web-1\n  creationTimestamp: \"2026-11-23T10:00:00Z\"\n" + spec
	}
	deployment := func(containers string) string {
		return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, creationTimestamp: "2026-11-23T10:00:00Z"}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: ` + containers + `
status: {observedGeneration: 1}
`
	}
	for _, tc := range []struct{ name, dump, want string }{
		{"rs without spec", rs("status: {replicas: 0}\n"), "rs without spec.yaml: line 1: ReplicaSet default/web-1: spec.selector: Required value"},
		{"rs without containers", rs("spec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n"),
			"rs without containers.yaml: line 8: ReplicaSet default/web-1: spec.template.spec.containers: Required value"},
		{"deployment without containers", deployment("[]"), "deployment without containers.yaml: line 9: Deployment default/web: spec.template.spec.containers: Required value"},
	} {
		file := filepath.Join(dir, tc.name+".yaml")
		if err := os.WriteFile(file, []byte(tc.dump), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"explain", file}, {file}} {
			var out, errb bytes.Buffer
			code := run(args, &out, &errb)
			if code == 0 || !strings.Contains(errb.String(), filepath.Join(dir, tc.want)) {
				t.Errorf("deploysim %s: exit %d, stderr:\n%s\nwant %s", strings.Join(args, " "), code, errb.String(), filepath.Join(dir, tc.want))
			}
		}
	}
}

// TestIncompleteDumpRun: a what-happens-next run refuses a dump whose
// Deployment's status counts pods but holds none of its ReplicaSets,
// naming the file and the line; explain explains it, saying what the
// dump lacks.
func TestIncompleteDumpRun(t *testing.T) {
	const paste = "../../../testdata/clusters/pastes/extensions-2016.yaml"
	var out, errb bytes.Buffer
	if code := run([]string{paste}, &out, &errb); code == 0 || !strings.Contains(errb.String(), paste+": line 4: Deployment default/nginx: status.replicas: the status counts 1 pods (available 1), but the state holds none of its ReplicaSets") {
		t.Errorf("run: exit %d, stderr:\n%s", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"explain", paste}, &out, &errb); code != 0 || !strings.Contains(out.String(), "  missing: the snapshot holds none of its replica sets") {
		t.Errorf("explain: exit %d, stdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
}

// TestPastesWithoutObjects: a what-happens-next run of kubectl's output
// that holds no whole object (a status block, a status's grepped fields,
// kubectl describe, kubectl get's table) or what YAML cannot hold around
// objects (a Markdown fence, the command line) refuses it with explain's error,
// which says what it is and what to run instead, not with the scenario
// reader's unknown field; exit code 2.
func TestPastesWithoutObjects(t *testing.T) {
	const dir = "../../../testdata/clusters/pastes/"
	for _, paste := range []string{"status-block.yaml", "rs-status-grepped.yaml", "describe-deployment.txt", "get-table.txt", "rollout-status.txt", "fenced.yaml", "command-line.yaml", "stderr-warning.yaml"} {
		golden, err := os.ReadFile(dir + strings.TrimSuffix(paste, filepath.Ext(paste)) + ".explain.txt")
		if err != nil {
			t.Fatal(err)
		}
		want := strings.TrimPrefix(string(golden), "error: "+paste)
		for _, args := range [][]string{{dir + paste}, {"explain", dir + paste}} {
			var out, errb bytes.Buffer
			if code := run(args, &out, &errb); code != 2 || errb.String() != dir+paste+want {
				t.Errorf("deploysim %s: exit %d, stderr:\n%s\nwant exit 2 and\n%s", strings.Join(args, " "), code, errb.String(), dir+paste+want)
			}
		}
	}
}

// TestUTF16Dump: a dump saved as UTF-16 with a byte order mark
// (PowerShell's >) is read as objects, as kubectl reads such a file, and
// gives the run and explain what its UTF-8 text gives.
func TestUTF16Dump(t *testing.T) {
	const paste = "../../../testdata/clusters/pastes/powershell-utf16.yaml"
	data, err := os.ReadFile("../../../testdata/clusters/pastes/command-line.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(data), "\n") // without the command line
	utf8File := filepath.Join(t.TempDir(), "powershell-utf16.yaml")
	if err := os.WriteFile(utf8File, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{}, {"explain"}} {
		var out16, err16, out8, err8 bytes.Buffer
		code16 := run(append(slices.Clone(args), paste), &out16, &err16)
		code8 := run(append(slices.Clone(args), utf8File), &out8, &err8)
		got := strings.ReplaceAll(out16.String()+err16.String(), paste, "FILE")
		want := strings.ReplaceAll(out8.String()+err8.String(), utf8File, "FILE")
		if code16 != code8 || got != want {
			t.Errorf("deploysim %v: UTF-16 exit %d, UTF-8 exit %d; output (-UTF-8 +UTF-16):\n%s", args, code16, code8, cmp.Diff(want, got))
		}
		if !strings.Contains(got, "checkout") {
			t.Errorf("deploysim %v: output does not name the Deployment:\n%s", args, got)
		}
	}
}
