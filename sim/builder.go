package sim

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// NewScenario starts a scenario built in Go instead of parsed from YAML:
// add objects and steps with the With methods, which return sc.
//
//	sc := sim.NewScenario("web").WithSeed(7).
//		WithDeployment(d).
//		WithSteps(sim.Step{At: sim.Duration(time.Minute), SetImage: &sim.SetImage{Container: "web", Image: "web:2"}})
//
// The typed objects are stored as manifests in Objects, so [Scenario.Marshal]
// prints the scenario as a file [ParseScenario] reads back. [Run] checks a
// scenario built in Go as ParseScenario checks a file (defaults, API
// validation, limits, one action per step); the errors name the field
// ("objects[0].spec.replicas") and no line.
func NewScenario(name string) *Scenario { return &Scenario{Name: name} }

// WithSeed sets the seed of the run's random generator.
func (sc *Scenario) WithSeed(seed uint64) *Scenario {
	sc.Seed = seed
	return sc
}

// WithCluster sets the cluster (nodes, delays, failures).
func (sc *Scenario) WithCluster(c Cluster) *Scenario {
	sc.Cluster = c
	return sc
}

// WithDeployment adds a Deployment created at time 0. d is copied; its
// apiVersion and kind may be left empty.
func (sc *Scenario) WithDeployment(d *appsv1.Deployment) *Scenario { return sc.withObject(d) }

// WithConfigMap adds a ConfigMap created at time 0.
func (sc *Scenario) WithConfigMap(cm *corev1.ConfigMap) *Scenario { return sc.withObject(cm) }

// WithSecret adds a Secret created at time 0.
func (sc *Scenario) WithSecret(s *corev1.Secret) *Scenario { return sc.withObject(s) }

// WithObject adds any object the scenario format takes in objects (see
// [Scenario].Objects): a Deployment, ConfigMap or Secret (created at time
// 0, as with WithDeployment), a ReplicaSet, Pod, Node or ResourceQuota
// (stored as it is, status included), or an object of a kind of your own
// (stored as it is; the run decodes it with [Options].Scheme). obj is
// copied. The apiVersion and kind of a built-in kind may be left empty;
// an object of your own kind must carry them (its TypeMeta), since the
// manifest names its kind.
func (sc *Scenario) WithObject(obj Object) *Scenario { return sc.withObject(obj) }

// WithSteps appends steps (in time order, one action each).
func (sc *Scenario) WithSteps(steps ...Step) *Scenario {
	sc.Steps = append(sc.Steps, steps...)
	return sc
}

// WithApply appends a step that applies obj at time at, like kubectl apply:
// a *appsv1.Deployment, *corev1.ConfigMap or *corev1.Secret, or an object
// of a kind of your own with its apiVersion and kind set (copied).
func (sc *Scenario) WithApply(at time.Duration, obj any) *Scenario {
	if raw := sc.manifest(obj); raw != nil {
		sc.Steps = append(sc.Steps, Step{At: Duration(at), Apply: raw})
	}
	return sc
}

func (sc *Scenario) withObject(obj any) *Scenario {
	if raw := sc.manifest(obj); raw != nil {
		sc.Objects = append(sc.Objects, raw)
	}
	return sc
}

// manifest encodes a copy of obj with its apiVersion and kind set, or
// records an error and returns nil.
func (sc *Scenario) manifest(obj any) json.RawMessage {
	var c any
	switch o := obj.(type) {
	case *appsv1.Deployment:
		if o != nil {
			o = o.DeepCopy()
			o.APIVersion, o.Kind = "apps/v1", "Deployment"
			c = o
		}
	case *corev1.ConfigMap:
		if o != nil {
			o = o.DeepCopy()
			o.APIVersion, o.Kind = "v1", "ConfigMap"
			c = o
		}
	case *corev1.Secret:
		if o != nil {
			o = o.DeepCopy()
			o.APIVersion, o.Kind = "v1", "Secret"
			c = o
		}
	case *appsv1.ReplicaSet, *corev1.Pod, *corev1.Node, *corev1.ResourceQuota:
		c = typedCopy(o.(Object))
	case Object:
		if orNil(o) != nil {
			if o.GetObjectKind().GroupVersionKind().Kind == "" {
				sc.fail(fmt.Errorf("%T %s: apiVersion and kind are required for an object of your own kind (set its TypeMeta)", obj, o.GetName()))
				return nil
			}
			c = o.DeepCopyObject()
		}
	default:
		sc.fail(fmt.Errorf("unsupported object %T (want a Kubernetes object: *appsv1.Deployment, *corev1.ConfigMap, … or a kind of your own)", obj))
		return nil
	}
	if c == nil {
		sc.fail(fmt.Errorf("%T: must not be nil", obj))
		return nil
	}
	raw, err := json.Marshal(c)
	if err != nil {
		sc.fail(fmt.Errorf("%T: %w", obj, err))
		return nil
	}
	return raw
}

// typedCopy copies a ReplicaSet, Pod, Node or ResourceQuota with its
// apiVersion and kind set; nil for a nil pointer.
func typedCopy(o Object) any {
	if orNil(o) == nil {
		return nil
	}
	c := o.DeepCopyObject().(Object)
	switch c.(type) {
	case *appsv1.ReplicaSet:
		c.GetObjectKind().SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))
	case *corev1.Pod:
		c.GetObjectKind().SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
	case *corev1.Node:
		c.GetObjectKind().SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Node"))
	case *corev1.ResourceQuota:
		c.GetObjectKind().SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ResourceQuota"))
	}
	return c
}

// fail keeps the first error of the builder; [New] returns it.
func (sc *Scenario) fail(err error) {
	if sc.buildErr == nil {
		sc.buildErr = err
	}
}

// prepared returns sc ready to run: sc itself when ParseScenario checked
// it, else a checked copy (sc is not modified).
func (sc *Scenario) prepared() (*Scenario, error) {
	if sc.buildErr != nil {
		return nil, fmt.Errorf("scenario %q: %w", sc.Name, sc.buildErr)
	}
	if sc.validated {
		return sc, nil
	}
	if len(sc.Objects) == 0 && sc.state == nil && !slices.ContainsFunc(sc.Steps, func(st Step) bool { return len(st.Apply) > 0 }) {
		return nil, fmt.Errorf("scenario %q has no objects: add a Deployment with WithDeployment (or manifests to Objects, or a cluster's state with WithState); a Scenario built in Go must carry its objects there", sc.Name)
	}
	c := *sc
	c.Steps = slices.Clone(sc.Steps)
	c.Cluster.Failures = slices.Clone(sc.Cluster.Failures)
	if err := c.validate(nil); err != nil {
		return nil, fmt.Errorf("scenario %q: %w", sc.Name, err)
	}
	return &c, nil
}
