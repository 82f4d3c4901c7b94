package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deploymath/deploymath/sim"
	"github.com/deploymath/deploymath/sim/simtest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/NAME (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

// The bundled scenario's trace: web:2 rolled out step by step across a
// controller restart, the old stable side deleted at promotion, web:3
// halted at its progress deadline.
func TestBundledScenario(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run(&out, &errs, nil); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	golden(t, "canary.golden", out.String())
	for _, want := range []string{
		"StepReached step 1 reached (20%: canary 2, stable 8), on to 50%",
		"StepReached step 2 reached (50%: canary 5, stable 5), on to 100%",
		"restart controller canary",
		"Promoted promoted web-5955c6c578",
		"DeletedReplicaSet deleted old replica set web-6c7874fc5f",
		"Warning ProgressDeadlineExceeded progress deadline exceeded at step 1: rollout halted",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the trace lacks %q", want)
		}
	}
}

func TestCommandErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"a", "b"}, 2, "usage: canary [SCENARIO.yaml]"},
		{[]string{"testdata/nope.yaml"}, 2, "no such file"},
		{[]string{"testdata/bad-canary.yaml"}, 2, `testdata/bad-canary.yaml: line 8: field "objects[0].spec.replicas": cannot use`},
	} {
		var out, errs bytes.Buffer
		if code := run(&out, &errs, c.args); code != c.code || !strings.Contains(errs.String(), c.want) {
			t.Errorf("%v: exit %d, %q; want %d, %q", c.args, code, errs.String(), c.code, c.want)
		}
	}
}

// The command runs a case the property test wrote as Replay runs it
// with the shipped controller (which passes it): the same trace.
func TestCommandRunsACase(t *testing.T) {
	const file = "testdata/simtest/planted-bug.yaml"
	var out, errs bytes.Buffer
	if code := run(&out, &errs, []string{file}); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	sc, err := sim.LoadScenario(file)
	if err != nil {
		t.Fatal(err)
	}
	c, err := simtest.Run(sc, config(nil))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c.Result.Text(), out.String()); diff != "" {
		t.Errorf("go run . %s (-replay +got):\n%s", file, diff)
	}
	if !strings.Contains(out.String(), "Promoted promoted web-5955c6c578") {
		t.Errorf("the shipped controller does not promote:\n%s", out.String())
	}
}
