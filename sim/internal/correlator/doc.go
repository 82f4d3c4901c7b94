// Package correlator models, without clients or goroutines, what client-go's
// event recorder (k8s.io/client-go v0.37.2, tools/record) does between a
// controller's EventRecorder call and the API server: it aggregates similar
// events, folds identical events into count updates, and drops events a
// per-object token bucket refuses. The same inputs always give the same
// actions and the same final list of Events.
//
// Feed [Correlator.Record] the events a controller records, in time order;
// each call returns the [Action] client-go would take for it, and
// [Correlator.Events] returns the Events the API server holds afterwards,
// which is what `kubectl get events` lists.
//
// # The rules
//
// Every event is turned into a v1.Event the way the recorder builds it: name
// "<object name>.<Time in Unix nanoseconds, lower-case hex>", namespace the
// object's ("default" if empty), count 1, firstTimestamp = lastTimestamp =
// Time, source and reportingController/reportingInstance from [Input.Source].
// Then three stages run, each with its own least-recently-used cache of
// [DefaultCacheSize] (4096) entries; an entry pushed out of a cache is
// forgotten, as if never seen.
//
//  1. Aggregation. Events with the same source, involved object (kind,
//     namespace, name, UID, API version), type and reason are "similar"; for
//     each such group the recorder remembers the distinct messages seen and the
//     time of the group's last event. A group whose last event is more than
//     [DefaultMaxInterval] (10 minutes) old starts afresh. When an event brings
//     the number of distinct messages to [DefaultMaxEvents] (10), it is
//     replaced by a combined event: a new name from the same pattern, count 1,
//     both timestamps = Time, message "(combined from similar events): " +
//     the event's own message, no reportingController/Instance; one of the
//     remembered messages is then forgotten (see Uncertain below), so every
//     later event of the group with a new message is combined too.
//  2. Deduplication. Identical events (every field of the source, the involved
//     object including fieldPath, type, reason and message) and the combined
//     events of one group are counted under one key: from the second on, the
//     event takes the name and firstTimestamp of the first and count + 1, and
//     is written as a PATCH of count, lastTimestamp and message. The count goes
//     up even when the write is later dropped.
//  3. Spam filter. Each source + involved object + type (reason and message
//     left out) has a token bucket of [DefaultSpamBurst] (25) tokens refilled
//     at [DefaultSpamQPS] (1/300 per second, rounded to float32 as client-go
//     does, so one token per 300 s); an event that finds no whole token is
//     dropped (ActionSkip) and nothing is written.
//
// The write then goes to the API server: a PATCH of an Event that does not
// exist (its first write was dropped) becomes a POST of the whole event with
// the accumulated count; a POST whose name exists is refused (AlreadyExists)
// and dropped. After each successful write the server's copy is remembered
// under that copy's own identical-event key. The server keeps timestamps in
// whole seconds.
//
// # What is not modelled
//
// The recorder stamps an event when the controller records it and the
// correlator reads its clock when it processes it, a few microseconds later;
// here both are [Input.Time]. Write failures and retries, resourceVersion,
// uid and creationTimestamp, annotations, series (events.k8s.io/v1) and the
// recorder's fallback to a random name when the generated one is not a valid
// DNS subdomain (Record returns an error instead) are left out.
//
// Uncertain: when a group reaches the message limit client-go forgets an
// arbitrary remembered message (Go map order), so whether a later event that
// repeats an earlier message of the group is combined is a coin toss in the
// real recorder. The model forgets the oldest message and marks such actions
// [Action.Uncertain]; everything before the first uncertain action is exact.
//
// Simultaneous events of one object get the same generated name, and the
// second POST is refused. A simulator that records several events at one
// instant should give them distinct nanoseconds, as a real cluster does.
package correlator
