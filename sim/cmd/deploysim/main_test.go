package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const nginx = "../../../testdata/scenarios/nginx-rolling-update.yaml"

func TestRunText(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-check", nginx}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"scenario nginx-rolling-update", "Scaled up replica set", "summary"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestRunJSONAndSVG(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "chart.svg")
	var out, errb bytes.Buffer
	if code := run([]string{"-format", "json", "-svg", svg, nginx}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.HasPrefix(out.String(), "{") {
		t.Errorf("json output starts with %.20q", out.String())
	}
	b, err := os.ReadFile(svg)
	if err != nil || !bytes.HasPrefix(b, []byte("<svg")) {
		t.Fatalf("svg: %v %.20q", err, b)
	}
}

func TestRunSweep(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-seeds", "2", "-sweep", "maxSurge=0,1;maxUnavailable=1", nginx}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "maxSurge=1 maxUnavailable=1") {
		t.Errorf("sweep table:\n%s", out.String())
	}
}

func TestRunErrors(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(nil, &out, &errb); code != 2 {
		t.Errorf("no argument: exit %d, want 2", code)
	}
	if code := run([]string{"-format", "xml", nginx}, &out, &errb); code != 2 {
		t.Errorf("bad format: exit %d, want 2", code)
	}
	if code := run([]string{"missing.yaml"}, &out, &errb); code != 2 {
		t.Errorf("missing file: exit %d, want 2", code)
	}
}

// TestRunRefusals: command lines that used to run (exit 0), print only
// the usage, or fail after the run, are refused up front with a message
// naming the flag or the file.
func TestRunRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := write("empty.yaml", "")
	null := write("null.yaml", "null\n")
	dup := write("dup.yaml", "name: a\nname: b\n")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{empty}, 2, empty + ": empty scenario"},
		{[]string{null}, 2, null + ": empty scenario"},
		{[]string{dup}, 2, `line 2: key "name" already set`},
		{[]string{"-seed", "-5", nginx}, 2, `invalid value "-5" for flag -seed: want a non-negative integer`},
		{[]string{"-until", "-5m", nginx}, 2, "-until -5m0s: must be positive"},
		{[]string{"-until", "0s", nginx}, 2, "-until 0s: must be positive"},
		{[]string{"-until", "10s", nginx}, 2, "-until 10s: step 1 at 30s (" + nginx + ": line 38) would never run"},
		{[]string{"-format", "xml", "-until", "1000h", nginx}, 2, `-format "xml": unknown format`},
		{[]string{"-sweep", "maxSurge=abc", nginx}, 2, `-sweep: sweep[0]: maxSurge: invalid value "abc"`},
		{[]string{"-sweep", "maxSurge=1;maxSurge=2", nginx}, 2, "parameter maxSurge given twice"},
		{[]string{"-sweep", "maxSurge=0;maxUnavailable=0", nginx}, 2, "-sweep: sweep maxSurge=0 maxUnavailable=0: deployment nginx-deployment"},
		{[]string{"-seeds", "300000000", "-sweep", "maxSurge=1", nginx}, 2, "-seeds 300000000: want 1 to 1000"},
		{[]string{"-seeds", "0", "-sweep", "maxSurge=1", nginx}, 2, "-seeds 0: want 1 to 1000"},
		{[]string{nginx, "other.yaml"}, 2, "want one scenario file, got 2"},
		{[]string{nginx, "-bogus"}, 2, "flag provided but not defined: -bogus"},
	} {
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		if code != c.code || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant exit %d and %q", c.args, code, errb.String(), c.code, c.want)
		}
		if c.code == 2 && out.Len() > 0 {
			t.Errorf("%q: refused but printed a run:\n%.200s", c.args, out.String())
		}
	}
}

// TestFlagsAfterFile: flags may follow the scenario file (they used to be
// taken for more file names, and only the usage was printed).
func TestFlagsAfterFile(t *testing.T) {
	var a, b, errb bytes.Buffer
	if code := run([]string{"-seed", "7", "-format", "json", nginx}, &a, &errb); code != 0 {
		t.Fatalf("flags first: exit %d: %s", code, errb.String())
	}
	if code := run([]string{nginx, "-seed", "7", "-format", "json"}, &b, &errb); code != 0 {
		t.Fatalf("flags last: exit %d: %s", code, errb.String())
	}
	if a.String() != b.String() || !strings.Contains(a.String(), `"seed": 7`) {
		t.Errorf("flags after the file give a different run:\n%.300s\nvs\n%.300s", a.String(), b.String())
	}
}

