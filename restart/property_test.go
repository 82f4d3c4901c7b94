package restart_test

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"pgregory.net/rapid"

	"github.com/deploymath/deploymath/restart"
)

// A burst of edits of one config within the grace period gives exactly one
// restart, at the first check after the first edit's grace period.
func TestPropBurstWithinGracePeriodRestartsOnce(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c := newCluster(t, restart.DefaultOptions())
		grace := c.e.Options().GracePeriod
		n := rapid.IntRange(1, 10).Draw(rt, "edits")
		first := 10*sec + time.Duration(rapid.IntRange(0, 999).Draw(rt, "firstMs"))*time.Millisecond
		steps := []step{applyAt(0, cmA1), applyAt(0, web("cm:a"))}
		offsets := []time.Duration{0}
		for i := 1; i < n; i++ {
			offsets = append(offsets, time.Duration(rapid.Int64Range(0, int64(grace)-1).Draw(rt, "offset")))
		}
		slices.Sort(offsets)
		for i, off := range offsets {
			// every edit writes new data, never the recorded one
			steps = append(steps, applyAt(first+off, configMap("default", "a", map[string]string{"k": "v" + strconv.Itoa(i+2)})))
		}
		got := scenario(c, steps, first+3*grace)
		iv := c.e.Options().CheckInterval
		due := first + grace
		tick := (due + iv - 1) / iv * iv
		want := []string{"t=5s " + recAString, "t=" + tick.String() + " " + rstA()}
		if diff := cmp.Diff(want, got); diff != "" {
			rt.Fatalf("(-want +got):\n%s", diff)
		}
		if r := c.e.Counters().Restarts; r != 1 {
			rt.Fatalf("restarts counter = %d", r)
		}
	})
}

const recAString = "deployment/default/web record [configmap/default/a]"

// An edit restarts exactly the opted-in workloads that use the config.
func TestPropOnlyUsersRestart(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c := newCluster(t, restart.DefaultOptions())
		nc := rapid.IntRange(1, 5).Draw(rt, "configs")
		nw := rapid.IntRange(1, 6).Draw(rt, "workloads")
		var steps []step
		for i := range nc {
			steps = append(steps, applyAt(0, configMap("default", fmt.Sprint("c", i), map[string]string{"k": "1"})))
		}
		edited := rapid.IntRange(0, nc-1).Draw(rt, "edited")
		var users []string
		for w := range nw {
			var uses []string
			usesEdited := false
			for i := range nc {
				if rapid.Bool().Draw(rt, fmt.Sprintf("w%d uses c%d", w, i)) {
					uses = append(uses, fmt.Sprint("cm:c", i))
					usesEdited = usesEdited || i == edited
				}
			}
			ann := optIn()
			if rapid.Bool().Draw(rt, fmt.Sprintf("w%d opts out", w)) {
				ann = nil
			} else if usesEdited {
				users = append(users, fmt.Sprintf("deployment/default/w%d", w))
			}
			steps = append(steps, applyAt(0, deployment("default", fmt.Sprint("w", w), ann, uses...)))
		}
		scenario(c, steps, 10*sec)
		got := scenario(c, []step{applyAt(20*sec, configMap("default", fmt.Sprint("c", edited), map[string]string{"k": "2"}))}, 40*sec)
		var restarted []string
		for _, l := range got {
			if restarts([]string{l}) == 1 {
				var at, key string
				fmt.Sscan(l, &at, &key)
				restarted = append(restarted, key)
			}
		}
		if len(got) != len(restarted) {
			rt.Fatalf("decisions other than restarts: %v", got)
		}
		slices.Sort(users)
		if diff := cmp.Diff(users, restarted); diff != "" {
			rt.Fatalf("restarted (-users +got):\n%s", diff)
		}
	})
}

// Observing the same cluster state in any order, with repeats, gives the
// same catalog and the same decisions.
func TestPropObservationOrderConverges(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		nc := rapid.IntRange(0, 4).Draw(rt, "configs")
		nw := rapid.IntRange(0, 4).Draw(rt, "workloads")
		var objs []runtime.Object
		sums := map[string]string{}
		rv := 0
		for i := range nc {
			cm := configMap("default", fmt.Sprint("c", i), map[string]string{"k": rapid.SampledFrom([]string{"1", "2"}).Draw(rt, "data")})
			rv++
			cm.ResourceVersion = strconv.Itoa(rv)
			sums["configmap/default/"+cm.Name] = restart.ChecksumConfigMap(cm)
			objs = append(objs, cm)
		}
		for w := range nw {
			var uses []string
			recorded := map[string]string{}
			for i := range nc + 1 { // c<nc> is never created: a placeholder
				if !rapid.Bool().Draw(rt, "uses") {
					continue
				}
				uses = append(uses, fmt.Sprint("cm:c", i))
				key := fmt.Sprint("configmap/default/c", i)
				switch rapid.IntRange(0, 2).Draw(rt, "recorded") {
				case 1:
					recorded[key] = sums[key]
				case 2:
					recorded[key] = restart.ChecksumConfigMap(configMap("", "", map[string]string{"k": "old"}))
				}
			}
			ann := optIn()
			switch rapid.IntRange(0, 2).Draw(rt, "annotation") {
			case 1:
				ann[restart.DefaultChecksumsAnnotation] = restart.FormatChecksums(recorded)
			case 2:
				ann[restart.DefaultChecksumsAnnotation] = "{garbage"
			}
			d := deployment("default", fmt.Sprint("w", w), ann, uses...)
			rv++
			d.ResourceVersion = strconv.Itoa(rv)
			objs = append(objs, d)
		}
		type outcome struct {
			Configs   []restart.ConfigState
			Workloads []restart.WorkloadState
			Decisions []string
			Counters  restart.Counters
		}
		run := func(label string) outcome {
			order := rapid.Permutation(objs).Draw(rt, label)
			repeats := rapid.SliceOfN(rapid.IntRange(0, max(len(objs)-1, 0)), 0, 3).Draw(rt, label+" repeats")
			e, _ := restart.New(restart.DefaultOptions())
			for _, o := range order {
				must(t, e.Observe(o, t0))
			}
			for _, i := range repeats {
				if i < len(order) {
					must(t, e.Observe(order[i], t0))
				}
			}
			before := outcome{Configs: e.Configs(), Workloads: e.Workloads()}
			b := e.Release(at(5 * sec))
			var ds []string
			for _, d := range b.Decisions {
				ds = append(ds, describe(d)+" "+string(d.PatchJSON))
			}
			return outcome{before.Configs, before.Workloads, ds, e.Counters()}
		}
		a, b := run("order A"), run("order B")
		if diff := cmp.Diff(a, b); diff != "" {
			rt.Fatalf("orders disagree (-A +B):\n%s", diff)
		}
	})
}
