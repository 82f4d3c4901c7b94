package differential

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

// step is one sync as seen from outside: the writes that took effect, the
// events, whether the sync failed, and the requeue.
type step struct {
	Writes []write
	Events []string
	Failed bool
	// RateLimited: a rate-limited requeue (an error, or a progress check
	// due within a second).
	RateLimited bool
	// After is the requeue delay; compared within the clock window (see
	// sameRequeue), so not part of cmp.
	After time.Duration
	State string
	// Explain is the plan's own account (plan side only; not compared).
	Explain string
}

// upstreamStep runs one real sync on srv.
func upstreamStep(u *upstream, srv *server) step {
	srv.log = nil
	events, q, err := u.syncOnce(srv, ns, name)
	var st step
	for _, w := range srv.log {
		if w.Outcome == "ok" {
			st.Writes = append(st.Writes, w)
		}
	}
	st.Events = events
	st.Failed = err != nil
	st.RateLimited = err != nil || q.rateLimited
	st.After = q.after
	st.State = srv.state()
	return st
}

// planStep plans one sync at now and applies it to srv. A plan that the
// server refuses (an action Plan did not know would fail) is a mismatch
// reported in the step's writes.
func planStep(srv *server, now time.Time, claimOrder []string) (step, error) {
	srv.log = nil
	snap, res, err := planOnce(srv, ns, name, now)
	if err != nil {
		return step{}, err
	}
	ok, events := applyPlan(srv, snap, res, claimOrder)
	st := step{Writes: srv.log, Events: events, Failed: res.Stop != "", RateLimited: res.Requeue.RateLimited, After: res.Requeue.After, Explain: res.Explain()}
	if !ok {
		st.Failed = true
	}
	st.State = srv.state()
	return st, nil
}

// clock reads the wall clock. The real controller reads it too (condition
// times, the progress deadline), so a sync happens "at" some instant
// between two readings, and Plan is asked at both.
var clock = time.Now

// errAmbiguous: the two clock readings around the real sync fall on two
// sides of a decision (a second boundary for condition times, or a
// progress deadline), so the case is run again later.
var errAmbiguous = fmt.Errorf("clock window straddles a decision")

// syncBoth runs one sync on each side and compares them. srvU and srvP hold
// the same state on entry.
func syncBoth(u *upstream, srvU, srvP *server) (string, error) {
	t0 := clock()
	srvU.created, srvP.created = secondOf(t0), secondOf(t0)
	srvP.now = t0
	probe := srvP.clone()
	up := upstreamStep(u, srvU)
	t1 := clock()
	if c := secondOf(t1); !c.Equal(&srvU.created) {
		return "", errAmbiguous
	}
	var claimOrder []string
	for _, w := range up.Writes {
		if w.Verb == "patch" {
			claimOrder = append(claimOrder, w.Name)
		}
	}
	late, err := planStep(probe, t1, claimOrder)
	if err != nil {
		return fmt.Sprintf("Plan refused a state the API server holds: %v", err), nil
	}
	pl, err := planStep(srvP, t0, claimOrder)
	if err != nil {
		return fmt.Sprintf("Plan refused a state the API server holds: %v", err), nil
	}
	if diff := cmp.Diff(pl, late, ignoreAfter); diff != "" || (pl.After == 0) != (late.After == 0) {
		return "", errAmbiguous
	}
	if diff := cmp.Diff(up, pl, ignoreAfter); diff != "" {
		return "(-upstream +plan)\n" + diff + "\nthe plan:\n" + pl.Explain, nil
	}
	// Upstream computed its delay at some instant in [t0, t1].
	// A condition set in this sync is held in memory with the time it was
	// set, also in [t0, t1], so allow that window once more.
	if (up.After == 0) != (pl.After == 0) || up.After > pl.After || up.After < late.After-t1.Sub(t0) {
		return fmt.Sprintf("requeue after: upstream %v, plan %v..%v (clock %s..%s)\nupstream writes: %v\n%s", up.After, late.After, pl.After, t0.Format(time.RFC3339Nano), t1.Format(time.RFC3339Nano), srvU.log, up.State), nil
	}
	return "", nil
}

func secondOf(t time.Time) metav1.Time { return metav1.NewTime(t.UTC().Truncate(time.Second)) }

var ignoreAfter = cmp.Options{cmpopts.IgnoreFields(step{}, "After", "Explain"), cmpopts.IgnoreFields(write{}, "Precondition")}

