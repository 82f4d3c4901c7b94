package main

// Every way a Deployment enters the simulator hashes its template as a
// v1.37 cluster does: scenario objects, apply steps, manifest mode, -from
// (cluster state and manifests), -overlay, and the snapshot reader. Each
// reader applies rollout.Default, which brings the template to the form
// the API server stores (see rollout/defaulting).

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/sim"
	"github.com/deploymath/deploymath/sim/snapshot"
)

// hashVector is a Deployment built from one of
// testdata/defaulting/vectors.json's raw templates (spelled as written),
// and the name a v1.37 cluster gives its first ReplicaSet.
type hashVector struct {
	name     string // the vector's
	manifest string // a Deployment, JSON (which YAML reads as well)
	rsName   string
}

// hashVectors reads the vectors that make a valid Deployment (a template
// with labels and a named container): the docs' nginx and one per
// spelling of a quantity, among others. dir is the way to the repository.
func hashVectors(t *testing.T, dir string) []hashVector {
	t.Helper()
	data, err := os.ReadFile(dir + "/testdata/defaulting/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Vectors []struct {
			Name string          `json:"name"`
			Raw  json.RawMessage `json:"raw"`
			Hash string          `json:"hash"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	var out []hashVector
	for i, v := range f.Vectors {
		var tmpl struct {
			Metadata struct {
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
			Spec struct {
				Containers []struct {
					Name string `json:"name"`
				} `json:"containers"`
				EphemeralContainers []json.RawMessage `json:"ephemeralContainers"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(v.Raw, &tmpl); err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if len(tmpl.Metadata.Labels) == 0 || len(tmpl.Spec.Containers) == 0 || len(tmpl.Spec.EphemeralContainers) > 0 {
			continue // not a Deployment an API server accepts
		}
		sel, _ := json.Marshal(tmpl.Metadata.Labels)
		name := fmt.Sprintf("v%d", i)
		out = append(out, hashVector{
			name:     v.Name,
			manifest: fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":%q},"spec":{"replicas":1,"selector":{"matchLabels":%s},"template":%s}}`, name, sel, v.Raw),
			rsName:   name + "-" + v.Hash,
		})
	}
	if len(out) < 20 {
		t.Fatalf("%d vectors make a Deployment; the quantity vectors are missing", len(out))
	}
	return out
}

// createdReplicaSets runs sc and returns the names of the ReplicaSets the
// Deployment controller created.
func createdReplicaSets(t *testing.T, sc *sim.Scenario) []string {
	t.Helper()
	res, err := sim.Run(sc, sim.Options{Writes: true, NoTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, w := range res.Writes {
		if w.Kind == "ReplicaSet" && w.Verb == "create" {
			out = append(out, w.Name)
		}
	}
	return out
}

// TestVectorsHashAsClusterInScenarios: a raw template from the vectors
// file, in a scenario's objects and in an apply step, gets the ReplicaSet
// name a v1.37 cluster gives it, whatever the spelling of its quantities
// ("cpu: 0.5" and "cpu: 500m" both get the name of 500m).
func TestVectorsHashAsClusterInScenarios(t *testing.T) {
	for _, v := range hashVectors(t, "../../..") {
		for _, path := range []struct{ name, yaml string }{
			{"objects", "name: q\nuntil: 30s\nobjects:\n- " + v.manifest + "\n"},
			{"apply step", "name: q\nuntil: 30s\nsteps:\n- at: 1s\n  apply: " + v.manifest + "\n"},
		} {
			sc, err := sim.ParseScenario([]byte(path.yaml))
			if err != nil {
				t.Fatalf("%s, %s: %v", v.name, path.name, err)
			}
			got := createdReplicaSets(t, sc)
			if len(got) != 1 || got[0] != v.rsName {
				t.Errorf("%s, %s: ReplicaSets created %s, a cluster creates %s", v.name, path.name, strings.Join(got, ", "), v.rsName)
			}
		}
	}
}

// TestVectorsHashAsClusterFromFiles: the same through the command's
// readers: a manifest file (manifest mode), applied -from a cluster's
// state and -from manifests, in an -overlay's apply step, and the
// snapshot reader's Deployment itself.
func TestVectorsHashAsClusterFromFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	state := "../../../testdata/clusters/rolling.yaml"
	for i, v := range hashVectors(t, "../../..") {
		manifest := write(fmt.Sprintf("m%d.yaml", i), v.manifest)
		// A first version of the same Deployment: another image.
		first := write(fmt.Sprintf("first%d.yaml", i), strings.Replace(v.manifest, `"image":"nginx:1.14.2"`, `"image":"nginx:1.13"`, 1))
		other := write(fmt.Sprintf("other%d.yaml", i), `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"other"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"other"}},"template":{"metadata":{"labels":{"app":"other"}},"spec":{"containers":[{"name":"c","image":"c:1"}]}}}}`)
		overlay := write(fmt.Sprintf("overlay%d.yaml", i), "name: q\nuntil: 30s\nsteps:\n- at: 1s\n  apply: "+v.manifest+"\n")
		for _, path := range []struct{ name, file, from, overlay string }{
			{"manifest mode", manifest, "", ""},
			{"-from cluster state", manifest, state, ""},
			{"-from manifests", manifest, first, ""},
			{"-overlay", other, "", overlay},
		} {
			sc, err := loadScenario(path.file, path.from, path.overlay, time.Time{})
			if err != nil {
				t.Fatalf("%s, %s: %v", v.name, path.name, err)
			}
			sc.Until = sim.Duration(2 * time.Minute)
			got := createdReplicaSets(t, sc)
			if !containsName(got, v.rsName) {
				t.Errorf("%s, %s: ReplicaSets created %s, none is %s (a cluster's name)", v.name, path.name, strings.Join(got, ", "), v.rsName)
			}
		}
		snap, err := snapshot.ReadFile(manifest, snapshot.Options{})
		if err != nil {
			t.Fatal(err)
		}
		d := snap.Deployments[0]
		if got := d.Name + "-" + hashing.PodTemplateHash(&d.Spec.Template, nil); got != v.rsName {
			t.Errorf("%s, snapshot reader: the Deployment hashes to %s, a cluster's ReplicaSet is %s", v.name, got, v.rsName)
		}
	}
}

func containsName(names []string, want string) bool {
	for _, n := range names {
		if n == want || strings.HasSuffix(n, "/"+want) {
			return true
		}
	}
	return false
}