// TestUsage: the help names the limits and shows no contradictory
// defaults.
func TestUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-h"}, &out, &errb); code != 0 {
		t.Errorf("-h: exit %d, want 0", code)
	}
	help := errb.String()
	if strings.Contains(help, "(default -1)") {
		t.Errorf("-seed help shows a default of -1:\n%s", help)
	}
	for _, want := range []string{"-seed seed\n    \tthe run's seed, a non-negative integer (default: the scenario's)\n",
		"-parallel N\n", "-quiet\n", "-shard i/n\n", "shard k mod n", "deploysim merge [-format text|json] FILE...",
		"deploysim history [-n NAMESPACE] [--revision N] DUMP [DEPLOYMENT]", "deploysim undo [-n NAMESPACE] [--to-revision N] [flags] DUMP DEPLOYMENT", "-version\n",
		"limits: scenario file 2 MiB, 1000000 replicas per Deployment and 1000000 in all, 1000 seeds per sweep combination, 10000 runs per sweep, 100000 trace frames"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
}

// TestSetImageUnknownContainerExits: a setImage of a container the
// Deployment lacks is an error naming the file, the line and the
// containers (it used to add a trace comment and exit 0).
func TestSetImageUnknownContainerExits(t *testing.T) {
	src, err := os.ReadFile(nginx)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "typo.yaml")
	if err := os.WriteFile(p, bytes.Replace(src, []byte("container: nginx,"), []byte("container: ngnix,"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{p}, &out, &errb)
	want := p + `: line 39: field "steps[0].setImage.container": deployment nginx-deployment has no container "ngnix" (its containers: "nginx")`
	if code != 2 || strings.TrimSpace(errb.String()) != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errb.String(), want)
	}
}

// TestCheckWarnsStuck: -check reports a Deployment left below its
// replicas with nothing in flight as a warning naming the upstream quirk;
// the exit status stays 0.
func TestCheckWarnsStuck(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"-check", "../../../testdata/scenarios/paused-scale-up-deleted.yaml"}, &out, &errb)
	if code != 0 || !strings.Contains(errb.String(), "warning: stuck-below-replicas after step 5 at t=5m0s: web: ends with 0 of 3 pods available and nothing in flight; paused without a ReplicaSet that has replicas: upstream v1.37's paused-cleanup quirk") {
		t.Errorf("exit %d, stderr:\n%s", code, errb.String())
	}
}

// A requeued sync is one short line; -full-stops shows the planner's text.
func TestFullStops(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		want, lack string
	}{
		{[]string{nginx}, "requeued: the sync's 2nd deployment write", "# sync nginx-deployment stopped:"},
		{[]string{"-full-stops", nginx}, "# sync nginx-deployment stopped:", "requeued:"},
	} {
		var out, errb bytes.Buffer
		if code := run(tc.args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errb.String())
		}
		if !strings.Contains(out.String(), tc.want) || strings.Contains(out.String(), tc.lack) {
			t.Errorf("%v: want %q and no %q in the trace", tc.args, tc.want, tc.lack)
		}
	}
}

func TestExplain(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-explain", nginx}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{
		"  sync nginx-deployment: scale down nginx-deployment-",
		"  sync nginx-deployment wrote nothing: old replica sets stay: maxScaledDown 0 = all pods 4 - minAvailable 3 - unavailable new pods 1\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("-explain output lacks %q", want)
		}
	}
	out.Reset()
	if code := run([]string{"-explain", "-format", "json", nginx}, &out, &errb); code != 0 {
		t.Fatalf("json: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), `"syncs": [`) {
		t.Errorf("-explain -format json has no syncs")
	}
	out.Reset()
	if code := run([]string{nginx}, &out, &errb); code != 0 || strings.Contains(out.String(), "  sync ") {
		t.Errorf("without -explain: exit %d, sync lines: %v", code, strings.Contains(out.String(), "  sync "))
	}
	errb.Reset()
	if code := run([]string{"-explain", "-seeds", "2", nginx}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "-explain") {
		t.Errorf("-explain -seeds: exit %d, stderr %q; want 2 naming -explain", code, errb.String())
	}
}

