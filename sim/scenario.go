package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deploymath/deploymath/sim/internal/cluster"
	"github.com/deploymath/deploymath/sim/internal/inputlimit"
	"github.com/deploymath/deploymath/sim/internal/yamlline"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
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
	// objState holds the ReplicaSets, Pods, Nodes and ResourceQuotas of
	// objects, stored at time 0 as a state is; custom the objects of
	// custom kinds, decoded by New (objects.go). src is the source the
	// scenario was parsed from (nil when built in Go), for their errors.
	objState *State
	custom   []*customObject
	src      []byte
}

// The simulator's limits. Inputs beyond them are refused with an error
// naming the limit, so that a run's memory and time stay bounded.
const (
	// MaxScenarioBytes is the size limit of a scenario file (and of
	// [ParseScenario]'s input), as read and with its YAML aliases
	// expanded: 2 MiB, hundreds of times the bundled scenarios. Decoding
	// YAML costs about 50 times the input in memory.
	MaxScenarioBytes = inputlimit.ScenarioMax
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

// whereFile names the scenario's file ("scenario NAME" without one).
func (sc *Scenario) whereFile() string { return sc.where(0) }

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
	// WriteConflicts is the probability (0 to 1) that a write of a hosted
	// controller ([Options].Controllers) other than a create is refused
	// with 409 Conflict, as a write racing another one is: a fault for
	// property tests (default 0).
	WriteConflicts float64 `json:"writeConflicts,omitempty"`
	// DeploymentController: false runs no built-in Deployment controller,
	// so that a controller of [Options].Controllers takes its place
	// (default true).
	DeploymentController *bool `json:"deploymentController,omitempty"`
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

// LoadScenario reads and validates a scenario file. Files larger than
// [MaxScenarioBytes] are refused without being read whole, and those
// whose YAML aliases expand beyond it before they are decoded.
func LoadScenario(path string) (*Scenario, error) {
	data, err := inputlimit.ReadFile(path, inputlimit.Scenario)
	if err != nil {
		return nil, err
	}
	if err := inputlimit.Check(data, path, inputlimit.Scenario); err != nil {
		return nil, err
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

// ParseScenario decodes and validates a scenario. Unknown fields,
// duplicate keys, values of the wrong type and Deployments the API server
// would refuse are errors; errors name the field path and, where it can be
// found, the line. An empty (or null) document is an error, and so is
// input larger than [MaxScenarioBytes], as given or with its YAML aliases
// expanded.
func ParseScenario(data []byte) (*Scenario, error) {
	if err := inputlimit.Check(data, "", inputlimit.Scenario); err != nil {
		return nil, err
	}
	data, err := yamlline.FromUTF16(data)
	if err != nil {
		return nil, err
	}
	if err := textErrors(data); err != nil {
		return nil, err
	}
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		if strings.Contains(err.Error(), "unsupported value") {
			// A YAML float JSON has no number for (.nan, .inf).
			lines := strings.SplitAfter(string(data), "\n")
			if line, v := yamlline.NonJSONNumber(lines); line > 0 {
				return nil, atLine(lines, line, fmt.Sprintf("%s is not a number a scenario can hold (YAML's %s): want a number such as 0.5", v, map[bool]string{true: "NaN", false: "infinity"}[strings.Contains(strings.ToLower(v), "nan")]))
			}
		}
		// The YAML parser's message carries the line; duplicate keys come
		// as "yaml: unmarshal errors:\n  line N: key ... already set in
		// map", one line per key: keep it on one line.
		msg := strings.Replace(err.Error(), ":\n  ", ": ", 1)
		return nil, errors.New(strings.ReplaceAll(msg, "\n  ", "; "))
	}
	if t := bytes.TrimSpace(js); len(t) == 0 || string(t) == "null" {
		return nil, errors.New("empty scenario: want a mapping with at least objects (the Deployments) and steps")
	} else if t[0] != '{' {
		// A scalar (a list is read as objects by deploysim, but not here).
		what := map[byte]string{'"': "text", '[': "a list"}[t[0]]
		if what == "" {
			what = string(t)
		}
		first := 1 + yamlline.LeadingBlank(strings.SplitAfter(string(data), "\n"))
		return nil, fmt.Errorf("line %d: not a scenario: want a mapping with at least objects (the Deployments) and steps, not %s", first, what)
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
	if len(sc.custom) > 0 {
		sc.src = data
	}
	return sc, nil
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
