package correlator

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// client-go's defaults (tools/record/events_cache.go), used where [Options]
// leaves a field zero.
const (
	// DefaultCacheSize is the number of keys each of the three caches keeps.
	DefaultCacheSize = 4096
	// DefaultMaxEvents is the number of distinct messages in a group of
	// similar events from which on events are combined.
	DefaultMaxEvents = 10
	// DefaultMaxInterval is how long a group of similar events is remembered
	// after its last event.
	DefaultMaxInterval = 10 * time.Minute
	// DefaultSpamBurst is the spam filter's bucket size per source and object.
	DefaultSpamBurst = 25
	// DefaultSpamQPS is the spam filter's refill rate in tokens per second.
	DefaultSpamQPS float32 = 1. / 300.
)

// CombinedPrefix starts the message of a combined event.
const CombinedPrefix = "(combined from similar events): "

// Options overrides client-go's defaults, like record.CorrelatorOptions; a
// zero field takes the default. Negative values are an error.
type Options struct {
	// CacheSize is the capacity of each cache; default [DefaultCacheSize].
	CacheSize int
	// MaxEvents is the distinct-message limit; default [DefaultMaxEvents].
	MaxEvents int
	// MaxInterval is truncated to whole seconds, as client-go keeps it;
	// default [DefaultMaxInterval].
	MaxInterval time.Duration
	// SpamBurst is the bucket size; default [DefaultSpamBurst].
	SpamBurst int
	// SpamQPS is the refill rate; default [DefaultSpamQPS].
	SpamQPS float32
}

// Input is one event as a controller records it.
type Input struct {
	// Time is when the event is recorded; it must not be before the previous
	// input's, and must lie in 1970-01-01T00:00:01Z … 2262-04-11.
	Time time.Time
	// Object is the involved object.
	Object corev1.ObjectReference
	// Source is the recorder's source, for example {Component: "deployment-controller"}.
	Source corev1.EventSource
	// Type is "Normal" or "Warning".
	Type string
	// Reason and Message are the event's.
	Reason, Message string
}

// Op is what client-go does with an event.
type Op int

// The operations.
const (
	// OpCreate: POST of a new Event (after a PATCH that found no Event if
	// [Action.PatchNotFound]).
	OpCreate Op = iota + 1
	// OpPatch: PATCH of count, lastTimestamp and message of an existing Event.
	OpPatch
	// OpSkip: dropped by the spam filter; nothing is written.
	OpSkip
	// OpRejected: POST refused because an Event of that name exists; dropped.
	OpRejected
)

// String returns "create", "patch", "skip" or "rejected".
func (o Op) String() string {
	switch o {
	case OpCreate:
		return "create"
	case OpPatch:
		return "patch"
	case OpSkip:
		return "skip"
	case OpRejected:
		return "rejected"
	}
	return "Op(" + strconv.Itoa(int(o)) + ")"
}

// Action is what client-go does with one [Input].
type Action struct {
	// Op is the API call made.
	Op Op
	// Event is the event client-go sends (for OpSkip: would have sent), with
	// the name, count, firstTimestamp, lastTimestamp and message it carries;
	// the server's copy after the write is in [Correlator.Events].
	Event corev1.Event
	// Combined is true when Event is a combined event (message starts with
	// [CombinedPrefix]).
	Combined bool
	// Key is the deduplication key Event was counted under: the similar-events
	// key for combined events, the identical-event key otherwise.
	Key string
	// PatchNotFound is true when a PATCH found no Event and client-go fell back
	// to a POST (Op is then OpCreate or OpRejected).
	PatchNotFound bool
	// Uncertain is true when client-go's result depends on which message it
	// forgot (see the package documentation); Op, Event and later actions of
	// the same group may then differ in a real recorder.
	Uncertain bool
}

// Correlator holds the recorder's caches and the API server's Events. The
// zero value is not usable; use [New]. It is not safe for concurrent use.
type Correlator struct {
	opts     Options
	rate     float64
	groups   *lru[*group]
	seen     *lru[observation]
	spam     *lru[*bucket]
	server   map[eventName]corev1.Event
	last     time.Time
	recorded int
}

// group is a group of similar events since it last started afresh.
type group struct {
	last     time.Time
	messages map[string]int // remembered message -> insertion number
	next     int
	ever     map[string]bool // every message since the group started afresh
	popped   bool
}

// observation is what the recorder remembers of an identical-event key.
type observation struct {
	count int32
	first metav1.Time
	name  string
}

type eventName struct{ namespace, name string }

