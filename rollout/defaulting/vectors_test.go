package defaulting_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/rollout/defaulting"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

var update = flag.Bool("update", false, "rewrite testdata/defaulting/vectors.json")

const vectorsPath = "../../testdata/defaulting/vectors.json"

// vectorFile is the layout of testdata/defaulting/vectors.json.
type vectorFile struct {
	Comment string   `json:"comment"`
	Vectors []vector `json:"vectors"`
}

type vector struct {
	Name      string          `json:"name"`
	Raw       json.RawMessage `json:"raw"`
	Defaulted json.RawMessage `json:"defaulted"`
	Hash      string          `json:"hash"`
}

const vectorsComment = "API-server defaulting vectors (deploymath/rollout/defaulting), Kubernetes v1.37. " +
	"raw is a Deployment's spec.template as written (quantities spelled as written); defaulted is that template after the defaults a v1.37 " +
	"API server applies to an apps/v1 Deployment (k8s.io/api v0.37.2 types, encoding/json); hash is the " +
	"pod-template-hash (no collision count) of the template as the server stores it and a controller reads it back, " +
	"which is what the controller hashes. " +
	"Regenerate with go test ./rollout/defaulting -update."

// rawTemplates are the vectors' inputs, as JSON. The first is the pod
// template of the Kubernetes documentation's nginx Deployment.
var rawTemplates = []struct{ name, json string }{
	{"docs nginx Deployment", `{"metadata":{"labels":{"app":"nginx"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.14.2","ports":[{"containerPort":80}]}]}}`},
	{"empty template", `{"metadata":{},"spec":{"containers":null}}`},
	{"image tags", `{"metadata":{"labels":{"app":"tags"}},"spec":{
		"initContainers":[{"name":"init","image":"busybox"}],
		"containers":[
			{"name":"latest","image":"nginx:latest"},
			{"name":"untagged","image":"registry.example.com:5000/team/app"},
			{"name":"digest","image":"nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
			{"name":"tag-and-digest","image":"nginx:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
			{"name":"unparsable","image":"Nginx"},
			{"name":"set","image":"nginx","imagePullPolicy":"Never"}]}}`},
	{"probes and lifecycle", `{"metadata":{"labels":{"app":"probes"}},"spec":{"containers":[{"name":"web","image":"web:2",
		"ports":[{"name":"http","containerPort":8080},{"containerPort":53,"protocol":"UDP"}],
		"livenessProbe":{"httpGet":{"port":8080}},
		"readinessProbe":{"grpc":{"port":9090},"periodSeconds":5},
		"startupProbe":{"tcpSocket":{"port":8080},"failureThreshold":30},
		"lifecycle":{"postStart":{"httpGet":{"port":"http","path":"/warm"}},"preStop":{"exec":{"command":["sleep","5"]}}}}]}}`},
	{"env and resources", `{"metadata":{"labels":{"app":"env"}},"spec":{"containers":[{"name":"app","image":"app:1",
		"env":[{"name":"NODE","valueFrom":{"fieldRef":{"fieldPath":"spec.nodeName"}}},
			{"name":"KEY","valueFrom":{"fileKeyRef":{"volumeName":"cfg","path":"env","key":"KEY"}}},
			{"name":"PLAIN","value":"x"}],
		"resources":{"limits":{"cpu":"500m","memory":"128Mi"},"requests":{"cpu":"0.0001"}}}],
		"overhead":{"cpu":"250u"}}}`},
	{"volumes", `{"metadata":{"labels":{"app":"volumes"}},"spec":{"containers":[{"name":"app","image":"app:1"}],"volumes":[
		{"name":"none"},
		{"name":"empty","emptyDir":{}},
		{"name":"cm","configMap":{"name":"cfg"}},
		{"name":"secret","secret":{"secretName":"s","defaultMode":256}},
		{"name":"down","downwardAPI":{"items":[{"path":"labels","fieldRef":{"fieldPath":"metadata.labels"}}]}},
		{"name":"proj","projected":{"sources":[{"serviceAccountToken":{"path":"token"}},{"downwardAPI":{"items":[{"path":"ns","fieldRef":{"fieldPath":"metadata.namespace"}}]}},{"configMap":{"name":"cfg"}}]}},
		{"name":"host","hostPath":{"path":"/var/log"}},
		{"name":"iscsi","iscsi":{"targetPortal":"10.0.0.1:3260","iqn":"iqn.2001-04.com.example:storage","lun":0}},
		{"name":"rbd","rbd":{"monitors":["10.0.0.2:6789"],"image":"img"}},
		{"name":"azure","azureDisk":{"diskName":"d","diskURI":"uri"}},
		{"name":"scaleio","scaleIO":{"gateway":"gw","system":"sys","secretRef":{"name":"s"}}},
		{"name":"image","image":{"reference":"quay.io/org/data:latest"}},
		{"name":"eph","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}}}]}}`},
	{"pod settings kept", `{"metadata":{"labels":{"app":"kept"}},"spec":{"containers":[{"name":"app","image":"app:1","terminationMessagePath":"/tmp/msg","terminationMessagePolicy":"FallbackToLogsOnError"}],
		"restartPolicy":"Always","dnsPolicy":"Default","schedulerName":"custom","terminationGracePeriodSeconds":5,
		"securityContext":{"runAsNonRoot":true},"serviceAccount":"robot"}}`},
	{"ephemeral container", `{"metadata":{"labels":{"app":"debug"}},"spec":{"containers":[{"name":"app","image":"app:1"}],
		"ephemeralContainers":[{"name":"debug","image":"busybox:latest","ports":[{"containerPort":1}]}]}}`},
	// Quantities held in fields rather than in resource lists: encoding
	// caches a string in them, which the stored form must not keep
	// (0.5Gi is stored as 512Mi, a string ParseQuantity does not cache).
	{"quantities in fields", `{"metadata":{"labels":{"app":"fields"}},"spec":{"containers":[{"name":"app","image":"app:1",
		"env":[{"name":"MEM","valueFrom":{"resourceFieldRef":{"resource":"limits.memory","divisor":"1024Ki"}}}],
		"resources":{"limits":{"memory":"1536Mi"}}}],
		"volumes":[{"name":"scratch","emptyDir":{"sizeLimit":"0.5Gi"}}]}}`},
}

