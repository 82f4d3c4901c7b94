package kubeyaml

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// same checks Convert against sigs.k8s.io/yaml's YAMLToJSONStrict on one
// document: when Convert converts it, the JSON must decode to what the
// reference gives (and the reference must accept it).
func same(t *testing.T, doc string) (converted bool) {
	t.Helper()
	var top Top
	got, err := ConvertObject(nil, strings.SplitAfter(doc, "\n"), 0, &top)
	if err != nil {
		return false
	}
	want, werr := yaml.YAMLToJSONStrict([]byte(doc))
	if werr != nil {
		t.Fatalf("Convert accepted what YAMLToJSONStrict refuses (%v):\n%q\n-> %s", werr, doc, got)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("Convert gave invalid JSON %s for %q: %v", got, doc, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("for %q:\nConvert         %s\nYAMLToJSONStrict %s", doc, got, want)
	}
	// Top is what encoding/json reads of the same fields (as sim/snapshot
	// reads an object's header), unless it says to read them so.
	var h struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   *struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
		Items json.RawMessage `json:"items"`
	}
	if top.Odd || json.Unmarshal(want, &h) != nil {
		return true
	}
	fromJSON := Top{APIVersion: h.APIVersion, Kind: h.Kind, Metadata: h.Metadata != nil, Items: h.Items != nil}
	if h.Metadata != nil {
		fromJSON.Name, fromJSON.Namespace = h.Metadata.Name, h.Metadata.Namespace
	}
	if _, obj := g.(map[string]any); obj && top != fromJSON {
		t.Fatalf("for %q: Top %+v, from the JSON %+v", doc, top, fromJSON)
	}
	return true
}

// TestCases: what it converts and what it leaves to go-yaml.
func TestCases(t *testing.T) {
	for _, tc := range []struct {
		doc       string
		converted bool
	}{
		{"a: 1\nb: x\nc: true\nd: null\ne:\nf: ~\ng: -12\nh: 0\n", true},
		{"a:\n- 1\n- b: 2\n  c: 3\n-\n  d: 4\ne: {}\nf: []\n", true},
		{"k:{\"name\":\"c\"}: {}\nf:metadata:\n  f:x: {}\n", true},
		{"s: |\n  line 1\n\n   line 3\nt: |-\n  x\n  y\n\nu: z\n", true},
		{"q: \"a\\\"b\\u00e9\\n\"\nr: 'it''s'\n\"80\": http\n", true},
		{"ip: 10.0.0.1\nv: 1.2.3\nname: -web\nurl: http://x:80/y\n", true},
		{"# c\n\na: 1 # comment\n", false},
		{"a: 1.5\n", false},
		{"a: yes\n", false},
		{"a: 0x1f\n", false},
		{"a: 010\n", false},
		{"a: 2026-11-23\n", false},
		{"a: &x 1\nb: *x\n", false},
		{"a: [1, 2]\n", false},
		{"a: long\n  folded text\n\n  after an empty line\nb: 1\n", true},
		{"a: 1\na: 2\n", false},
		{"a: >\n  folded\n", false},
		{"a:\tb\n", false},
		{"- - a\n", false},
		{"a: b: c\n", false},
		{"a: 'two\n  lines'\n", true},
		{"a: 'not\n  closed\n", false},
	} {
		sameItem(t, tc.doc)
		if got := same(t, tc.doc); got != tc.converted {
			t.Errorf("%q: converted %v, want %v", tc.doc, got, tc.converted)
		}
	}
}

// TestDumps: every bundled dump, scenario and manifest, document by
// document: where Convert converts, it agrees with go-yaml; the dumps
// kubectl printed are converted whole.
func TestDumps(t *testing.T) {
	files, _ := filepath.Glob("../../../testdata/*/*.yaml")
	more, _ := filepath.Glob("../../../testdata/*/*/*.yaml")
	converted := 0
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---\n") {
			if same(t, doc) {
				converted++
			}
		}
		if base := filepath.Base(f); strings.Contains(f, "testdata/clusters/") && !strings.Contains(f, "pastes") && !strings.Contains(f, "whatif") && base != "recreate.yaml" {
			if _, err := Convert(nil, strings.SplitAfter(string(data), "\n"), 0); err != nil {
				t.Errorf("%s: not converted", f)
			}
		}
	}
	if converted < 20 {
		t.Errorf("converted %d documents", converted)
	}
}

// sameItem checks Convert on doc written as the first entry of a block
// sequence ("- " before its first line, two spaces before the others),
// as sim/snapshot converts the items of a List, against the reference's
// conversion of the sequence.
func sameItem(t *testing.T, doc string) {
	t.Helper()
	lines := strings.SplitAfter(doc, "\n")
	for i := range lines {
		if i == 0 {
			lines[i] = "- " + lines[i]
		} else if strings.TrimSpace(lines[i]) != "" {
			lines[i] = "  " + lines[i]
		}
	}
	col := 2
	for col < len(lines[0]) && lines[0][col] == ' ' {
		col++ // as sim/snapshot finds the item's column
	}
	got, err := Convert(nil, lines, col)
	if err != nil {
		return
	}
	want, werr := yaml.YAMLToJSONStrict([]byte(strings.Join(lines, "")))
	if werr != nil {
		t.Fatalf("Convert accepted the item that YAMLToJSONStrict refuses (%v):\n%q\n-> %s", werr, strings.Join(lines, ""), got)
	}
	var g any
	var w []any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("invalid JSON %s: %v", got, err)
	}
	if err := json.Unmarshal(want, &w); err != nil || len(w) != 1 {
		t.Fatalf("for the item %q the reference gives %s (%v)", strings.Join(lines, ""), want, err)
	}
	if !reflect.DeepEqual(g, w[0]) {
		t.Fatalf("for the item %q:\nConvert          %s\nYAMLToJSONStrict %s", strings.Join(lines, ""), got, want)
	}
}

// TestYAMLFloat checks yamlFloat against go-yaml v2's expression.
func TestYAMLFloat(t *testing.T) {
	re := regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
	for _, s := range []string{"", "1", "-1", "+.5", ".", "1.", "1.e5", "1e", "1e+", "1e+5", ".e5", "1.5E-07", "-", "1x", "1.2.3", "0x1", "+", "5e5e5"} {
		if got, want := yamlFloat(s), re.MatchString(s); got != want {
			t.Errorf("yamlFloat(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzConvert(f *testing.F) {
	files, _ := filepath.Glob("../../../testdata/clusters/*.yaml")
	for _, file := range files {
		data, _ := os.ReadFile(file)
		if len(data) < 8000 {
			f.Add(string(data))
		} else {
			f.Add(string(data[:6000]))
		}
	}
	f.Add("a:\n- 1\n- b: 2\n  c: |\n    x\n")
	f.Add("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns\nspec: {}\n")
	f.Add("q: \"a\\\"b\"\nr: 'it''s'\nip: 10.0.0.1\n")
	f.Fuzz(func(t *testing.T, doc string) {
		if len(doc) > 1<<16 {
			return
		}
		same(t, doc)
		sameItem(t, doc)
	})
}
