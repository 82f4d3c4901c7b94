package sim

import (
	"strings"
	"testing"
	"time"
)

// podStepBase is a Deployment of 3 replicas on two nodes, for the tests of
// pod steps, when and unreachable nodes.
const podStepBase = `name: podsteps
seed: 1
until: 10m
cluster:
  nodes: [{name: node-1, capacity: 10}, {name: node-2, capacity: 10}]
  evictionTimeout: 1m
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
        containers: [{name: web, image: "web:1"}]
steps:
`

func runPodSteps(t *testing.T, steps string) (*Result, string) {
	t.Helper()
	sc, err := ParseScenario([]byte(podStepBase + steps))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(sc, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	return res, res.Text()
}

// lastRow is the last state of the Deployment web in the trace.
func lastRow(res *Result) DeploymentRow {
	return res.Trace.Final()[0]
}

func TestPodStepPhaseFailedIsReplaced(t *testing.T) {
	res, text := runPodSteps(t, `- at: 30s
  pod: {rs: new, index: 0, phase: Failed}
- at: 30s
  stopWhenConverged: true
`)
	if !strings.Contains(text, "phase Failed") {
		t.Fatalf("no note of the step:\n%s", text)
	}
	// the Failed pod stays, uncounted; a replacement makes 3 available
	if r := lastRow(res); r.Available != 3 || r.Replicas != 3 {
		t.Errorf("end: replicas %d available %d, want 3 and 3", r.Replicas, r.Available)
	}
	if !res.Summary.Completed {
		t.Error("not complete: a Failed pod must not block convergence")
	}
}

func TestPodStepReadyFalseThenTrue(t *testing.T) {
	res, text := runPodSteps(t, `- at: 30s
  pod: {index: 1, ready: false}
- at: 1m
  pod: {index: 1, ready: true}
`)
	var at45, end int32 = -1, lastRow(res).Available
	for f, rows := range res.Trace.States() {
		if f.At <= 45*time.Second {
			at45 = rows[0].Available
		}
	}
	if at45 != 2 || end != 3 {
		t.Errorf("available at 45s %d, at the end %d; want 2 and 3:\n%s", at45, end, text)
	}
}

func TestPodStepErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct{ step, want string }{
		{"  pod: {rs: nope, delete: true}\n", `line 20: field "steps[0].pod.rs": deployment web has no "nope" replica set`},
		{"  pod:\n    rs: new\n    index: 5\n    delete: true\n", `line 22: field "steps[0].pod.index": pod 5 of deployment web's pods of replica set new does not exist`},
	} {
		sc, err := ParseScenario([]byte(podStepBase + "- at: 20s\n" + tc.step))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Run(sc, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want it to contain %q", err, tc.want)
		}
	}
	for _, tc := range []struct{ step, want string }{
		{"  pod: {index: 0}\n", "exactly one of phase, ready, delete and unreachable"},
		{"  pod: {index: 0, phase: Done}\n", `unknown phase "Done"`},
		{"  pod: {index: -1, delete: true}\n", "must not be negative"},
		{"  when: {available: 1, ready: 1}\n  pause: true\n", "exactly one of replicas"},
		{"  when: {condition: Progressing}\n  pause: true\n", "TYPE=STATUS"},
		{"  when: {replicaSet: new, updated: 1}\n  pause: true\n", "drop replicaSet"},
		{"  unreachableNode: node-9\n", `unknown node "node-9"`},
	} {
		_, err := ParseScenario([]byte(podStepBase + "- at: 20s\n" + tc.step))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to contain %q", tc.step, err, tc.want)
		}
	}
}

func TestWhenFiresAndMisses(t *testing.T) {
	res, text := runPodSteps(t, `- at: 30s
  scale: 5
- at: 30s
  when: {available: 5, timeout: 1m}
  pod: {index: 0, delete: true}
- at: 30s
  when: {available: 9, timeout: 1m}
  pause: true
`)
	if !strings.Contains(text, "step 2: met: deployment reaches available 5 (5)") {
		t.Errorf("step 2 did not fire:\n%s", text)
	}
	if len(res.Missed) != 1 || res.Missed[0].Step != 3 || res.Missed[0].At != 90*time.Second ||
		!strings.Contains(res.Missed[0].Message, "line 25: step 3 did not run: deployment reaches available 9 did not hold within its timeout 1m0s") {
		t.Errorf("missed %+v", res.Missed)
	}
	if !strings.Contains(text, "MISSED line 25: step 3") {
		t.Errorf("no MISSED line:\n%s", text)
	}
	// without a timeout, the step is missed at the end of the run
	res, _ = runPodSteps(t, `- at: 30s
  when: {deployment: web, condition: Progressing=False}
  pause: true
`)
	if len(res.Missed) != 1 || res.Missed[0].At != 10*time.Minute {
		t.Errorf("missed %+v, want step 1 at 10m", res.Missed)
	}
}

func TestWhenReachedFromAbove(t *testing.T) {
	_, text := runPodSteps(t, `- at: 30s
  scale: 0
- at: 30s
  when: {replicas: 1}
  scale: 2
- at: 30s
  stopWhenConverged: true
`)
	if !strings.Contains(text, "step 2: met: deployment reaches replicas 1 (0)") {
		t.Errorf("step 2 did not fire on the way down:\n%s", text)
	}
}

func TestUnreachableNodeRecovers(t *testing.T) {
	res, text := runPodSteps(t, `- at: 30s
  unreachableNode: node-1
- at: 3m
  recoverNode: node-1
- at: 3m
  stopWhenConverged: true
`)
	for _, want := range []string{
		"t=1m20s\n  # node node-1: Ready=Unknown (no status for 50s), tainted unreachable; 2 pods marked not ready",
		"t=2m20s\n  # node node-1: evicting 2 pods (unreachable for 1m0s): Terminating until the node is back or deleted",
		"# step 2: node node-1 reports again",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("trace lacks %q:\n%s", want, text)
		}
	}
	// the evicted pods stay Terminating until 3m, then terminate in 1s
	for f, rows := range res.Trace.States() {
		d := rows[0]
		if f.At > 2*time.Minute+10*time.Second && f.At < 3*time.Minute && *d.Terminating != 2 {
			t.Errorf("%s: terminating %d, want 2", offset(f.At), *d.Terminating)
		}
	}
	if !res.Summary.Completed || *lastRow(res).Terminating != 0 || res.Summary.End != 3*time.Minute+time.Second {
		t.Errorf("end %s, completed %v, terminating %d", res.Summary.End, res.Summary.Completed, *lastRow(res).Terminating)
	}
}

func TestPodStepUnreachableBeforeGracePeriod(t *testing.T) {
	// back within the grace period: nothing was marked, nothing evicted
	_, text := runPodSteps(t, `- at: 30s
  pod: {index: 0, unreachable: true}
- at: 50s
  recoverNode: node-1
- at: 50s
  stopWhenConverged: true
`)
	if strings.Contains(text, "Ready=Unknown") || strings.Contains(text, "evicting") {
		t.Errorf("a node back within the grace period was marked:\n%s", text)
	}
}