// TestReferenceListsFlags fails when a flag of deploysim is missing from
// the scenario-format reference.
func TestReferenceListsFlags(t *testing.T) {
	ref, err := os.ReadFile("../../../testdata/scenarios/REFERENCE.md")
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"-h"}, &out, &errb); code != 0 {
		t.Fatalf("-h: exit %d", code)
	}
	n := 0
	for _, line := range strings.Split(errb.String(), "\n") {
		if !strings.HasPrefix(line, "  -") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(line, "  "), " ")
		name, _, _ = strings.Cut(name, "\t")
		n++
		if !bytes.Contains(ref, []byte("`"+name+" ")) && !bytes.Contains(ref, []byte("`"+name+"`")) {
			t.Errorf("REFERENCE.md does not list the flag %s", name)
		}
	}
	if n < 10 {
		t.Fatalf("found %d flags in the usage:\n%s", n, errb.String())
	}
}

// TestRunMissedStep: a step whose when never held makes the exit status
// 1 and is named on stderr with its file and line.
func TestRunMissedStep(t *testing.T) {
	file := filepath.Join(t.TempDir(), "missed.yaml")
	sc := `objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: 2
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: web, image: "web:1"}]
steps:
- at: 10s
  when: {available: 5, timeout: 20s}
  pause: true
`
	if err := os.WriteFile(file, []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"-until", "1m", file}, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, errb.String())
	}
	want := file + ": line 14: step 1 did not run: deployment reaches available 5 did not hold within its timeout 20s (at t=30s: 2)"
	if !strings.Contains(errb.String(), want) || !strings.Contains(out.String(), "MISSED "+want) {
		t.Errorf("stderr:\n%s\nstdout:\n%s\nwant %q", errb.String(), out.String(), want)
	}
}

// TestExitStatusOutcomes: like `kubectl rollout status`, a run whose
// Deployment ends ProgressDeadlineExceeded exits 1 unless the scenario's
// expect: declares it; an expectation that does not hold exits 1;
// -require-complete fails an incomplete rollout.
func TestExitStatusOutcomes(t *testing.T) {
	stuck := `cluster:
  nodes: [{name: node-1, capacity: 50}]
  startup: {min: 2s, max: 5s}
  readiness: {min: 1s, max: 3s}
  failures:
  - {image: "web:v2-broken", mode: crashloop}
objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: 2
    progressDeadlineSeconds: 20
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: web, image: "web:v1"}]
steps:
- at: 30s
  setImage: {container: web, image: "web:v2-broken"}
`
	for _, tc := range []struct {
		name, expect string
		args         []string
		code         int
		stderr       string
	}{
		{name: "stuck, undeclared", code: 1, stderr: "deploysim: deployment web ended ProgressDeadlineExceeded (`kubectl rollout status` would fail; declare `expect: {web: ProgressDeadlineExceeded}` if the scenario means it)"},
		{name: "stuck, declared", expect: "expect: {web: ProgressDeadlineExceeded}\n", code: 0},
		{name: "declared otherwise", expect: "expect: {web: Complete}\n", code: 1, stderr: "deploysim: deployment web ended ProgressDeadlineExceeded (the scenario expects Complete)"},
		{name: "incomplete at the end", args: []string{"-until", "40s"}, code: 0},
		{name: "incomplete, -require-complete", args: []string{"-until", "40s", "-require-complete"}, code: 3, stderr: "deploysim: deployment web ended Incomplete (`kubectl rollout status` would still be waiting; declare `expect: {web: Incomplete}` if the scenario means it)"},
		{name: "incomplete, declared", expect: "expect: {web: Incomplete}\n", args: []string{"-until", "40s", "-require-complete"}, code: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "stuck.yaml")
			if err := os.WriteFile(file, []byte("until: 3m\n"+tc.expect+stuck), 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			code := run(append(tc.args, file), &out, &errb)
			if code != tc.code || strings.TrimSpace(errb.String()) != tc.stderr {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errb.String(), tc.code, tc.stderr)
			}
		})
	}
	// The JSON lists every outcome.
	file := filepath.Join(t.TempDir(), "stuck.yaml")
	if err := os.WriteFile(file, []byte("until: 3m\n"+stuck), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	run([]string{"-format", "json", file}, &out, &errb)
	if !strings.Contains(out.String(), `"outcomes": [
    {
      "deployment": "web",
      "outcome": "ProgressDeadlineExceeded"
    }
  ]`) {
		t.Errorf("JSON outcomes missing:\n%s", out.String()[max(0, out.Len()-400):])
	}
}

