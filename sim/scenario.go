package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim/internal/cluster"
	"github.com/deploymath/deploymath/sim/internal/yamlline"
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
		return &literalError{lit: slices.Clone(b), msg: fmt.Sprintf("invalid duration %s: want a string such as \"30s\"", b)}
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return &literalError{lit: slices.Clone(b), msg: fmt.Sprintf("invalid duration %q: %v", s, err)}
	}
	if v < 0 {
		return &literalError{lit: slices.Clone(b), msg: fmt.Sprintf("invalid duration %q: must not be negative", s)}
	}
	*d = Duration(v)
	return nil
}

// literalError is an error of a value's own decoder (UnmarshalJSON), which
// the JSON decoder returns without saying where the value was: lit is the
// value's JSON text, so that the caller can find its field.
type literalError struct {
	lit []byte
	msg string
}

func (e *literalError) Error() string { return e.msg }

// MarshalJSON implements json.Marshaler.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// Scenario is a simulation: a cluster, the objects at time 0 and the steps a
// user takes. Load one with [LoadScenario] or [ParseScenario], or build one
// in Go with [NewScenario].
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
	// Expect declares how a Deployment's rollout is meant to stand at the
	// end of the run (Complete, ProgressDeadlineExceeded or Incomplete), by
	// name (NAMESPACE/NAME outside the default namespace). deploysim exits
	// 1 when a Deployment ends otherwise, and, like `kubectl rollout
	// status`, when one without an expectation ends
	// ProgressDeadlineExceeded (see [DeploymentOutcome.Unexpected]).
	Expect map[string]Outcome `json:"expect,omitempty"`

	deployments []*appsv1.Deployment
	configMaps  []*corev1.ConfigMap
	secrets     []*corev1.Secret
	// file is the path LoadScenario read the scenario from ("" when parsed
	// from bytes); errors found during a run name it with the step's line.
	file string
	// validated says validate filled the fields above (ParseScenario
	// did); a scenario built in Go is validated by New, on a copy.
	validated bool
	// buildErr is the first error of the With methods.
	buildErr error
	// state is the cluster state the run starts from (WithState).
	state *State
}

// The simulator's limits. Inputs beyond them are refused with an error
// naming the limit, so that a run's memory and time stay bounded.
const (
	// MaxScenarioBytes is the size limit of a scenario file (and of
	// [ParseScenario]'s input): 2 MiB, hundreds of times the bundled
	// scenarios. Decoding YAML costs about 50 times the input in memory.
	MaxScenarioBytes = 2 << 20
	// MaxReplicas is the largest spec.replicas a simulated Deployment may
	// have (in objects, apply steps and scale steps). The simulator models
	// every pod; measured on a shared 2-core machine (sim/BENCHMARKS.md), a
	// rolling update of one Deployment of 1,000,000 replicas completes in
	// about 2 minutes with a peak RSS of 1 GB.
	MaxReplicas = 1_000_000
	// MaxTotalReplicas is the largest sum of the replicas of the
	// Deployments in objects: 1,000 Deployments of 1,000 replicas roll in
	// about 35 s with a peak RSS of 1.2 GB on that machine (about 1.2 KB
	// per pod, old and new pods alive at once).
	MaxTotalReplicas = 1_000_000
)