// runCase compares one sync (fixpoint false) or the runs to the fixpoint.
// It retries a case whose clock window was ambiguous.
func runCase(u *upstream, w world, fixpoint bool, maxSteps int) (string, error) {
	for try := 0; ; try++ {
		base := clock().Truncate(time.Second)
		srvU := w.build(base)
		srvP := srvU.clone()
		var transcript strings.Builder
		ambiguous := false
		// applied follows the plans through rollout.Apply, the project's
		// own model of the API server's write rules.
		applied := rollout.Snapshot{Deployment: srvP.deployments()[0], ReplicaSets: srvP.replicaSets(), Pods: srvP.pods()}
		// pl plans the same syncs with the memory a controller keeps
		// between them (rollout.Planner): it must plan as rollout.Plan.
		var pl rollout.Planner
		for i := range maxSteps {
			mismatch, err := syncBoth(u, srvU, srvP)
			if err == errAmbiguous {
				ambiguous = true
				break
			}
			if err != nil {
				return "", err
			}
			if mismatch != "" {
				return fmt.Sprintf("sync %d of the run differs:\n%s\nbefore it:\n%s", i+1, mismatch, transcript.String()), nil
			}
			// The same plan (the plans at t0 and t1 agree) through Apply.
			applied.Now = srvP.now
			res, err := rollout.Plan(applied)
			if err != nil {
				return "", err
			}
			memo, err := pl.Plan(applied)
			if err != nil {
				return "", err
			}
			if diff := cmp.Diff(res, memo); diff != "" {
				return fmt.Sprintf("sync %d: rollout.Planner differs from rollout.Plan (-Plan +Planner):\n%s", i+1, diff), nil
			}
			applied, _ = rollout.Apply(applied, res)
			applied.Pods = srvP.pods()
			if diff := cmp.Diff(srvP.render(true), snapshotState(applied)); diff != "" {
				return fmt.Sprintf("sync %d: rollout.Apply differs from the API server (-server +Apply):\n%s", i+1, diff), nil
			}
			n := len(srvU.log)
			fmt.Fprintf(&transcript, "  sync %d: %d writes\n", i+1, n)
			if !fixpoint || !anyOK(srvU.log) {
				return "", nil
			}
		}
		if !ambiguous {
			return "", nil // equal for maxSteps syncs
		}
		if try == 5 {
			return "", fmt.Errorf("clock window ambiguous five times")
		}
	}
}

func anyOK(log []write) bool {
	for _, w := range log {
		if w.Outcome == "ok" {
			return true
		}
	}
	return false
}

var shared *upstream

func controller() *upstream {
	if shared == nil {
		shared = newUpstream()
	}
	return shared
}

// TestRecordedFailures replays every failure rapid has recorded under
// testdata/rapid (each was a real difference, since fixed).
func TestRecordedFailures(t *testing.T) {
	u := controller()
	props := map[string]func(*rapid.T){
		"TestSingleSync": func(t *rapid.T) { check(t, u, false, 1) },
		"TestFixpoint":   func(t *rapid.T) { check(t, u, true, 30) },
		"TestDefaulting": defaultingProperty,
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "rapid", "*", "*.fail"))
	for _, f := range files {
		prop := props[filepath.Base(filepath.Dir(f))]
		if prop == nil {
			t.Errorf("%s: no property of that name", f)
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			if err := flag.Set("rapid.failfile", f); err != nil {
				t.Fatal(err)
			}
			defer flag.Set("rapid.failfile", "")
			rapid.Check(t, prop)
		})
	}
}

func check(t *rapid.T, u *upstream, fixpoint bool, steps int) {
	w := genWorld(t)
	mismatch, err := runCase(u, w, fixpoint, steps)
	if err != nil {
		t.Fatal(err)
	}
	if mismatch != "" {
		t.Fatal(mismatch)
	}
}

// TestSingleSync compares one sync of the real controller with one Plan on
// random cluster states. -rapid.checks sets the count (see the package doc).
func TestSingleSync(t *testing.T) {
	checks(t, 3000)
	u := controller()
	rapid.Check(t, func(t *rapid.T) { check(t, u, false, 1) })
}

// TestFixpoint compares runs to the fixpoint: sync, write, sync again until
// a sync writes nothing (ReplicaSet statuses stay as they are: no
// ReplicaSet controller runs).
func TestFixpoint(t *testing.T) {
	checks(t, 1000)
	u := controller()
	rapid.Check(t, func(t *rapid.T) { check(t, u, true, 30) })
}

// checks sets rapid's number of cases to n for this test, unless
// -rapid.checks was given on the command line (then every test runs that
// many). The count is restored when the test ends, so each test's default
// is its own.
func checks(t *testing.T, n int) {
	if !cmdlineChecks {
		f := flag.Lookup("rapid.checks")
		old := f.Value.String()
		if err := flag.Set("rapid.checks", strconv.Itoa(n)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = flag.Set("rapid.checks", old) })
	}
	t.Logf("%s cases", flag.Lookup("rapid.checks").Value)
}

// cmdlineChecks: -rapid.checks was on the command line.
var cmdlineChecks = func() bool {
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(strings.TrimLeft(a, "-"), "rapid.checks") {
			return true
		}
	}
	return false
}()
