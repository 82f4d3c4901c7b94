package rollout_test

import (
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"pgregory.net/rapid"
)

// HistoryToDelete orders candidates exactly as upstream's
// sort.Sort(ReplicaSetsByRevision) does, also where that comparison is not
// a consistent order (an unparsable revision compares by creation time
// while the others compare by revision), on lists long enough for every
// branch of the sort (insertion sort up to 12, pdqsort beyond).
func TestHistoryToDeleteSortsAsSortSort(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 60).Draw(t, "n")
		old := make([]rollout.ReplicaSet, n)
		for i := range old {
			old[i] = rollout.ReplicaSet{
				Name:        fmt.Sprintf("rs-%02d", rapid.IntRange(0, 99).Draw(t, "name")),
				Created:     t0.Add(time.Duration(rapid.IntRange(0, 5).Draw(t, "created")) * time.Second),
				Revision:    int64(rapid.IntRange(0, 8).Draw(t, "revision")),
				BadRevision: rapid.IntRange(0, 4).Draw(t, "bad") == 0,
				Generation:  1, ObservedGeneration: 1,
			}
		}
		// Limit 0: every candidate is looked at, so Delete is the whole
		// sorted order (every ReplicaSet is empty and observed).
		h, err := rollout.HistoryToDelete(&rollout.Params{RevisionHistoryLimit: i32p(0)}, old)
		if err != nil {
			t.Fatal(err)
		}
		want := make(byRevisionRef, n)
		for i := range want {
			want[i] = refEntry{i, &old[i]}
		}
		sort.Sort(want)
		var wantIdx []int
		for _, e := range want {
			wantIdx = append(wantIdx, e.i)
		}
		if !slices.Equal(h.Delete, wantIdx) {
			t.Fatalf("order %v, sort.Sort gives %v", h.Delete, wantIdx)
		}
	})
}

type refEntry struct {
	i  int
	rs *rollout.ReplicaSet
}

// byRevisionRef is upstream's ReplicaSetsByRevision comparison over
// sort.Interface, as upstream sorts.
type byRevisionRef []refEntry

func (o byRevisionRef) Len() int      { return len(o) }
func (o byRevisionRef) Swap(i, j int) { o[i], o[j] = o[j], o[i] }
func (o byRevisionRef) Less(i, j int) bool {
	a, b := o[i].rs, o[j].rs
	if a.BadRevision || b.BadRevision || a.Revision == b.Revision {
		if a.Created.Equal(b.Created) {
			return a.Name < b.Name
		}
		return a.Created.Before(b.Created)
	}
	return a.Revision < b.Revision
}
