package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

const builtYAML = `
name: built
seed: 7
cluster:
  startup: {min: 2s, max: 2s}
  readiness: {min: 1s, max: 1s}
objects:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: app-config}
  data: {mode: blue}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: 3
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: web, image: web:1}]
steps:
- at: 1m
  setImage: {container: web, image: web:2}
- at: 2m
  apply:
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: app-config}
    data: {mode: green}
- at: 2m
  stopWhenConverged: true
`

func builtDeployment() *appsv1.Deployment {
	replicas := int32(3)
	labels := map[string]string{"app": "web"}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web:1"}}},
			},
		},
	}
}

// TestNewScenario: a scenario built in Go runs as the same scenario parsed
// from YAML, prints as YAML that parses back to it, and is not modified by
// a run.
func TestNewScenario(t *testing.T) {
	parsed, err := ParseScenario([]byte(builtYAML))
	if err != nil {
		t.Fatal(err)
	}
	cm := func(mode string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app-config"}, Data: map[string]string{"mode": mode}}
	}
	built := NewScenario("built").WithSeed(7).
		WithCluster(Cluster{
			Startup:   Range{Duration(2 * time.Second), Duration(2 * time.Second)},
			Readiness: Range{Duration(time.Second), Duration(time.Second)},
		}).
		WithConfigMap(cm("blue")).
		WithDeployment(builtDeployment()).
		WithSteps(Step{At: Duration(time.Minute), SetImage: &SetImage{Container: "web", Image: "web:2"}}).
		WithApply(2*time.Minute, cm("green")).
		WithSteps(Step{At: Duration(2 * time.Minute), StopWhenConverged: true})
	before, err := built.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want, err := Run(parsed, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Run(built, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Text(), got.Text()); diff != "" {
		t.Errorf("built in Go vs parsed (-want +got):\n%s", diff)
	}
	if !got.Summary.Completed || len(got.Trace.Frames) < 5 {
		t.Errorf("summary %+v, %d frames: want a completed rollout", got.Summary, len(got.Trace.Frames))
	}
	after, err := built.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) || built.validated || built.Cluster.EvictionTimeout != 0 {
		t.Errorf("Run modified the scenario")
	}
	again, err := ParseScenario(after)
	if err != nil {
		t.Fatalf("%v\n%s", err, after)
	}
	res, err := Run(again, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Text(), res.Text()); diff != "" {
		t.Errorf("printed and parsed back (-want +got):\n%s", diff)
	}
}

// TestNewScenarioRefusals: a scenario built in Go that cannot run is
// refused with an error naming what is missing or wrong, as a file would be.
func TestNewScenarioRefusals(t *testing.T) {
	negative := builtDeployment()
	*negative.Spec.Replicas = -1
	var nilDeployment *appsv1.Deployment
	for _, c := range []struct {
		name string
		sc   *Scenario
		want string
	}{
		{"struct without objects", &Scenario{Name: "empty", Steps: []Step{{At: Duration(time.Minute), Scale: new(int32)}}}, `scenario "empty" has no objects: add a Deployment with WithDeployment`},
		{"invalid deployment", NewScenario("neg").WithDeployment(negative), `"objects[0].spec.replicas"`},
		{"nil deployment", NewScenario("nil").WithDeployment(nilDeployment), "*v1.Deployment: must not be nil"},
		{"unsupported apply", NewScenario("pod").WithDeployment(builtDeployment()).WithApply(time.Second, &corev1.Pod{}), `"steps[0].apply.kind": unsupported object apiVersion "v1" kind "Pod"`},
		{"two actions", NewScenario("two").WithDeployment(builtDeployment()).WithSteps(Step{Pause: true, Resume: true}), `field "steps[0]": a step needs exactly one action, found 2`},
		{"steps out of order", NewScenario("order").WithDeployment(builtDeployment()).WithSteps(Step{At: Duration(time.Minute), Pause: true}, Step{Resume: true}), `"steps[1].at": steps must be in time order`},
	} {
		_, err := Run(c.sc, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

// TestPropertyNewScenario: for random Deployments drawn as YAML by
// genScenario, the scenario rebuilt in Go from its typed objects and
// steps gives the same trace.
func TestPropertyNewScenario(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		src := genScenario(t)
		parsed, err := ParseScenario([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		built := NewScenario(parsed.Name).WithSeed(parsed.Seed).WithCluster(parsed.Cluster)
		built.Until = parsed.Until
		for _, d := range parsed.deployments {
			built.WithDeployment(d)
		}
		for _, st := range parsed.Steps {
			st.line, st.imageLine, st.apply = 0, 0, nil
			built.WithSteps(st)
		}
		a, b := textOf(t, parsed), textOf(t, built)
		if a != b {
			t.Fatalf("built in Go, the trace differs: %s\nscenario:\n%s", cmp.Diff(a, b), src)
		}
	})
}

func textOf(t *rapid.T, sc *Scenario) string {
	res, err := Run(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Text()
}
