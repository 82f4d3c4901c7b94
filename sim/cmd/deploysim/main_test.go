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
	if code := run([]string{"missing.yaml"}, &out, &errb); code != 1 {
		t.Errorf("missing file: exit %d, want 1", code)
	}
}
