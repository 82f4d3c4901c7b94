package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/deploymath/deploymath/sim"
)

// checkVerdict is -check's one-line verdict on a run, printed after the
// violations and warnings it sums up.
func checkVerdict(res *sim.Result) string {
	warned := ""
	if n := len(res.Warnings); n > 0 {
		warned = fmt.Sprintf("; %d warning%s above", n, plural(n))
	}
	if len(res.Violations) == 0 {
		return fmt.Sprintf("check: ok: every invariant held, after each of the %d Deployment syncs and at the end of the run%s", res.Stats.DeploymentSyncs, warned)
	}
	count := map[string]int{}
	for _, v := range res.Violations {
		count[v.Invariant]++
	}
	var names []string
	for name := range count {
		names = append(names, name)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s %d", name, count[name])
	}
	n := len(res.Violations)
	return fmt.Sprintf("check: FAILED: %d violation%s of %d invariant%s (%s), listed above%s",
		n, plural(n), len(names), plural(len(names)), strings.Join(parts, ", "), warned)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
