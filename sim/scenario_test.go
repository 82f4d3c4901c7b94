package sim

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
)

// oneDeployment is a scenario with one Deployment of 3 replicas and two
// containers; the steps that tests append start on line 17.
const oneDeployment = `name: t
until: 10m
objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: 3
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers:
        - {name: app, image: "app:v1"}
        - {name: proxy, image: "proxy:v1"}
steps:
`

// TestParseScenarioRefusals: input the loader used to accept silently, or
// refused without saying where, is refused with the line and the field.
func TestParseScenarioRefusals(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"empty", "", "empty scenario"},
		{"only comments", "# nothing\n\n", "empty scenario"},
		{"null", "null\n", "empty scenario"},
		{"text", "\n# names\ndeployment.apps/checkout\nreplicaset.apps/checkout-575b6f67d6\n", "line 3: not a scenario: want a mapping with at least objects (the Deployments) and steps, not text"},
		{"colors", "name: x\n\x1b[1msteps\x1b[0m: []\n", "line 2: a terminal escape sequence (ESC, 0x1b) at column 1"},
		{"number", "42\n", "line 1: not a scenario: want a mapping with at least objects (the Deployments) and steps, not 42"},
		{"list", "- name: web\n", "line 1: not a scenario: want a mapping with at least objects (the Deployments) and steps, not a list"},
		{"duplicate key", "name: a\nseed: 1\nname: b\n", `line 3: key "name" already set`},
		{"duplicate keys, one line", "name: a\nname: b\nseed: 1\nseed: 2\n", `yaml: unmarshal errors: line 2: key "name" already set in map; line 4: key "seed" already set in map`},
		{"duplicate nested key", oneDeployment + "- at: 1s\n  scale: 2\n  scale: 3\n", `line 19: key "scale" already set`},
		{"wrong type, top level", "name: x\nseed: many\n", `line 2: field "seed": cannot use string as uint64`},
		{"wrong type, step", oneDeployment + "- at: 1s\n  scale: 2\n- at: 2s\n  scale: lots\n", `line 20: field "steps[1].scale": cannot use string as int32`},
		{"wrong type, manifest", strings.Replace(oneDeployment, "replicas: 3", "replicas: [3]", 1), `line 8: field "objects[0].spec.replicas": cannot use array as int32`},
		{"wrong type, apply", oneDeployment + "- at: 1s\n  apply:\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata: {name: web}\n    spec:\n      replicas: x\n", `line 23: field "steps[0].apply.spec.replicas": cannot use string as int32`},
		{"bad duration with line", oneDeployment + "- at: 1s\n  pause: true\n- at: soon\n  resume: true\n", `line 19: field "steps[1].at": invalid duration "soon"`},
		{"validation with line", strings.Replace(oneDeployment, "replicas: 3", "replicas: 3\n    revisionHistoryLimit: -1", 1), `line 9: field "objects[0].spec.revisionHistoryLimit": invalid value -1`},
		{"validation of an apply step", oneDeployment + "- at: 1s\n  apply:\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata: {name: web}\n    spec:\n      replicas: 2\n", `field "steps[0].apply.spec.selector": required value`},
		{"too many replicas", strings.Replace(oneDeployment, "replicas: 3", "replicas: 1000001", 1), `line 8: field "objects[0].spec.replicas": 1000001 replicas is above the simulator's limit of 1000000 (sim.MaxReplicas)`},
		{"too many replicas in all", manyDeployments(5, 210000), `line 43: field "objects[4].spec.replicas": the Deployments of objects have 1050000 replicas in all, above the simulator's limit of 1000000 (sim.MaxTotalReplicas)`},
		{"scale above the limit", oneDeployment + "- at: 1s\n  scale: 1000001\n", `line 18: field "steps[0].scale": 1000001 replicas is above`},
		{"step after until", oneDeployment + "- at: 1s\n  pause: true\n- at: 11m\n  resume: true\n", `line 19: field "steps[1].at": 11m0s is after the time limit (until 10m0s): the step would never run`},
		{"step after the default until", "name: x\nsteps:\n- at: 31m\n  pause: true\n", `line 3: field "steps[0].at": 31m0s is after the time limit (until 30m0s)`},
		{"expect names no Deployment", "expect:\n  api: Complete\n" + oneDeployment, `line 2: field "expect.api": the scenario creates no Deployment "api"`},
		{"expect, not an outcome", "expect:\n  web: Done\n" + oneDeployment, `line 2: field "expect.web": "Done" is not an outcome: want Complete, ProgressDeadlineExceeded or Incomplete`},
		{"too large", "name: x\ndescription: " + strings.Repeat("x", MaxScenarioBytes) + "\n", "2097174 bytes, above the limit of 2 MiB (2097152 bytes) for a scenario (sim.MaxScenarioBytes)"},
	}
	for _, c := range cases {
		_, err := ParseScenario([]byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

// manyDeployments is a scenario of count Deployments of n replicas each.
func manyDeployments(count, n int) string {
	var b strings.Builder
	b.WriteString("name: t\nobjects:\n")
	for i := range count {
		name := []string{"web", "api", "db", "cache", "queue", "auth", "mail"}[i]
		fmt.Fprintf(&b, `- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: %s}
  spec:
    replicas: %d
    selector: {matchLabels: {app: %s}}
    template:
      metadata: {labels: {app: %s}}
      spec: {containers: [{name: app, image: "app:v1"}]}
`, name, n, name, name)
	}
	return b.String()
}

// TestLoadScenarioLimit: a file larger than MaxScenarioBytes is refused
// after reading MaxScenarioBytes+1 bytes, naming the file and the limit;
// so is a device that never ends.
func TestLoadScenarioLimit(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, []byte("name: x\ndescription: "+strings.Repeat("x", MaxScenarioBytes)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths := []string{big}
	if _, err := os.Stat("/dev/zero"); err == nil {
		paths = append(paths, "/dev/zero")
	}
	for _, p := range paths {
		_, err := LoadScenario(p)
		if err == nil || !strings.HasPrefix(err.Error(), p+": ") || !strings.Contains(err.Error(), "sim.MaxScenarioBytes") {
			t.Errorf("LoadScenario(%s) = %v, want an error naming the file and the limit", p, err)
		}
	}
}

// TestSetImageUnknownContainer: kubectl set image refuses a container the
// Deployment does not have; the run stops with the file, the line, the
// field and the containers that exist (it used to add a note and go on).
func TestSetImageUnknownContainer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	src := oneDeployment + "- at: 1s\n  setImage: {container: ap, image: \"app:v2\"}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := LoadScenario(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(sc, Options{})
	want := path + `: line 18: field "steps[0].setImage.container": deployment web has no container "ap" (its containers: "app", "proxy")`
	if err == nil || err.Error() != want {
		t.Fatalf("error\n %v\nwant\n %s", err, want)
	}
}

// TestUntilBeforeSteps: an Options.Until before a step is refused, naming
// the step and its line.
func TestUntilBeforeSteps(t *testing.T) {
	sc, err := ParseScenario([]byte(oneDeployment + "- at: 1s\n  pause: true\n- at: 2m\n  resume: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(sc, Options{Until: time.Minute})
	want := "step 2 at 2m0s (line 19) would never run: it is after the time limit 1m0s"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}

// TestTraceCap: beyond its frame limit a trace keeps its first frames and
// its last one, counts the others and says so in the text.
func TestTraceCap(t *testing.T) {
	sc, err := LoadScenario(scenarioDir + "/nginx-rolling-update.yaml")
	if err != nil {
		t.Fatal(err)
	}
	full, err := Run(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.maxFrames = 4
	capped, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	n := len(full.Trace.Frames)
	if n <= 4 {
		t.Fatalf("the scenario has %d frames; the test needs more than 4", n)
	}
	got := capped.Trace
	if len(got.Frames) != 4 || got.Dropped != n-4 {
		t.Fatalf("capped trace: %d frames, %d dropped; want 4 and %d", len(got.Frames), got.Dropped, n-4)
	}
	if got.Frames[2].At != full.Trace.Frames[2].At || got.Frames[3].At != full.Trace.Frames[n-1].At {
		t.Errorf("capped trace keeps frames at %s..%s, %s; want the first ones and the last", offset(got.Frames[0].At), offset(got.Frames[2].At), offset(got.Frames[3].At))
	}
	if diff := cmp.Diff(full.Summary, capped.Summary); diff != "" {
		t.Errorf("summary differs (-full +capped):\n%s", diff)
	}
	if txt := capped.Text(); !strings.Contains(txt, "frames not kept: a trace keeps at most 100000 (sim.MaxTraceFrames)") {
		t.Errorf("text lacks the truncation line:\n%s", txt)
	}
	// A trace of changes lost those of the dropped frames: its last frame
	// holds every Deployment, as the full view's does.
	fullView, err := Run(sc, Options{FullView: true})
	if err != nil {
		t.Fatal(err)
	}
	last := got.Frames[3]
	if !last.Full || got.Frames[2].Full {
		t.Errorf("full frames: %v %v, want only the last", got.Frames[2].Full, last.Full)
	}
	if diff := cmp.Diff(fullView.Trace.Frames[n-1].Deployments, last.Deployments); diff != "" {
		t.Errorf("last frame of the capped trace (-full view +capped):\n%s", diff)
	}
	if diff := cmp.Diff(fullView.Trace.Final(), got.Final()); diff != "" {
		t.Errorf("final state of the capped trace (-full view +capped):\n%s", diff)
	}
}

// TestScenarioTextErrors: what the decoders refuse without saying where
// (a NaN, bytes that are not UTF-8, flow collections nested too deep,
// an object given twice, a Deployment without containers) is refused
// with the line and the field.
func TestScenarioTextErrors(t *testing.T) {
	const deployment = `objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: 2
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec: {containers: [{name: web, image: "web:1"}]}
`
	for _, tc := range []struct{ name, doc, want string }{
		{"NaN", "name: x\ncluster:\n  failures:\n  - image: web:2\n    mode: crashloop\n    probability: .nan\n" + deployment,
			`line 6: field "cluster.failures[0].probability": .nan is not a number a scenario can hold (YAML's NaN): want a number such as 0.5`},
		{"infinity", "name: x\ncluster:\n  writeConflicts: -.inf\n" + deployment,
			`line 3: field "cluster.writeConflicts": -.inf is not a number a scenario can hold (YAML's infinity)`},
		{"not UTF-8", "name: x\ndescription: \"caf\xe9\"\n" + deployment, `line 2: field "description": byte 0xe9 at column 18 is not UTF-8: a scenario is UTF-8 text`},
		{"deep", "name: x\ndescription: " + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + "\n" + deployment,
			`line 2: field "description": [ and { nested more than 1000 deep at column 1014 (inputlimit.MaxNesting)`},
		{"twice", deployment + strings.Replace(deployment, "objects:\n", "", 1),
			`line 13: field "objects[1].metadata.name": Deployment default/web is given twice (first as objects[0]): the API server refuses the second (deployments.apps "web" already exists)`},
		{"no containers", strings.Replace(deployment, `[{name: web, image: "web:1"}]`, "[]", 1),
			`line 10: field "objects[0].spec.template.spec.containers": Required value (the API server refuses such a Deployment)`},
	} {
		_, err := ParseScenario([]byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant %s", tc.name, err, tc.want)
		}
	}
}

// TestParseScenarioUTF16: a scenario saved as UTF-16 with a byte order mark
// (PowerShell's >) is read as its UTF-8 text is, errors naming the same
// lines.
func TestParseScenarioUTF16(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(scenarioDir, "crashloop-deadline-undo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	utf16le := func(s string) []byte {
		out := []byte{0xff, 0xfe}
		for _, u := range utf16.Encode([]rune(s)) {
			out = binary.LittleEndian.AppendUint16(out, u)
		}
		return out
	}
	want, err := ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseScenario(utf16le(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	w, err := want.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	g, err := got.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(w), string(g)); diff != "" {
		t.Errorf("UTF-16 scenario (-UTF-8 +UTF-16):\n%s", diff)
	}
	if _, err := ParseScenario(utf16le("name: x\nseed: 1\nstepz: []\n")); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("error %v, want it at line 3", err)
	}
}
