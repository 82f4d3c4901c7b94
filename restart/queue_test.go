package restart

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// The heap-backed queue agrees with a plain list model under random
// touches, removals and due queries.
func TestPropQueueMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q changeQueue
		type entry struct {
			key   string
			first time.Time
			count int
			seq   int
		}
		var model []entry
		seq := 0
		base := time.Unix(0, 0)
		keys := rapid.SampledFrom([]string{"a", "b", "c", "d", "e", "f"})
		t.Repeat(map[string]func(*rapid.T){
			"touch": func(t *rapid.T) {
				k := keys.Draw(t, "key")
				at := base.Add(time.Duration(rapid.IntRange(0, 20).Draw(t, "at")) * time.Second)
				q.touch(k, at)
				for i := range model {
					if model[i].key == k {
						model[i].count++
						return
					}
				}
				seq++
				model = append(model, entry{k, at, 1, seq})
			},
			"remove": func(t *rapid.T) {
				k := keys.Draw(t, "key")
				q.remove(k)
				model = slices.DeleteFunc(model, func(e entry) bool { return e.key == k })
			},
			"": func(t *rapid.T) {
				cutoff := base.Add(time.Duration(rapid.IntRange(0, 21).Draw(t, "cutoff")) * time.Second)
				var want []string
				sorted := slices.Clone(model)
				slices.SortFunc(sorted, func(a, b entry) int {
					if c := a.first.Compare(b.first); c != 0 {
						return c
					}
					return a.seq - b.seq
				})
				for _, e := range sorted {
					if !e.first.After(cutoff) {
						want = append(want, fmt.Sprint(e.key, e.count))
					}
				}
				var got []string
				for _, c := range q.due(nil, cutoff) {
					got = append(got, fmt.Sprint(c.Key, c.Count))
				}
				if !slices.Equal(want, got) {
					t.Fatalf("due(%v) = %v, want %v", cutoff.Sub(base), got, want)
				}
				if q.len() != len(model) {
					t.Fatalf("len %d, want %d", q.len(), len(model))
				}
				if len(sorted) > 0 && (q.min() == nil || q.min().Key != sorted[0].key) {
					t.Fatalf("min = %v, want %s", q.min(), sorted[0].key)
				}
			},
		})
	})
}
