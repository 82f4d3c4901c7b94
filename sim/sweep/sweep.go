package sweep

import (
	"fmt"
	"github.com/deploymath/deploymath/sim"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deploymath/deploymath/fencepost"
	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Param is one swept parameter and its values, as written: integers
// as Int, everything else (percentages, strategy types, durations, delay
// ranges) as String. See [Parse] for the parameters.
type Param struct {
	Name   string
	Values []intstr.IntOrString
}

// sweepParams are the parameters a sweep may vary, with what each value
// must look like.
var sweepParams = map[string]struct {
	check func(v string) error
	doc   string
}{
	"maxSurge":                {checkIntOrPercent, "an integer or a percentage"},
	"maxUnavailable":          {checkIntOrPercent, "an integer or a percentage"},
	"strategy":                {checkStrategy, "RollingUpdate or Recreate"},
	"replicas":                {checkCount(sim.MaxReplicas), "an integer from 0 to sim.MaxReplicas"},
	"minReadySeconds":         {checkCount(1 << 30), "a non-negative integer"},
	"progressDeadlineSeconds": {checkCount(1 << 30), "a non-negative integer"},
	"controllerLatency":       {checkDuration, "a duration such as 10ms"},
	"startup":                 {checkRange, "a delay or a range such as 1s-4s"},
	"readiness":               {checkRange, "a delay or a range such as 0s-2s"},
}

// ParamNames lists the parameters [Parse] accepts.
func ParamNames() []string {
	var out []string
	for n := range sweepParams {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func checkIntOrPercent(v string) error {
	if !sweepValueRE.MatchString(v) || len(v) > 10 {
		return fmt.Errorf("want a non-negative integer or a percentage such as 25%%")
	}
	return nil
}

func checkStrategy(v string) error {
	if v != string(appsv1.RollingUpdateDeploymentStrategyType) && v != string(appsv1.RecreateDeploymentStrategyType) {
		return fmt.Errorf("want RollingUpdate or Recreate")
	}
	return nil
}

func checkCount(limit int) func(string) error {
	return func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > limit {
			return fmt.Errorf("want an integer from 0 to %d", limit)
		}
		return nil
	}
}

func checkDuration(v string) error {
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return fmt.Errorf("want a non-negative duration such as 10ms")
	}
	return nil
}

func checkRange(v string) error {
	_, err := parseRange(v)
	return err
}

// parseRange reads "1s-4s" (or "2s": that delay exactly).
func parseRange(v string) (sim.Range, error) {
	lo, hi, ok := strings.Cut(v, "-")
	if !ok {
		hi = lo
	}
	a, err1 := time.ParseDuration(lo)
	b, err2 := time.ParseDuration(hi)
	if err1 != nil || err2 != nil || a < 0 || b < a {
		return sim.Range{}, fmt.Errorf("want a delay or a range min-max such as 1s-4s")
	}
	return sim.Range{Min: sim.Duration(a), Max: sim.Duration(b)}, nil
}

// Limits of a sweep, which runs the scenario once per combination of the
// swept values and per seed.
const (
	// MaxSeeds is the largest number of seeds per combination.
	MaxSeeds = 1000
	// MaxRuns is the largest number of runs of one sweep
	// (combinations × seeds).
	MaxRuns = 10_000
)

// sweepValueRE is what the API server accepts for maxSurge and
// maxUnavailable: a non-negative integer or an integer percentage.
var sweepValueRE = regexp.MustCompile(`^[0-9]+%?$`)

// Parse parses "maxSurge=0,1,25%;maxUnavailable=1,10%". The
// parameters are the strategy's maxSurge and maxUnavailable (integers or
// percentages; either makes the strategy RollingUpdate), strategy
// (RollingUpdate or Recreate), replicas, minReadySeconds and
// progressDeadlineSeconds of every Deployment, and the cluster's
// controllerLatency (a duration) and startup and readiness delays (a
// delay or a range, 1s-4s). Each parameter may appear once; the
// combinations must not exceed [MaxRuns].
func Parse(spec string) ([]Param, error) {
	var out []Param
	combos := 1
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
		kind, known := sweepParams[name]
		if !known {
			return nil, fmt.Errorf("sweep[%d]: unknown parameter %q (want one of %s)", i, name, strings.Join(ParamNames(), ", "))
		}
		for _, prev := range out {
			if prev.Name == name {
				return nil, fmt.Errorf("sweep[%d]: parameter %s given twice (list its values once: %s=v1,v2)", i, name, name)
			}
		}
		p := Param{Name: name}
		for _, v := range strings.Split(vals, ",") {
			v = strings.TrimSpace(v)
			if v == "" {
				return nil, fmt.Errorf("sweep[%d]: %s: empty value", i, name)
			}
			if err := kind.check(v); err != nil {
				return nil, fmt.Errorf("sweep[%d]: %s: invalid value %q (%v)", i, name, v, err)
			}
			iv := intstr.Parse(v)
			if iv.Type == intstr.String && iv.StrVal == "" {
				return nil, fmt.Errorf("sweep[%d]: %s: invalid value %q", i, name, v)
			}
			p.Values = append(p.Values, iv)
		}
		combos *= len(p.Values)
		if combos > MaxRuns {
			return nil, fmt.Errorf("sweep: more than %d combinations (sweep.MaxRuns)", MaxRuns)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("sweep: no parameters")
	}
	return out, nil
}

// Row is the outcome of one combination over several seeds.
type Row struct {
	// Params names the combination ("maxSurge=1 maxUnavailable=0").
	Params string `json:"params"`
	// Err is the error of the combination's first failed run, by seed
	// order; the counts and means cover the runs before it.
	Err       string `json:"error,omitempty"`
	Runs      int    `json:"runs"`
	Completed int    `json:"completed"`
	// Resolved is Params with what each percentage resolves to for the
	// scenario's Deployments ("maxSurge=25% (1) maxUnavailable=25% (0)";
	// "maxSurge=25% (1 web, 3 api)" when they differ); "" when nothing is
	// a percentage.
	Resolved string `json:"resolved,omitempty"`
	// TimeToComplete is the mean over the completed runs,
	// TimeToCompleteP50 their median (the lower middle one of an even
	// count), TimeToCompleteMin and TimeToCompleteMax the fastest and the
	// slowest; durations in nanoseconds in JSON.
	TimeToComplete    time.Duration `json:"timeToComplete"`
	TimeToCompleteP50 time.Duration `json:"timeToCompleteP50"`
	TimeToCompleteMin time.Duration `json:"timeToCompleteMin"`
	TimeToCompleteMax time.Duration `json:"timeToCompleteMax"`
	// ScalingSteps is the mean over the runs.
	ScalingSteps float64 `json:"scalingSteps"`
	// PeakRunning is the worst (largest) over the runs of the most pods
	// of the Deployments running at once (terminating ones not counted:
	// the figure maxSurge bounds), PeakTerminating the most terminating at
	// once, and PeakPods the most pods in the cluster at once, terminating
	// ones included. MinAvailable is the worst (smallest; -1 without a
	// run) number of available pods.
	PeakRunning     int   `json:"peakRunning"`
	PeakTerminating int   `json:"peakTerminating"`
	PeakPods        int   `json:"peakPods"`
	MinAvailable    int32 `json:"minAvailable"`
	// Below is the mean time below minAvailable over the runs.
	Below time.Duration `json:"belowMinAvailable"`
}

// Rows runs sc for every combination of the parameters (applied to every
// Deployment of the scenario, at load and in apply steps) and every seed,
// one run after the other, and returns a row per combination in the order
// of the parameters' values (the last parameter varies fastest). With no
// parameters it runs the scenario as written, in one row labelled
// [AsWritten]. Before running anything it refuses more than
// [MaxSeeds] seeds, more than [MaxRuns] runs, and a combination
// the API server would refuse for one of the Deployments (such as
// maxSurge=0 with maxUnavailable=0); the error names the combination. A
// run that fails is reported in its row. [Run] runs the same sweep on
// several goroutines, or a shard of it, with the same rows.
func Rows(sc *sim.Scenario, params []Param, seeds []uint64, o sim.Options) ([]Row, error) {
	r, err := Run(sc, params, seeds, o, Config{Parallel: 1})
	if err != nil {
		return nil, err
	}
	return r.Rows, nil
}

// AsWritten labels the row of a sweep without parameters: the
// scenario's own strategies over several seeds.
const AsWritten = "as written"

// sweepSpace is a validated sweep: the scenario variant and the name of
// each combination, and the seeds. Run k (from 0) is combination
// k / len(seeds) with seed seeds[k % len(seeds)].
type sweepSpace struct {
	spec     string
	names    []string
	resolved []string // see Row.Resolved; nil when no value is a percentage
	variants []*sim.Scenario
	seeds    []uint64
}

func newSweepSpace(sc *sim.Scenario, params []Param, seeds []uint64) (*sweepSpace, error) {
	if len(seeds) == 0 {
		return nil, fmt.Errorf("sweep: no seeds")
	}
	if len(seeds) > MaxSeeds {
		return nil, fmt.Errorf("sweep: %d seeds is above the limit of %d (sweep.MaxSeeds)", len(seeds), MaxSeeds)
	}
	n := len(seeds)
	for _, p := range params {
		n *= len(p.Values)
		if n > MaxRuns {
			return nil, fmt.Errorf("sweep: more than %d runs (combinations × seeds; sweep.MaxRuns)", MaxRuns)
		}
	}
	sp := &sweepSpace{spec: formatSweep(params), seeds: slices.Clone(seeds)}
	if len(params) == 0 {
		sp.names = []string{AsWritten}
		sp.variants = []*sim.Scenario{sc}
		return sp, nil
	}
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
	sp.variants = make([]*sim.Scenario, len(combos))
	sp.names = make([]string, len(combos))
	resolved := make([]string, len(combos))
	anyPercent := false
	for j, c := range combos {
		var parts []string
		for i, p := range params {
			parts = append(parts, p.Name+"="+c[i].String())
		}
		sp.names[j] = strings.Join(parts, " ")
		v, limits, err := withStrategy(sc, params, c)
		if err != nil {
			return nil, fmt.Errorf("sweep %s: %w", sp.names[j], err)
		}
		sp.variants[j] = v
		var percent bool
		resolved[j], percent = resolvedName(params, c, limits)
		anyPercent = anyPercent || percent
	}
	if anyPercent {
		sp.resolved = resolved
	}
	return sp, nil
}

// limits are what a Deployment of a variant resolves its strategy to.
type limits struct {
	name                     string
	maxSurge, maxUnavailable int32
}

// resolvedName is a combination's name with what each percentage of
// maxSurge and maxUnavailable resolves to for the variant's Deployments
// ls, and whether there was one.
func resolvedName(params []Param, vals []intstr.IntOrString, ls []limits) (string, bool) {
	percent := false
	var parts []string
	for i, p := range params {
		part := p.Name + "=" + vals[i].String()
		if (p.Name == "maxSurge" || p.Name == "maxUnavailable") && vals[i].Type == intstr.String && len(ls) > 0 {
			percent = true
			value := func(l limits) int32 {
				if p.Name == "maxSurge" {
					return l.maxSurge
				}
				return l.maxUnavailable
			}
			same := true
			var each []string
			for _, l := range ls {
				same = same && value(l) == value(ls[0])
				each = append(each, fmt.Sprintf("%d %s", value(l), l.name))
			}
			if same {
				part += fmt.Sprintf(" (%d)", value(ls[0]))
			} else {
				part += " (" + strings.Join(each, ", ") + ")"
			}
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " "), percent
}

// formatSweep is the canonical form of a parsed sweep, as [Parse]
// reads it: "maxSurge=0,1;maxUnavailable=25%".
func formatSweep(params []Param) string {
	var parts []string
	for _, p := range params {
		vals := make([]string, len(p.Values))
		for i, v := range p.Values {
			vals[i] = v.String()
		}
		parts = append(parts, p.Name+"="+strings.Join(vals, ","))
	}
	return strings.Join(parts, ";")
}

// runs is the number of runs of the whole space.
func (sp *sweepSpace) runs() int { return len(sp.names) * len(sp.seeds) }

// run runs run k without a trace.
func (sp *sweepSpace) run(k int, o sim.Options) RunSummary {
	seed := sp.seeds[k%len(sp.seeds)]
	r := RunSummary{Combination: k / len(sp.seeds), Seed: seed}
	o.Seed = &seed
	o.NoTrace = true
	res, err := sim.Run(sp.variants[r.Combination], o)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	r.Summary = &res.Summary
	r.Summary.Deployments = nil // a run's report keeps the totals: the table compares runs
	return r
}

// sweepRows condenses the runs of every combination, in seed order. A
// combination's row stops at its first failed run (by seed order): Err is
// that run's error and the counts cover the runs before it. runs holds
// every run of the space, in run order.
func sweepRows(names, resolved []string, nseeds int, runs []RunSummary) []Row {
	rows := make([]Row, 0, len(names))
	for j, name := range names {
		row := Row{Params: name, MinAvailable: -1}
		if j < len(resolved) {
			row.Resolved = resolved[j]
		}
		var total, below time.Duration
		var steps int
		var times []time.Duration
		for _, r := range runs[j*nseeds : (j+1)*nseeds] {
			if r.Err != "" {
				row.Err = r.Err
				break
			}
			row.Runs++
			sm := r.Summary
			if sm.Completed {
				row.Completed++
				total += sm.TimeToComplete
				times = append(times, sm.TimeToComplete)
			}
			steps += sm.ScalingSteps
			row.PeakPods = max(row.PeakPods, sm.PeakPods)
			row.PeakRunning = max(row.PeakRunning, sm.PeakRunning)
			row.PeakTerminating = max(row.PeakTerminating, sm.PeakTerminating)
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
			slices.Sort(times)
			row.TimeToCompleteP50 = times[(len(times)-1)/2]
			row.TimeToCompleteMin, row.TimeToCompleteMax = times[0], times[len(times)-1]
		}
		rows = append(rows, row)
	}
	return rows
}

// withStrategy returns a copy of sc whose Deployments and cluster use the
// swept values, each Deployment validated, and what each Deployment's
// strategy resolves to (in the order the variant edits them, each
// Deployment once).
func withStrategy(sc *sim.Scenario, params []Param, vals []intstr.IntOrString) (*sim.Scenario, []limits, error) {
	var ls []limits
	set := func(d *appsv1.Deployment) *appsv1.Deployment {
		d = setStrategy(d, params, vals)
		l := limits{name: d.Name, maxSurge: fencepost.MaxSurge(d), maxUnavailable: fencepost.MaxUnavailable(d)}
		if !slices.Contains(ls, l) {
			ls = append(ls, l)
		}
		return d
	}
	cluster := func(c *sim.Cluster) {
		for i, p := range params {
			v := vals[i].String()
			switch p.Name {
			case "controllerLatency":
				l, _ := time.ParseDuration(v) // checked by Parse
				c.ControllerLatency = sim.Duration(l)
			case "startup":
				c.Startup, _ = parseRange(v)
			case "readiness":
				c.Readiness, _ = parseRange(v)
			}
		}
	}
	v, err := sc.Variant(set, cluster)
	return v, ls, err
}

// setStrategy sets the swept values of d, a defaulted copy.
func setStrategy(d *appsv1.Deployment, params []Param, vals []intstr.IntOrString) *appsv1.Deployment {
	for i, p := range params {
		if p.Name == "maxSurge" || p.Name == "maxUnavailable" {
			d.Spec.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
		}
		if p.Name == "strategy" {
			d.Spec.Strategy.Type = appsv1.DeploymentStrategyType(vals[i].StrVal)
		}
	}
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		d.Spec.Strategy.RollingUpdate = nil
	} else if d.Spec.Strategy.RollingUpdate == nil {
		d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{}
	}
	d = rollout.Default(d)
	for i, p := range params {
		v := vals[i]
		n := int32(v.IntValue())
		switch p.Name {
		case "maxSurge":
			d.Spec.Strategy.RollingUpdate.MaxSurge = &v
		case "maxUnavailable":
			d.Spec.Strategy.RollingUpdate.MaxUnavailable = &v
		case "replicas":
			d.Spec.Replicas = &n
		case "minReadySeconds":
			d.Spec.MinReadySeconds = n
		case "progressDeadlineSeconds":
			d.Spec.ProgressDeadlineSeconds = &n
		}
	}
	return d
}

// Describe renders sweep rows as a table, a row per combination named
// as the chart names it: with what its percentages resolve to
// ([Row].Resolved), such as "maxSurge=25% (1)".
func Describe(rows []Row) string {
	w := len("COMBINATION")
	for _, r := range rows {
		w = max(w, len(rowLabel(r)))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s  %9s  %14s  %14s  %13s  %12s  %16s  %13s  %18s\n", w, "", "", "TIME TO DONE", "TIME TO DONE", "SCALING STEPS", "PEAK RUNNING", "PEAK TERMINATING", "MIN AVAILABLE", "BELOW MINAVAILABLE")
	fmt.Fprintf(&b, "%-*s  %9s  %14s  %14s  %13s  %12s  %16s  %13s  %18s\n", w, "COMBINATION", "COMPLETED", "(mean)", "(p50)", "(mean)", "(worst)", "(worst)", "(worst)", "(mean)")
	for _, r := range rows {
		if r.Err != "" {
			fmt.Fprintf(&b, "%-*s  error: %s\n", w, rowLabel(r), r.Err)
			continue
		}
		done, p50 := "-", "-"
		if r.Completed > 0 {
			done = r.TimeToComplete.Round(time.Millisecond).String()
			p50 = r.TimeToCompleteP50.Round(time.Millisecond).String()
		}
		fmt.Fprintf(&b, "%-*s  %4d/%-4d  %14s  %14s  %13.1f  %12d  %16d  %13d  %18s\n", w, rowLabel(r), r.Completed, r.Runs, done, p50, r.ScalingSteps, r.PeakRunning, r.PeakTerminating, r.MinAvailable, r.Below.Round(time.Millisecond))
	}
	return b.String()
}
