package rollout

import (
	"errors"
	"fmt"

	"github.com/deploymath/deploymath/fencepost"
	"github.com/deploymath/deploymath/rollout/defaulting"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Default returns a copy of d as a v1.37 API server stores it: with the
// apps/v1 Deployment defaults (replicas 1, strategy RollingUpdate with
// maxSurge and maxUnavailable 25%, revisionHistoryLimit 10,
// progressDeadlineSeconds 600) and every core/v1 default of its pod
// template (imagePullPolicy, ports' protocol, restartPolicy, dnsPolicy,
// probes, volumes, ...), with the template in the form the server stores
// it: every quantity as parsed back from its canonical string ("0.5" as
// 500m, "0.5Gi" as 512Mi, sub-milli values rounded up), empty maps and
// lists nil. It is [defaulting.Deployment]; see that package for the full
// list. The template's pod-template-hash, and so the names of the
// ReplicaSets [Plan] creates, match a cluster's only for a template in
// that form (a template built or edited in Go after Default can be brought
// back to it with [defaulting.Stored]). Fields already set are kept; d is
// not modified; a nil d gives nil.
func Default(d *appsv1.Deployment) *appsv1.Deployment {
	return defaulting.Deployment(d)
}

func ptr[T any](v T) *T { return &v }

// Validate reports every problem of d that would stop [Plan], each naming
// its field: a missing or unparsable selector, a selector that does not
// select the template's labels, missing or negative replicas, an invalid
// strategy (see [fencepost.Validate]), negative revisionHistoryLimit,
// minReadySeconds or progressDeadlineSeconds, and a progress deadline not
// greater than minReadySeconds. The problems are joined with [errors.Join].
func Validate(d *appsv1.Deployment) error {
	if d == nil {
		return errors.New("deployment: must not be nil")
	}
	var sel selectorPairs
	sel.init(d.Spec.Selector)
	return validate(d, &sel)
}

// validate is Validate with the selector's pairs made by the caller (sel
// is of d.Spec.Selector).
func validate(d *appsv1.Deployment, sp *selectorPairs) error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{field}, args...)...))
	}
	spec := &d.Spec
	switch sel := spec.Selector; {
	case sel == nil:
		bad("spec.selector", "required value")
	case len(sel.MatchLabels)+len(sel.MatchExpressions) == 0:
		bad("spec.selector", "empty selector is invalid for deployment")
	default:
		valid := sp.simple()
		if !valid {
			_, err := metav1.LabelSelectorAsSelector(sel)
			if err != nil {
				errs = append(errs, fmt.Errorf("spec.selector: invalid value: %w", err))
			}
			valid = err == nil
		}
		if valid && !sp.matches(spec.Template.Labels) {
			bad("spec.template.metadata.labels", "invalid value %v: `selector` does not match template `labels`", labels.Set(spec.Template.Labels))
		}
	}
	if err := fencepost.Validate(d); err != nil {
		errs = append(errs, err)
	}
	if v := spec.RevisionHistoryLimit; v != nil && *v < 0 {
		bad("spec.revisionHistoryLimit", "invalid value %d: must be greater than or equal to 0", *v)
	}
	if spec.MinReadySeconds < 0 {
		bad("spec.minReadySeconds", "invalid value %d: must be greater than or equal to 0", spec.MinReadySeconds)
	}
	if v := spec.ProgressDeadlineSeconds; v != nil {
		if *v < 0 {
			bad("spec.progressDeadlineSeconds", "invalid value %d: must be greater than or equal to 0", *v)
		} else if *v <= spec.MinReadySeconds {
			bad("spec.progressDeadlineSeconds", "invalid value %d: must be greater than minReadySeconds", *v)
		}
	}
	if len(errs) > 0 && (spec.Replicas == nil || spec.Strategy.Type == "" ||
		spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType && spec.Strategy.RollingUpdate == nil) {
		// The usual cause: a manifest as written, not as the API server
		// stores it.
		errs = append(errs, errors.New("deployment: not defaulted: Plan expects a Deployment as the API server stores it; apply rollout.Default to a manifest first"))
	}
	return errors.Join(errs...)
}

// validateReplicaSet checks what the planner dereferences in a ReplicaSet.
// (Its selector is never read: upstream claims by the Deployment's selector.)
func validateReplicaSet(rs *appsv1.ReplicaSet) error {
	if rs.Spec.Replicas == nil {
		return errors.New("spec.replicas: required value")
	}
	if *rs.Spec.Replicas < 0 {
		return fmt.Errorf("spec.replicas: invalid value %d: must be greater than or equal to 0", *rs.Spec.Replicas)
	}
	return nil
}
