package snapshot

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestParallelItems: a List read with its items decoded in parallel
// gives the snapshot, notes and first error of a reading one by one.
func TestParallelItems(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nitems:\n")
	for i := range 300 {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c%d\n    namespace: ns%d\n  data:\n    k: v\n", i, i%3)
		case 1:
			fmt.Fprintf(&b, "- apiVersion: apps/v1\n  kind: ReplicaSet\n  metadata:\n    name: r%d\n  spec:\n    selector: {matchLabels: {a: b}}\n    template:\n      metadata: {labels: {a: b}}\n      spec: {containers: [{name: c}]}\n  status: {replicas: 1, availableReplicas: 1}\n", i)
		case 2:
			fmt.Fprintf(&b, "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p%d\n  status:\n    phase: Running\n", i)
		default:
			fmt.Fprintf(&b, "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: s%d\n", i)
		}
	}
	b.WriteString("kind: List\n")
	list := b.String()
	broken := strings.Replace(strings.Replace(list, "name: r101\n", "name: r101\n    namespace: [x]\n", 1), "name: p206\n", "name: p202\n", 1)
	for _, input := range []string{list, broken, strings.Replace(list, "name: c200\n", "name: c200\n  bogus: 1\n", 1)} {
		for _, o := range []Options{{}, {Namespace: "ns1"}} {
			parallelItems = 1 << 30
			want, werr := Parse([]byte(input), "list.yaml", o)
			parallelItems = 1
			got, gerr := Parse([]byte(input), "list.yaml", o)
			parallelItems = 256
			if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
				t.Errorf("in parallel: %v, %v\none by one: %v, %v", gerr, got != nil, werr, want != nil)
			}
			if werr == nil && len(want.Notes) == 0 && o.Namespace == "" {
				t.Errorf("no notes: the test means to compare them")
			}
			if input == broken && werr == nil {
				t.Errorf("the broken List is read: the test means to compare errors")
			}
		}
	}
}
