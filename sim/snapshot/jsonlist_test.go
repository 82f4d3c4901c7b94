package snapshot

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// listItemTexts are items of a List as JSON, %[1]d standing for a number
// that makes their names unique: objects read, ignored, refused (an
// unknown field, a type error, an invalid status), in other namespaces,
// and, with a value nested a little or more than inputlimit.MaxNesting
// deep (%[2]s), one read leniently.
var listItemTexts = []string{
	`{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d%[1]d", "namespace": "a"}, "spec": {"selector": {"matchLabels": {"app": "d%[1]d"}}, "template": {"metadata": {"labels": {"app": "d%[1]d"}}, "spec": {"containers": [{"name": "c", "image": "i:1"}]}}}}`,
	`{"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "r%[1]d", "namespace": "b"}, "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c"}]}}}, "status": {"replicas": 1, "availableReplicas": 1}}`,
	`{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p%[1]d"}, "spec": {"nodeName": "n"}, "status": {"phase": "Running"}}`,
	`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c%[1]d", "namespace": "a"}, "data": {"k": "v"}, "x": %[2]s}`,
	`{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s%[1]d"}, "spec": %[2]s}`,
	`{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "u%[1]d"}, "spec": {"bogus": 1}}`,
	`{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "t%[1]d"}, "spec": {"nodeName": 5}}`,
	`{"apiVersion": "extensions/v1beta1", "kind": "Deployment", "metadata": {"name": "e%[1]d"}, "spec": {"template": {"metadata": {"labels": {"a": "e"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}`,
	`{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n%[1]d"}}`,
}

// TestJSONListAsAnyOther: a whole cluster's List read by jsonList, its
// items checked as they are decoded on every core, gives the snapshot or
// the error of the reading of any other input (inputlimit.Nesting, then
// json.Valid of the whole input, then the items one by one), on drawn
// Lists, whole or damaged: cut short, a byte changed or dropped, a comma
// between items missing or another byte, an item nested too deep,
// another value after the List.
func TestJSONListAsAnyOther(t *testing.T) {
	defer func(n int) { parallelItems = n }(parallelItems)
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 8).Draw(t, "items")
		items := make([]string, n)
		for i := range items {
			nest := rapid.SampledFrom([]string{"{}", "[[1], {\"a\": [2]}]", strings.Repeat("[", 997) + strings.Repeat("]", 997), strings.Repeat("[", 998) + strings.Repeat("]", 998)}).Draw(t, "nest")
			items[i] = fmt.Sprintf(rapid.SampledFrom(listItemTexts).Draw(t, "item"), i, nest)
		}
		sep := rapid.SampledFrom([]string{",", ",\n", " , "})
		var joined strings.Builder
		odd := rapid.IntRange(-n, n-2).Draw(t, "odd separator") // none when negative
		for i, item := range items {
			switch {
			case i == 0:
			case i-1 == odd:
				joined.WriteString(rapid.SampledFrom([]string{"", " ", ":", ",,", "]", "}"}).Draw(t, "odd"))
			default:
				joined.WriteString(sep.Draw(t, "sep"))
			}
			joined.WriteString(item)
		}
		kind := rapid.SampledFrom([]string{`"List"`, `"PodList"`, `"Pod"`, `5`}).Draw(t, "kind")
		version := rapid.SampledFrom([]string{`"v1"`, `"v2"`}).Draw(t, "version")
		data := []byte(fmt.Sprintf("{\"apiVersion\": %s, \"items\": [\n%s\n], \"kind\": %s, \"metadata\": {\"x\": [{}]}}\n", version, joined.String(), kind))
		switch rapid.IntRange(0, 4).Draw(t, "damage") {
		case 1:
			data = data[:rapid.IntRange(0, len(data)).Draw(t, "cut")]
		case 2:
			data[rapid.IntRange(0, len(data)-1).Draw(t, "at")] = rapid.SampledFrom([]byte(`{}[]",:x\ 5`)).Draw(t, "byte")
		case 3:
			at := rapid.IntRange(0, len(data)-1).Draw(t, "drop")
			data = append(data[:at:at], data[at+1:]...)
		case 4:
			data = append(data, rapid.SampledFrom([]string{"{}", "x", "\n\n", `{"kind": "List", "apiVersion": "v1", "items": []}`}).Draw(t, "after")...)
		}
		parallelItems = 1 << 30
		want, wantErr := Parse(data, "dump.json", Options{})
		parallelItems = 2
		_, fast := jsonList(data)
		got, err := Parse(data, "dump.json", Options{})
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s\nread as a List (jsonList %v): %v, %v\nread one by one: %v, %v", data, fast, err, got != nil, wantErr, want != nil)
		}
	})
}
