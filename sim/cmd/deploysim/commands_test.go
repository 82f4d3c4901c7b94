package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/sim"
)

// TestMain lets the test binary run as deploysim itself (for
// TestProcessExitStatus) when DEPLOYSIM_TEST_AS_MAIN is set.
func TestMain(m *testing.M) {
	if os.Getenv("DEPLOYSIM_TEST_AS_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// exitCases are command lines of every command that exit with each
// status of README.md's table.
func exitCases(t *testing.T) []struct {
	name string
	args []string
	code int
} {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.json")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// the shards of a sweep cut short (-until 31s: the rollout starts at
	// 30s), for merge
	var shards []string
	for i := range 2 {
		code, out, errs := runOut("-seeds", "2", "-until", "31s", "-shard", fmt.Sprintf("%d/2", i), "-format", "json", nginx)
		if code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, errs)
		}
		f := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, f)
	}
	rolling, crashloop := clusters+"rolling.yaml", clusters+"crashloop.yaml"
	return []struct {
		name string
		args []string
		code int
	}{
		{"run", []string{nginx}, exitOK},
		{"run, deadline exceeded", []string{"-until", "5m", crashloop}, exitFailed},
		{"run, unreadable file", []string{"missing.yaml"}, exitUsage},
		{"run, unknown flag", []string{"-bogus", nginx}, exitUsage},
		{"run, -require-complete", []string{"-until", "31s", "-require-complete", nginx}, exitIncomplete},
		{"unknown command", []string{"status"}, exitUsage},
		{"-version", []string{"-version"}, exitOK},
		{"sweep", []string{"-seeds", "2", nginx}, exitOK},
		{"sweep, a run that cannot be simulated", []string{"-seeds", "2", badContainer(t)}, exitUsage},
		{"sweep, bad -sweep", []string{"-seeds", "2", "-sweep", "replicas=2000000", nginx}, exitUsage},
		{"sweep, -require-complete", []string{"-seeds", "2", "-until", "31s", "-require-complete", nginx}, exitIncomplete},
		{"merge", []string{"merge", shards[0], shards[1]}, exitOK},
		{"merge, empty file", []string{"merge", shards[0], empty}, exitUsage},
		{"merge, -require-complete", []string{"merge", "-require-complete", shards[0], shards[1]}, exitIncomplete},
		{"explain", []string{"explain", rolling}, exitOK},
		{"explain, deadline exceeded", []string{"explain", crashloop}, exitFailed},
		{"explain, nothing to explain", []string{"explain", "-n", "nosuch", rolling}, exitUsage},
		{"explain, -require-complete", []string{"explain", "-require-complete", rolling}, exitIncomplete},
		{"history", []string{"history", rolling}, exitOK},
		{"history, no such deployment", []string{"history", rolling, "nosuch"}, exitUsage},
		{"undo", []string{"undo", rolling, "web"}, exitOK},
		{"undo, deadline exceeded", []string{"undo", "--to-revision", "2", "-until", "5m", crashloop, "checkout"}, exitFailed},
		{"undo, refused", []string{"undo", clusters + "paused.yaml", "frontend"}, exitUsage},
		{"undo, -require-complete", []string{"undo", "-until", "1s", "-require-complete", rolling, "web"}, exitIncomplete},
	}
}

