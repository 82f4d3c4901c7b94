package yamlline

import (
	"strings"
	"testing"
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
