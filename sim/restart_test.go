package sim

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/restart"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const restartScenario = `name: restart-xing
seed: 1
cluster:
  restart: {enabled: true, preset: xing, gracePeriod: 2s, checkInterval: 1s}
objects:
- apiVersion: v1
  kind: Secret
  metadata: {name: creds}
  stringData: {password: one}
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    annotations: {com.xing.deployment-restart: enabled}
  spec:
    replicas: 2
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers:
        - name: web
          image: web:v1
          env:
          - name: PASSWORD
            valueFrom: {secretKeyRef: {name: creds, key: password}}
steps:
- {at: 30s, editSecret: {name: creds, data: {password: two}}}
- {at: 1m, deleteSecret: creds}
- {at: 1m, stopWhenConverged: true}
`

// TestRestartPresetXing: the xing preset uses the original controller's
// keys; a grace period of 2s on a 1s ticker releases an edit at 30s at 32s.
func TestRestartPresetXing(t *testing.T) {
	sc, err := ParseScenario([]byte(restartScenario))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(sc, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	text := res.Text()
	if !strings.Contains(text, "t=32s\n  restart controller: restarted deployment/web: secret/default/creds checksum ") {
		t.Errorf("no restart at 32s:\n%s", text)
	}
	if !strings.Contains(text, "\n  restarts: web 1\n") {
		t.Errorf("the summary does not count one restart of web:\n%s", text)
	}
	var restarts []Restart
	for _, f := range res.Trace.Frames {
		restarts = append(restarts, f.Restarts...)
	}
	if len(restarts) != 2 || restarts[0].Action != RestartRecorded || restarts[1].Action != RestartRolled ||
		len(restarts[1].Triggers) != 1 || restarts[1].Triggers[0].Config != "secret/default/creds" {
		t.Errorf("restarts in the trace: %+v; want checksums recorded, then a restart for secret/default/creds", restarts)
	}
	b, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"action": "restart"`, `"action": "record-checksums"`, `"restarts": [`, `"workload": "web",`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
	if len(res.Violations) > 0 {
		t.Errorf("violations: %v", res.Violations)
	}
	d := s.st.Deployments["default/web"]
	if d.Spec.Template.Annotations[restart.XingKeys().RestartedAtAnnotation] != "2025-01-01T00:00:32Z" {
		t.Errorf("template annotations %v", d.Spec.Template.Annotations)
	}
	if _, ok := d.Annotations["com.xing.deployment-restart.applied-config-checksums"]; !ok {
		t.Errorf("annotations %v", d.Annotations)
	}
	if c := s.restart.eng.Counters(); c.Restarts != 1 || c.AnnotationUpdates != 2 || c.ChangesWaiting != 0 {
		t.Errorf("counters %+v", c)
	}
}

func TestRestartSpecErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"{enabled: true, preset: reloader}", `line 4: field "cluster.restart.preset": unknown preset "reloader"`},
		{"{enabled: true, checkInterval: 0s}", `field "cluster.restart.checkInterval": must be positive`},
		{"{enabled: true, gracePeriod: -1s}", `must not be negative`},
	} {
		_, err := ParseScenario([]byte("name: x\nseed: 1\ncluster:\n  restart: " + tc.spec + "\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.spec, err, tc.want)
		}
	}
}

// TestRestartScopeCatch: the checker flags a restart for a config the
// workload does not reference.
func TestRestartScopeCatch(t *testing.T) {
	sc, err := ParseScenario([]byte("name: x\nseed: 1\ncluster:\n  restart: {enabled: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(sc, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default",
		Annotations: map[string]string{restart.DefaultEnabledAnnotation: "true"}},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}}}
	s.checks.restartDecision(d, restart.Decision{Kind: restart.KindDeployment, Namespace: "default", Name: "web", Restart: true,
		Triggers: []restart.Trigger{{Config: "configmap/default/other", Recorded: "a", Current: "b"}}})
	s.checks.restartDecision(d, restart.Decision{Kind: restart.KindDeployment, Namespace: "default", Name: "web",
		Patch: restart.Patch{TemplateAnnotations: map[string]string{"x": "y"}}})
	if len(s.checks.violations) != 2 || s.checks.violations[0].Invariant != InvRestart || !strings.Contains(s.checks.violations[0].Detail, "does not reference") {
		t.Fatalf("violations %v", s.checks.violations)
	}
}

// TestRestartTicksOnlyWhileWaiting: without changes waiting, no tick is
// queued: a 30-minute run without steps processes a few dozen events, not
// one per CheckInterval.
func TestRestartTicksOnlyWhileWaiting(t *testing.T) {
	sc, err := ParseScenario([]byte(strings.Split(restartScenario, "steps:")[0]))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(sc, Options{NoTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Events > 100 {
		t.Errorf("%d events in %s: the restart controller keeps ticking", res.Stats.Events, res.Summary.End)
	}
}

// TestDescribeRestartDecoded: a restart decoded from the JSON trace renders
// as the run rendered it.
func TestDescribeRestartDecoded(t *testing.T) {
	sc, err := ParseScenario([]byte(restartScenario))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range res.Trace.Frames {
		for i := range f.Restarts {
			b, err := json.Marshal(f.Restarts[i])
			if err != nil {
				t.Fatal(err)
			}
			var r Restart
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			if got, want := DescribeRestart(&r), DescribeRestart(&f.Restarts[i]); got != want {
				t.Errorf("decoded restart renders as\n%s\nwant\n%s", got, want)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no restart in the trace")
	}
}