// TestExitCodeTable: README.md's exit-status table has the four
// statuses of exit.go, and each command exits with each status that
// applies to it.
func TestExitCodeTable(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Exit status\n")
	if !ok {
		t.Fatal("README.md has no section \"Exit status\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := regexp.MustCompile(`(?m)^\| (\d) \| ([^|]+) \|`).FindAllStringSubmatch(section, -1)
	want := map[int]string{exitOK: "success", exitFailed: "a rollout failed", exitUsage: "bad usage or input", exitIncomplete: "not complete"}
	if len(rows) != len(want) {
		t.Fatalf("README's table has %d rows, want %d", len(rows), len(want))
	}
	for _, r := range rows {
		code, _ := strconv.Atoi(r[1])
		if strings.TrimSpace(r[2]) != want[code] {
			t.Errorf("README: exit %d means %q, want %q", code, r[2], want[code])
		}
	}
	seen := map[int]bool{}
	for _, tc := range exitCases(t) {
		code, out, errs := runOut(tc.args...)
		if code != tc.code {
			t.Errorf("%s: %q: exit %d, want %d\n%.300s%s", tc.name, tc.args, code, tc.code, out, errs)
		}
		seen[code] = true
	}
	if len(seen) != 4 {
		t.Errorf("statuses seen: %v", seen)
	}
}

// TestProcessExitStatus: the deploysim process exits with run's status
// (the test binary runs as deploysim).
func TestProcessExitStatus(t *testing.T) {
	for _, tc := range exitCases(t) {
		if !strings.HasPrefix(tc.name, "run") {
			continue
		}
		cmd := exec.Command(os.Args[0], tc.args...)
		cmd.Env = append(os.Environ(), "DEPLOYSIM_TEST_AS_MAIN=1")
		err := cmd.Run()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code {
			t.Errorf("%s: deploysim %q exited %d, want %d", tc.name, tc.args, code, tc.code)
		}
	}
}

// TestWorse: bad input wins over a failed rollout, which wins over an
// incomplete one.
func TestWorse(t *testing.T) {
	order := []int{exitOK, exitIncomplete, exitFailed, exitUsage}
	for i, a := range order {
		for j, b := range order {
			if got, want := worse(a, b), order[max(i, j)]; got != want {
				t.Errorf("worse(%d, %d) = %d, want %d", a, b, got, want)
			}
		}
	}
}

// TestUnknownCommand: a first argument that is neither a command nor a
// file is an unknown command, with the command it most likely meant; a
// file of that name, or a path, is a file.
func TestUnknownCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"status"}, `deploysim: unknown command "status" and no file of that name; did you mean "explain"? (commands: explain, history, undo, merge; otherwise deploysim runs a scenario, manifest or cluster-state FILE)`},
		{[]string{"explian", "x"}, `unknown command "explian" and no file of that name; did you mean "explain"?`},
		{[]string{"-seed", "3", "histroy"}, `did you mean "history"?`},
		{[]string{"rollback", "dump.yaml", "web"}, `did you mean "undo"?`},
		{[]string{"mrege"}, `did you mean "merge"?`},
		{[]string{"frobnicate"}, `unknown command "frobnicate" and no file of that name (commands:`},
		{[]string{"status.yaml"}, "open status.yaml: no such file or directory"},
	} {
		code, out, errs := runOut(tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	// a file named like a command word is a file
	dir := t.TempDir()
	src, err := os.ReadFile(nginx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "status"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	t.Chdir(dir)
	if code, _, errs := runOut("status"); code != 0 {
		t.Errorf("a file named status: exit %d: %s", code, errs)
	}
	t.Chdir(wd)
	for a, b := range map[[2]string]int{{"explian", "explain"}: 1, {"histroy", "history"}: 1, {"", "undo"}: 4, {"abc", "abc"}: 0, {"ab", "ba"}: 1, {"kitten", "sitting"}: 3} {
		if d := editDistance(a[0], a[1]); d != b {
			t.Errorf("editDistance(%q, %q) = %d, want %d", a[0], a[1], d, b)
		}
	}
}

// TestVersion: -version names the module's version, the commit when the
// build has it, the Kubernetes version modelled, which agrees with the
// k8s.io/api of go.mod.
func TestVersion(t *testing.T) {
	code, out, _ := runOut("-version")
	if code != 0 || !strings.HasPrefix(out, "deploysim ") || !strings.Contains(out, "\nmodels the Deployment controller of Kubernetes v1.37") {
		t.Errorf("exit %d: %q", code, out)
	}
	var b strings.Builder
	printVersion(&b, &debug.BuildInfo{
		Main:     debug.Module{Path: "github.com/deploymath/deploymath", Version: "v1.4.0"},
		Deps:     []*debug.Module{{Path: "k8s.io/api", Version: "v0.37.2"}},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "e98a083"}, {Key: "vcs.modified", Value: "true"}},
	}, true)
	if want := "deploysim v1.4.0 (github.com/deploymath/deploymath, commit e98a083, modified)\nmodels the Deployment controller of Kubernetes v1.37 (k8s.io/api v0.37.2)\n"; b.String() != want {
		t.Errorf("version %q, want %q", b.String(), want)
	}
	b.Reset()
	printVersion(&b, nil, false)
	if want := "deploysim unknown (github.com/deploymath/deploymath)\nmodels the Deployment controller of Kubernetes v1.37\n"; b.String() != want {
		t.Errorf("without build info: %q, want %q", b.String(), want)
	}
	mod, err := os.ReadFile("../../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*k8s.io/api v0\.(\d+)\.`).FindSubmatch(mod)
	if m == nil || "v1."+string(m[1]) != kubernetesVersion {
		t.Errorf("go.mod's k8s.io/api %q, kubernetesVersion %s", m, kubernetesVersion)
	}
}

// TestSeedsDoNotWrap: -seed near the largest seed with -seeds is refused
// naming both flags, rather than wrapped to 0, 1, …; the last seeds that
// fit run.
func TestSeedsDoNotWrap(t *testing.T) {
	code, out, errs := runOut("-seed", "18446744073709551615", "-seeds", "3", nginx)
	if code != exitUsage || out != "" || !strings.Contains(errs, "deploysim: -seed 18446744073709551615 -seeds 3: the seeds would pass 18446744073709551615, the largest seed; start at -seed 18446744073709551613 or lower") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	code, out, errs = runOut("-seed", "18446744073709551613", "-seeds", "3", nginx)
	if code != 0 || !strings.HasPrefix(out, "scenario nginx-rolling-update, seeds 18446744073709551613..18446744073709551615\n") {
		t.Errorf("exit %d, %q %s", code, out, errs)
	}
	if _, err := sweepSeeds(math.MaxUint64-1, nil, 3); err == nil || !strings.HasPrefix(err.Error(), "the scenario's seed 18446744073709551614 -seeds 3: ") {
		t.Errorf("scenario seed: %v", err)
	}
	if ss, err := sweepSeeds(7, nil, 3); err != nil || len(ss) != 3 || ss[0] != 7 || ss[2] != 9 {
		t.Errorf("seeds %v %v", ss, err)
	}
}

// TestCheckVerdict: -check ends with one line, ok or FAILED with the
// violations counted by invariant; -check is refused with -seeds.
func TestCheckVerdict(t *testing.T) {
	code, _, errs := runOut("-check", nginx)
	if code != 0 || !regexp.MustCompile(`^check: ok: every invariant held, after each of the \d+ Deployment syncs and at the end of the run\n$`).MatchString(errs) {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	code, _, errs = runOut("-check", "../../../testdata/scenarios/paused-scale-up-deleted.yaml")
	if code != 0 || !strings.HasSuffix(errs, " Deployment syncs and at the end of the run; 1 warning above\n") {
		t.Errorf("warned: exit %d, stderr %q", code, errs)
	}
	res := &sim.Result{Violations: []sim.Violation{{Invariant: sim.InvSurge}, {Invariant: sim.InvAvailability}, {Invariant: sim.InvSurge}}}
	if got, want := checkVerdict(res), "check: FAILED: 3 violations of 2 invariants (availability-bound 1, surge-bound 2), listed above"; got != want {
		t.Errorf("verdict %q, want %q", got, want)
	}
	if code, _, errs := runOut("-check", "-seeds", "2", nginx); code != exitUsage || !strings.Contains(errs, "-check: checks the invariants of a single run; not with -sweep or -seeds") {
		t.Errorf("-check -seeds: exit %d, %s", code, errs)
	}
}
