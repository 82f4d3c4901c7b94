package sim

import (
	"fmt"

	"github.com/deploymath/deploymath/internal/apirules"
	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
)

// Variant returns a copy of sc in which every Deployment the scenario
// creates (its objects and its apply steps) or starts from (its
// [State]) is replaced by edit's result
// and the cluster is changed by cluster (either may be nil); sc is not
// modified. edit receives a copy of each Deployment defaulted as the API
// server stores it (so its strategy's fields are set) and may change it in
// place. Each edited Deployment is validated as the API server would
// validate it, and an invalid one is an error naming it. A sweep
// (sim/sweep) runs one variant per combination of its parameters.
func (sc *Scenario) Variant(edit func(*appsv1.Deployment) *appsv1.Deployment, cluster func(*Cluster)) (*Scenario, error) {
	if !sc.validated { // built in Go: checked on a copy, as New does
		v := *sc
		if err := v.validate(nil); err != nil {
			return nil, err
		}
		sc = &v
	}
	c := *sc
	if cluster != nil {
		c.Cluster.Nodes = append([]NodeSpec(nil), sc.Cluster.Nodes...)
		c.Cluster.Failures = append([]FailureRule(nil), sc.Cluster.Failures...)
		cluster(&c.Cluster)
	}
	if edit == nil {
		return &c, nil
	}
	check := func(d *appsv1.Deployment) (*appsv1.Deployment, error) {
		d = edit(rollout.Default(d)) // a defaulted copy
		if err := rollout.Validate(d); err != nil {
			return nil, fmt.Errorf("deployment %s: %w", d.Name, err)
		}
		return d, nil
	}
	c.deployments = nil
	for _, d := range sc.deployments {
		e, err := check(d)
		if err != nil {
			return nil, err
		}
		c.deployments = append(c.deployments, e)
	}
	if sc.state != nil {
		st := *sc.state
		st.Deployments = nil
		for _, d := range sc.state.Deployments {
			e, err := check(d)
			if err != nil {
				return nil, err
			}
			// As if applied just before the state was taken: a change of
			// the spec or the annotations is a new generation the
			// controller has not observed yet.
			if apirules.DeploymentGenerationBumps(rollout.Default(d), e) {
				e.Generation = d.Generation + 1
			}
			st.Deployments = append(st.Deployments, e)
		}
		c.state = &st
	}
	c.Steps = append([]Step(nil), sc.Steps...)
	for i := range c.Steps {
		if d, ok := c.Steps[i].apply.(*appsv1.Deployment); ok {
			e, err := check(d)
			if err != nil {
				return nil, err
			}
			c.Steps[i].apply = e
		}
	}
	return &c, nil
}
