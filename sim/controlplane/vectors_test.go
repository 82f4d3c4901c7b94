package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// TestDefaultingVectorsOnCluster creates a Deployment from each raw
// template of testdata/defaulting/vectors.json that an API server accepts
// (the docs' nginx, one per spelling of a quantity, and the others with
// labels and containers), sent as written (the JSON bytes of the file, so
// that "cpu: 0.5" reaches the server spelled 0.5), and reads the name of
// the ReplicaSet the real v1.37.1 Deployment controller creates for it. The
// name's hash must be the file's, and so must the hash deploymath computes
// from the manifest with rollout.Default, from the Deployment the server
// returns, and from the stored template read back.
func TestDefaultingVectorsOnCluster(t *testing.T) {
	data, err := os.ReadFile("../../testdata/defaulting/vectors.json")
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
	c := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	created := 0
	for i, v := range f.Vectors {
		var tmpl corev1.PodTemplateSpec
		if err := json.Unmarshal(v.Raw, &tmpl); err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if len(tmpl.Labels) == 0 || len(tmpl.Spec.Containers) == 0 || len(tmpl.Spec.EphemeralContainers) > 0 {
			continue // the API server refuses it
		}
		sel, err := json.Marshal(tmpl.Labels)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("v%d", i)
		manifest := fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":%q,"namespace":"default"},`+
			`"spec":{"replicas":1,"selector":{"matchLabels":%s},"template":%s}}`, name, sel, v.Raw)

		// deploymath's hash of the manifest as written.
		var d appsv1.Deployment
		if err := json.Unmarshal([]byte(manifest), &d); err != nil {
			t.Fatal(err)
		}
		ours := hashing.PodTemplateHash(&rollout.Default(&d).Spec.Template, nil)

		_, err = c.client.AppsV1().RESTClient().Post().Namespace("default").Resource("deployments").
			SetHeader("Content-Type", "application/json").Body([]byte(manifest)).DoRaw(ctx)
		if apierrors.IsInvalid(err) && !strings.HasPrefix(v.Name, "nginx") {
			// A vector of the defaulter (volumes of every kind, env
			// sources) that validation refuses: it reaches no controller.
			t.Logf("%-40s refused by validation (%v)", v.Name, err)
			continue
		}
		if err != nil {
			t.Errorf("%s: the API server refuses the manifest: %v", v.Name, err)
			continue
		}
		created++
		var rsName string
		err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			rss, err := c.client.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			for _, rs := range rss.Items {
				if ref := metav1.GetControllerOf(&rs); ref != nil && ref.Name == name {
					rsName = rs.Name
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			t.Fatalf("%s: no ReplicaSet for Deployment %s: %v", v.Name, name, err)
		}
		stored, err := c.client.AppsV1().Deployments("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		readBack := hashing.PodTemplateHash(&stored.Spec.Template, nil)
		want := name + "-" + v.Hash
		if rsName != want || ours != v.Hash || readBack != v.Hash {
			t.Errorf("%s: the cluster's ReplicaSet %s; the file's hash gives %s; rollout.Default of the manifest hashes %s, the stored Deployment read back %s",
				v.Name, rsName, want, ours, readBack)
		} else {
			t.Logf("%-40s %s", v.Name, rsName)
		}
	}
	if created < 20 {
		t.Errorf("only %d vectors made a Deployment: the quantity vectors are missing", created)
	}
	t.Logf("%d vectors created on the cluster", created)
}
