package rollout

import (
	"fmt"
	"strings"
)

// Explain renders the result for a person: each action with its reasons,
// the events, the notes on what was not done and why, and when to sync
// again. The text is deterministic. A nil Result reads "no result".
func (r *Result) Explain() string {
	if r == nil {
		return "no result\n"
	}
	var b strings.Builder
	if len(r.Actions) == 0 {
		b.WriteString("no writes\n")
	}
	for i, a := range r.Actions {
		if a == nil {
			fmt.Fprintf(&b, "%d. <nil action>\n", i+1)
			continue
		}
		fmt.Fprintf(&b, "%d. %s\n", i+1, a.Explain())
	}
	for _, e := range r.Events {
		fmt.Fprintf(&b, "event: %s\n", e)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	switch {
	case r.Stop != "":
		fmt.Fprintf(&b, "stopped: %s (requeue rate-limited)\n", r.Stop)
	case r.Requeue.RateLimited:
		b.WriteString("requeue: now, rate-limited (progress deadline due)\n")
	case r.Requeue.After > 0:
		fmt.Fprintf(&b, "requeue: after %s (progress deadline check)\n", r.Requeue.After)
	}
	return b.String()
}