// New returns a Correlator with no history and no Events.
func New(opts Options) (*Correlator, error) {
	switch {
	case opts.CacheSize < 0:
		return nil, fmt.Errorf("correlator: Options.CacheSize: %d is negative", opts.CacheSize)
	case opts.MaxEvents < 0:
		return nil, fmt.Errorf("correlator: Options.MaxEvents: %d is negative", opts.MaxEvents)
	case opts.MaxInterval < 0:
		return nil, fmt.Errorf("correlator: Options.MaxInterval: %v is negative", opts.MaxInterval)
	case opts.SpamBurst < 0:
		return nil, fmt.Errorf("correlator: Options.SpamBurst: %d is negative", opts.SpamBurst)
	case opts.SpamQPS < 0 || math.IsNaN(float64(opts.SpamQPS)) || math.IsInf(float64(opts.SpamQPS), 0):
		return nil, fmt.Errorf("correlator: Options.SpamQPS: %v is not a finite non-negative rate", opts.SpamQPS)
	}
	if opts.CacheSize == 0 {
		opts.CacheSize = DefaultCacheSize
	}
	if opts.MaxEvents == 0 {
		opts.MaxEvents = DefaultMaxEvents
	}
	opts.MaxInterval = opts.MaxInterval.Truncate(time.Second)
	if opts.MaxInterval == 0 {
		opts.MaxInterval = DefaultMaxInterval
	}
	if opts.SpamBurst == 0 {
		opts.SpamBurst = DefaultSpamBurst
	}
	if opts.SpamQPS == 0 {
		opts.SpamQPS = DefaultSpamQPS
	}
	return &Correlator{
		opts:   opts,
		rate:   float64(opts.SpamQPS),
		groups: newLRU[*group](opts.CacheSize),
		seen:   newLRU[observation](opts.CacheSize),
		spam:   newLRU[*bucket](opts.CacheSize),
		server: map[eventName]corev1.Event{},
	}, nil
}

var (
	minTime = time.Unix(1, 0)
	maxTime = time.Unix(0, math.MaxInt64)
)

// Record runs one event through the recorder and the API server and returns
// what client-go does with it. An Input that fails the checks (Time order
// and range, the generated name) is reported naming the field and changes
// nothing.
func (c *Correlator) Record(in Input) (Action, error) {
	if err := c.check(in); err != nil {
		return Action{}, err
	}
	now := metav1.NewTime(in.Time.Round(0))
	raw := rawEvent(in, now)
	aggKey := similarKey(&raw)

	// Stage 1: aggregation. The group is changed only after the one error
	// below has been ruled out, so an error leaves the state alone.
	g, _ := c.groups.get(aggKey)
	if g == nil || now.Sub(g.last) > c.opts.MaxInterval {
		g = &group{messages: map[string]int{}, ever: map[string]bool{}}
	}
	uncertain := g.popped && g.ever[in.Message]
	size := len(g.messages)
	if _, ok := g.messages[in.Message]; !ok {
		size++
	}
	combined := size >= c.opts.MaxEvents
	out, key := raw, identicalKey(&raw)
	if combined {
		key = aggKey
		out = corev1.Event{
			ObjectMeta: metav1.ObjectMeta{
				Name:      raw.InvolvedObject.Name + "." + strconv.FormatInt(now.UnixNano(), 16),
				Namespace: raw.Namespace,
			},
			InvolvedObject: raw.InvolvedObject,
			Reason:         raw.Reason,
			Message:        CombinedPrefix + raw.Message,
			Source:         raw.Source,
			FirstTimestamp: now,
			LastTimestamp:  now,
			Count:          1,
			Type:           raw.Type,
		}
	}

	// Stage 2: deduplication.
	prev, _ := c.seen.get(key)
	if prev.count == math.MaxInt32 {
		return Action{}, fmt.Errorf("correlator: input %d: count of %q would pass %d", c.recorded, key, int32(math.MaxInt32))
	}
	if prev.count > 0 {
		out.Name = prev.name
		out.FirstTimestamp = prev.first
		out.Count = prev.count + 1
	}
	g.insert(in.Message)
	g.last = now.Time
	if combined {
		g.popOldest()
	}
	c.groups.put(aggKey, g)
	c.seen.put(key, observation{count: out.Count, first: out.FirstTimestamp, name: out.Name})
	c.last = now.Time
	c.recorded++
	act := Action{Event: out, Combined: combined, Key: key, Uncertain: uncertain}

	// Stage 3: spam filter.
	sk := spamKey(&out)
	b, ok := c.spam.get(sk)
	if !ok {
		b = newBucket(c.opts.SpamBurst)
	}
	pass := b.take(now.Time, c.rate, c.opts.SpamBurst)
	c.spam.put(sk, b)
	if !pass {
		act.Op = OpSkip
		act.Event = *out.DeepCopy()
		return act, nil
	}

	// The API server.
	id := eventName{out.Namespace, out.Name}
	stored, exists := c.server[id]
	switch {
	case out.Count > 1 && exists:
		act.Op = OpPatch
		stored.Count = out.Count
		stored.LastTimestamp = serverTime(out.LastTimestamp)
		if out.Message != "" {
			stored.Message = out.Message
		}
	case exists:
		act.Op = OpRejected
	default:
		act.Op = OpCreate
		stored = *out.DeepCopy()
		stored.ResourceVersion = ""
		stored.FirstTimestamp = serverTime(stored.FirstTimestamp)
		stored.LastTimestamp = serverTime(stored.LastTimestamp)
	}
	act.PatchNotFound = out.Count > 1 && !exists
	act.Event = *out.DeepCopy()
	if act.Op == OpRejected {
		return act, nil
	}
	c.server[id] = stored
	c.seen.put(identicalKey(&stored), observation{count: stored.Count, first: stored.FirstTimestamp, name: stored.Name})
	return act, nil
}