// TestManifests: a plain manifest runs on a default cluster (the docs'
// nginx Deployment gets the ReplicaSet name a cluster gives it); with
// -from, the manifest is applied once the state is rolled out, showing
// the rollout kubectl apply would start; errors name the file.
func TestManifests(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"../../../testdata/manifests/nginx-deployment.yaml"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "nginx-deployment-54fd4d6d4c    1        3        3      3          3            0") {
		t.Fatalf("bare manifest: exit %d, stderr %s\n%s", code, errb.String(), out.String())
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"-from", "../../../testdata/manifests/nginx-deployment.yaml", "../../../testdata/manifests/nginx-deployment-1.16.yaml"}, &out, &errb); code != 0 {
		t.Fatalf("-from: exit %d, stderr %s", code, errb.String())
	}
	for _, want := range []string{
		"Scaled up replica set nginx-deployment-54fd4d6d4c from 0 to 3",
		"Scaled up replica set nginx-deployment-76df5b8bb8 from 0 to 1",
		"Scaled down replica set nginx-deployment-54fd4d6d4c from 1 to 0",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("-from: output lacks %q", want)
		}
	}
	// -overlay: the assumption that the new image crash-loops stalls the
	// rollout past its progress deadline, which fails the run.
	out.Reset()
	errb.Reset()
	m := "../../../testdata/manifests/"
	code := run([]string{"-from", m + "nginx-deployment.yaml", "-overlay", m + "new-image-crashloops.yaml", m + "nginx-deployment-1.16.yaml"}, &out, &errb)
	if want := "deploysim: deployment nginx-deployment ended ProgressDeadlineExceeded"; code != 1 || !strings.Contains(errb.String(), want) ||
		!strings.Contains(out.String(), "nginx-deployment-76df5b8bb8    2        1        1      0          0            0") {
		t.Errorf("-overlay: exit %d, stderr %q, want 1 and %q", code, errb.String(), want)
	}
	errb.Reset()
	if code := run([]string{"-overlay", nginx, m + "nginx-deployment.yaml"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "an overlay has no objects") {
		t.Errorf("-overlay with objects: exit %d, stderr %q", code, errb.String())
	}
	// -from with a scenario, and a file with nothing to simulate.
	errb.Reset()
	if code := run([]string{"-from", "../../../testdata/manifests/nginx-deployment.yaml", nginx}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "is a scenario, not a manifest") {
		t.Errorf("-from with a scenario: exit %d, stderr %q", code, errb.String())
	}
	empty := filepath.Join(t.TempDir(), "svc.yaml")
	if err := os.WriteFile(empty, []byte("apiVersion: v1\nkind: Service\nmetadata: {name: web}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := run([]string{empty}, &out, &errb); code != 2 || !strings.Contains(errb.String(), empty+": no Deployment, ConfigMap or Secret to simulate") {
		t.Errorf("nothing to simulate: exit %d, stderr %q", code, errb.String())
	}
}

// A scenario with an object of a custom kind is refused with exit 2 and
// says how to run a controller of your own.
func TestCustomKindRefused(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "custom.yaml")
	src := "name: custom\nobjects:\n- apiVersion: example.com/v1\n  kind: Canary\n  metadata: {name: web}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	if code := run([]string{file}, &out, &errOut); code != exitUsage {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitUsage, errOut.String())
	}
	for _, want := range []string{`line 3: field "objects[0].kind": apiVersion "example.com/v1" kind "Canary": not registered`, "deploysim runs the built-in controllers only", "Test your own controller"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
}
