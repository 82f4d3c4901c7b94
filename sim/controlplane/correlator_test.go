package controlplane

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/tools/record"
	testingclock "k8s.io/utils/clock/testing"
	"pgregory.net/rapid"

	"github.com/deploymath/deploymath/sim/internal/correlator"
)

// fakeEventServer keeps Events as the API server does (JSON, so timestamps
// in whole seconds) and plays client-go's write protocol for one correlated
// event: PATCH when the count is above one, POST otherwise or when the PATCH
// finds nothing, AlreadyExists dropped, and the server's copy handed back to
// the correlator.
type fakeEventServer struct {
	events map[string][]byte // namespace/name -> JSON
}

type realOutcome struct {
	op            correlator.Op
	patchNotFound bool
}

func (s *fakeEventServer) write(t *rapid.T, c *record.EventCorrelator, res *record.EventCorrelateResult) realOutcome {
	if res.Skip {
		return realOutcome{op: correlator.OpSkip}
	}
	ev := res.Event
	id := ev.Namespace + "/" + ev.Name
	var out realOutcome
	var stored []byte
	if ev.Count > 1 {
		old, ok := s.events[id]
		if ok {
			patched, err := strategicpatch.StrategicMergePatch(old, res.Patch, corev1.Event{})
			if err != nil {
				t.Fatalf("applying client-go's patch %s: %v", res.Patch, err)
			}
			out.op, stored = correlator.OpPatch, patched
		} else {
			out.patchNotFound = true
		}
	}
	if stored == nil {
		if _, ok := s.events[id]; ok {
			out.op = correlator.OpRejected
			return out
		}
		create := ev.DeepCopy()
		create.ResourceVersion = ""
		b, err := json.Marshal(create)
		if err != nil {
			t.Fatal(err)
		}
		out.op, stored = correlator.OpCreate, b
	}
	s.events[id] = stored
	var back corev1.Event
	if err := json.Unmarshal(stored, &back); err != nil {
		t.Fatal(err)
	}
	c.UpdateState(&back)
	return out
}

