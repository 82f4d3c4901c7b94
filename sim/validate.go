package sim

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim/internal/apivalidation"
	"github.com/deploymath/deploymath/sim/internal/cluster"
	"github.com/deploymath/deploymath/sim/internal/yamlline"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A scenario's validation: its objects decoded (kinds checked), its
// cluster section defaulted and checked, its steps checked in order, each
// error naming the field and its line.

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
	if w := c.WriteConflicts; !(w >= 0 && w <= 1) {
		return withLine(src, fmt.Errorf("field %q: %v: must be between 0 and 1", "cluster.writeConflicts", w))
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
		if r.Probability != nil && !(*r.Probability >= 0 && *r.Probability <= 1) { // NaN too
			return withLine(src, fmt.Errorf("field %q: must be between 0 and 1", p+".probability"))
		}
	}
	if c.Restart != nil {
		if _, err := c.Restart.options("cluster.restart"); err != nil {
			return withLine(src, err)
		}
	}
	sc.deployments, sc.configMaps, sc.secrets, sc.objState, sc.custom = nil, nil, nil, nil, nil
	var total int64           // replicas of the Deployments in objects
	given := map[string]int{} // kind namespace/name -> index in objects
	for i, raw := range sc.Objects {
		obj, err := decodeObject(src, raw, fmt.Sprintf("objects[%d]", i), true)
		if err != nil {
			return err
		}
		if m, ok := obj.(namespacedObject); ok && !isNode(obj) {
			// Nodes are checked with cluster.nodes (addObject).
			gvk := m.GetObjectKind().GroupVersionKind()
			key := fmt.Sprintf("%s %s/%s", gvk.Kind, namespaceOf(m.GetNamespace()), m.GetName())
			if first, dup := given[key]; dup {
				return withLine(src, fmt.Errorf("field %q: %s is given twice (first as objects[%d]): the API server refuses the second (%s %q already exists)",
					fmt.Sprintf("objects[%d].metadata.name", i), key, first, resourceOf(gvk), m.GetName()))
			}
			given[key] = i
		}
		if err := sc.addObject(src, fmt.Sprintf("objects[%d]", i), obj, names); err != nil {
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
	// the steps' lines from one walk over the text: a scenario may have
	// thousands of steps after thousands of lines of objects
	steps := yamlline.FindSeq(strings.Split(string(src), "\n"), 1, "steps")
	for i := range sc.Steps {
		st := &sc.Steps[i]
		p := fmt.Sprintf("steps[%d]", i)
		st.line = steps.Line(i, "")
		if st.SetImage != nil {
			st.imageLine = steps.Line(i, "setImage.container")
		}
		if st.RestartController != "" {
			st.ctrlLine = steps.Line(i, "restartController")
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
			len(st.Annotate) > 0, st.DeleteConfigMap != "", st.DeleteSecret != "", st.RestartController != ""} {
			if set {
				n++
			}
		}
		n += st.newStepKinds()
		if n != 1 {
			return withLine(src, fmt.Errorf("field %q: a step needs exactly one action, found %d", p, n))
		}
		if len(st.Apply) > 0 {
			obj, err := decodeObject(src, st.Apply, p+".apply", false)
			if err != nil {
				return err
			}
			if c, ok := obj.(*customObject); ok {
				c.step = i
				sc.custom = append(sc.custom, c)
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

// namespacedObject is a built-in object as decodeObject gives it.
type namespacedObject interface {
	GetNamespace() string
	GetName() string
	GetObjectKind() schema.ObjectKind
}

func isNode(obj any) bool {
	_, ok := obj.(*corev1.Node)
	return ok
}

// validDeployment checks a Deployment of the scenario (at path) as the API
// server would, after defaulting, and against [MaxReplicas]; errors name
// the field and its line.
func validDeployment(src []byte, d *appsv1.Deployment, path string) error {
	dd := rollout.Default(d)
	if n := replicas(dd); n > MaxReplicas {
		return withLine(src, errTooManyReplicas(path+".spec.replicas", n))
	}
	// rollout.Validate joins one "spec.field: message" line per problem;
	// then the pod template's containers, as the API server checks them.
	var errs []error
	if err := rollout.Validate(dd); err != nil {
		for _, msg := range strings.Split(err.Error(), "\n") {
			field, rest, ok := strings.Cut(msg, ": ")
			if !ok || strings.ContainsAny(field, " \"") {
				errs = append(errs, fmt.Errorf("%s: deployment %s: %s", path, d.Name, msg))
				continue
			}
			errs = append(errs, withLine(src, fmt.Errorf("field %q: %s", path+"."+field, rest)))
		}
	}
	for _, e := range apivalidation.PodTemplate(&dd.Spec.Template, "spec.template") {
		errs = append(errs, withLine(src, fmt.Errorf("field %q: %s (the API server refuses such a Deployment)", path+"."+e.Field, e.Detail)))
	}
	return errors.Join(errs...)
}
