package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	sjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Duration is a time.Duration written in YAML as a Go duration string
// ("30s", "1m30s", "250ms").
type Duration time.Duration

// UnmarshalJSON implements json.Unmarshaler.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n float64
		if err2 := json.Unmarshal(b, &n); err2 == nil && n == 0 {
			*d = 0
			return nil
		}
		return fmt.Errorf("invalid duration %s: want a string such as \"30s\"", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("invalid duration %q: %w", s, err)
	}
	if v < 0 {
		return fmt.Errorf("invalid duration %q: must not be negative", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON implements json.Marshaler.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// Scenario is a simulation: a cluster, the objects at time 0 and the steps a
// user takes. Load one with [LoadScenario] or [ParseScenario].
type Scenario struct {
	// Name identifies the scenario (defaults to the file name).
	Name string `json:"name"`
	// Description says what the scenario shows.
	Description string `json:"description,omitempty"`
	// Seed seeds the run's random generator.
	Seed uint64 `json:"seed"`
	// Until is the time limit (default 30m).
	Until Duration `json:"until,omitempty"`
	// Cluster describes nodes, delays and failures.
	Cluster Cluster `json:"cluster"`
	// Objects are Kubernetes manifests created at time 0: Deployments,
	// ConfigMaps and Secrets.
	Objects []json.RawMessage `json:"objects,omitempty"`
	// Steps are the user's actions, in time order.
	Steps []Step `json:"steps,omitempty"`

	deployments []*appsv1.Deployment
	configMaps  []*corev1.ConfigMap
	secrets     []*corev1.Secret
}

// Cluster describes the simulated cluster.
type Cluster struct {
	// Nodes are the nodes and their pod capacity (default: one node with
	// unlimited capacity).
	Nodes []NodeSpec `json:"nodes,omitempty"`
	// Startup is the time from scheduling to running containers
	// (default 1s–3s).
	Startup Range `json:"startup"`
	// Readiness is the time from running to ready (default 0s–2s).
	Readiness Range `json:"readiness"`
	// Termination is how long a deleted pod takes to exit (default 1s).
	Termination Range `json:"termination"`
	// EvictionTimeout is how long pods of a failed node stay before they are
	// evicted (default 5m, the default tolerationSeconds of the
	// not-ready/unreachable taints).
	EvictionTimeout Duration `json:"evictionTimeout,omitempty"`
	// ControllerLatency delays every informer-triggered sync (default 0).
	ControllerLatency Duration `json:"controllerLatency,omitempty"`
	// PodQuota limits the number of pods (a ResourceQuota on pods; 0: none).
	// Creations beyond it fail and the ReplicaSet reports ReplicaFailure.
	PodQuota int `json:"podQuota,omitempty"`
	// Failures make pods misbehave, matched by image or labels.
	Failures []FailureRule `json:"failures,omitempty"`
	// Restart runs the restart controller (restart on config change).
	Restart *RestartSpec `json:"restart,omitempty"`
}

// NodeSpec is a node of the cluster.
type NodeSpec struct {
	Name     string `json:"name"`
	Capacity int    `json:"capacity"`
}

// Range is a uniform distribution of durations (whole milliseconds).
type Range struct {
	Min Duration `json:"min"`
	Max Duration `json:"max"`
}

// FailureRule makes matching pods fail.
type FailureRule struct {
	// Image matches pods with a container running exactly this image.
	Image string `json:"image,omitempty"`
	// Labels matches pods whose template has all these labels.
	Labels map[string]string `json:"labels,omitempty"`
	// Mode is crashloop, never-ready or image-pull-error.
	Mode string `json:"mode"`
	// Probability is the chance a matching pod fails (default 1).
	Probability *float64 `json:"probability,omitempty"`

	mode failureMode
}

func (r *FailureRule) matches(t *corev1.PodTemplateSpec) bool {
	if len(r.Labels) > 0 && !labels.SelectorFromSet(r.Labels).Matches(labels.Set(t.Labels)) {
		return false
	}
	if r.Image == "" {
		return true
	}
	for _, c := range t.Spec.Containers {
		if c.Image == r.Image {
			return true
		}
	}
	return false
}

// Step is one user action at a time offset. Exactly one action is set.
type Step struct {
	// At is the offset from the start.
	At Duration `json:"at"`
	// Deployment names the Deployment the step acts on; optional when the
	// scenario has one.
	Deployment string `json:"deployment,omitempty"`

	// Apply creates or replaces an object, like kubectl apply: a
	// Deployment (labels and spec replaced, annotations merged), a ConfigMap
	// or a Secret (labels, annotations and data replaced).
	Apply json.RawMessage `json:"apply,omitempty"`
	// Annotate is kubectl annotate --overwrite on the Deployment; a null
	// value removes the annotation (kubectl annotate KEY-).
	Annotate map[string]*string `json:"annotate,omitempty"`
	// SetImage is kubectl set image.
	SetImage *SetImage `json:"setImage,omitempty"`
	// Scale is kubectl scale --replicas.
	Scale *int32 `json:"scale,omitempty"`
	// Pause and Resume are kubectl rollout pause / resume.
	Pause  bool `json:"pause,omitempty"`
	Resume bool `json:"resume,omitempty"`
	// Undo is kubectl rollout undo [--to-revision].
	Undo *Undo `json:"undo,omitempty"`
	// EditConfigMap and EditSecret replace the data of a ConfigMap/Secret.
	EditConfigMap *EditConfig `json:"editConfigMap,omitempty"`
	EditSecret    *EditConfig `json:"editSecret,omitempty"`
	// DeleteConfigMap and DeleteSecret delete a ConfigMap/Secret by name
	// (like EditConfigMap, the first of that name in namespace order).
	DeleteConfigMap string `json:"deleteConfigMap,omitempty"`
	DeleteSecret    string `json:"deleteSecret,omitempty"`
	// KillPods deletes pods (kubectl delete pod).
	KillPods *KillPods `json:"killPods,omitempty"`
	// FailNode and RecoverNode take a node down and back.
	FailNode    string `json:"failNode,omitempty"`
	RecoverNode string `json:"recoverNode,omitempty"`
	// StopWhenConverged ends the run once every Deployment is complete
	// after the last step.
	StopWhenConverged bool `json:"stopWhenConverged,omitempty"`

	apply any // *appsv1.Deployment, *corev1.ConfigMap or *corev1.Secret
}

// SetImage changes a container's image.
type SetImage struct {
	Container string `json:"container"`
	Image     string `json:"image"`
}

// Undo rolls back to a revision (0: the previous one).
type Undo struct {
	ToRevision int64 `json:"toRevision,omitempty"`
}

// EditConfig replaces the data of a ConfigMap or Secret.
type EditConfig struct {
	Name string            `json:"name"`
	Data map[string]string `json:"data"`
}

// KillPods deletes Count pods, of one ReplicaSet: "new" (the newest),
// "old" (any other) or a name; all pods when empty.
type KillPods struct {
	Count int    `json:"count"`
	RS    string `json:"rs,omitempty"`
}

// LoadScenario reads and validates a scenario file.
func LoadScenario(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sc, err := ParseScenario(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if sc.Name == "" {
		base := path[strings.LastIndex(path, "/")+1:]
		sc.Name = strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".yml")
	}
	return sc, nil
}

var fieldRE = regexp.MustCompile(`(?:unknown field|field) "([^"]+)"`)

// ParseScenario decodes and validates a scenario. Unknown fields are
// errors; errors name the field path and, where it can be found, the line.
func ParseScenario(data []byte) (*Scenario, error) {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, err // the YAML parser's message carries the line
	}
	sc := &Scenario{}
	strict, err := sjson.UnmarshalStrict(js, sc)
	if err != nil {
		return nil, withLine(data, err)
	}
	if len(strict) > 0 {
		return nil, withLine(data, strict[0])
	}
	if err := sc.validate(data); err != nil {
		return nil, err
	}
	return sc, nil
}

// withLine prefixes err with the line of the field path it names.
func withLine(src []byte, err error) error {
	m := fieldRE.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	if line := lineOf(src, m[1]); line > 0 {
		return fmt.Errorf("line %d: %w", line, err)
	}
	return err
}

var pathSegRE = regexp.MustCompile(`([^.\[\]]+)|\[(\d+)\]`)

// lineOf finds the line of a field path ("steps[2].setImage.image") in
// block-style YAML by following indentation. It returns 0 when not found.
func lineOf(src []byte, path string) int {
	lines := strings.Split(string(src), "\n")
	start, indent := 0, -1 // search lines[start:] for children deeper than indent
	found := 0
	for _, m := range pathSegRE.FindAllStringSubmatch(path, -1) {
		if m[2] != "" { // list index
			want, _ := strconv.Atoi(m[2])
			n, childIndent := -1, -1
			ok := false
			for i := start; i < len(lines); i++ {
				t := strings.TrimLeft(lines[i], " ")
				ind := len(lines[i]) - len(t)
				if t == "" || strings.HasPrefix(t, "#") {
					continue
				}
				item := strings.HasPrefix(t, "- ") || t == "-"
				if i > start && (ind < indent || (ind == indent && !item)) {
					break
				}
				if item {
					if childIndent < 0 {
						childIndent = ind
					}
					if ind == childIndent {
						n++
						if n == want {
							start, indent, found, ok = i, ind, i+1, true
							// the item's own keys sit after "- "
							// ("-" alone on its line has none)
							lines[i] = strings.Repeat(" ", ind) + "  " + strings.TrimPrefix(strings.TrimPrefix(t, "-"), " ")
							indent = ind
							break
						}
					}
				}
			}
			if !ok {
				return found
			}
			continue
		}
		key := m[1]
		ok := false
		for i := start; i < len(lines); i++ {
			t := strings.TrimLeft(lines[i], " ")
			ind := len(lines[i]) - len(t)
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			if ind <= indent && i > start {
				break
			}
			if ind > indent && (strings.HasPrefix(t, key+":") || strings.HasPrefix(t, `"`+key+`":`)) {
				start, indent, found, ok = i, ind, i+1, true
				break
			}
		}
		if !ok {
			return found
		}
	}
	return found
}

type kindOnly struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// decodeObject strictly decodes one manifest; path names it in errors.
func decodeObject(src []byte, raw json.RawMessage, path string) (any, error) {
	var k kindOnly
	if err := json.Unmarshal(raw, &k); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var obj any
	switch {
	case k.Kind == "Deployment" && k.APIVersion == "apps/v1":
		obj = &appsv1.Deployment{}
	case k.Kind == "ConfigMap" && k.APIVersion == "v1":
		obj = &corev1.ConfigMap{}
	case k.Kind == "Secret" && k.APIVersion == "v1":
		obj = &corev1.Secret{}
	default:
		return nil, withLine(src, fmt.Errorf("field %q: unsupported object apiVersion %q kind %q (want apps/v1 Deployment, v1 ConfigMap or v1 Secret)", path+".kind", k.APIVersion, k.Kind))
	}
	strict, err := sjson.UnmarshalStrict(raw, obj)
	if err == nil && len(strict) > 0 {
		err = strict[0]
	}
	if err != nil {
		msg := err.Error()
		if m := fieldRE.FindStringSubmatch(msg); m != nil {
			full := path + "." + m[1]
			msg = strings.Replace(msg, `"`+m[1]+`"`, `"`+full+`"`, 1)
			return nil, withLine(src, errors.New(msg))
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	switch o := obj.(type) {
	case *appsv1.Deployment:
		if o.Namespace == "" {
			o.Namespace = metav1.NamespaceDefault
		}
	case *corev1.ConfigMap:
		if o.Namespace == "" {
			o.Namespace = metav1.NamespaceDefault
		}
	case *corev1.Secret:
		if o.Namespace == "" {
			o.Namespace = metav1.NamespaceDefault
		}
	}
	return obj, nil
}

func (sc *Scenario) validate(src []byte) error {
	c := &sc.Cluster
	if c.Startup == (Range{}) {
		c.Startup = Range{Duration(time.Second), Duration(3 * time.Second)}
	}
	if c.Readiness == (Range{}) {
		c.Readiness = Range{0, Duration(2 * time.Second)}
	}
	if c.Termination == (Range{}) {
		c.Termination = Range{Duration(time.Second), Duration(time.Second)}
	}
	if c.EvictionTimeout == 0 {
		c.EvictionTimeout = Duration(5 * time.Minute)
	}
	for _, r := range []struct {
		name string
		r    Range
	}{{"cluster.startup", c.Startup}, {"cluster.readiness", c.Readiness}, {"cluster.termination", c.Termination}} {
		if r.r.Max < r.r.Min {
			return withLine(src, fmt.Errorf("field %q: max %s is below min %s", r.name+".max", time.Duration(r.r.Max), time.Duration(r.r.Min)))
		}
	}
	names := map[string]bool{}
	for i, n := range c.Nodes {
		p := fmt.Sprintf("cluster.nodes[%d]", i)
		if n.Name == "" {
			return withLine(src, fmt.Errorf("field %q: required", p+".name"))
		}
		if names[n.Name] {
			return withLine(src, fmt.Errorf("field %q: duplicate node %q", p+".name", n.Name))
		}
		names[n.Name] = true
		if n.Capacity <= 0 {
			return withLine(src, fmt.Errorf("field %q: must be positive", p+".capacity"))
		}
	}
	if c.PodQuota < 0 {
		return withLine(src, fmt.Errorf("field %q: must not be negative", "cluster.podQuota"))
	}
	for i := range c.Failures {
		r := &c.Failures[i]
		p := fmt.Sprintf("cluster.failures[%d]", i)
		switch r.Mode {
		case "crashloop":
			r.mode = modeCrashLoop
		case "never-ready":
			r.mode = modeNeverReady
		case "image-pull-error":
			r.mode = modePullError
		default:
			return withLine(src, fmt.Errorf("field %q: unknown mode %q (want crashloop, never-ready or image-pull-error)", p+".mode", r.Mode))
		}
		if r.Image == "" && len(r.Labels) == 0 {
			return withLine(src, fmt.Errorf("field %q: a rule needs an image or labels", p+".image"))
		}
		if r.Probability != nil && (*r.Probability < 0 || *r.Probability > 1) {
			return withLine(src, fmt.Errorf("field %q: must be between 0 and 1", p+".probability"))
		}
	}
	if c.Restart != nil {
		if _, err := c.Restart.options("cluster.restart"); err != nil {
			return withLine(src, err)
		}
	}
	sc.deployments, sc.configMaps, sc.secrets = nil, nil, nil
	for i, raw := range sc.Objects {
		obj, err := decodeObject(src, raw, fmt.Sprintf("objects[%d]", i))
		if err != nil {
			return err
		}
		switch o := obj.(type) {
		case *appsv1.Deployment:
			sc.deployments = append(sc.deployments, o)
		case *corev1.ConfigMap:
			sc.configMaps = append(sc.configMaps, o)
		case *corev1.Secret:
			sc.secrets = append(sc.secrets, o)
		}
	}
	var last Duration
	for i := range sc.Steps {
		st := &sc.Steps[i]
		p := fmt.Sprintf("steps[%d]", i)
		if st.At < last {
			return withLine(src, fmt.Errorf("field %q: steps must be in time order (%s is before %s)", p+".at", time.Duration(st.At), time.Duration(last)))
		}
		last = st.At
		n := 0
		for _, set := range []bool{len(st.Apply) > 0, st.SetImage != nil, st.Scale != nil, st.Pause, st.Resume, st.Undo != nil,
			st.EditConfigMap != nil, st.EditSecret != nil, st.KillPods != nil, st.FailNode != "", st.RecoverNode != "", st.StopWhenConverged,
			len(st.Annotate) > 0, st.DeleteConfigMap != "", st.DeleteSecret != ""} {
			if set {
				n++
			}
		}
		if n != 1 {
			return withLine(src, fmt.Errorf("field %q: a step needs exactly one action, found %d", p, n))
		}
		if len(st.Apply) > 0 {
			obj, err := decodeObject(src, st.Apply, p+".apply")
			if err != nil {
				return err
			}
			st.apply = obj
		}
		if st.Scale != nil && *st.Scale < 0 {
			return withLine(src, fmt.Errorf("field %q: must not be negative", p+".scale"))
		}
		if st.KillPods != nil && st.KillPods.Count <= 0 {
			return withLine(src, fmt.Errorf("field %q: must be positive", p+".killPods.count"))
		}
		if st.SetImage != nil && (st.SetImage.Container == "" || st.SetImage.Image == "") {
			return withLine(src, fmt.Errorf("field %q: container and image are required", p+".setImage"))
		}
		for _, n := range []struct{ f, v string }{{"failNode", st.FailNode}, {"recoverNode", st.RecoverNode}} {
			if n.v != "" && !names[n.v] {
				return withLine(src, fmt.Errorf("field %q: unknown node %q", p+"."+n.f, n.v))
			}
		}
	}
	return nil
}

// Marshal renders the scenario as YAML (used to print rapid's shrunk cases).
func (sc *Scenario) Marshal() ([]byte, error) {
	js, err := json.Marshal(sc)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	out, err := yaml.JSONToYAML(js)
	if err != nil {
		return nil, err
	}
	buf.Write(out)
	return buf.Bytes(), nil
}