func (s *fakeEventServer) list(t *rapid.T) []corev1.Event {
	ids := make([]string, 0, len(s.events))
	for id := range s.events {
		ids = append(ids, id)
	}
	slices.Sort(ids) // namespace/name; names have no "/"
	out := make([]corev1.Event, 0, len(ids))
	for _, id := range ids {
		var e corev1.Event
		if err := json.Unmarshal(s.events[id], &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// recorderEvent builds the Event client-go's recorder hands the broadcaster
// (tools/record event.go makeEvent and generateEvent).
func recorderEvent(in correlator.Input) *corev1.Event {
	t := metav1.NewTime(in.Time)
	ns := in.Object.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	return &corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: fmt.Sprintf("%s.%x", in.Object.Name, t.UnixNano()), Namespace: ns},
		InvolvedObject:      in.Object,
		Reason:              in.Reason,
		Message:             in.Message,
		FirstTimestamp:      t,
		LastTimestamp:       t,
		Count:               1,
		Type:                in.Type,
		Source:              in.Source,
		ReportingController: in.Source.Component,
		ReportingInstance:   in.Source.Host,
	}
}

var sameTime = cmp.Comparer(func(a, b metav1.Time) bool { return a.Equal(&b) })

// TestCorrelatorMatchesClientGo runs random event sequences through
// client-go's EventCorrelator (fake clock, the write protocol above) and
// through the model, and wants the same operation and the same event sent for
// every input, and the same Events stored at the end. Comparison stops at the
// model's first Uncertain action, where client-go's choice is random.
func TestCorrelatorMatchesClientGo(t *testing.T) {
	objects := []corev1.ObjectReference{
		{Kind: "Deployment", Namespace: "default", Name: "web", UID: "u1", APIVersion: "apps/v1"},
		{Kind: "Deployment", Namespace: "shop", Name: "web", UID: "u2", APIVersion: "apps/v1"},
		{Kind: "ReplicaSet", Name: "web-5d4f", UID: "u3", APIVersion: "apps/v1"},
		{Kind: "Deployment", Namespace: "default", Name: "web", UID: "u1", APIVersion: "apps/v1", FieldPath: "spec"},
	}
	sources := []corev1.EventSource{{Component: "deployment-controller"}, {Component: "replicaset-controller", Host: "cm-0"}}
	steps := []time.Duration{0, time.Nanosecond, time.Millisecond, 700 * time.Millisecond, time.Second, 30 * time.Second,
		299 * time.Second, 300 * time.Second, 301 * time.Second, 10 * time.Minute, 10*time.Minute + time.Second}
	var uncertainRuns, runs int
	seen := map[string]int{} // what the compared actions covered
	rapid.Check(t, func(t *rapid.T) {
		opts := correlator.Options{
			CacheSize: rapid.SampledFrom([]int{0, 0, 2, 5}).Draw(t, "cacheSize"),
			MaxEvents: rapid.SampledFrom([]int{0, 0, 3}).Draw(t, "maxEvents"),
			SpamBurst: rapid.SampledFrom([]int{0, 0, 1, 4}).Draw(t, "burst"),
			SpamQPS:   rapid.SampledFrom([]float32{0, 0, 0.5}).Draw(t, "qps"),
		}
		model, err := correlator.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
		clk := testingclock.NewFakePassiveClock(now)
		real := record.NewEventCorrelatorWithOptions(record.CorrelatorOptions{
			LRUCacheSize: opts.CacheSize, MaxEvents: opts.MaxEvents, BurstSize: opts.SpamBurst, QPS: opts.SpamQPS, Clock: clk,
		})
		server := &fakeEventServer{events: map[string][]byte{}}
		runs++
		n := rapid.IntRange(1, 120).Draw(t, "events")
		for i := range n {
			now = now.Add(rapid.SampledFrom(steps).Draw(t, "step"))
			msg := fmt.Sprintf("Scaled up replica set web-%d to %d", i, i)
			if rapid.IntRange(0, 2).Draw(t, "repeat") == 0 {
				msg = fmt.Sprintf("Scaled down replica set web-a to %d", rapid.IntRange(0, 2).Draw(t, "replicas"))
			}
			in := correlator.Input{
				Time:    now,
				Object:  rapid.SampledFrom(objects).Draw(t, "object"),
				Source:  rapid.SampledFrom(sources).Draw(t, "source"),
				Type:    rapid.SampledFrom([]string{corev1.EventTypeNormal, corev1.EventTypeWarning}).Draw(t, "type"),
				Reason:  rapid.SampledFrom([]string{"ScalingReplicaSet", "SuccessfulCreate"}).Draw(t, "reason"),
				Message: msg,
			}
			before := model.Events()
			act, err := model.Record(in)
			if err != nil {
				t.Fatalf("event %d: %v", i, err)
			}
			if act.Uncertain {
				uncertainRuns++
				if d := cmp.Diff(server.list(t), before, sameTime); d != "" {
					t.Fatalf("Events stored before event %d (-client-go +model):\n%s", i, d)
				}
				return
			}
			clk.SetTime(now)
			res, err := real.EventCorrelate(recorderEvent(in))
			if err != nil {
				t.Fatalf("event %d: client-go: %v", i, err)
			}
			got := server.write(t, real, res)
			want := realOutcome{op: act.Op, patchNotFound: act.PatchNotFound}
			if got != want {
				t.Fatalf("event %d %+v: client-go %+v, model %+v", i, in, got, want)
			}
			seen[act.Op.String()]++
			if act.PatchNotFound {
				seen["patch not found"]++
			}
			if act.Combined {
				seen["combined"]++
			}
			if res.Skip {
				continue
			}
			if d := cmp.Diff(*res.Event, act.Event, sameTime); d != "" {
				t.Fatalf("event %d: event sent (-client-go +model):\n%s", i, d)
			}
			if combined := strings.HasPrefix(res.Event.Message, correlator.CombinedPrefix); combined != act.Combined {
				t.Fatalf("event %d: client-go combined=%v, model %v", i, combined, act.Combined)
			}
		}
		if d := cmp.Diff(server.list(t), model.Events(), sameTime); d != "" {
			t.Fatalf("Events stored (-client-go +model):\n%s", d)
		}
	})
	t.Logf("%d of %d runs stopped at an uncertain action; actions compared: %v", uncertainRuns, runs, seen)
	for _, k := range []string{"create", "patch", "skip", "rejected", "combined"} {
		if seen[k] == 0 {
			t.Errorf("no %q action was compared; the generator needs widening", k)
		}
	}
}

// benchInputs is a rollout-like stream: three Deployments, scaling messages
// that are mostly new, some repeats, a few seconds apart.
func benchInputs() []correlator.Input {
	start := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	out := make([]correlator.Input, 1000)
	for i := range out {
		name := fmt.Sprintf("web-%d", i%3)
		out[i] = correlator.Input{
			Time:    start.Add(time.Duration(i) * 1500 * time.Millisecond),
			Object:  corev1.ObjectReference{Kind: "Deployment", Namespace: "default", Name: name, UID: types.UID(name), APIVersion: "apps/v1"},
			Source:  corev1.EventSource{Component: "deployment-controller"},
			Type:    corev1.EventTypeNormal,
			Reason:  "ScalingReplicaSet",
			Message: fmt.Sprintf("Scaled up replica set %s-x to %d", name, i%40),
		}
	}
	return out
}

// BenchmarkCorrelator compares the model with client-go's EventCorrelator
// (the correlator alone, no store) over the same 1000 events per op.
func BenchmarkCorrelator(b *testing.B) {
	ins := benchInputs()
	b.Run("model", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c, err := correlator.New(correlator.Options{})
			if err != nil {
				b.Fatal(err)
			}
			for _, in := range ins {
				if _, err := c.Record(in); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("client-go", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			clk := testingclock.NewFakePassiveClock(ins[0].Time)
			c := record.NewEventCorrelatorWithOptions(record.CorrelatorOptions{Clock: clk})
			for _, in := range ins {
				clk.SetTime(in.Time)
				if _, err := c.EventCorrelate(recorderEvent(in)); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
