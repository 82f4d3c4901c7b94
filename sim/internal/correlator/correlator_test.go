package correlator

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

var (
	t0  = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	web = corev1.ObjectReference{Kind: "Deployment", Namespace: "default", Name: "web", UID: "u1", APIVersion: "apps/v1"}
	src = corev1.EventSource{Component: "deployment-controller"}
)

func in(at time.Duration, reason, msg string) Input {
	return Input{Time: t0.Add(at), Object: web, Source: src, Type: corev1.EventTypeNormal, Reason: reason, Message: msg}
}

// step is one input and what it must give.
type step struct {
	in        Input
	op        Op
	count     int32
	combined  bool
	notFound  bool
	uncertain bool
}

func run(t *testing.T, opts Options, steps []step) *Correlator {
	t.Helper()
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range steps {
		a, err := c.Record(s.in)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		got := step{in: s.in, op: a.Op, count: a.Event.Count, combined: a.Combined, notFound: a.PatchNotFound, uncertain: a.Uncertain}
		if got != s {
			t.Fatalf("step %d: got %+v, want %+v", i, got, s)
		}
	}
	return c
}

func TestIdenticalEventsBecomeCountUpdates(t *testing.T) {
	c := run(t, Options{}, []step{
		{in: in(0, "R", "m"), op: OpCreate, count: 1},
		{in: in(1500*time.Millisecond, "R", "m"), op: OpPatch, count: 2},
		{in: in(3*time.Second, "R", "m"), op: OpPatch, count: 3},
	})
	ev := c.Events()
	if len(ev) != 1 {
		t.Fatalf("want one Event, got %d", len(ev))
	}
	e := ev[0]
	if e.Name != fmt.Sprintf("web.%x", t0.UnixNano()) || e.Count != 3 ||
		!e.FirstTimestamp.Time.Equal(t0) || !e.LastTimestamp.Time.Equal(t0.Add(3*time.Second)) {
		t.Errorf("got %s count %d first %v last %v", e.Name, e.Count, e.FirstTimestamp, e.LastTimestamp)
	}
}

func TestTenthDistinctMessageIsCombined(t *testing.T) {
	var steps []step
	for i := range 9 {
		steps = append(steps, step{in: in(time.Duration(i)*time.Second, "R", fmt.Sprint("m", i)), op: OpCreate, count: 1})
	}
	// The group is 10 minutes old but not more: still remembered.
	steps = append(steps,
		step{in: in(8*time.Second+10*time.Minute, "R", "m9"), op: OpCreate, count: 1, combined: true},
		step{in: in(9*time.Second+10*time.Minute, "R", "m10"), op: OpPatch, count: 2, combined: true},
		// The model forgot m0 and m1 (oldest first) and still has m5, so this
		// is m5's second event; client-go may have forgotten m5 instead.
		step{in: in(10*time.Second+10*time.Minute, "R", "m5"), op: OpPatch, count: 2, uncertain: true},
		// Another reason is another group.
		step{in: in(11*time.Second+10*time.Minute, "Other", "m1"), op: OpCreate, count: 1},
	)
	c := run(t, Options{}, steps)
	var combined int
	for _, e := range c.Events() {
		if strings.HasPrefix(e.Message, CombinedPrefix) {
			combined++
			if e.Message != CombinedPrefix+"m10" || e.Count != 2 {
				t.Errorf("combined Event: %q count %d", e.Message, e.Count)
			}
		}
	}
	if combined != 1 {
		t.Errorf("want one combined Event, got %d", combined)
	}
}

func TestGroupForgottenAfterTenQuietMinutes(t *testing.T) {
	var steps []step
	for i := range 9 {
		steps = append(steps, step{in: in(time.Duration(i), "R0", fmt.Sprint("m", i)), op: OpCreate, count: 1})
	}
	steps = append(steps, step{in: in(10*time.Minute+time.Second, "R0", "m9"), op: OpCreate, count: 1})
	run(t, Options{}, steps)
}

