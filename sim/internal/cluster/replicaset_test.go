package cluster

import (
	"errors"
	"testing"
)

func TestSlowStart(t *testing.T) {
	calls := 0
	n, err := slowStart(10, func() error { calls++; return nil })
	if n != 10 || err != nil || calls != 10 {
		t.Fatalf("slowStart(10) = %d, %v after %d calls", n, err, calls)
	}
	// fail from the 5th call: batches 1, 2, 4 → the batch of 4 fails, no more batches
	calls = 0
	n, err = slowStart(20, func() error {
		calls++
		if calls >= 5 {
			return errQuota
		}
		return nil
	})
	if n != 4 || err == nil || calls != 7 {
		t.Fatalf("slowStart with failures = %d, %v after %d calls; want 4 successes after 7 calls", n, err, calls)
	}
}

var errQuota = errors.New("quota")
