package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// SweepParam is one swept strategy field and its values.
type SweepParam struct {
	Name   string // maxSurge or maxUnavailable
	Values []intstr.IntOrString
}

// ParseSweep parses "maxSurge=0,1,25%;maxUnavailable=0,10%".
func ParseSweep(spec string) ([]SweepParam, error) {
	var out []SweepParam
	for i, part := range strings.Split(spec, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, vals, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("sweep[%d]: %q: want name=v1,v2", i, part)
		}
		name = strings.TrimSpace(name)
		if name != "maxSurge" && name != "maxUnavailable" {
			return nil, fmt.Errorf("sweep[%d]: unknown parameter %q (want maxSurge or maxUnavailable)", i, name)
		}
		p := SweepParam{Name: name}
		for _, v := range strings.Split(vals, ",") {
			v = strings.TrimSpace(v)
			if v == "" {
				return nil, fmt.Errorf("sweep[%d]: empty value", i)
			}
			p.Values = append(p.Values, intstr.Parse(v))
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("sweep: no parameters")
	}
	return out, nil
}

// SweepRow is the outcome of one combination over several seeds.
type SweepRow struct {
	Params    string
	Err       string
	Runs      int
	Completed int
	// Means over the runs (time to complete over completed runs only).
	TimeToComplete time.Duration
	ScalingSteps   float64
	PeakPods       int
	MinAvailable   int32
	Below          time.Duration
}

// Sweep runs sc for every combination of the parameters (applied to every
// Deployment of the scenario, at load and in apply steps) and every seed.
func Sweep(sc *Scenario, params []SweepParam, seeds []uint64, o Options) ([]SweepRow, error) {
	combos := [][]intstr.IntOrString{{}}
	for _, p := range params {
		var next [][]intstr.IntOrString
		for _, c := range combos {
			for _, v := range p.Values {
				next = append(next, append(append([]intstr.IntOrString(nil), c...), v))
			}
		}
		combos = next
	}
	var rows []SweepRow
	for _, c := range combos {
		var names []string
		for i, p := range params {
			names = append(names, p.Name+"="+c[i].String())
		}
		row := SweepRow{Params: strings.Join(names, " "), MinAvailable: -1}
		variant := sc.withStrategy(params, c)
		var total, below time.Duration
		var steps int
		for _, seed := range seeds {
			o := o
			o.Seed = &seed
			o.NoTrace = true
			res, err := Run(variant, o)
			if err != nil {
				row.Err = err.Error()
				break
			}
			row.Runs++
			sm := res.Summary
			if sm.Completed {
				row.Completed++
				total += sm.TimeToComplete
			}
			steps += sm.ScalingSteps
			row.PeakPods = max(row.PeakPods, sm.PeakPods)
			if row.MinAvailable < 0 || sm.MinAvailable < row.MinAvailable {
				row.MinAvailable = sm.MinAvailable
			}
			below += sm.BelowMinAvailable
		}
		if row.Runs > 0 {
			row.ScalingSteps = float64(steps) / float64(row.Runs)
			row.Below = below / time.Duration(row.Runs)
		}
		if row.Completed > 0 {
			row.TimeToComplete = total / time.Duration(row.Completed)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// withStrategy returns a copy of sc whose Deployments use the swept values.
func (sc *Scenario) withStrategy(params []SweepParam, vals []intstr.IntOrString) *Scenario {
	c := *sc
	set := func(d *appsv1.Deployment) *appsv1.Deployment {
		d = d.DeepCopy()
		d.Spec.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
		if d.Spec.Strategy.RollingUpdate == nil {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		d = rollout.Default(d)
		for i, p := range params {
			v := vals[i]
			if p.Name == "maxSurge" {
				d.Spec.Strategy.RollingUpdate.MaxSurge = &v
			} else {
				d.Spec.Strategy.RollingUpdate.MaxUnavailable = &v
			}
		}
		return d
	}
	c.deployments = nil
	for _, d := range sc.deployments {
		c.deployments = append(c.deployments, set(d))
	}
	c.Steps = append([]Step(nil), sc.Steps...)
	for i := range c.Steps {
		if d, ok := c.Steps[i].apply.(*appsv1.Deployment); ok {
			c.Steps[i].apply = set(d)
		}
	}
	return &c
}

// DescribeSweep renders sweep rows as a table.
func DescribeSweep(rows []SweepRow) string {
	w := len("STRATEGY")
	for _, r := range rows {
		w = max(w, len(r.Params))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s  %9s  %14s  %13s  %9s  %13s  %18s\n", w, "STRATEGY", "COMPLETED", "TIME TO DONE", "SCALING STEPS", "PEAK PODS", "MIN AVAILABLE", "BELOW MINAVAILABLE")
	for _, r := range rows {
		if r.Err != "" {
			fmt.Fprintf(&b, "%-*s  error: %s\n", w, r.Params, r.Err)
			continue
		}
		done := "-"
		if r.Completed > 0 {
			done = r.TimeToComplete.Round(time.Millisecond).String()
		}
		fmt.Fprintf(&b, "%-*s  %4d/%-4d  %14s  %13.1f  %9d  %13d  %18s\n", w, r.Params, r.Completed, r.Runs, done, r.ScalingSteps, r.PeakPods, r.MinAvailable, r.Below.Round(time.Millisecond))
	}
	return b.String()
}
