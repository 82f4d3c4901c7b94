package sim

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// genScenario draws a scenario: one Deployment with a random size and
// strategy, and a sequence of user steps. It returns the YAML text, so a
// failing case can be saved as a scenario file as it is.
func genScenario(t *rapid.T) string {
	replicas := rapid.IntRange(0, 12).Draw(t, "replicas")
	recreate := rapid.IntRange(0, 4).Draw(t, "strategy") == 0
	strategy := "{type: Recreate}"
	if !recreate {
		vals := []string{"0", "1", "2", "25%", "50%"}
		surge := rapid.SampledFrom(vals).Draw(t, "maxSurge")
		unavail := rapid.SampledFrom(vals).Draw(t, "maxUnavailable")
		if surge == "0" && unavail == "0" {
			unavail = "1"
		}
		strategy = fmt.Sprintf("{type: RollingUpdate, rollingUpdate: {maxSurge: %s, maxUnavailable: %s}}", surge, unavail)
	}
	minReady := rapid.SampledFrom([]int{0, 0, 3}).Draw(t, "minReadySeconds")
	history := rapid.IntRange(0, 3).Draw(t, "revisionHistoryLimit")
	var b strings.Builder
	fmt.Fprintf(&b, `name: rapid
seed: %d
until: 20m
cluster:
  startup: {min: 1s, max: 4s}
  readiness: {min: 0s, max: 2s}
  termination: {min: 0s, max: 3s}
objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: app}
  spec:
    replicas: %d
    minReadySeconds: %d
    revisionHistoryLimit: %d
    strategy: %s
    selector: {matchLabels: {app: app}}
    template:
      metadata: {labels: {app: app}}
      spec:
        containers: [{name: app, image: "app:v1"}]
steps:
`, rapid.Uint64Range(0, 1000).Draw(t, "seed"), replicas, minReady, history, strategy)
	at := 0
	paused := false
	n := rapid.IntRange(1, 6).Draw(t, "steps")
	for i := 0; i < n; i++ {
		at += rapid.IntRange(0, 40).Draw(t, fmt.Sprintf("gap%d", i))
		switch rapid.IntRange(0, 4).Draw(t, fmt.Sprintf("action%d", i)) {
		case 0, 1:
			fmt.Fprintf(&b, "- at: %ds\n  setImage: {container: app, image: \"app:v%d\"}\n", at, rapid.IntRange(1, 4).Draw(t, fmt.Sprintf("image%d", i)))
		case 2:
			fmt.Fprintf(&b, "- at: %ds\n  scale: %d\n", at, rapid.IntRange(0, 12).Draw(t, fmt.Sprintf("scale%d", i)))
		case 3:
			if paused {
				fmt.Fprintf(&b, "- at: %ds\n  resume: true\n", at)
			} else {
				fmt.Fprintf(&b, "- at: %ds\n  pause: true\n", at)
			}
			paused = !paused
		case 4:
			fmt.Fprintf(&b, "- at: %ds\n  undo: {}\n", at)
		}
	}
	if paused {
		fmt.Fprintf(&b, "- at: %ds\n  resume: true\n", at)
	}
	fmt.Fprintf(&b, "- at: %ds\n  stopWhenConverged: true\n", at)
	return b.String()
}

// TestPropertyInvariants runs random scenarios with every invariant
// checked after every write. Run 10,000 cases with
// go test ./sim -run Property -rapid.checks=10000
func TestPropertyInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		src := genScenario(t)
		sc, err := ParseScenario([]byte(src))
		if err != nil {
			t.Fatalf("generated scenario does not parse: %v\n%s", err, src)
		}
		res, err := Run(sc, Options{Check: true, NoTrace: true})
		if err != nil {
			t.Fatalf("run: %v\nscenario:\n%s", err, src)
		}
		if len(res.Violations) > 0 {
			var msgs []string
			for _, v := range res.Violations {
				msgs = append(msgs, v.String())
			}
			t.Fatalf("invariants broken:\n%s\nscenario (save as testdata/scenarios/NAME.yaml):\n%s", strings.Join(msgs, "\n"), src)
		}
	})
}

// TestPropertyDeterminism: the same scenario and seed give the same trace.
func TestPropertyDeterminism(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		src := genScenario(t)
		sc, err := ParseScenario([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if a, b := twoRuns(t, sc); a != b {
			t.Fatalf("two runs differ\nscenario:\n%s", src)
		}
	})
}
