package workqueue

import (
	"testing"
	"time"
)

// TestBackoff: 5ms doubling per failure, capped at 1000s; Forget resets.
func TestBackoff(t *testing.T) {
	q := New[string, struct{}]()
	it := q.Item("default/web")
	want := []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond}
	for i, d := range want {
		if got := it.Backoff(); got != d {
			t.Errorf("failure %d: backoff %s, want %s", i, got, d)
		}
	}
	for range 40 {
		it.Backoff()
	}
	if got := it.Backoff(); got != rateLimitMax {
		t.Errorf("capped backoff = %s, want %s", got, rateLimitMax)
	}
	if it.Failures() != 45 {
		t.Errorf("failures %d, want 45", it.Failures())
	}
	it.Forget()
	if got := it.Backoff(); got != rateLimitBase {
		t.Errorf("after Forget: %s, want %s", got, rateLimitBase)
	}
}

// TestAddTake: a key queued twice is processed once; after Take it can be
// queued again; syncs are counted per instant.
func TestAddTake(t *testing.T) {
	q := New[string, int]()
	it := q.Item("a")
	if q.Item("a") != it {
		t.Fatal("Item made a second state for one key")
	}
	if !q.Add(it) || q.Add(it) || q.Dirty() != 1 || !q.IsDirty("a") || q.IsDirty("b") {
		t.Fatalf("Add: dirty %d", q.Dirty())
	}
	if n, ok := q.Take(it, 1); !ok || n != 1 || q.Dirty() != 0 {
		t.Fatalf("Take = %d, %v", n, ok)
	}
	if _, ok := q.Take(it, 1); ok {
		t.Fatal("Take of a key not queued")
	}
	q.Add(it)
	if n, _ := q.Take(it, 1); n != 2 {
		t.Errorf("second sync of instant 1 counted %d", n)
	}
	q.Add(it)
	if n, _ := q.Take(it, 2); n != 1 {
		t.Errorf("first sync of instant 2 counted %d", n)
	}
}

// TestAddAfter: the earliest pending delayed add wins; a superseded one
// is not due; once due, the wait is over.
func TestAddAfter(t *testing.T) {
	q := New[string, int]()
	it := q.Item("a")
	if !q.AddAfter(it, 10) || q.AddAfter(it, 20) || !q.IsWaiting("a") {
		t.Fatal("a later delayed add replaced an earlier one")
	}
	if !q.AddAfter(it, 5) {
		t.Fatal("an earlier delayed add was refused")
	}
	if q.Due(it, 10) {
		t.Error("the superseded add at 10 came due")
	}
	if !q.Due(it, 5) || q.IsWaiting("a") || q.Due(it, 5) {
		t.Error("the add at 5 did not come due exactly once")
	}
}
