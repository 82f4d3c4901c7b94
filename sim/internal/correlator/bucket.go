package correlator

import (
	"math"
	"time"
)

// bucket is the spam filter's token bucket, with the arithmetic of
// golang.org/x/time/rate v0.15.0 (which client-go uses): tokens are float64,
// refilled by elapsed seconds × rate and capped at burst; an event is let
// through when, after taking one token, the wait for the deficit rounds down
// to zero nanoseconds.
type bucket struct {
	tokens float64
	last   time.Time // zero until the first accepted event
}

func newBucket(burst int) *bucket { return &bucket{tokens: float64(burst)} }

// take reports whether one token is available at now, and takes it if so.
func (b *bucket) take(now time.Time, rate float64, burst int) bool {
	last := b.last
	if now.Before(last) {
		last = now
	}
	tokens := b.tokens
	if rate > 0 {
		// time.Time.Sub saturates, so the first call (last is the zero time)
		// fills the bucket.
		tokens += now.Sub(last).Seconds() * rate
	}
	if limit := float64(burst); tokens > limit {
		tokens = limit
	}
	tokens--
	var wait time.Duration
	if tokens < 0 {
		if rate <= 0 {
			wait = math.MaxInt64
		} else if ns := -tokens / rate * float64(time.Second); ns > float64(math.MaxInt64) {
			wait = math.MaxInt64
		} else {
			wait = time.Duration(ns)
		}
	}
	if burst < 1 || wait > 0 {
		return false
	}
	b.last, b.tokens = now, tokens
	return true
}