func (c *Correlator) check(in Input) error {
	t := in.Time
	if t.Before(minTime) || t.After(maxTime) {
		return fmt.Errorf("correlator: input %d: Time: %s is outside 1970-01-01T00:00:01Z … %s", c.recorded, t.Format(time.RFC3339Nano), maxTime.UTC().Format(time.RFC3339))
	}
	if c.recorded > 0 && t.Before(c.last) {
		return fmt.Errorf("correlator: input %d: Time: %s is before the previous input's %s", c.recorded, t.Format(time.RFC3339Nano), c.last.Format(time.RFC3339Nano))
	}
	name := in.Object.Name + "." + strconv.FormatInt(t.UnixNano(), 16)
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return fmt.Errorf("correlator: input %d: Object.Name: event name %q: %s", c.recorded, name, strings.Join(errs, "; "))
	}
	return nil
}

// Events returns the Events the API server holds, in the order the API lists
// them (namespace, then name), as copies. Timestamps are whole seconds, in
// UTC.
func (c *Correlator) Events() []corev1.Event {
	out := make([]corev1.Event, 0, len(c.server))
	for _, e := range c.server {
		out = append(out, *e.DeepCopy())
	}
	slices.SortFunc(out, func(a, b corev1.Event) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// rawEvent builds the Event the recorder makes for in at now.
func rawEvent(in Input, now metav1.Time) corev1.Event {
	ns := in.Object.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	return corev1.Event{
		ObjectMeta: metav1.ObjectMeta{
			Name:      in.Object.Name + "." + strconv.FormatInt(now.UnixNano(), 16),
			Namespace: ns,
		},
		InvolvedObject:      in.Object,
		Reason:              in.Reason,
		Message:             in.Message,
		Source:              in.Source,
		FirstTimestamp:      now,
		LastTimestamp:       now,
		Count:               1,
		Type:                in.Type,
		ReportingController: in.Source.Component,
		ReportingInstance:   in.Source.Host,
	}
}

// serverTime is t as the API server keeps it: whole seconds.
func serverTime(t metav1.Time) metav1.Time {
	return metav1.NewTime(time.Unix(t.Unix(), 0).UTC())
}

// The keys concatenate fields without separators, as client-go's do, so the
// same (rare) collisions happen.

func identicalKey(e *corev1.Event) string {
	o := &e.InvolvedObject
	return concat(e.Source.Component, e.Source.Host, o.Kind, o.Namespace, o.Name, o.FieldPath,
		string(o.UID), o.APIVersion, e.Type, e.Reason, e.Message)
}

func similarKey(e *corev1.Event) string {
	o := &e.InvolvedObject
	return concat(e.Source.Component, e.Source.Host, o.Kind, o.Namespace, o.Name,
		string(o.UID), o.APIVersion, e.Type, e.Reason, e.ReportingController, e.ReportingInstance)
}

func spamKey(e *corev1.Event) string {
	o := &e.InvolvedObject
	return concat(e.Source.Component, e.Source.Host, o.Kind, o.Namespace, o.Name,
		string(o.UID), o.APIVersion, e.Type)
}

func concat(parts ...string) string { return strings.Join(parts, "") }

func (g *group) insert(msg string) {
	g.ever[msg] = true
	if _, ok := g.messages[msg]; !ok {
		g.messages[msg] = g.next
		g.next++
	}
}

func (g *group) popOldest() {
	oldest, at := "", math.MaxInt
	for m, n := range g.messages {
		if n < at {
			oldest, at = m, n
		}
	}
	delete(g.messages, oldest)
	g.popped = true
}
