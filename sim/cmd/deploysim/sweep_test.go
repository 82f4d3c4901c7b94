package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/sim"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

const sweepSpec = "maxSurge=0,1,25%;maxUnavailable=1,25%"

// runOut runs the command and returns its exit status, stdout and stderr.
func runOut(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// badContainer is nginx with a setImage of a container it lacks: every
// run fails.
func badContainer(t *testing.T) string {
	src, err := os.ReadFile(nginx)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "typo.yaml")
	if err := os.WriteFile(p, bytes.Replace(src, []byte("container: nginx,"), []byte("container: ngnix,"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestParallelIsSerial: -sweep and -seeds print the same bytes (text
// and JSON), with the same exit status and errors, on 1, 2 and 8
// goroutines and by default.
func TestParallelIsSerial(t *testing.T) {
	bad := badContainer(t)
	for _, args := range [][]string{
		{"-seeds", "6", "-sweep", sweepSpec, nginx},
		{"-seeds", "6", "-sweep", sweepSpec, "-format", "json", nginx},
		{"-seeds", "9", nginx},
		{"-seeds", "9", "-seed", "40", "-format", "json", nginx},
		{"-seeds", "4", "-sweep", "maxSurge=1,2", "../../../testdata/scenarios/node-failure.yaml"},
		{"-seeds", "4", bad},
	} {
		code, want, wantErr := runOut(append([]string{"-parallel", "1"}, args...)...)
		if !strings.Contains(want, "seeds") {
			t.Fatalf("%q: serial run printed %q, stderr %q", args, want, wantErr)
		}
		for _, par := range []string{"2", "8", "0"} {
			c, got, gotErr := runOut(append([]string{"-parallel", par}, args...)...)
			if c != code || got != want || gotErr != wantErr {
				t.Errorf("%q -parallel %s: exit %d, stdout\n%s\nstderr %q\nwant (serial) exit %d, stdout\n%s\nstderr %q", args, par, c, got, gotErr, code, want, wantErr)
			}
		}
		c, got, _ := runOut(args...)
		if c != code || got != want {
			t.Errorf("%q without -parallel: differs from -parallel 1:\n%s\nvs\n%s", args, got, want)
		}
	}
}

// TestShardsMerge: the -format json output of the n shards of a sweep
// (or of -seeds), merged in any order, is exactly what one machine
// prints, as text and as JSON, errors and exit status included.
func TestShardsMerge(t *testing.T) {
	dir := t.TempDir()
	bad := badContainer(t)
	for _, args := range [][]string{
		{"-seeds", "4", "-sweep", sweepSpec, nginx},
		{"-seeds", "5", "-seed", "7", nginx},
		{"-seeds", "2", bad},
	} {
		wantCode, wantText, wantErr := runOut(args...)
		_, wantJSON, _ := runOut(append(args, "-format", "json")...)
		if wantText == "" || !strings.HasPrefix(wantJSON, "{") {
			t.Fatalf("%q: %q %q", args, wantText, wantJSON)
		}
		for _, n := range []int{1, 2, 3, 7} {
			var files []string
			var all []byte
			for i := n - 1; i >= 0; i-- { // in reverse: order does not matter
				_, out, errs := runOut(append(args, "-format", "json", "-shard", fmt.Sprintf("%d/%d", i, n))...)
				f := filepath.Join(dir, fmt.Sprintf("shard-%d-of-%d.json", i, n))
				if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(out, "{") {
					t.Fatalf("%q shard %d/%d: %q %q", args, i, n, out, errs)
				}
				files = append(files, f)
				all = append(all, out...)
			}
			code, text, errs := runOut(append([]string{"merge"}, files...)...)
			if code != wantCode || text != wantText || errs != wantErr {
				t.Errorf("%q: merge of %d shards: exit %d\n%s%s\nwant exit %d\n%s%s", args, n, code, text, errs, wantCode, wantText, wantErr)
			}
			code, js, _ := runOut(append([]string{"merge", "-format", "json"}, files...)...)
			if code != wantCode || js != wantJSON {
				t.Errorf("%q: merge -format json of %d shards:\n%s\nwant\n%s", args, n, js, wantJSON)
			}
			// The logs of every shard in one file, as kubectl logs gives them.
			cat := filepath.Join(dir, "all.json")
			if err := os.WriteFile(cat, all, 0o644); err != nil {
				t.Fatal(err)
			}
			if code, text, _ := runOut("merge", cat, "-format", "text"); code != wantCode || text != wantText {
				t.Errorf("%q: merge of %d shards in one file:\n%s\nwant\n%s", args, n, text, wantText)
			}
		}
	}
}

// TestShardAndMergeRefusals: malformed -shard values, and merges of files
// that are not the shards of one sweep, are refused naming the flag or
// the file.
func TestShardAndMergeRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	shard := func(name string, args ...string) string {
		code, out, errs := runOut(append(args, "-format", "json")...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errs)
		}
		return write(name, out)
	}
	a0 := shard("a0.json", "-seeds", "3", "-sweep", "maxSurge=0,1", "-shard", "0/2", nginx)
	a1 := shard("a1.json", "-seeds", "3", "-sweep", "maxSurge=0,1", "-shard", "1/2", nginx)
	b1 := shard("b1.json", "-seeds", "3", "-sweep", "maxSurge=0,2", "-shard", "1/2", nginx)
	c1 := shard("c1.json", "-seeds", "3", "-sweep", "maxSurge=0,1", "-shard", "1/2", "../../../testdata/scenarios/node-failure.yaml")
	s1 := shard("s1.json", "-seeds", "3", "-seed", "2", "-sweep", "maxSurge=0,1", "-shard", "1/2", nginx)
	src, err := os.ReadFile(nginx)
	if err != nil {
		t.Fatal(err)
	}
	edited := write("nginx-rolling-update.yaml", string(src)+"# edited\n")
	e1 := shard("e1.json", "-seeds", "3", "-sweep", "maxSurge=0,1", "-shard", "1/2", edited)
	empty := write("empty.json", "")
	run1 := write("run.json", func() string { _, out, _ := runOut("-format", "json", nginx); return out }())
	text := write("table.txt", func() string { _, out, _ := runOut("-seeds", "3", nginx); return out }())

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-shard", "2/2", "-seeds", "3", "-format", "json", nginx}, 2, `-shard "2/2": the shard index i must be below n (shards are numbered 0 to 1)`},
		{[]string{"-shard", "5/3", "-seeds", "3", "-format", "json", nginx}, 2, `-shard "5/3": the shard index i must be below n`},
		{[]string{"-shard", "0/0", "-seeds", "3", "-format", "json", nginx}, 2, `-shard "0/0": the number of shards n must be at least 1`},
		{[]string{"-shard", "1", "-seeds", "3", "-format", "json", nginx}, 2, `-shard "1": want i/n, shard i of n numbered from 0, such as 0/4`},
		{[]string{"-shard", "1-3", "-seeds", "3", "-format", "json", nginx}, 2, `-shard "1-3": want i/n`},
		{[]string{"-shard", "", "-seeds", "3", "-format", "json", nginx}, 2, `-shard "": want i/n`},
		{[]string{"-shard", "0/2", "-format", "json", nginx}, 2, "-shard 0/2: shards split the runs of -sweep or -seeds; give one of them"},
		{[]string{"-shard", "0/2", "-seeds", "3", nginx}, 2, "-shard 0/2: a shard prints its runs for deploysim merge; add -format json"},
		{[]string{"-parallel", "-1", "-seeds", "3", nginx}, 2, "-parallel -1: want 0 (GOMAXPROCS) to 256"},
		{[]string{"-parallel", "257", "-seeds", "3", nginx}, 2, "-parallel 257: want 0 (GOMAXPROCS) to 256"},
		{[]string{"-svg", "x.svg", "-format", "json", "-shard", "0/2", "-seeds", "3", nginx}, 2, "-svg x.svg: a shard holds part of the sweep; draw the merged one"},
		{[]string{"merge"}, 2, "deploysim merge: no files"},
		{[]string{"merge", "-format", "xml", a0, a1}, 2, `deploysim merge: -format "xml": unknown format`},
		{[]string{"merge", a0, empty}, 2, "deploysim merge: " + empty + ": empty file (want the -format json output of a sweep)"},
		{[]string{"merge", filepath.Join(dir, "missing.json")}, 2, "deploysim merge: open " + filepath.Join(dir, "missing.json")},
		{[]string{"merge", a0, run1}, 2, "deploysim merge: " + run1 + `: report 1: not a sweep report (want the -format json output of deploysim -sweep or -seeds): json: unknown field "formatVersion"`},
		{[]string{"merge", text}, 2, "deploysim merge: " + text + ": report 1: not a sweep report"},
		{[]string{"merge", a0}, 2, "deploysim merge: shard 1/2 missing (1 reports given)"},
		{[]string{"merge", a0, a1, a1}, 2, "deploysim merge: " + a1 + ": shard 1/2 is also in " + a1},
		{[]string{"merge", a0, b1}, 2, "deploysim merge: " + b1 + `: sweep "maxSurge=0,2", not "maxSurge=0,1" as in ` + a0 + ": not a shard of the same sweep"},
		{[]string{"merge", a0, c1}, 2, "deploysim merge: " + c1 + `: scenario "node-failure", not "nginx-rolling-update" as in ` + a0},
		{[]string{"merge", a0, s1}, 2, "deploysim merge: " + s1 + ": seeds 2..4, not 1..3 as in " + a0},
		{[]string{"merge", a0, e1}, 2, "deploysim merge: " + e1 + `: scenario "nginx-rolling-update" with digest`},
		{[]string{"merge", a0, e1}, 2, "(the scenario file changed)"},
	} {
		code, out, errs := runOut(c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant exit %d and %q", c.args, code, errs, c.code, c.want)
		}
		if out != "" {
			t.Errorf("%q: refused but printed:\n%.200s", c.args, out)
		}
	}
}

// TestSeedsAsWritten: -seeds without -sweep runs the scenario as written
// (a Recreate Deployment stays Recreate) over consecutive seeds from
// -seed.
func TestSeedsAsWritten(t *testing.T) {
	code, out, errs := runOut("-seeds", "3", "-seed", "10", "../../../testdata/scenarios/recreate.yaml")
	if code != 0 || !strings.HasPrefix(out, "scenario recreate, seeds 10..12\n") || !strings.Contains(out, "\nas written ") {
		t.Errorf("exit %d:\n%s%s", code, out, errs)
	}
	_, swept, _ := runOut("-seeds", "3", "-seed", "10", "-sweep", "maxSurge=25%;maxUnavailable=25%", "../../../testdata/scenarios/recreate.yaml")
	if cut := func(s string) string { _, r, _ := strings.Cut(s, "  "); return r }; cut(out) == cut(swept) {
		t.Errorf("-seeds alone gave the RollingUpdate sweep's numbers:\n%s%s", out, swept)
	}
}

// TestProgress: the line shows after 2 s, at each tick, with the runs
// started and done, and ends with the final count; nothing is drawn for
// shorter runs.
func TestProgress(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	tick := make(chan time.Time)
	p := startProgress(&b, t0, tick)
	p.setRuns(0, 0, 40)
	tick <- t0.Add(time.Second)
	p.setRuns(14, 12, 40)
	tick <- t0.Add(5 * time.Second)
	tick <- t0 // draws nothing; received once the tick before is drawn
	p.setRuns(40, 40, 40)
	p.stop(t0.Add(6500 * time.Millisecond))
	if want := "\rruns: 14 started, 12 done of 40, 5 s\rruns: 40 started, 40 done of 40, 6 s\n"; b.String() != want {
		t.Errorf("progress %q, want %q", b.String(), want)
	}

	b.Reset()
	p = startProgress(&b, t0, tick)
	p.setRuns(3, 3, 3)
	tick <- t0.Add(time.Second)
	p.stop(t0.Add(1900 * time.Millisecond))
	if b.Len() != 0 {
		t.Errorf("short run drew %q", b.String())
	}
	var nilp *progress
	nilp.stop(t0) // -quiet or not a terminal
}

// TestProgressOneRun: a single run's line shows the virtual time reached,
// the pods and the events per second of wall time; a shorter line
// overwrites a longer one with spaces.
func TestProgressOneRun(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	tick := make(chan time.Time)
	p := startProgress(&b, t0, tick)
	p.setRun(sim.Progress{Now: 3*time.Minute + 12500*time.Millisecond, Until: 30 * time.Minute, Events: 600000, Pods: 48210})
	tick <- t0.Add(4 * time.Second)
	p.setRun(sim.Progress{Now: 4 * time.Minute, Until: 30 * time.Minute, Events: 1000000, Pods: 9})
	p.stop(t0.Add(5 * time.Second))
	want := "\rt=3m12s of 30m0s, 48210 pods, 150000 events/s, 4 s" +
		"\rt=4m0s of 30m0s, 9 pods, 200000 events/s, 5 s     \n"
	if b.String() != want {
		t.Errorf("progress %q, want %q", b.String(), want)
	}
}

// TestSweepJobManifest: examples/sweep-job.yaml is an Indexed Job whose
// completions match the n of -shard; its pods' command lines, run here
// for every index on the nginx scenario, merge into the unsharded table.
func TestSweepJobManifest(t *testing.T) {
	src, err := os.ReadFile("../../../examples/sweep-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(src, &job); err != nil {
		t.Fatal(err)
	}
	spec := job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion || spec.Completions == nil {
		t.Fatalf("not an Indexed Job with completions: %+v", spec)
	}
	n := int(*spec.Completions)
	args := spec.Template.Spec.Containers[0].Args
	const index = "$(JOB_COMPLETION_INDEX)"
	if !slices.Contains(args, index+"/"+strconv.Itoa(n)) {
		t.Fatalf("args %q lack -shard %s/%d (spec.completions)", args, index, n)
	}
	dir := t.TempDir()
	var files []string
	for i := range n {
		var a []string
		for _, arg := range args {
			arg = strings.ReplaceAll(arg, index, strconv.Itoa(i))
			if arg == "/scenario/scenario.yaml" {
				arg = nginx
			}
			a = append(a, arg)
		}
		code, out, errs := runOut(a...)
		if code != 0 {
			t.Fatalf("pod %d: %q: exit %d: %s", i, a, code, errs)
		}
		f := filepath.Join(dir, fmt.Sprintf("deploysim-sweep-%d-x.json", i))
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	whole := slices.DeleteFunc(slices.Clone(args), func(s string) bool {
		return strings.HasPrefix(s, index) || s == "-shard" || s == "-format" || s == "json"
	})
	whole[len(whole)-1] = nginx
	_, want, _ := runOut(whole...)
	code, got, errs := runOut(append([]string{"merge"}, files...)...)
	if code != 0 || got != want || !strings.HasPrefix(want, "scenario nginx-rolling-update") {
		t.Errorf("merge: exit %d %s\n%s\nwant (%q)\n%s", code, errs, got, whole, want)
	}
}

// A sweep over several kinds of parameter, drawn as a comparison chart.
func TestSweepMoreParametersAndChart(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "sweep.svg")
	var out, errb bytes.Buffer
	args := []string{"-sweep", "strategy=RollingUpdate,Recreate;replicas=3,6;startup=1s-2s", "-seeds", "2", "-svg", svg, nginx}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"(mean)", "(p50)", "(worst)", "strategy=Recreate replicas=6 startup=1s-2s"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	b, err := os.ReadFile(svg)
	if err != nil || !bytes.Contains(b, []byte("time to complete over the seeds")) || !bytes.Contains(b, []byte("strategy=RollingUpdate replicas=3 startup=1s-2s")) {
		t.Errorf("sweep chart: %v\n%.300s", err, b)
	}
	// Bad values name the parameter and what it wants.
	for _, tc := range []struct{ sweep, want string }{
		{"strategy=Blue", `strategy: invalid value "Blue" (want RollingUpdate or Recreate)`},
		{"startup=4s-1s", `startup: invalid value "4s-1s"`},
		{"replicas=-1", `replicas: invalid value "-1"`},
		{"colour=red", `unknown parameter "colour"`},
	} {
		out.Reset()
		errb.Reset()
		if code := run([]string{"-sweep", tc.sweep, nginx}, &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("-sweep %s: exit %d, stderr %q; want 2 and %q", tc.sweep, code, errb.String(), tc.want)
		}
	}
}

// The commands README.md shows run as shown, exiting 0 or as their
// comment says.
func TestREADMECommands(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(readme), "\n") {
		rest, ok := strings.CutPrefix(line, "go run ./sim/cmd/deploysim ")
		if !ok {
			continue
		}
		rest, comment, _ := strings.Cut(rest, "  #")
		want := 0 // or as the comment says: "# exits 1: ..."
		if c, ok := strings.CutPrefix(strings.TrimSpace(comment), "exits "); ok {
			if want, err = strconv.Atoi(c[:1]); err != nil {
				t.Fatalf("README: %s: %v", line, err)
			}
		}
		var args []string
		for _, f := range strings.Fields(rest) {
			f = strings.Trim(f, "'")
			if strings.HasPrefix(f, "testdata/") {
				f = "../../../" + f
			}
			if strings.HasSuffix(f, ".svg") {
				f = filepath.Join(t.TempDir(), f)
			}
			args = append(args, f)
		}
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != want {
			t.Errorf("README: deploysim %s: exit %d, want %d: %s", rest, code, want, errb.String())
		}
		n++
	}
	if n < 3 {
		t.Errorf("found %d deploysim commands in README.md, want the main one, -check -svg and -sweep", n)
	}
}
