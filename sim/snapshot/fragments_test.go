package snapshot

import "testing"

// TestKubectlText: kubectl's output without whole objects (describe, a
// table, parts of objects) is told apart from objects and from other
// YAML (a scenario), by its first document's top level only.
func TestKubectlText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"Name:         web\nNamespace:    shop\nLabels:       app=web\n", true},
		{"\ufeff\n# pasted\nName:   node-1\nRoles:  <none>\nLabels: kubernetes.io/os=linux\n", true},
		{"NAME   READY   STATUS    RESTARTS   AGE\nweb-1  1/1     Running   0          5m\n", true},
		{"NAMESPACE   NAME   READY   UP-TO-DATE   AVAILABLE   AGE\n", true},
		{"NAME   CPU(cores)   MEMORY(bytes)\n", true},
		{"LAST SEEN   TYPE   REASON   OBJECT   MESSAGE\n", true},
		{"status:\n  replicas: 3\n", true},
		{"---\nspec:\n  replicas: 3\nstatus:\n  replicas: 3\n", true},
		{"  availableReplicas: 1\n  replicas: 3\n", true}, // grepped, with its indentation
		{"replicas: 3\nconditions: []\n", true},
		{`{"status": {"replicas": 3}}`, true},
		{"```yaml\napiVersion: v1\nkind: Pod\n```\n", true},
		{"$ kubectl get deploy -o yaml\napiVersion: v1\n", true},
		{"kubectl describe deploy web\nName:  web\n", true},
		{"Waiting for deployment \"web\" rollout to finish: 1 out of 3 new replicas have been updated...\n", true},
		{"deployment \"web\" successfully rolled out\n", true},
		{"error: deployment \"web\" exceeded its progress deadline\n", true},
		{"Warning: v1 ComponentStatus is deprecated in v1.19+\napiVersion: v1\nkind: List\n", true},
		{"apiVersion: v1\nkind: Pod\n", false},
		{"apiVersion: v1\nkind: ConfigMap\ndata:\n  README.md: |\n    ```sh\n    make\n    ```\n", false}, // a fence inside a block scalar is indented
		{"name: web\nseed: 1\nsteps: []\n", false},                                                        // a scenario
		{"replicas: 3\nsteps: []\n", false},                                                               // one key of a scenario's
		{"status:\n  replicas: 3\n---\nkind: Pod\n", true},                                                // the first document decides
		{"Name:   web\nImage:  nginx\n", false},                                                           // not describe's second line
		{"NAME: web\n", false},                                                                            // a mapping, not a table
		{"NAME   web\n", false},                                                                           // one header, one value
		{"Name   Ready\n", false},                                                                         // not kubectl's capitals
		{"  status:\n    replicas: 1\nkind: Pod\n", false},                                                // less indented below: not YAML
		{`{"name": "web", "steps": []}`, false},
		{"", false},
	} {
		if got := KubectlText([]byte(tc.in)); got != tc.want {
			t.Errorf("KubectlText(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
