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
