package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

const clusters = "../../../testdata/clusters/"

// TestExplainExitStatus: 0, or 1 for an exceeded progress deadline, as
// kubectl rollout status; 3 with -require-complete for an incomplete
// rollout; 2 for usage errors, an unreadable snapshot, and nothing to
// explain (the error names the filter).
func TestExplainExitStatus(t *testing.T) {
	tests := []struct {
		args   []string
		stdin  string
		code   int
		stdout string
		stderr string
	}{
		{[]string{clusters + "rolling.yaml"}, "", 0, `kubectl rollout status: Waiting for deployment "web" rollout to finish: 2 out of 4 new replicas have been updated...`, ""},
		{[]string{clusters + "rolling.yaml"}, "", 0, "\nwhat happens next: deploysim " + clusters + "rolling.yaml  (assumptions: -overlay FILE; apply a manifest now: -from " + clusters + "rolling.yaml NEW.yaml)\n", ""},
		{[]string{clusters + "crashloop.yaml"}, "", 1, `kubectl rollout status: error: deployment "checkout" exceeded its progress deadline`, `error: deployment "checkout" (namespace payments) exceeded its progress deadline`},
		{[]string{"-require-complete", clusters + "rolling.yaml"}, "", 3, "", `deployment "web" (namespace shop) is not complete: Waiting for deployment "web" rollout to finish`},
		{[]string{"-require-complete", "-n", "shop", "-"}, "", 2, "", `deploysim explain: nothing to explain: no Deployment in <stdin> (namespace "shop")` + "\n"},
		{[]string{"-require-complete", "-n", "other", clusters + "rolling.yaml"}, "", 2, "", `deploysim explain: nothing to explain: no Deployment in ` + clusters + `rolling.yaml (namespace "other") (12 objects in other namespaces left out)`},
		{[]string{"-"}, "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: t}\n", 2, "", "deploysim explain: nothing to explain: no Deployment in <stdin> (ignored: 2 Service)"},
		{[]string{clusters + "rolling.yaml", "nosuch"}, "", 2, "", `deploysim explain: no Deployment "nosuch" in ` + clusters + "rolling.yaml; its Deployments: shop/api, shop/web"},
		{[]string{"-n", "shop", clusters + "rolling.yaml", "api"}, "", 0, "\ndeployment shop/api:", ""},
		{[]string{"-now", "2026-11-23T22:45:00Z", clusters + "imagepull.json"}, "", 1, "now: 2026-11-23T22:45:00Z (given)", `error: deployment "thumbnailer"`},
		{[]string{"-"}, "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata: {name: old}\n", 2, "", "<stdin>: line 1: Deployment default/old: spec.selector: required value"},
		{[]string{clusters + "missing.yaml"}, "", 2, "", "no such file"},
		{[]string{}, "", 2, "", "want one snapshot file"},
		{[]string{"a.yaml", "b", "c"}, "", 2, "", "want one snapshot file (or - for standard input) and at most one Deployment name, got 3 arguments"},
		{[]string{"-format", "xml", "-"}, "", 2, "", `-format "xml": want text or json`},
		{[]string{"-now", "yesterday", "-"}, "", 2, "", `-now "yesterday": want an RFC 3339 time`},
		{[]string{"-bogus", "-"}, "", 2, "", "flag provided but not defined: -bogus"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := runExplain(tc.args, strings.NewReader(tc.stdin), &out, &errb)
			if code != tc.code || !strings.Contains(out.String(), tc.stdout) || !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s\nwant stdout to contain %q, stderr %q", code, tc.code, out.String(), errb.String(), tc.stdout, tc.stderr)
			}
		})
	}
}

// TestExplainDispatch: deploysim explain reaches runExplain, and -format
// json prints the report the JSON golden holds.
func TestExplainDispatch(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"explain", "-format", "json", clusters + "paused.yaml"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	want, err := os.ReadFile(clusters + "paused.explain.json")
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != string(want) {
		t.Errorf("stdout differs from paused.explain.json:\n%s", out.String())
	}
	var rep map[string]any
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
}

// TestReferenceListsExplainFlags fails when a flag of deploysim explain
// is missing from REFERENCE.md.
func TestReferenceListsExplainFlags(t *testing.T) {
	ref, err := os.ReadFile("../../../testdata/scenarios/REFERENCE.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := bytes.Cut(ref, []byte("## deploysim explain flags"))
	if !ok {
		t.Fatal("REFERENCE.md has no section \"deploysim explain flags\"")
	}
	var out, errb bytes.Buffer
	if code := runExplain([]string{"-h"}, strings.NewReader(""), &out, &errb); code != 0 {
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
		if !bytes.Contains(section, []byte("`"+name+" ")) && !bytes.Contains(section, []byte("`"+name+"`")) {
			t.Errorf("REFERENCE.md does not list the explain flag %s", name)
		}
	}
	if n != 4 {
		t.Errorf("found %d flags in the usage, want 4:\n%s", n, errb.String())
	}
}