func TestSpamFilter(t *testing.T) {
	var steps []step
	// 25 events of one object with different reasons pass, the 26th is dropped.
	for i := range 26 {
		s := step{in: in(time.Duration(i)*time.Millisecond, fmt.Sprint("R", i), "m"), op: OpCreate, count: 1}
		if i == 25 {
			s.op = OpSkip
		}
		steps = append(steps, s)
	}
	steps = append(steps,
		// Refill is 1/300 per second rounded to float32: a token is slightly
		// less than 300 s away.
		step{in: in(25*time.Millisecond+299*time.Second, "X", "m"), op: OpSkip, count: 1},
		// X's first event was dropped, so its second is a PATCH of nothing.
		step{in: in(25*time.Millisecond+300*time.Second, "X", "m"), op: OpCreate, count: 2, notFound: true},
		step{in: in(26*time.Millisecond+300*time.Second, "Y", "m"), op: OpSkip, count: 1},
	)
	run(t, Options{}, steps)
}

func TestDroppedFirstWriteMakesPatchFallBackToCreate(t *testing.T) {
	run(t, Options{SpamBurst: 1}, []step{
		{in: in(0, "A", "m"), op: OpCreate, count: 1},
		{in: in(time.Second, "B", "m"), op: OpSkip, count: 1},
		{in: in(301*time.Second, "B", "m"), op: OpCreate, count: 2, notFound: true},
		{in: in(602*time.Second, "B", "m"), op: OpPatch, count: 3},
	})
}

func TestSameInstantSameObjectIsRejected(t *testing.T) {
	c := run(t, Options{}, []step{
		{in: in(0, "A", "m"), op: OpCreate, count: 1},
		{in: in(0, "B", "m"), op: OpRejected, count: 1},
	})
	if len(c.Events()) != 1 {
		t.Errorf("want one Event, got %d", len(c.Events()))
	}
}

func TestCachesForgetLeastRecentKeys(t *testing.T) {
	run(t, Options{CacheSize: 2}, []step{
		{in: in(0, "A", "m"), op: OpCreate, count: 1},
		{in: in(1, "A", "m"), op: OpPatch, count: 2},
		{in: in(2, "B", "m"), op: OpCreate, count: 1},
		{in: in(3, "C", "m"), op: OpCreate, count: 1},
		// A's count was pushed out: a new Event.
		{in: in(4, "A", "m"), op: OpCreate, count: 1},
	})
}

func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{CacheSize: -1}, "Options.CacheSize"},
		{Options{MaxEvents: -1}, "Options.MaxEvents"},
		{Options{MaxInterval: -time.Second}, "Options.MaxInterval"},
		{Options{SpamBurst: -1}, "Options.SpamBurst"},
		{Options{SpamQPS: -1}, "Options.SpamQPS"},
	} {
		if _, err := New(tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v): error %v, want one naming %s", tc.opts, err, tc.want)
		}
	}

	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	good := in(time.Minute, "R", "m")
	if _, err := c.Record(good); err != nil {
		t.Fatal(err)
	}
	before := c.Events()
	bad := []struct {
		in   Input
		want string
	}{
		{in(0, "R", "m"), "Time: 2026-11-23T10:00:00Z is before the previous input's"},
		{Input{Object: web}, "Time: 0001-01-01T00:00:00Z is outside"},
		{Input{Time: time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC), Object: web}, "Time: 2300-01-01T00:00:00Z is outside"},
		{Input{Time: t0.Add(time.Hour), Object: corev1.ObjectReference{Name: "Web"}}, `Object.Name: event name "Web.`},
		{Input{Time: t0.Add(time.Hour)}, "Object.Name"},
	}
	for _, b := range bad {
		obj := b.in.Object
		_, err := c.Record(b.in)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Record(%+v): error %v, want one containing %q", b.in, err, b.want)
		}
		if b.in.Object != obj {
			t.Errorf("Record changed its input")
		}
	}
	if d := cmp.Diff(before, c.Events()); d != "" {
		t.Errorf("bad input changed the Events:\n%s", d)
	}
	// The state is as before: the same event again is the second of its kind.
	a, err := c.Record(in(time.Minute+time.Second, "R", "m"))
	if err != nil || a.Op != OpPatch || a.Event.Count != 2 {
		t.Errorf("after bad input: %v %v count %d, want patch count 2", err, a.Op, a.Event.Count)
	}
}

func TestEventsAreCopies(t *testing.T) {
	c := run(t, Options{}, []step{{in: in(0, "R", "m"), op: OpCreate, count: 1}})
	c.Events()[0].Message = "changed"
	if got := c.Events()[0].Message; got != "m" {
		t.Errorf("Events shares its Events: message now %q", got)
	}
}