// quantitySpellings are the resource quantities of the quantity vectors:
// the docs' nginx template with one request spelled each way. The first
// twelve were checked on a real v1.37.1 control plane (each gets the
// ReplicaSet name of its canonical spelling); sim/controlplane creates all
// of them there and compares the names.
var quantitySpellings = []struct{ resource, value string }{
	{"cpu", "0.5"}, {"cpu", "500m"}, {"cpu", "1.0"}, {"cpu", "1"}, {"cpu", "1000m"}, {"cpu", "0.1"},
	{"cpu", "100m"}, {"cpu", "250u"}, {"memory", "0.5Gi"}, {"memory", "512Mi"}, {"memory", "2048Ki"}, {"memory", "2Mi"},
	{"cpu", "1.0001"}, {"cpu", "0.0001"}, {"cpu", "1e-7"}, {"cpu", "5e-1"}, {"cpu", "1E0"}, {"cpu", ".5"},
	{"memory", "536870912"}, {"memory", "1e9"}, {"memory", "1000M"}, {"memory", "0"}, {"memory", "0.001953125Gi"},
}

// allRawTemplates are rawTemplates and one quantity vector per spelling.
func allRawTemplates() []struct{ name, json string } {
	out := append([]struct{ name, json string }(nil), rawTemplates...)
	for _, q := range quantitySpellings {
		out = append(out, struct{ name, json string }{
			"nginx, " + q.resource + " request " + q.value,
			`{"metadata":{"labels":{"app":"nginx"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.14.2","ports":[{"containerPort":80}],` +
				`"resources":{"requests":{"` + q.resource + `":"` + q.value + `"}}}]}}`,
		})
	}
	return out
}

// buildVectors defaults every raw template and hashes the result.
func buildVectors(t *testing.T) []byte {
	t.Helper()
	f := vectorFile{Comment: vectorsComment}
	for _, rt := range allRawTemplates() {
		var raw corev1.PodTemplateSpec
		if err := json.Unmarshal([]byte(rt.json), &raw); err != nil {
			t.Fatalf("%s: %v", rt.name, err)
		}
		d := defaulting.PodTemplate(&raw)
		// The template as written, spellings kept (a re-encoding would
		// write every quantity in canonical form).
		var rawJSON bytes.Buffer
		if err := json.Compact(&rawJSON, []byte(rt.json)); err != nil {
			t.Fatal(err)
		}
		defJSON, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		f.Vectors = append(f.Vectors, vector{Name: rt.name, Raw: rawJSON.Bytes(), Defaulted: defJSON, Hash: hashing.PodTemplateHash(d, nil)})
	}
	out, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

// TestVectors checks that the vectors file is what the table gives, and
// that PodTemplate turns every raw template in it into its defaulted
// template and hash. (The differential module checks the same file
// against the real v1.37.1 defaulters.)
func TestVectors(t *testing.T) {
	want := buildVectors(t)
	if *update {
		if err := os.MkdirAll(filepath.Dir(vectorsPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(vectorsPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(vectorsPath)
	if err != nil {
		t.Fatalf("%v (run go test ./rollout/defaulting -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale (-want +got):\n%s", vectorsPath, cmp.Diff(string(want), string(got)))
	}
	var f vectorFile
	if err := json.Unmarshal(got, &f); err != nil {
		t.Fatal(err)
	}
	for _, v := range f.Vectors {
		var raw, defaulted corev1.PodTemplateSpec
		if err := json.Unmarshal(v.Raw, &raw); err != nil {
			t.Fatalf("%s: raw: %v", v.Name, err)
		}
		if err := json.Unmarshal(v.Defaulted, &defaulted); err != nil {
			t.Fatalf("%s: defaulted: %v", v.Name, err)
		}
		got := defaulting.PodTemplate(&raw)
		if diff := cmp.Diff(&defaulted, got); diff != "" {
			t.Errorf("%s: PodTemplate (-file +got):\n%s", v.Name, diff)
		}
		if h := hashing.PodTemplateHash(got, nil); h != v.Hash {
			t.Errorf("%s: hash %s, file says %s", v.Name, h, v.Hash)
		}
	}
	if f.Vectors[0].Hash != "54fd4d6d4c" {
		t.Errorf("docs nginx Deployment: hash %s, a v1.37 cluster gives 54fd4d6d4c", f.Vectors[0].Hash)
	}
}
