// Package apivalidation holds the rules of a v1.37 API server's
// validation that the objects of a cluster's state must meet beyond what
// the planner checks (rollout.Validate): a pod template's containers, a
// ReplicaSet's spec, and the status of Deployments and ReplicaSets. Both
// readers of a state use it, sim/snapshot (deploysim explain, a dump's
// run) and sim.State, so that they agree on what is valid. Problems are
// worded as the API server words them ("spec.selector: Required value").
package apivalidation

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Error is one problem: a field path and what is wrong with it.
type Error struct {
	Field, Detail string
}

func (e Error) Error() string { return e.Field + ": " + e.Detail }

func required(field string) Error { return Error{field, "Required value"} }

func invalid(field string, v any, detail string) Error {
	return Error{field, fmt.Sprintf("Invalid value: %v: %s", v, detail)}
}

// PodTemplate checks the containers of t, at path ("spec.template"): at
// least one, each with a name that is a DNS label, no name twice.
func PodTemplate(t *corev1.PodTemplateSpec, path string) []Error {
	var errs []Error
	cpath := path + ".spec.containers"
	if len(t.Spec.Containers) == 0 {
		return append(errs, required(cpath))
	}
	seen := map[string]bool{}
	for i, c := range t.Spec.Containers {
		name := fmt.Sprintf("%s[%d].name", cpath, i)
		switch {
		case c.Name == "":
			errs = append(errs, required(name))
		case seen[c.Name]:
			errs = append(errs, Error{name, fmt.Sprintf("Duplicate value: %q", c.Name)})
		default:
			for _, msg := range validation.IsDNS1123Label(c.Name) {
				errs = append(errs, invalid(name, fmt.Sprintf("%q", c.Name), msg))
			}
		}
		seen[c.Name] = true
	}
	return errs
}

// ReplicaSet checks rs's spec: replicas and minReadySeconds not negative,
// a selector that is set, not empty, valid and matches the template's
// labels, and the template's containers.
func ReplicaSet(rs *appsv1.ReplicaSet) []Error {
	var errs []Error
	spec := &rs.Spec
	if spec.Replicas != nil && *spec.Replicas < 0 {
		errs = append(errs, invalid("spec.replicas", *spec.Replicas, "must be greater than or equal to 0"))
	}
	if spec.MinReadySeconds < 0 {
		errs = append(errs, invalid("spec.minReadySeconds", spec.MinReadySeconds, "must be greater than or equal to 0"))
	}
	switch sel := spec.Selector; {
	case sel == nil:
		errs = append(errs, required("spec.selector"))
	case len(sel.MatchLabels)+len(sel.MatchExpressions) == 0:
		errs = append(errs, invalid("spec.selector", "{}", "empty selector is invalid for deployment"))
	default:
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil {
			errs = append(errs, invalid("spec.selector", metav1.FormatLabelSelector(sel), "invalid label selector"))
		} else if !s.Matches(labels.Set(spec.Template.Labels)) {
			errs = append(errs, invalid("spec.template.metadata.labels", labels.Set(spec.Template.Labels), "`selector` does not match template `labels`"))
		}
	}
	return append(errs, PodTemplate(&spec.Template, "spec.template")...)
}

// count is a status field and its value.
type count struct {
	name string
	v    int64
}

// counts checks the rules both statuses share: no negative count (of
// all), none of atMost greater than status.replicas, no more available
// than ready replicas.
func counts(all, atMost []count, replicas, ready, available int32) []Error {
	var errs []Error
	for _, c := range all {
		if c.v < 0 {
			errs = append(errs, invalid("status."+c.name, c.v, "must be greater than or equal to 0"))
		}
	}
	for _, c := range atMost {
		if c.v > int64(replicas) {
			errs = append(errs, invalid("status."+c.name, c.v, "cannot be greater than status.replicas"))
		}
	}
	if available > ready {
		errs = append(errs, invalid("status.availableReplicas", available, "cannot be greater than readyReplicas"))
	}
	return errs
}

func optional(all []count, name string, v *int32) []count {
	if v != nil {
		all = append(all, count{name, int64(*v)})
	}
	return all
}

// DeploymentStatus checks a Deployment's status as the API server checks
// a status write.
func DeploymentStatus(st *appsv1.DeploymentStatus) []Error {
	atMost := []count{{"updatedReplicas", int64(st.UpdatedReplicas)}, {"readyReplicas", int64(st.ReadyReplicas)}, {"availableReplicas", int64(st.AvailableReplicas)}}
	all := append([]count{{"observedGeneration", st.ObservedGeneration}, {"replicas", int64(st.Replicas)}}, atMost...)
	all = append(all, count{"unavailableReplicas", int64(st.UnavailableReplicas)})
	all = optional(optional(all, "terminatingReplicas", st.TerminatingReplicas), "collisionCount", st.CollisionCount)
	return counts(all, atMost, st.Replicas, st.ReadyReplicas, st.AvailableReplicas)
}

// ReplicaSetStatus checks a ReplicaSet's status as the API server checks
// a status write.
func ReplicaSetStatus(st *appsv1.ReplicaSetStatus) []Error {
	atMost := []count{{"fullyLabeledReplicas", int64(st.FullyLabeledReplicas)}, {"readyReplicas", int64(st.ReadyReplicas)}, {"availableReplicas", int64(st.AvailableReplicas)}}
	all := append([]count{{"replicas", int64(st.Replicas)}}, atMost...)
	all = append(all, count{"observedGeneration", st.ObservedGeneration})
	all = optional(all, "terminatingReplicas", st.TerminatingReplicas)
	return counts(all, atMost, st.Replicas, st.ReadyReplicas, st.AvailableReplicas)
}
