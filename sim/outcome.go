package sim

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
)

// Outcome is how a Deployment's rollout stands at the end of a run, in the
// terms of `kubectl rollout status`.
type Outcome string

// The outcomes, in the order `kubectl rollout status` checks them.
const (
	// OutcomeIncomplete: the rollout is still under way (the spec is not
	// observed yet, or the new ReplicaSet is not fully updated, or old pods
	// remain, or updated pods are not all available); kubectl would keep
	// waiting.
	OutcomeIncomplete Outcome = "Incomplete"
	// OutcomeProgressDeadlineExceeded: the Progressing condition's reason
	// is ProgressDeadlineExceeded; `kubectl rollout status` exits 1.
	OutcomeProgressDeadlineExceeded Outcome = "ProgressDeadlineExceeded"
	// OutcomeComplete: "successfully rolled out".
	OutcomeComplete Outcome = "Complete"
)

var outcomes = []Outcome{OutcomeComplete, OutcomeProgressDeadlineExceeded, OutcomeIncomplete}

// DeploymentOutcome is the outcome of one Deployment's rollout at the end
// of a run, and what the scenario expects of it.
type DeploymentOutcome struct {
	// Deployment is the Deployment's name, "NAMESPACE/NAME" outside the
	// default namespace (the form Scenario.Expect uses).
	Deployment string `json:"deployment"`
	// Outcome is how its rollout stands.
	Outcome Outcome `json:"outcome"`
	// Expected is the scenario's expectation (Scenario.Expect), "" when it
	// declares none.
	Expected Outcome `json:"expected,omitempty"`
}

// Unexpected reports whether the outcome fails the run, as `kubectl
// rollout status` fails: with an expectation, any other outcome; without
// one, ProgressDeadlineExceeded, and with requireComplete (deploysim
// -require-complete) any outcome but Complete.
func (o DeploymentOutcome) Unexpected(requireComplete bool) bool {
	switch {
	case o.Expected != "":
		return o.Outcome != o.Expected
	case o.Outcome == OutcomeProgressDeadlineExceeded:
		return true
	default:
		return requireComplete && o.Outcome != OutcomeComplete
	}
}

// String says what happened and, when unexpected, how to declare it.
func (o DeploymentOutcome) String() string {
	if o.Expected != "" {
		return fmt.Sprintf("deployment %s ended %s (the scenario expects %s)", o.Deployment, o.Outcome, o.Expected)
	}
	kubectl := "would fail"
	if o.Outcome == OutcomeIncomplete {
		kubectl = "would still be waiting"
	}
	return fmt.Sprintf("deployment %s ended %s (`kubectl rollout status` %s; declare `expect: {%s: %s}` if the scenario means it)", o.Deployment, o.Outcome, kubectl, o.Deployment, o.Outcome)
}

// outcomeOf classifies d's rollout as `kubectl rollout status` does (v1.37:
// generation observed, then the deadline, then the counts).
func outcomeOf(d *appsv1.Deployment) Outcome {
	st := &d.Status
	if d.Generation > st.ObservedGeneration {
		return OutcomeIncomplete
	}
	if c := progressingOf(st.Conditions); c != nil && c.Reason == "ProgressDeadlineExceeded" {
		return OutcomeProgressDeadlineExceeded
	}
	want := replicas(d)
	if st.UpdatedReplicas < want || st.Replicas > st.UpdatedReplicas || st.AvailableReplicas < st.UpdatedReplicas {
		return OutcomeIncomplete
	}
	return OutcomeComplete
}

// outcomeName is how Scenario.Expect names the Deployment stored at key
// ("namespace/name").
func outcomeName(d *appsv1.Deployment) string {
	if d.Namespace == "" || d.Namespace == "default" {
		return d.Name
	}
	return d.Namespace + "/" + d.Name
}

// outcomes lists every Deployment's outcome at the end of the run, by
// name, with the scenario's expectations.
func (s *Sim) outcomes() []DeploymentOutcome {
	var out []DeploymentOutcome
	for _, k := range sortedKeys(s.st.Deployments) {
		d := s.st.Deployments[k]
		name := outcomeName(d)
		out = append(out, DeploymentOutcome{Deployment: name, Outcome: outcomeOf(d), Expected: s.sc.Expect[name]})
	}
	return out
}

// validExpect checks Scenario.Expect: every name is a Deployment the
// scenario creates (deployments: of objects and apply steps) and every
// value an outcome.
func validExpect(src []byte, expect map[string]Outcome, deployments []*appsv1.Deployment) error {
	names := make([]string, 0, len(expect))
	for n := range expect {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if !slices.ContainsFunc(deployments, func(d *appsv1.Deployment) bool { return outcomeName(d) == n }) {
			return withLine(src, fmt.Errorf("field %q: the scenario creates no Deployment %q (name it NAME in the default namespace, NAMESPACE/NAME elsewhere)", "expect."+n, n))
		}
		if !slices.Contains(outcomes, expect[n]) {
			return withLine(src, fmt.Errorf("field %q: %q is not an outcome: want Complete, ProgressDeadlineExceeded or Incomplete", "expect."+n, expect[n]))
		}
	}
	return nil
}
