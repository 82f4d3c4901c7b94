package diagnose

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Text renders the report for a person: for each Deployment, kubectl's
// line, the counts, the ReplicaSets, the next sync and the blockers. It is
// deterministic.
func (r *Report) Text() string {
	var b strings.Builder
	if r.NowFrom == NowUnknown {
		fmt.Fprintf(&b, "now: unknown (the snapshot records no time; give -now)\n")
	} else {
		fmt.Fprintf(&b, "now: %s (%s)\n", r.Now.Format(time.RFC3339), r.NowFrom)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	if len(r.Ignored) > 0 {
		var kinds []string
		for k, n := range r.Ignored {
			kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
		}
		slices.Sort(kinds)
		fmt.Fprintf(&b, "ignored: %s\n", strings.Join(kinds, ", "))
	}
	if r.OtherNamespaces > 0 {
		fmt.Fprintf(&b, "left out: %d objects in other namespaces\n", r.OtherNamespaces)
	}
	if len(r.Deployments) == 0 {
		b.WriteString("no deployments\n")
	}
	for _, t := range r.deploymentTexts() {
		b.WriteString("\n")
		b.WriteString(t)
	}
	return b.String()
}

// deploymentTexts renders each Deployment's text, on every core when
// there are many (each from its own diagnosis alone).
func (r *Report) deploymentTexts() []string {
	out := make([]string, len(r.Deployments))
	render := func(i int) {
		var b strings.Builder
		r.Deployments[i].text(&b)
		out[i] = b.String()
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(out)/64, 1)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(out); i = int(next.Add(1) - 1) {
				render(i)
			}
		})
	}
	wg.Wait()
	return out
}

func (d *Deployment) text(b *strings.Builder) {
	strategy := d.Strategy
	if d.Strategy == "RollingUpdate" {
		// a percentage with what it resolves to, as the simulator's trace
		// shows it: "maxSurge 25% (1)"
		limit := func(percent string, v int32) string {
			if percent != "" {
				return fmt.Sprintf("%s (%d)", percent, v)
			}
			return fmt.Sprint(v)
		}
		strategy = fmt.Sprintf("RollingUpdate maxSurge %s maxUnavailable %s", limit(d.MaxSurgePercent, d.MaxSurge), limit(d.MaxUnavailablePercent, d.MaxUnavailable))
	}
	if d.MinReadySeconds > 0 {
		strategy += fmt.Sprintf(", minReadySeconds %d", d.MinReadySeconds)
	}
	rev := ""
	if d.Revision != "" {
		rev = ", revision " + d.Revision
	}
	paused := ""
	if d.Paused {
		paused = ", paused"
	}
	fmt.Fprintf(b, "deployment %s/%s: %d replicas, %s%s%s\n", d.Namespace, d.Name, d.Replicas, strategy, rev, paused)
	st := &d.Status
	if st.DeadlineExceeded && strings.HasSuffix(st.Message, "exceeded its progress deadline") {
		fmt.Fprintf(b, "  kubectl rollout status: error: %s\n", st.Message)
	} else {
		fmt.Fprintf(b, "  kubectl rollout status: %s\n", st.Message)
	}
	term := ""
	if st.TerminatingReplicas != nil {
		term = fmt.Sprintf(", terminating %d", *st.TerminatingReplicas)
	}
	fmt.Fprintf(b, "  status: generation %d (observed %d); replicas %d, updated %d, ready %d, available %d, unavailable %d%s\n",
		st.Generation, st.ObservedGeneration, st.Replicas, st.UpdatedReplicas, st.ReadyReplicas, st.AvailableReplicas, st.UnavailableReplicas, term)
	if len(st.Conditions) > 0 {
		fmt.Fprintf(b, "  conditions: %s\n", strings.Join(st.Conditions, "; "))
	}
	for _, m := range d.Missing {
		fmt.Fprintf(b, "  missing: %s\n", m)
	}
	if len(d.ReplicaSets) == 0 {
		b.WriteString("  replica sets: none\n")
	} else {
		b.WriteString("  replica sets:\n")
	}
	for _, rs := range d.ReplicaSets {
		role := "old"
		if rs.New {
			role = "new"
		}
		term := ""
		if rs.Terminating != nil && *rs.Terminating > 0 {
			term = fmt.Sprintf(", terminating %d", *rs.Terminating)
		}
		fmt.Fprintf(b, "    %s %s (revision %s): size %d, current %d, ready %d, available %d%s; %s\n",
			role, rs.Name, rs.Revision, rs.Replicas, rs.Current, rs.Ready, rs.Available, term, strings.Join(rs.Images, ", "))
	}
	n := &d.NextSync
	if n.Assumes != "" {
		fmt.Fprintf(b, "  next sync, assuming %s (the snapshot does not say):\n", n.Assumes)
	} else {
		b.WriteString("  next sync:\n")
	}
	if n.Error != "" {
		fmt.Fprintf(b, "    cannot plan: %s\n", n.Error)
	}
	if len(n.Actions) == 0 && n.Error == "" {
		b.WriteString("    no writes\n")
	}
	for i, a := range n.Actions {
		fmt.Fprintf(b, "    %d. %s\n", i+1, a.Text)
	}
	for _, e := range n.Events {
		fmt.Fprintf(b, "    event: %s\n", e)
	}
	for _, x := range n.Notes {
		fmt.Fprintf(b, "    note: %s\n", x)
	}
	if n.Stop != "" {
		fmt.Fprintf(b, "    stopped: %s\n", n.Stop)
	}
	if n.Requeue != "" {
		fmt.Fprintf(b, "    requeue: %s\n", n.Requeue)
	}
	if len(d.Blockers) > 0 {
		b.WriteString("  why it does not move:\n")
	}
	for _, bl := range d.Blockers {
		fmt.Fprintf(b, "    - %s: %s\n", bl.Reason, bl.Message)
	}
}
