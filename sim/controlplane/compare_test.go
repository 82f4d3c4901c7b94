package controlplane

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// comparison is the outcome of comparing the simulator's record with the
// real control plane's: a table for people and the differences that fail
// the test.
type comparison struct {
	Table string
	Diffs []string
	// Robust are the differences that remain when the comparison ignores
	// what the moment of each sync decides: per ReplicaSet only the
	// largest size and the last one are compared, and the
	// ScalingReplicaSet events are left out (how many steps a scale-down
	// takes, and so how many events it records, depends on how many pods
	// had become available at each sync). A subset of Diffs; empty when
	// the two runs are "equal up to timing".
	Robust []string
}

// peak is the largest of sizes (0 for none).
func peak(sizes []int32) int32 {
	var m int32
	for _, s := range sizes {
		m = max(m, s)
	}
	return m
}

func last(sizes []int32) int32 {
	if len(sizes) == 0 {
		return 0
	}
	return sizes[len(sizes)-1]
}

// otherEvents are the events that are not ScalingReplicaSet events.
func otherEvents(evs []string) []string {
	var out []string
	for _, e := range evs {
		if !strings.HasPrefix(e, "Normal ScalingReplicaSet: ") {
			out = append(out, e)
		}
	}
	return out
}

// normalise replaces every ReplicaSet name in s by "<rs rev N>", N being
// its revision on that side (names differ between the sides until the
// simulator applies the API server's defaulting, which changes the pod
// template hash).
func normalise(s string, names map[string]string) string {
	keys := make([]string, 0, len(names))
	for n := range names {
		keys = append(keys, n)
	}
	// Longest first, so that no name is replaced inside a longer one.
	slices.SortFunc(keys, func(a, b string) int {
		if d := len(b) - len(a); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	for _, n := range keys {
		s = strings.ReplaceAll(s, n, "<rs rev "+names[n]+">")
	}
	return s
}

func revisionNames(r rolloutRecord) map[string]string {
	m := map[string]string{}
	for _, rs := range r.ReplicaSets {
		m[rs.Name] = rs.Revision
	}
	return m
}

// scaleEvent matches the Deployment controller's scaling messages, to
// group them by ReplicaSet.
var scaleEvent = regexp.MustCompile(`^Normal ScalingReplicaSet: Scaled (?:up|down) replica set (<rs rev [^>]*>) from`)

// eventsByReplicaSet groups scaling events by the (normalised) ReplicaSet
// they scaled, keeping their order; other events go under "".
func eventsByReplicaSet(evs []string) map[string][]string {
	out := map[string][]string{}
	for _, e := range evs {
		k := ""
		if m := scaleEvent.FindStringSubmatch(e); m != nil {
			k = m[1]
		}
		out[k] = append(out[k], e)
	}
	return out
}

// compareRecords compares two records as the package documentation says:
// ReplicaSets matched by revision (sizes in order), events as a multiset
// and in order per ReplicaSet, the final revision, and the final status
// with condition reasons and normalised messages. Names and the global
// order of events are shown but never fail.
func compareRecords(simRec, realRec rolloutRecord) comparison {
	var diffs, robust []string
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	section := func(title string) {
		tw.Flush()
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(title + "\n")
	}

	simNames, realNames := revisionNames(simRec), revisionNames(realRec)

	// ReplicaSets by revision.
	section("REPLICASETS (matched by revision; names, sizes compared)")
	fmt.Fprintln(tw, "REV\tSIM NAME\tREAL NAME\tSIM SIZES\tREAL SIZES\t")
	revs := map[string]bool{}
	for _, r := range append(slices.Clone(simRec.ReplicaSets), realRec.ReplicaSets...) {
		revs[r.Revision] = true
	}
	for _, rev := range sortedRevisions(revs) {
		s, sok := findRevision(simRec, rev)
		r, rok := findRevision(realRec, rev)
		mark := ""
		switch {
		case !sok || !rok:
			mark = "DIFFERS: only on one side"
		case !slices.Equal(s.Sizes, r.Sizes):
			mark = "DIFFERS"
		case s.Name != r.Name && !s.Stamped && !r.Stamped:
			// The simulator applies the API server's defaulting before
			// hashing, so the pod-template-hash must be a cluster's.
			mark = "DIFFERS: name"
		}
		if mark != "" {
			d := fmt.Sprintf("revision %s: name sim %s, real %s; sizes sim %s, real %s", rev, name(s, sok), name(r, rok), sizes(s.Sizes, sok), sizes(r.Sizes, rok))
			diffs = append(diffs, d)
			if mark != "DIFFERS" || peak(s.Sizes) != peak(r.Sizes) || last(s.Sizes) != last(r.Sizes) {
				robust = append(robust, d)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", rev, name(s, sok), name(r, rok), sizes(s.Sizes, sok), sizes(r.Sizes, rok), mark)
	}

	// Events.
	simEv, realEv := normaliseAll(simRec.Events, simNames), normaliseAll(realRec.Events, realNames)
	section("EVENTS of the Deployment (ReplicaSet names normalised; compared as a multiset and in order per ReplicaSet)")
	fmt.Fprintln(tw, "#\tSIM\tREAL\t")
	for i := range max(len(simEv), len(realEv)) {
		s, r := at(simEv, i), at(realEv, i)
		mark := ""
		if s != r {
			mark = "(global order differs)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", i+1, s, r, mark)
	}
	if so, ro := sorted(otherEvents(simEv)), sorted(otherEvents(realEv)); !slices.Equal(so, ro) {
		robust = append(robust, fmt.Sprintf("events other than ScalingReplicaSet differ:\n  sim:  %q\n  real: %q", so, ro))
	}
	if !slices.Equal(sorted(simEv), sorted(realEv)) {
		diffs = append(diffs, fmt.Sprintf("events differ as a multiset:\n  sim:  %q\n  real: %q", sorted(simEv), sorted(realEv)))
	} else {
		simBy, realBy := eventsByReplicaSet(simEv), eventsByReplicaSet(realEv)
		for _, k := range sortedKeys(simBy) {
			if !slices.Equal(simBy[k], realBy[k]) {
				diffs = append(diffs, fmt.Sprintf("events of %q in a different order:\n  sim:  %q\n  real: %q", k, simBy[k], realBy[k]))
			}
		}
	}

	// Final revision and status.
	section("FINAL DEPLOYMENT (condition times not compared)")
	fmt.Fprintln(tw, "FIELD\tSIM\tREAL\t")
	field := func(label, s, r string) {
		mark := ""
		if s != r {
			mark = "DIFFERS"
			diffs = append(diffs, fmt.Sprintf("final %s: sim %s, real %s", label, s, r))
			robust = append(robust, diffs[len(diffs)-1])
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", label, s, r, mark)
	}
	field("revision", simRec.Revision, realRec.Revision)
	sf, rf := simRec.Final, realRec.Final
	field("generation/observed", fmt.Sprintf("%d/%d", sf.Generation, sf.ObservedGeneration), fmt.Sprintf("%d/%d", rf.Generation, rf.ObservedGeneration))
	field("replicas", fmt.Sprint(sf.Replicas), fmt.Sprint(rf.Replicas))
	field("updated", fmt.Sprint(sf.Updated), fmt.Sprint(rf.Updated))
	field("ready", fmt.Sprint(sf.Ready), fmt.Sprint(rf.Ready))
	field("available", fmt.Sprint(sf.Available), fmt.Sprint(rf.Available))
	field("unavailable", fmt.Sprint(sf.Unavailable), fmt.Sprint(rf.Unavailable))
	field("terminating", optional(sf.Terminating), optional(rf.Terminating))
	types := map[string]bool{}
	for _, c := range append(slices.Clone(sf.Conditions), rf.Conditions...) {
		types[c.Type] = true
	}
	for _, ty := range sortedKeys(types) {
		s, r := normalise(findCondition(sf, ty), simNames), normalise(findCondition(rf, ty), realNames)
		if ty == "Progressing" && simRec.Revision == realRec.Revision && staleProgressing(s, r, simRec.Revision) {
			diffs = append(diffs, fmt.Sprintf("final %s: sim %s, real %s (one side's message names an earlier ReplicaSet: a status write lost to a conflict)", ty, s, r))
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ty, s, r, "DIFFERS (stale message)")
			continue
		}
		field(ty, s, r)
	}
	tw.Flush()
	return comparison{Table: b.String(), Diffs: diffs, Robust: robust}
}

// staleMessage matches a normalised Progressing condition of a complete
// rollout.
var staleMessage = regexp.MustCompile(`^True NewReplicaSetAvailable: ReplicaSet "<rs rev (\d+)>" has successfully progressed\.$`)

// staleProgressing says whether two final Progressing conditions differ
// only in that one names the ReplicaSet of an earlier revision than rev,
// the final one, which the other names. Upstream leaves such a stale
// message: the status write that records "Created new replica set" (a
// new reason) can be refused with 409 Conflict when the controller's
// informer has not yet seen its previous status write; the condition
// then keeps the reason NewReplicaSetAvailable, and with as many replicas
// as updated ones (none, then all: Recreate) the controller never
// estimates progress again, so the message is never rewritten. Whether
// the write conflicts is timing.
func staleProgressing(a, b, rev string) bool {
	ma, mb := staleMessage.FindStringSubmatch(a), staleMessage.FindStringSubmatch(b)
	if ma == nil || mb == nil {
		return false
	}
	final, err := strconv.Atoi(rev)
	if err != nil {
		return false
	}
	ra, _ := strconv.Atoi(ma[1])
	rb, _ := strconv.Atoi(mb[1])
	return ra == final && rb < final || rb == final && ra < final
}

func sortedRevisions(revs map[string]bool) []string {
	out := make([]string, 0, len(revs))
	for r := range revs {
		out = append(out, r)
	}
	// Numerically, then as text (a revision that does not parse last).
	slices.SortFunc(out, func(a, b string) int {
		if d := len(a) - len(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return out
}

func findRevision(r rolloutRecord, rev string) (rsRecord, bool) {
	for _, rs := range r.ReplicaSets {
		if rs.Revision == rev {
			return rs, true
		}
	}
	return rsRecord{}, false
}

func findCondition(s finalStatus, ty string) string {
	for _, c := range s.Conditions {
		if c.Type == ty {
			return fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message)
		}
	}
	return "(none)"
}

func name(r rsRecord, ok bool) string {
	if !ok {
		return "-"
	}
	return r.Name
}

func sizes(s []int32, ok bool) string {
	if !ok {
		return "-"
	}
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, " → ")
}

func optional(p *int32) string {
	if p == nil {
		return "(unset)"
	}
	return fmt.Sprint(*p)
}

func normaliseAll(evs []string, names map[string]string) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = normalise(e, names)
	}
	return out
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "-"
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
