package yamlline

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

// TestFind: paths into a List's items, nested lists with and without an
// index, flow-style values, missing keys (the deepest line found).
func TestFind(t *testing.T) {
	doc := `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
  spec:
    replicas: 3
    template:
      spec:
        containers:
        - name: sidecar
          image: proxy:1
        - name: web
          ports:
          - containerPort: 80
            protocol: TCP
          image: web:1
        volumes: [{name: v}]
- apiVersion: v1
  kind: Pod
  metadata: {name: p}
  spec:
    replicas: 9
`
	lines := strings.SplitAfter(doc, "\n")
	tests := []struct {
		start int
		path  string
		want  int
	}{
		{4, "spec.replicas", 9},
		{4, "kind", 5},
		{4, "apiVersion", 4},
		{4, "metadata.name", 7},
		{4, "spec.template.spec.containers[0].image", 14},
		{4, "spec.template.spec.containers[1].image", 19},
		{4, "spec.template.spec.containers[1].name", 15},
		{4, "spec.template.spec.containers[1].ports[0].protocol", 18},
		{4, "spec.template.spec.volumes[0].name", 20},
		{4, "spec.template.spec.containers[2].image", 12},
		{4, "spec.template.spec.containers.ports.protocol", 18},
		{4, "spec.template.spec.containers.image", 14},
		{4, "spec.template.spec.containers.missing", 12},
		{4, "spec.selector", 8},
		{4, "status.replicas", 0},
		{21, "metadata.name", 23},
		{21, "spec.replicas", 25},
		{1, "items[1].kind", 22},
		{0, "kind", 0},
	}
	for _, tc := range tests {
		if got := Find(lines, tc.start, tc.path); got != tc.want {
			t.Errorf("Find(%d, %q) = %d, want %d", tc.start, tc.path, got, tc.want)
		}
	}
}

// TestPathAt: the field path of a line is the path Find finds that line
// for, over every line of a scenario with the shapes scenarios have.
func TestPathAt(t *testing.T) {
	doc := `name: web
# a comment
cluster:
  failures:
  - image: web:2
    mode: crashloop
    probability: .nan
  nodes:
    - name: a
      capacity: 3
objects:
- apiVersion: apps/v1
  kind: Deployment
  spec:
    template:
      spec:
        containers:
        - name: web
          image: web:1
        - name: side
steps:
- at: 1s
  setImage: {container: web, image: web:2}
- at: 2s
  "scale": 3
`
	lines := strings.SplitAfter(doc, "\n")
	want := map[int]string{
		1: "name", 2: "", 3: "cluster", 4: "cluster.failures", 5: "cluster.failures[0].image", 6: "cluster.failures[0].mode",
		7: "cluster.failures[0].probability", 8: "cluster.nodes", 9: "cluster.nodes[0].name", 10: "cluster.nodes[0].capacity",
		11: "objects", 12: "objects[0].apiVersion", 13: "objects[0].kind", 17: "objects[0].spec.template.spec.containers",
		18: "objects[0].spec.template.spec.containers[0].name", 19: "objects[0].spec.template.spec.containers[0].image",
		20: "objects[0].spec.template.spec.containers[1].name", 22: "steps[0].at", 23: "steps[0].setImage", 24: "steps[1].at", 25: "steps[1].scale",
	}
	for line, path := range want {
		if got := PathAt(lines, line); got != path {
			t.Errorf("line %d: %q, want %q", line, got, path)
		}
		if path != "" && !strings.HasSuffix(path, "]") {
			if l := Find(lines, 1, path); l != line {
				t.Errorf("Find(%q) = %d, PathAt says %d", path, l, line)
			}
		}
	}
}

