package revision

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
)

func annotationsGen() *rapid.Generator[map[string]string] {
	keys := []string{"a", "b", RevisionAnnotation, RevisionHistoryAnnotation, DesiredReplicasAnnotation,
		MaxReplicasAnnotation, LastAppliedConfigAnnotation, RollbackToAnnotation, ChangeCauseAnnotation}
	return rapid.Custom(func(t *rapid.T) map[string]string {
		if rapid.Bool().Draw(t, "nil") {
			return nil
		}
		m := map[string]string{}
		for _, k := range keys {
			if rapid.Bool().Draw(t, "has "+k) {
				m[k] = rapid.SampledFrom([]string{"", "1", "2", "10", "x", "-3"}).Draw(t, "value "+k)
			}
		}
		return m
	})
}

// historyGen draws a revision-history value: comma-separated decimal
// revisions, sometimes long enough to hit the 2000-character limit.
func historyGen() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		n := rapid.IntRange(0, 700).Draw(t, "entries")
		parts := make([]string, n)
		for i := range parts {
			parts[i] = strconv.FormatInt(rapid.Int64Range(0, 1<<40).Draw(t, "entry"), 10)
		}
		return strings.Join(parts, ",")
	})
}

func TestPropertyNewReplicaSetAnnotations(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := deploymentWith(annotationsGen().Draw(t, "deployment"), rapid.Int32Range(0, 1000).Draw(t, "replicas"))
		rs := rsWith("rs", "", 0)
		rs.Annotations = annotationsGen().Draw(t, "rs")
		if rapid.Bool().Draw(t, "revision") {
			if rs.Annotations == nil {
				rs.Annotations = map[string]string{}
			}
			rs.Annotations[RevisionAnnotation] = strconv.FormatInt(rapid.Int64Range(0, 1<<40).Draw(t, "rev"), 10)
			rs.Annotations[RevisionHistoryAnnotation] = historyGen().Draw(t, "history")
		}
		newRevision := strconv.FormatInt(rapid.Int64Range(0, 1<<41).Draw(t, "newRevision"), 10)
		exists := rapid.Bool().Draw(t, "exists")
		dBefore, rsBefore := d.DeepCopy(), rs.DeepCopy()

		got, changed := NewReplicaSetAnnotations(d, rs, newRevision, exists, rapid.Int32Range(0, 100).Draw(t, "maxSurge"))

		if !reflect.DeepEqual(d, dBefore) || !reflect.DeepEqual(rs, rsBefore) {
			t.Fatalf("inputs mutated")
		}
		if got == nil {
			t.Fatalf("nil result")
		}
		oldHistory := rs.Annotations[RevisionHistoryAnnotation]
		if h := got[RevisionHistoryAnnotation]; len(h) > MaxHistoryChars && len(h) > len(oldHistory) {
			t.Fatalf("history grew past the limit: %d chars (was %d)", len(h), len(oldHistory))
		}
		if !changed && !reflect.DeepEqual(got, rs.Annotations) && len(got)+len(rs.Annotations) > 0 {
			// Only the unparsable-revision path may report false with
			// copied Deployment annotations.
			if _, err := strconv.ParseInt(rs.Annotations[RevisionAnnotation], 10, 64); err == nil || rs.Annotations[RevisionAnnotation] == "" {
				t.Fatalf("unchanged but annotations differ:\n%v\n%v", got, rs.Annotations)
			}
		}
		// Applying the result again changes nothing (idempotent).
		rs2 := rs.DeepCopy()
		rs2.Annotations = got
		again, changedAgain := NewReplicaSetAnnotations(d, rs2, newRevision, exists, 0)
		if changedAgain && exists {
			t.Fatalf("second application changed: %v -> %v", got, again)
		}
		// Never copied keys only come from rs or the revision bookkeeping.
		for k := range got {
			if SkipCopy(k) && k != RevisionAnnotation && k != RevisionHistoryAnnotation && k != DesiredReplicasAnnotation && k != MaxReplicasAnnotation {
				if _, fromRS := rs.Annotations[k]; !fromRS {
					t.Fatalf("%s copied from the Deployment", k)
				}
			}
		}
	})
}

func TestPropertyByRevision(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 12).Draw(t, "n")
		rss := make([]*appsv1.ReplicaSet, n)
		for i := range rss {
			if rapid.IntRange(0, 9).Draw(t, "nil") == 0 {
				continue
			}
			rev := rapid.SampledFrom([]string{"", "1", "2", "3", "bad"}).Draw(t, "rev")
			rss[i] = rsWith(rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "name"), rev, rapid.IntRange(0, 3).Draw(t, "age"))
			rss[i].UID = types.UID("u" + strconv.Itoa(i))
		}
		sorted := ByRevision(rss)
		if len(sorted) != len(rss) {
			t.Fatalf("length changed")
		}
		// Same result from any permutation of the input.
		perm := rapid.Permutation(rss).Draw(t, "perm")
		if again := ByRevision(perm); !reflect.DeepEqual(names(again), names(sorted)) {
			t.Fatalf("order depends on input order:\n%v\n%v", names(sorted), names(again))
		}
		// Revisions ascend among parsable ones; max and last agree.
		var prev int64 = -1 << 62
		for _, rs := range sorted {
			if rs == nil {
				continue
			}
			if v, err := Revision(rs); err == nil {
				if v < prev {
					t.Fatalf("revisions not ascending: %v", names(sorted))
				}
				prev = v
			}
		}
		if LastRevision(rss) > MaxRevision(rss) {
			t.Fatalf("LastRevision > MaxRevision")
		}
	})
}

func names(rss []*appsv1.ReplicaSet) []string {
	out := make([]string, len(rss))
	for i, rs := range rss {
		out[i] = nameOf(rs)
		if rs != nil {
			out[i] += fmt.Sprintf("@%s", rs.Annotations[RevisionAnnotation])
		}
	}
	return out
}
