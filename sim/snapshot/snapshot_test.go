package snapshot

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
	"sigs.k8s.io/yaml"
)

// bareDeployment is the Kubernetes docs' nginx Deployment, as users keep
// it (also what deploysim's manifest tests run).
var bareDeployment = func() string {
	b, err := os.ReadFile("../../testdata/manifests/nginx-deployment.yaml")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// shape is what a test checks of a snapshot: the objects read, by kind,
// as "namespace/name@line", and the ignored kinds.
func shape(s *Snapshot) map[string][]string {
	out := map[string][]string{}
	add := func(kind, ns, name string) {
		r := Ref{kind, ns, name}
		out[kind] = append(out[kind], r.String()[len(kind)+1:]+"@"+strconv.Itoa(s.Source(r).Line))
	}
	for _, d := range s.Deployments {
		add("Deployment", d.Namespace, d.Name)
	}
	for _, rs := range s.ReplicaSets {
		add("ReplicaSet", rs.Namespace, rs.Name)
	}
	for _, p := range s.Pods {
		add("Pod", p.Namespace, p.Name)
	}
	for _, c := range s.ConfigMaps {
		add("ConfigMap", c.Namespace, c.Name)
	}
	for _, c := range s.Secrets {
		add("Secret", c.Namespace, c.Name)
	}
	for _, n := range s.Nodes {
		add("Node", "", n.Name)
	}
	for k, n := range s.Ignored {
		out["ignored"] = append(out["ignored"], k+"="+strconv.Itoa(n))
	}
	if s.OtherNamespaces > 0 {
		out["other namespaces"] = []string{strconv.Itoa(s.OtherNamespaces)}
	}
	return out
}

func TestShapes(t *testing.T) {
	list := `apiVersion: v1
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    namespace: shop
  spec:
    replicas: 2
    selector:
      matchLabels: {app: web}
    template:
      metadata:
        labels: {app: web}
      spec:
        containers: [{name: web, image: "web:1"}]
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: shop}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-1, namespace: shop}
  spec: {containers: [{name: web, image: "web:1"}]}
  status: {phase: Running, someFieldOfANewerRelease: 1}
- apiVersion: v1
  kind: Node
  metadata: {name: node-1}
kind: List
metadata:
  resourceVersion: ""
`
	tests := []struct {
		name  string
		input string
		opts  Options
		want  map[string][]string
	}{
		{"bare manifest", bareDeployment, Options{}, map[string][]string{"Deployment": {"default/nginx-deployment@1"}}},
		{"bare manifest, namespace option", bareDeployment, Options{Namespace: "prod"}, map[string][]string{"Deployment": {"prod/nginx-deployment@1"}}},
		{"kubectl List", list, Options{}, map[string][]string{
			"Deployment": {"shop/web@3"}, "Pod": {"shop/web-1@20"}, "Node": {"node-1@25"}, "ignored": {"Service=1"}}},
		{"List, other namespace", list, Options{Namespace: "blog"}, map[string][]string{"Node": {"node-1@25"}, "ignored": {"Service=1"}, "other namespaces": {"2"}}},
		{"documents", "# state\n---\n" + bareDeployment + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: conf}\n---\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: x}\n",
			Options{}, map[string][]string{"Deployment": {"default/nginx-deployment@3"}, "ConfigMap": {"default/conf@25"}, "Secret": {"x/s@30"}}},
		{"typed list without kinds", "apiVersion: apps/v1\nkind: ReplicaSetList\nitems:\n- metadata: {name: a, namespace: ns}\n  spec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c}]}}}\n",
			Options{}, map[string][]string{"ReplicaSet": {"ns/a@4"}}},
		{"JSON list", `{
    "apiVersion": "v1",
    "items": [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "a", "namespace": "ns"}
        },
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b", "namespace": "ns"}}
    ],
    "kind": "List"
}
{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "c", "namespace": "ns"}}
`, Options{}, map[string][]string{"ConfigMap": {"ns/a@4", "ns/b@9"}, "Secret": {"ns/c@13"}}},
		{"JSON typed list without kinds", "{\"apiVersion\": \"apps/v1\", \"kind\": \"ReplicaSetList\",\n \"items\" :\n [{\"metadata\": {\"name\": \"a\", \"namespace\": \"ns\"},\n" +
			" \"spec\": {\"selector\": {\"matchLabels\": {\"a\": \"b\"}}, \"template\": {\"metadata\": {\"labels\": {\"a\": \"b\"}}, \"spec\": {\"containers\": [{\"name\": \"c\"}]}}}},\n" +
			" {\"metadata\": {\"name\": \"b\", \"namespace\": \"ns\"}, \"spec\": {\"selector\": {\"matchLabels\": {\"a\": \"b\"}}, \"template\": {\"metadata\": {\"labels\": {\"a\": \"b\"}}, \"spec\": {\"containers\": [{\"name\": \"c\"}]}}}}]}\n",
			Options{}, map[string][]string{"ReplicaSet": {"ns/a@3", "ns/b@5"}}},
		{"JSON object with items, not a List", "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"a\"},\n \"items\": [1]}\n",
			Options{}, map[string][]string{"ConfigMap": {"default/a@1"}}},
		{"empty", "", Options{}, map[string][]string{}},
		{"only comments", "# nothing\n---\n# here\n", Options{}, map[string][]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse([]byte(tc.input), "state.yaml", tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, shape(s)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct{ name, input, want string }{
		{"apps/v1beta1 ReplicaSet", "apiVersion: apps/v1beta1\nkind: ReplicaSet\nmetadata: {name: r}\n", "state.yaml: line 1: ReplicaSet default/r: apiVersion: apps/v1beta1 has no ReplicaSet: want apps/v1"},
		{"wrong version", "apiVersion: apps/v1\nkind: Pod\nmetadata: {name: p}\n", `state.yaml: line 1: Pod default/p: apiVersion: unsupported value "apps/v1" for Pod: want v1`},
		{"no apiVersion", "kind: Pod\nmetadata: {name: p}\n", "state.yaml: line 1: Pod default/p: apiVersion: required value (want v1)"},
		{"header type error", "apiVersion: v1\nkind: Pod\nmetadata: {name: y}\n", "state.yaml: line 1: metadata.name: cannot unmarshal bool into string"},
		{"no kind", "apiVersion: v1\nmetadata: {name: p}\n", "state.yaml: line 1: kind: required value"},
		{"no name", "apiVersion: v1\nkind: Pod\nmetadata: {namespace: ns}\n", "state.yaml: line 1: Pod ns/: metadata.name: required value"},
		{"not objects", "- a\n- b\n", "state.yaml: line 1: items[0]: not an object"},
		{"scalar", "hello\n", "state.yaml: line 1: not an object"},
		{"type error", strings.Replace(bareDeployment, "replicas: 3", "replicas: three", 1),
			`state.yaml: line 8: Deployment default/nginx-deployment: spec.replicas: cannot unmarshal string into int32`},
		{"unknown field in a template", strings.Replace(bareDeployment, "image: nginx:1.14.2", "image: nginx:1.14.2\n        imagePolicy: Always", 1),
			`state.yaml: line 20: Deployment default/nginx-deployment: unknown field "spec.template.spec.containers[0].imagePolicy"`},
		{"invalid deployment", strings.Replace(bareDeployment, "      app: nginx\n  template", "      app: web\n  template", 1),
			"state.yaml: line 14: Deployment default/nginx-deployment: spec.template.metadata.labels: invalid value"},
		{"duplicate", bareDeployment + "---\n" + bareDeployment, "state.yaml: line 23: Deployment default/nginx-deployment: given twice (first at line 1)"},
		{"yaml syntax, second document", bareDeployment + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nc: d: e\n", "state.yaml: line 26: mapping values are not allowed"},
		{"duplicate key", "apiVersion: v1\nkind: Pod\nkind: Pod\nmetadata: {name: p}\n", `state.yaml: line 3: key "kind" already set in map`},
		{"json syntax", "{\n  \"apiVersion\": \"v1\",\n  \"kind\": }\n", "state.yaml: line 3: invalid JSON"},
		{"node namespace", "apiVersion: v1\nkind: Node\nmetadata: {name: node-1, namespace: x}\n", "state.yaml: line 1: Node x/node-1: metadata.namespace: a Node has no namespace"},
		{"list of lists", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items: []\n", "state.yaml: line 4: items[0]: a List inside a List is not supported"},
		{"list version", "apiVersion: v2\nkind: List\nitems: []\n", `state.yaml: line 1: apiVersion: List of apiVersion "v2": want v1`},
		{"not UTF-8", "apiVersion: v1\nkind: Pod\nmetadata: {name: \"p\xff\"}\n", "state.yaml: line 3: byte 0xff at column 20 is not UTF-8"},
		{"deep", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nx: " + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + "\n", "state.yaml: line 4: [ and { nested more than 1000 deep at column 1004"},
		{"NaN", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  priority: .nan\n", "state.yaml: line 5: .nan is not a number JSON, and so an object, can hold"},
		{"negative rs", "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r}\nspec: {replicas: -1, selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c}]}}}\n",
			"state.yaml: line 4: ReplicaSet default/r: spec.replicas: Invalid value: -1: must be greater than or equal to 0 (the API server refuses such an object)"},
		{"kubectl describe", "\n# kubectl describe deploy web\nName:         web\nNamespace:    shop\nLabels:       app=web\nReplicas:     3 desired | 3 updated\n",
			"state.yaml: line 3: the text of kubectl describe, which leaves out what explain and a run read"},
		{"kubectl get table", "NAME   READY   UP-TO-DATE   AVAILABLE   AGE\nweb    3/3     3            3           5d\n",
			"state.yaml: line 1: the table kubectl get prints (columns NAME, READY, UP-TO-DATE, AVAILABLE, AGE), not the objects, which -o yaml prints: kubectl get deploy,rs,pods -o yaml"},
		{"kubectl get events table", "LAST SEEN   TYPE      REASON    OBJECT           MESSAGE\n2m          Warning   BackOff   pod/web-1-abcde  Back-off restarting failed container\n",
			"state.yaml: line 1: the table kubectl get prints (columns LAST SEEN, TYPE, REASON, OBJECT, MESSAGE)"},
		{"kubectl rollout status", "Waiting for deployment \"web\" rollout to finish: 2 of 3 updated replicas are available...\n",
			"state.yaml: line 1: the output of kubectl rollout status, which says how far a rollout got but not why: kubectl get deploy,rs,pods -o yaml"},
		{"colors", "\x1b[34mapiVersion\x1b[0m: v1\nkind: Pod\n", "state.yaml: line 1: a terminal escape sequence (ESC, 0x1b) at column 1, such as the colors kubecolor or yq -C add: kubectl prints none"},
		{"NUL", "apiVersion: v1\nkind: Pod\nmetadata: {name: \"p\x00\"}\n", "state.yaml: line 3: control character 0x00 at column 20: YAML text holds none, and kubectl prints none"},
		{"elided", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  managedFields:\n    ...\nspec: {}\n", `state.yaml: line 5: Pod default/p: metadata.managedFields: cannot unmarshal string into []v1.ManagedFieldsEntry: the paste leaves it out ("..."): delete the field with its lines, or give it whole`},
		{"elided inline", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: …\n", `state.yaml: line 6: Pod default/p: spec.containers: cannot unmarshal string into []v1.Container: the paste leaves it out ("…")`},
		{"two colons on the last line", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  a: b: c\n",
			"state.yaml: line 5: mapping values are not allowed in this context: if this is a paste of kubectl's output, which is valid YAML, this line looks broken"},
		{"kubectl warning", "Warning: apps/v1beta1 Deployment is deprecated\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n",
			"state.yaml: line 1: a message kubectl wrote to standard error (Warning: apps/v1beta1 Deployment is deprecated) among its output: save standard output alone (> state.yaml, without 2>&1)"},
		{"klog line", "E1127 22:00:01.123456   12345 memcache.go:265] couldn't get current server API group list: Get \"https://10.0.0.1:6443/api?timeout=32s\": dial tcp 10.0.0.1:6443: i/o timeout\napiVersion: v1\nkind: List\nitems: []\n",
			"state.yaml: line 1: a message kubectl wrote to standard error (E1127 22:00:01.123456   12345 memcache.go:265] couldn't get …)"},
		{"error from server at the end", "apiVersion: v1\nkind: List\nitems: []\nError from server (NotFound): pods \"x\" not found\n",
			"state.yaml: line 4: a message kubectl wrote to standard error (Error from server (NotFound): pods \"x\" not found)"},
		{"markdown fence", "```yaml\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n```\n", "state.yaml: line 1: a Markdown code fence (```yaml): give only the text between the fences"},
		{"closing fence", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n```\n", "state.yaml: line 4: a Markdown code fence (```)"},
		{"command line", "\nme@host:~$ kubectl get deploy -o yaml\napiVersion: v1\nkind: List\nitems: []\n", `state.yaml: line 2: the command line "me@host:~$ kubectl get deploy -o yaml" before its output: remove that line`},
		{"tab", "apiVersion: v1\nkind: Pod\nmetadata:\n\tname: p\n", "state.yaml: line 4: found character that cannot start any token: a tab in the indentation"},
		{"pod type error in list", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: ok}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: bad}\n  status: {phase: [Running]}\n",
			"state.yaml: line 10: Pod default/bad: status.phase: cannot unmarshal array into"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.input), "state.yaml", Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

// TestTooLarge: input beyond MaxBytes is refused before it is parsed,
// as read (standard input, a file of a known size) and as its aliases
// expand it, each error naming the input and the limit.
func TestTooLarge(t *testing.T) {
	_, err := Read(strings.NewReader(strings.Repeat("#", MaxBytes+1)), "", Options{})
	if want := "<stdin>: larger than the limit of 64 MiB for cluster state or manifests (snapshot.MaxBytes)"; err == nil || err.Error() != want {
		t.Errorf("standard input: %v\nwant %s", err, want)
	}
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 5<<30); err != nil { // sparse: nothing to read
		t.Fatal(err)
	}
	_, err = ReadFile(big, Options{})
	if want := big + ": 5 GiB, above the limit of 64 MiB for cluster state or manifests (snapshot.MaxBytes)"; err == nil || err.Error() != want {
		t.Errorf("file: %v\nwant %s", err, want)
	}
	// 4 KiB of text whose aliases make 10^10 bytes.
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol}\ndata:\n  l0: &l0 \"lol\"\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "  l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d,", i-1), 10), ","))
	}
	_, err = Parse([]byte(b.String()), "lol.yaml", Options{})
	if want := "lol.yaml: its YAML aliases expand it to "; err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "GiB, above the limit of 64 MiB for cluster state or manifests (snapshot.MaxBytes)") {
		t.Errorf("aliases: %v", err)
	}
}

// TestKeepsClusterState: a Deployment copied from a cluster keeps its
// generation, status and revision, and is not defaulted differently.
func TestKeepsClusterState(t *testing.T) {
	in := strings.Replace(bareDeployment, "  labels:\n    app: nginx\n", "  generation: 4\n  annotations: {deployment.kubernetes.io/revision: \"3\"}\n", 1) +
		"status:\n  observedGeneration: 4\n  replicas: 3\n  availableReplicas: 2\n  conditions:\n  - type: Progressing\n    status: \"True\"\n    reason: ReplicaSetUpdated\n    lastUpdateTime: \"2026-11-20T10:00:00Z\"\n    lastTransitionTime: \"2026-11-20T09:00:00Z\"\n"
	s, err := Parse([]byte(in), "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := s.Deployments[0]
	if d.Generation != 4 || d.Status.ObservedGeneration != 4 || d.Status.AvailableReplicas != 2 || d.Annotations["deployment.kubernetes.io/revision"] != "3" {
		t.Errorf("lost cluster state: generation %d, status %+v, annotations %v", d.Generation, d.Status, d.Annotations)
	}
	// A manifest never stored gets the generation a create gives.
	if bare, err := Parse([]byte(bareDeployment), "", Options{}); err != nil {
		t.Error(err)
	} else if g := bare.Deployments[0].Generation; g != 1 {
		t.Errorf("bare manifest: generation %d, want 1", g)
	}
	// Defaulted like the API server.
	if c := d.Spec.Template.Spec.Containers[0]; c.ImagePullPolicy != "IfNotPresent" || c.TerminationMessagePath != "/dev/termination-log" || *d.Spec.RevisionHistoryLimit != 10 {
		t.Errorf("not defaulted: %+v", c)
	}
	if got, want := s.Latest(), time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("Latest = %v, want %v", got, want)
	}
}

// TestNoMutation: Parse does not modify its input.
func TestNoMutation(t *testing.T) {
	in := []byte(bareDeployment)
	orig := string(in)
	if _, err := Parse(in, "", Options{}); err != nil {
		t.Fatal(err)
	}
	if string(in) != orig {
		t.Error("input modified")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(bareDeployment))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n"))
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"r"}}]}`))
	f.Add([]byte("NAME   READY   AGE\nweb    1/1     5m\n"))
	f.Add([]byte("  replicas: 3\n  readyReplicas: 3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data, "fuzz.yaml", Options{})
		if KubectlText(data) && err == nil {
			t.Fatalf("KubectlText says %q is not whole objects, but Parse reads it", data)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Fatalf("error does not name the input: %v", err)
			}
			return
		}
		for _, r := range s.Rollouts() {
			_ = r.Input(s.Latest())
		}
	})
}

// TestClusterDumps reads the dumps of a real v1.37.1 control plane in
// testdata/clusters (see sim/controlplane's TestWriteClusterDumps): every
// shape kubectl prints (a List in YAML, in JSON, several documents, with
// managedFields) and the grouping per Deployment.
func TestClusterDumps(t *testing.T) {
	tests := []struct {
		file string
		// per Deployment: name, claimed ReplicaSets, their pods
		want []string
	}{
		{"rolling.yaml", []string{"shop/api rs=1 pods=2", "shop/web rs=2 pods=5"}},
		{"crashloop.yaml", []string{"payments/checkout rs=2 pods=4"}},
		{"imagepull.json", []string{"media/thumbnailer rs=2 pods=3"}},
		{"paused.yaml", []string{"blog/frontend rs=2 pods=5"}},
		{"recreate.yaml", []string{"batch/worker rs=1 pods=3"}},
		{"quota.yaml", []string{"search/indexer rs=2 pods=3"}},
		{"progressing.yaml", []string{"store/catalog rs=2 pods=5", "store/catalog-canary rs=1 pods=1"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			s, err := ReadFile("../../testdata/clusters/"+tc.file, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range s.Rollouts() {
				got = append(got, r.Deployment.Namespace+"/"+r.Deployment.Name+" rs="+strconv.Itoa(len(r.ReplicaSets))+" pods="+strconv.Itoa(len(r.Pods)))
				if r.Deployment.Status.ObservedGeneration == 0 || r.Deployment.Annotations["deployment.kubernetes.io/revision"] == "" {
					t.Errorf("%s lost its status or revision", r.Deployment.Name)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			if s.Latest().IsZero() {
				t.Error("no latest time")
			}
		})
	}
}

// TestSplitList: converting a List item by item gives the items and the
// rest of the List that converting it whole gives, for the dumps and for
// Lists with comments, blank lines, indented entries and keys after the
// items; splitList gives up on what it cannot split.
func TestSplitList(t *testing.T) {
	inputs := map[string]string{
		"indented":   "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: a}\n\n  # between\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: b\n    data:\n      x: |\n        - not an item\n        kind: nor a key\nmetadata:\n  resourceVersion: \"\"\n",
		"dash alone": "kind: List\napiVersion: v1\nitems:\n-\n  apiVersion: v1\n  kind: Secret\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: b}\n",
	}
	for _, f := range []string{"rolling.yaml", "crashloop.yaml", "paused.yaml", "quota.yaml"} {
		data, err := os.ReadFile("../../testdata/clusters/" + f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[f] = string(data)
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			lines := strings.SplitAfter(in, "\n")
			d, ok := splitList(lines, 0)
			if !ok {
				t.Fatal("not split")
			}
			whole, err := yaml.YAMLToJSONStrict([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			var w map[string]any
			if err := json.Unmarshal(whole, &w); err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(d.json, &got); err != nil {
				t.Fatal(err)
			}
			var items []any
			for _, it := range d.items {
				var v any
				if err := json.Unmarshal(it, &v); err != nil {
					t.Fatal(err)
				}
				items = append(items, v)
			}
			got["items"] = items
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("(-whole +split)\n%s", diff)
			}
		})
	}
	for _, in := range []string{
		"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n",                              // one item: not worth it
		"apiVersion: v1\nkind: List\nitems:\n- &a {kind: Pod}\n- *a\n",                                     // an alias across items
		"apiVersion: v1\nkind: List\nitems: []\nother:\n- apiVersion: v1\n- apiVersion: v1\n",              // not the items
		"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: [\n- apiVersion: v1\n  kind: Pod\n", // a piece that does not convert
	} {
		if _, ok := splitList(strings.SplitAfter(in, "\n"), 0); ok {
			t.Errorf("split %q", in)
		}
	}
}

// TestResourceQuota: ResourceQuotas are read (kubectl get
// ...,resourcequota), put in the default namespace when they name none,
// and count towards the snapshot's time.
func TestResourceQuota(t *testing.T) {
	s, err := Parse([]byte(`apiVersion: v1
kind: ResourceQuota
metadata: {name: pods, creationTimestamp: "2026-11-23T22:00:00Z"}
spec: {hard: {pods: "3"}}
status: {hard: {pods: "3"}, used: {pods: "2"}}
`), "quota.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.ResourceQuotas) != 1 || s.ResourceQuotas[0].Namespace != "default" || s.ResourceQuotas[0].Spec.Hard.Pods().Value() != 3 || len(s.Ignored) != 0 {
		t.Fatalf("quotas %v, ignored %v", s.ResourceQuotas, s.Ignored)
	}
	if got := s.Latest().Format(time.RFC3339); got != "2026-11-23T22:00:00Z" {
		t.Errorf("latest %s", got)
	}
}

// TestLineCounter checks lineCounter against lineAt, at offsets asked in
// increasing order and, sometimes, earlier ones.
func TestLineCounter(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		data := []byte(rapid.StringOf(rapid.SampledFrom([]rune{'a', '\n', '{'})).Draw(t, "data"))
		c := &lineCounter{data: data}
		for i := range rapid.IntRange(1, 20).Draw(t, "asks") {
			off := int64(rapid.IntRange(-1, len(data)+1).Draw(t, fmt.Sprintf("off%d", i)))
			if got, want := c.at(off), lineAt(data, off); got != want {
				t.Fatalf("at(%d) = %d, want %d", off, got, want)
			}
		}
	})
}
