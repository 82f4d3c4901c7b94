package snapshot

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
)

// TestConvertDefaults: a Deployment of each old version that sets
// nothing but its template gets that version's defaults, then apps/v1's
// for the rest, as the API server defaults and converts it.
func TestConvertDefaults(t *testing.T) {
	const manifest = `kind: Deployment
metadata: {name: web}
spec:
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: web:1}]}
`
	type want struct {
		surge, unavailable string
		rhl, pds           int32
		selector           bool // defaulted from the template
	}
	for version, w := range map[string]want{
		"extensions/v1beta1": {"1", "1", math.MaxInt32, math.MaxInt32, true},
		"apps/v1beta1":       {"25%", "25%", 2, 600, true},
		"apps/v1":            {"25%", "25%", 10, 600, false},
	} {
		t.Run(version, func(t *testing.T) {
			s, err := Parse([]byte("apiVersion: "+version+"\n"+manifest), "old.yaml", Options{})
			if version == "apps/v1" {
				// apps/v1 (and apps/v1beta2) require a selector.
				if err == nil || !strings.Contains(err.Error(), "spec.selector: required value") {
					t.Fatalf("error %v, want spec.selector: required value", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d := s.Deployments[0]
			st := d.Spec.Strategy
			got := want{st.RollingUpdate.MaxSurge.String(), st.RollingUpdate.MaxUnavailable.String(),
				*d.Spec.RevisionHistoryLimit, *d.Spec.ProgressDeadlineSeconds, d.Spec.Selector != nil && d.Spec.Selector.MatchLabels["app"] == "web"}
			if diff := cmp.Diff(w, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			if *d.Spec.Replicas != 1 || d.Labels["app"] != "web" || st.Type != appsv1.RollingUpdateDeploymentStrategyType {
				t.Errorf("replicas %d labels %v strategy %s", *d.Spec.Replicas, d.Labels, st.Type)
			}
			if len(s.Notes) != 1 || !strings.HasPrefix(s.Notes[0], "old.yaml: line 1: Deployment default/web: converted from "+version) {
				t.Errorf("notes %q", s.Notes)
			}
		})
	}
}

// TestConvertApps1beta2: apps/v1beta2 has apps/v1's defaults and no
// selector defaulting; a set field is kept; a field the version does not
// have is an error naming the version.
func TestConvertAppsV1beta2(t *testing.T) {
	in := `apiVersion: apps/v1beta2
kind: Deployment
metadata: {name: web}
spec:
  revisionHistoryLimit: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: web:1}]}
`
	s, err := Parse([]byte(in), "old.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := s.Deployments[0]
	if *d.Spec.RevisionHistoryLimit != 3 || *d.Spec.ProgressDeadlineSeconds != 600 || d.Spec.Strategy.RollingUpdate.MaxSurge.String() != "25%" {
		t.Errorf("spec %+v", d.Spec)
	}
	_, err = Parse([]byte(strings.Replace(in, "  revisionHistoryLimit: 3\n", "  rollbackTo: {revision: 1}\n", 1)), "old.yaml", Options{})
	if want := `old.yaml: line 5: Deployment default/web: unknown field "spec.rollbackTo" (not a field of apps/v1beta2 Deployment`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v\nwant %s", err, want)
	}
}

// TestReadyNormalised: a status with fewer ready than available replicas
// (written before Kubernetes reported ready replicas) is read with ready
// raised to available, and a note says so; any other status the API
// server refuses is an error naming the field.
func TestReadyNormalised(t *testing.T) {
	rs := `apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-1}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web}]}
status:
  replicas: 2
  availableReplicas: 2
`
	s, err := Parse([]byte(rs), "rs.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.ReplicaSets[0].Status.ReadyReplicas; got != 2 || len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "rs.yaml: line 1: ReplicaSet default/web-1: status.readyReplicas 0 is below status.availableReplicas 2") {
		t.Errorf("ready %d, notes %q", got, s.Notes)
	}
	_, err = Parse([]byte(strings.Replace(rs, "  availableReplicas: 2\n", "  availableReplicas: 3\n  readyReplicas: 3\n", 1)), "rs.yaml", Options{})
	if want := "rs.yaml: line 13: ReplicaSet default/web-1: status.readyReplicas: Invalid value: 3: cannot be greater than status.replicas; status.availableReplicas: Invalid value: 3: cannot be greater than status.replicas (the API server refuses such an object)"; err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}