// where names the place of line in the scenario's file: "FILE: line N",
// "line N" without a file, or the file alone without a line.
func (sc *Scenario) where(line int) string {
	switch {
	case line > 0 && sc.file != "":
		return fmt.Sprintf("%s: line %d", sc.file, line)
	case line > 0:
		return fmt.Sprintf("line %d", line)
	case sc.file != "":
		return sc.file
	}
	return "scenario " + strconv.Quote(sc.Name)
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
	// NodeMonitorGracePeriod is how long an unreachable node goes without
	// reporting before the node controller marks it Ready=Unknown and its
	// pods not ready (default 50s, kube-controller-manager v1.37's
	// --node-monitor-grace-period).
	NodeMonitorGracePeriod Duration `json:"nodeMonitorGracePeriod,omitempty"`
	// EvictionTimeout is how long pods of a failed node stay before they are
	// evicted (default 5m, the default tolerationSeconds of the
	// not-ready/unreachable taints).
	EvictionTimeout Duration `json:"evictionTimeout,omitempty"`
	// ControllerLatency delays every informer-triggered sync (default 0).
	ControllerLatency Duration `json:"controllerLatency,omitempty"`
	// InformerDelay is how long after the API server accepts a write of a
	// Deployment or ReplicaSet the Deployment controller's informer cache
	// has it and notifies the controller (default 0: at once). With a
	// delay, a sync can plan from a version older than the controller's
	// own last write and be refused with 409 Conflict, as in a real
	// cluster.
	InformerDelay Duration `json:"informerDelay,omitempty"`
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

	mode cluster.FailureMode
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
	// Pod sets a pod's phase or readiness, deletes it or makes its node
	// unreachable.
	Pod *PodStep `json:"pod,omitempty"`
	// UnreachableNode makes a node's kubelet stop reporting; DeleteNode
	// deletes the Node object.
	UnreachableNode string `json:"unreachableNode,omitempty"`
	DeleteNode      string `json:"deleteNode,omitempty"`
	// When makes the step wait, from At, until a count or a condition
	// holds.
	When *When `json:"when,omitempty"`

	apply any // *appsv1.Deployment, *corev1.ConfigMap or *corev1.Secret
	line  int // line of the step in the scenario file, 0 if unknown
	// imageLine is the line of setImage.container, 0 if unknown
	imageLine int
	// podLines and whenLine are the lines of pod's fields and of when
	podLines podStepLines
	whenLine int
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

// LoadScenario reads and validates a scenario file. Files larger than
// [MaxScenarioBytes] are refused without being read whole.
func LoadScenario(path string) (*Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxScenarioBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > MaxScenarioBytes {
		return nil, fmt.Errorf("%s: %w", path, errTooLarge)
	}
	sc, err := ParseScenario(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sc.file = path
	if sc.Name == "" {
		base := path[strings.LastIndex(path, "/")+1:]
		sc.Name = strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".yml")
	}
	return sc, nil
}

var fieldRE = regexp.MustCompile(`(?:unknown field|field) "([^"]+)"`)

var errTooLarge = fmt.Errorf("larger than the limit of %d bytes (%d MiB, sim.MaxScenarioBytes)", MaxScenarioBytes, MaxScenarioBytes>>20)

// ParseScenario decodes and validates a scenario. Unknown fields,
// duplicate keys, values of the wrong type and Deployments the API server
// would refuse are errors; errors name the field path and, where it can be
// found, the line. An empty (or null) document is an error, and so is
// input larger than [MaxScenarioBytes].
func ParseScenario(data []byte) (*Scenario, error) {
	if len(data) > MaxScenarioBytes {
		return nil, errTooLarge
	}
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		// The YAML parser's message carries the line; duplicate keys come
		// as "yaml: unmarshal errors:\n  line N: key ... already set in
		// map", one line per key: keep it on one line.
		msg := strings.Replace(err.Error(), ":\n  ", ": ", 1)
		return nil, errors.New(strings.ReplaceAll(msg, "\n  ", "; "))
	}
	if t := bytes.TrimSpace(js); len(t) == 0 || string(t) == "null" {
		return nil, errors.New("empty scenario: want a mapping with at least objects (the Deployments) and steps")
	}
	sc := &Scenario{}
	strict, err := sjson.UnmarshalStrict(js, sc)
	if err != nil {
		return nil, locate(data, js, "", err, &Scenario{})
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

// locate turns a decoding error of js (the JSON form of src; prefix is the
// field path of js within the scenario) into one naming the field and line:
// a value of the wrong type, or a value its own decoder refused. probe is a
// fresh value of the type js was decoded into.
func locate(src, js []byte, prefix string, err error, probe any) error {
	var path, msg string
	var lit *literalError
	if errors.As(err, &lit) {
		path, msg = pathOfLiteral(js, lit.lit), lit.msg
	} else {
		// The strict decoder's type errors carry no position that can be
		// read; the standard decoder reports the same first error with its
		// offset.
		var ute *json.UnmarshalTypeError
		if errors.As(json.Unmarshal(js, probe), &ute) {
			path = pathAt(js, ute.Offset)
			msg = fmt.Sprintf("cannot use %s as %s", ute.Value, ute.Type)
		}
	}
	if path == "" && msg == "" {
		if prefix != "" {
			return fmt.Errorf("%s: %w", prefix, err)
		}
		return withLine(src, err)
	}
	switch {
	case prefix != "" && path != "":
		path = prefix + "." + path
	case prefix != "":
		path = prefix
	}
	if path == "" {
		return errors.New(msg)
	}
	if line := lineOf(src, path); line > 0 {
		return fmt.Errorf("line %d: field %q: %s", line, path, msg)
	}
	return fmt.Errorf("field %q: %s", path, msg)
}

// jsonFrame is an open object or array while walking a JSON document.
type jsonFrame struct {
	array   bool
	idx     int    // array: index of the next value
	key     string // object: key of the current value
	wantKey bool   // object: the next token is a key
}

// walkJSON calls visit for every value of js (scalars, and objects and
// arrays when they open) with its field path ("steps[2].at") and its raw
// text (for objects and arrays, the opening delimiter), in document order,
// until visit returns true.
func walkJSON(js []byte, visit func(path string, raw []byte, end int64) bool) {
	dec := json.NewDecoder(bytes.NewReader(js))
	var stack []jsonFrame
	path := func() string {
		var b strings.Builder
		for _, f := range stack {
			if f.array {
				fmt.Fprintf(&b, "[%d]", f.idx)
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		}
		return b.String()
	}
	afterValue := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].array {
				stack[n-1].idx++
			} else {
				stack[n-1].wantKey = true
			}
		}
	}
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return
		}
		end := dec.InputOffset()
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			afterValue()
			continue
		}
		if n := len(stack); n > 0 && !stack[n-1].array && stack[n-1].wantKey {
			stack[n-1].key, _ = tok.(string)
			stack[n-1].wantKey = false
			continue
		}
		raw := bytes.TrimLeft(js[start:end], " \t\r\n,:")
		if visit(path(), raw, end) {
			return
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, jsonFrame{array: d == '[', wantKey: d == '{'})
			continue
		}
		afterValue()
	}
}

