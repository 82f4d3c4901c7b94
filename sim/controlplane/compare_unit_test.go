package controlplane

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/sim"
)

// TestCompareRecords checks the comparison itself, without a cluster: the
// simulator's record against itself is equal, and each kind of difference
// is reported while the global order of events is not.
func TestCompareRecords(t *testing.T) {
	data, err := os.ReadFile(nginxScenario)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := sim.ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	base, err := simRecord(res, "nginx-deployment")
	if err != nil {
		t.Fatal(err)
	}
	if len(base.ReplicaSets) != 2 || len(base.Events) != 7 {
		t.Fatalf("the simulator's record: %d ReplicaSets, %d events; want 2 and 7", len(base.ReplicaSets), len(base.Events))
	}

	// renamed gives every ReplicaSet another name (another
	// pod-template-hash): a difference now that both sides default the
	// template before hashing.
	renamed := func(r rolloutRecord) rolloutRecord {
		out := clone(r)
		for i := range out.ReplicaSets {
			old := out.ReplicaSets[i].Name
			nw := old[:len(old)-3] + "zzz"
			out.ReplicaSets[i].Name = nw
			for j := range out.Events {
				out.Events[j] = strings.ReplaceAll(out.Events[j], old, nw)
			}
			for j := range out.Final.Conditions {
				out.Final.Conditions[j].Message = strings.ReplaceAll(out.Final.Conditions[j].Message, old, nw)
			}
		}
		return out
	}

	for _, tc := range []struct {
		name  string
		edit  func(rolloutRecord) rolloutRecord
		diffs int
	}{
		{"same", clone, 0},
		{"renamed", renamed, 2}, // one per ReplicaSet; the messages are normalised
		{"events of two ReplicaSets interleaved differently", func(r rolloutRecord) rolloutRecord {
			out := clone(r)
			out.Events[2], out.Events[3] = out.Events[3], out.Events[2] // down rev 1, up rev 2
			return out
		}, 0},
		{"events of one ReplicaSet reordered", func(r rolloutRecord) rolloutRecord {
			out := clone(r)
			out.Events[2], out.Events[4] = out.Events[4], out.Events[2] // rev 1: 3→2 and 2→1
			return out
		}, 1},
		{"an event missing", func(r rolloutRecord) rolloutRecord {
			out := clone(r)
			out.Events = out.Events[1:]
			return out
		}, 1},
		{"a size skipped", func(r rolloutRecord) rolloutRecord {
			out := clone(r)
			out.ReplicaSets[0].Sizes = slices.Delete(out.ReplicaSets[0].Sizes, 1, 2)
			return out
		}, 1},
		{"another revision", func(r rolloutRecord) rolloutRecord {
			out := clone(r)
			out.ReplicaSets[1].Revision = "3"
			return out
		}, 4}, // each side has a revision the other lacks; the events and Progressing message name them
		{"another condition reason", func(r rolloutRecord) rolloutRecord {
			out := clone(r)
			out.Final.Conditions[1].Reason = "ReplicaSetUpdated"
			return out
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := compareRecords(base, tc.edit(base))
			if len(got.Diffs) != tc.diffs {
				t.Errorf("%d differences, want %d: %q\n%s", len(got.Diffs), tc.diffs, got.Diffs, got.Table)
			}
		})
	}

	// A Progressing message that names the first ReplicaSet at the end of
	// the second rollout is a difference up to timing (a lost status
	// write, see staleProgressing); one that names a later or another
	// ReplicaSet, or with another reason, is not.
	progressing := slices.IndexFunc(base.Final.Conditions, func(c condition) bool { return c.Type == "Progressing" })
	if progressing < 0 || base.Revision != "2" {
		t.Fatalf("the simulator's record: revision %s, conditions %+v; want revision 2 and a Progressing condition", base.Revision, base.Final.Conditions)
	}
	first, second := base.ReplicaSets[0].Name, base.ReplicaSets[1].Name
	for _, tc := range []struct {
		name          string
		reason, names string
		diffs, robust int
	}{
		{"stale message", "NewReplicaSetAvailable", first, 1, 0},
		{"same message", "NewReplicaSetAvailable", second, 0, 0},
		{"another ReplicaSet", "NewReplicaSetAvailable", "nginx-deployment-unknown", 1, 1},
		{"another reason", "ReplicaSetUpdated", first, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := clone(base)
			c := &out.Final.Conditions[progressing]
			c.Reason = tc.reason
			c.Message = strings.ReplaceAll(c.Message, second, tc.names)
			got := compareRecords(base, out)
			if len(got.Diffs) != tc.diffs || len(got.Robust) != tc.robust {
				t.Errorf("%d differences, %d up to timing; want %d and %d: %q\n%s", len(got.Diffs), len(got.Robust), tc.diffs, tc.robust, got.Diffs, got.Table)
			}
		})
	}
}

func clone(r rolloutRecord) rolloutRecord {
	out := r
	out.ReplicaSets = slices.Clone(r.ReplicaSets)
	for i := range out.ReplicaSets {
		out.ReplicaSets[i].Sizes = slices.Clone(r.ReplicaSets[i].Sizes)
	}
	out.Events = slices.Clone(r.Events)
	out.Final.Conditions = slices.Clone(r.Final.Conditions)
	return out
}