// TestSeqLineIsFind: Seq.Line answers what Find answers for every entry
// of a sequence and the fields under it, on every bundled scenario and on
// texts with the sequence's odd shapes (flow-style entries and values, a
// missing or empty sequence, comments, a document end, a key indented
// under a list).
func TestSeqLineIsFind(t *testing.T) {
	docs := map[string]string{
		"flow entries": "name: x\nsteps:\n- {at: 1m, scale: 3}\n- at: 2m\n  setImage: {container: app, image: b}\n-   at: 3m\n    setImage:\n      container: app\n      image: c\n# done\n",
		"flow value":   "name: x\nsteps: [{at: 1m}]\n",
		"missing":      "name: x\nobjects:\n- kind: Deployment\n",
		"empty":        "name: x\nsteps:\nuntil: 1h\n",
		"indented":     "name: x\nsteps:\n  - at: 1m\n    restartController: deployment\n  # a comment\n\n  - at: 2m\n    setImage:\n      container: web\n---\nsteps:\n- at: 3m\n",
		"not a list":   "steps:\n  at: 1m\n",
		"nested key":   "cluster:\n  steps:\n  - at: 1m\nsteps:\n- at: 2m\n  setImage:\n    container: c\n",
		"list after":   "steps:\n- at: 1m\nobjects:\n- kind: Deployment\n  setImage:\n    container: c\n",
		"dash outside": "x:\n  steps:\n- at: 1m\n  restartController: deployment\n",
	}
	files, err := filepath.Glob("../../../testdata/scenarios/*.yaml")
	if err != nil || len(files) < 20 {
		t.Fatalf("bundled scenarios: %v (%d files)", err, len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[filepath.Base(f)] = string(b)
	}
	rests := []string{"", "at", "setImage.container", "setImage.image", "restartController", "scale.replicas", "apply[0].kind", "a[x]", "missing"}
	compared := 0
	for name, doc := range docs {
		lines := strings.Split(doc, "\n")
		for _, start := range []int{0, 1, 2, len(lines) + 1} {
			s := FindSeq(lines, start, "steps")
			for i := -1; i < len(lines)/2+2; i++ {
				for _, rest := range rests {
					path := fmt.Sprintf("steps[%d]", i)
					if i < 0 {
						path = "steps"
						if rest != "" {
							continue
						}
					}
					if rest != "" {
						path += "." + rest
					}
					want := Find(lines, start, path)
					got := s.at + 1 // the key's line (0: not found)
					if i >= 0 {
						got = s.Line(i, rest)
					}
					if got != want {
						t.Fatalf("%s, start %d: FindSeq(steps).Line(%d, %q) = %d, Find(%q) = %d", name, start, i, rest, got, path, want)
					}
					compared++
				}
			}
		}
	}
	t.Logf("%d lines compared", compared)
}

// TestFromUTF16: text with a UTF-16 byte order mark, either endianness,
// is read as UTF-8 (surrogate pairs included); anything else is returned
// as given; half a character at the end is an error; data is not
// modified.
func TestFromUTF16(t *testing.T) {
	const text = "apiVersion: v1\nkind: Pod\nmetadata: {name: café-🚀}\n"
	units := utf16.Encode([]rune(text))
	le, be := []byte{0xff, 0xfe}, []byte{0xfe, 0xff}
	for _, u := range units {
		le = binary.LittleEndian.AppendUint16(le, u)
		be = binary.BigEndian.AppendUint16(be, u)
	}
	for name, in := range map[string][]byte{"little-endian": le, "big-endian": be} {
		before := bytes.Clone(in)
		got, err := FromUTF16(in)
		if err != nil || string(got) != text {
			t.Errorf("%s: FromUTF16 = %q, %v; want %q", name, got, err, text)
		}
		if !bytes.Equal(in, before) {
			t.Errorf("%s: the input was modified", name)
		}
	}
	for _, in := range [][]byte{[]byte(text), []byte("\ufeff" + text), nil, {0xff}} {
		if got, err := FromUTF16(in); err != nil || !bytes.Equal(got, in) {
			t.Errorf("FromUTF16(%q) = %q, %v; want it unchanged", in, got, err)
		}
	}
	if _, err := FromUTF16(le[:len(le)-1]); err == nil || !strings.Contains(err.Error(), "cut inside a character") {
		t.Errorf("odd length: error %v", err)
	}
}

// TestControlChar: the first C0 control other than tab, LF and CR (and
// DEL) is found with its line and column; CRLF text and tabs are not
// controls.
func TestControlChar(t *testing.T) {
	for _, tc := range []struct {
		in        string
		line, col int
		b         byte
	}{
		{"a: 1\r\nb:\t2\n", 0, 0, 0},
		{"a: 1\n\x1b[34mb\x1b[0m: 2\n", 2, 1, 0x1b},
		{"a: x\x00y\n", 1, 5, 0},
		{"a: 1\nb: 2\nc: \x7f\x01\n", 3, 5, 0x01},
		{`{"a": "\u001b", "b": "` + "\x7f" + `"}`, 0, 0, 0}, // escaped, and DEL (JSON holds it)
		{"", 0, 0, 0},
	} {
		line, col, b := ControlChar([]byte(tc.in))
		if line != tc.line || col != tc.col || b != tc.b {
			t.Errorf("ControlChar(%q) = %d, %d, %#x; want %d, %d, %#x", tc.in, line, col, b, tc.line, tc.col, tc.b)
		}
	}
}