// pathAt returns the field path of the value of js that ends at or after
// offset off (where the JSON decoder reports a type error), "" if none.
func pathAt(js []byte, off int64) string {
	var found string
	walkJSON(js, func(path string, _ []byte, end int64) bool {
		if end >= off {
			found = path
			return true
		}
		return false
	})
	return found
}

// pathOfLiteral returns the field path of the first scalar of js whose
// text is lit, "" if none.
func pathOfLiteral(js, lit []byte) string {
	var found string
	walkJSON(js, func(path string, raw []byte, _ int64) bool {
		if bytes.Equal(raw, lit) {
			found = path
			return true
		}
		return false
	})
	return found
}

// lineOf finds the line of a field path ("steps[2].setImage.image") in
// the scenario's YAML; 0 when not found.
func lineOf(src []byte, path string) int {
	return yamlline.Find(strings.Split(string(src), "\n"), 1, path)
}

type kindOnly struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// decodeObject strictly decodes one manifest; path names it in errors.
func decodeObject(src []byte, raw json.RawMessage, path string) (any, error) {
	var k kindOnly
	if err := json.Unmarshal(raw, &k); err != nil {
		return nil, locate(src, raw, path, err, &kindOnly{})
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
	if err != nil {
		probe := reflect.New(reflect.TypeOf(obj).Elem()).Interface()
		return nil, locate(src, raw, path, err, probe)
	}
	if len(strict) > 0 {
		err = strict[0]
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
	if c.NodeMonitorGracePeriod == 0 {
		c.NodeMonitorGracePeriod = Duration(50 * time.Second)
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
			r.mode = cluster.ModeCrashLoop
		case "never-ready":
			r.mode = cluster.ModeNeverReady
		case "image-pull-error":
			r.mode = cluster.ModePullError
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
	var total int64 // replicas of the Deployments in objects
	for i, raw := range sc.Objects {
		obj, err := decodeObject(src, raw, fmt.Sprintf("objects[%d]", i))
		if err != nil {
			return err
		}
		switch o := obj.(type) {
		case *appsv1.Deployment:
			p := fmt.Sprintf("objects[%d]", i)
			if err := validDeployment(src, o, p); err != nil {
				return err
			}
			if total += int64(replicas(rollout.Default(o))); total > MaxTotalReplicas {
				return withLine(src, fmt.Errorf("field %q: the Deployments of objects have %d replicas in all, above the simulator's limit of %d (sim.MaxTotalReplicas)", p+".spec.replicas", total, MaxTotalReplicas))
			}
			sc.deployments = append(sc.deployments, o)
		case *corev1.ConfigMap:
			sc.configMaps = append(sc.configMaps, o)
		case *corev1.Secret:
			sc.secrets = append(sc.secrets, o)
		}
	}
	until := sc.Until
	if until <= 0 {
		until = Duration(DefaultUntil)
	}
	var last Duration
	lines := strings.Split(string(src), "\n") // split once: a scenario may have thousands of steps
	for i := range sc.Steps {
		st := &sc.Steps[i]
		p := fmt.Sprintf("steps[%d]", i)
		st.line = yamlline.Find(lines, 1, p)
		if st.SetImage != nil {
			st.imageLine = yamlline.Find(lines, 1, p+".setImage.container")
		}
		if st.At > until {
			return withLine(src, fmt.Errorf("field %q: %s is after the time limit (until %s): the step would never run", p+".at", time.Duration(st.At), time.Duration(until)))
		}
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
		n += st.newStepKinds()
		if n != 1 {
			return withLine(src, fmt.Errorf("field %q: a step needs exactly one action, found %d", p, n))
		}
		if len(st.Apply) > 0 {
			obj, err := decodeObject(src, st.Apply, p+".apply")
			if err != nil {
				return err
			}
			if d, ok := obj.(*appsv1.Deployment); ok {
				if err := validDeployment(src, d, p+".apply"); err != nil {
					return err
				}
			}
			st.apply = obj
		}
		if st.Scale != nil && *st.Scale < 0 {
			return withLine(src, fmt.Errorf("field %q: must not be negative", p+".scale"))
		}
		if st.Scale != nil && *st.Scale > MaxReplicas {
			return withLine(src, errTooManyReplicas(p+".scale", *st.Scale))
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
		if err := st.validateNew(src, p, names); err != nil {
			return err
		}
	}
	created := slices.Clone(sc.deployments)
	if sc.state != nil {
		deps, err := sc.state.validate()
		if err != nil {
			return err
		}
		if total+int64(sumReplicas(deps)) > MaxTotalReplicas {
			return fmt.Errorf("state: the Deployments of the state and of objects have %d replicas in all, above the simulator's limit of %d (sim.MaxTotalReplicas)", total+int64(sumReplicas(deps)), MaxTotalReplicas)
		}
		created = append(created, deps...)
	}
	for i := range sc.Steps {
		if d, ok := sc.Steps[i].apply.(*appsv1.Deployment); ok {
			created = append(created, rollout.Default(d))
		}
	}
	if err := validExpect(src, sc.Expect, created); err != nil {
		return err
	}
	sc.validated = true
	return nil
}

// CheckUntil reports the first step scheduled after the time limit until,
// which would never run, naming its number, time and line.
func (sc *Scenario) CheckUntil(until time.Duration) error {
	for i := range sc.Steps {
		if st := &sc.Steps[i]; time.Duration(st.At) > until {
			return fmt.Errorf("step %d at %s (%s) would never run: it is after the time limit %s", i+1, time.Duration(st.At), sc.where(st.line), until)
		}
	}
	return nil
}

// errTooManyReplicas refuses a Deployment size above [MaxReplicas].
func errTooManyReplicas(field string, n int32) error {
	return fmt.Errorf("field %q: %d replicas is above the simulator's limit of %d (sim.MaxReplicas)", field, n, MaxReplicas)
}

// validDeployment checks a Deployment of the scenario (at path) as the API
// server would, after defaulting, and against [MaxReplicas]; errors name
// the field and its line.
func validDeployment(src []byte, d *appsv1.Deployment, path string) error {
	dd := rollout.Default(d)
	if n := replicas(dd); n > MaxReplicas {
		return withLine(src, errTooManyReplicas(path+".spec.replicas", n))
	}
	err := rollout.Validate(dd)
	if err == nil {
		return nil
	}
	// rollout.Validate joins one "spec.field: message" line per problem.
	var errs []error
	for _, msg := range strings.Split(err.Error(), "\n") {
		field, rest, ok := strings.Cut(msg, ": ")
		if !ok || strings.ContainsAny(field, " \"") {
			errs = append(errs, fmt.Errorf("%s: deployment %s: %s", path, d.Name, msg))
			continue
		}
		errs = append(errs, withLine(src, fmt.Errorf("field %q: %s", path+"."+field, rest)))
	}
	return errors.Join(errs...)
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
