package sim

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
)

// referenceFile documents the scenario format.
var referenceFile = filepath.Join(scenarioDir, "REFERENCE.md")

// jsonNames returns the JSON (YAML) names of t's exported fields.
func jsonNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		out = append(out, name)
	}
	return out
}

// stepKinds are the fields of Step that are step kinds (all but at and
// deployment).
func stepKinds() []string {
	var out []string
	for _, n := range jsonNames(reflect.TypeFor[Step]()) {
		if n != "at" && n != "deployment" {
			out = append(out, n)
		}
	}
	return out
}

// referenceSections returns the sections of the reference by the name of
// their "### `name`" heading: the text up to the next heading.
func referenceSections(t *testing.T) (string, map[string]string) {
	t.Helper()
	b, err := os.ReadFile(referenceFile)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	sections := map[string]string{}
	heading := regexp.MustCompile("(?m)^#{2,3} ")
	for _, part := range heading.Split(doc, -1)[1:] {
		title, body, _ := strings.Cut(part, "\n")
		if m := regexp.MustCompile("^`([^`]+)`$").FindStringSubmatch(title); m != nil {
			if _, dup := sections[m[1]]; dup {
				t.Errorf("%s: two sections on `%s`", referenceFile, m[1])
			}
			sections[m[1]] = body
		}
	}
	return doc, sections
}

// TestReferenceComplete fails when a field of the scenario format or a
// step kind exists in the Go types but not in REFERENCE.md: every
// top-level field, cluster field and step kind has a section of its own,
// and every field of the nested types is named in backquotes.
func TestReferenceComplete(t *testing.T) {
	doc, sections := referenceSections(t)
	own := map[string][]string{
		"top-level field": jsonNames(reflect.TypeFor[Scenario]()),
		"cluster field":   jsonNames(reflect.TypeFor[Cluster]()),
		"step kind":       stepKinds(),
	}
	for what, names := range own {
		if len(names) < 3 {
			t.Fatalf("%s: found only %v: the reflection is broken", what, names)
		}
		for _, n := range names {
			if _, ok := sections[n]; !ok {
				t.Errorf("%s: %s %q has no section \"### `%s`\"", referenceFile, what, n, n)
			}
		}
	}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[Step](), reflect.TypeFor[NodeSpec](), reflect.TypeFor[Range](),
		reflect.TypeFor[FailureRule](), reflect.TypeFor[RestartSpec](), reflect.TypeFor[SetImage](),
		reflect.TypeFor[Undo](), reflect.TypeFor[EditConfig](), reflect.TypeFor[KillPods](),
		reflect.TypeFor[PodStep](), reflect.TypeFor[When](),
	} {
		for _, n := range jsonNames(typ) {
			if !strings.Contains(doc, "`"+n+"`") && !regexp.MustCompile(`\b`+n+`:`).MatchString(doc) {
				t.Errorf("%s: field %q of %s is not mentioned", referenceFile, n, typ.Name())
			}
		}
	}
}

// referenceBase is the scenario the step examples of the reference are
// run in: a Deployment web, a ConfigMap app-config, a Secret app-secret
// and the nodes node-1 and node-2.
const referenceBase = `name: reference
until: 10m
cluster:
  nodes: [{name: node-1, capacity: 10}, {name: node-2, capacity: 10}]
  restart: {enabled: true}
objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: app-config}, data: {LOG_LEVEL: info}}
- {apiVersion: v1, kind: Secret, metadata: {name: app-secret}, stringData: {password: one}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: 3
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: web, image: "web:1"}]
`

// TestReferenceExamples parses and runs the examples of REFERENCE.md: the
// complete scenario and, in the scenario above, every step kind's
// example, which must use that step kind.
func TestReferenceExamples(t *testing.T) {
	doc, sections := referenceSections(t)
	block := regexp.MustCompile("(?s)```yaml\n(.*?)```")
	first := block.FindStringSubmatch(doc)
	if first == nil {
		t.Fatal("no yaml example")
	}
	sc, err := ParseScenario([]byte(first[1]))
	if err != nil {
		t.Fatalf("the complete example: %v", err)
	}
	if res, err := Run(sc, Options{Check: true}); err != nil || !res.Summary.Completed || len(res.Violations) > 0 {
		t.Errorf("the complete example: err %v, completed %v, violations %v", err, res != nil && res.Summary.Completed, res.Violations)
	}
	for _, kind := range stepKinds() {
		m := block.FindStringSubmatch(sections[kind])
		if m == nil {
			t.Errorf("step kind %s: no yaml example", kind)
			continue
		}
		if !regexp.MustCompile(`(?m)^  ` + kind + `:`).MatchString(m[1]) {
			t.Errorf("step kind %s: the example does not use it:\n%s", kind, m[1])
		}
		sc, err := ParseScenario([]byte(referenceBase + m[1]))
		if err != nil {
			t.Errorf("step kind %s: %v", kind, err)
			continue
		}
		o := Options{}
		if kind == "restartController" {
			o.Controllers = []Controller{idleController("canary")}
		}
		if _, err := Run(sc, o); err != nil {
			t.Errorf("step kind %s: run: %v", kind, err)
		}
	}
}

// idleController is a restartable controller that watches Deployments and
// does nothing.
type idleController string

func (c idleController) Name() string        { return string(c) }
func (idleController) Watches() []Watch      { return []Watch{For(&appsv1.Deployment{})} }
func (c idleController) Restart() Controller { return c }
func (idleController) Reconcile(*Context, Request) (ReconcileResult, error) {
	return ReconcileResult{}, nil
}
