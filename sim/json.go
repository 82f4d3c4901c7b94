package sim

import (
	"encoding/json"
	"time"
)

// FormatVersion is the version of the run's JSON form ([Result.JSON]):
//   - 1 (no formatVersion field): every frame holds every Deployment with
//     its whole state; durations in nanoseconds only.
//   - 2: a frame holds the Deployments that changed and what changed of
//     them, unless "view" is "full" ([Options].FullView; see
//     [Trace.States] for the rules); every duration, in nanoseconds as
//     before, has beside it the same as a Go duration string, its name
//     ending in "Text" ("at": 3852000000, "atText": "3.852s"); the
//     summary has each Deployment's figures; rows have the Deployment's
//     namespace and resolved maxSurge and maxUnavailable.
const FormatVersion = 2

// JSON renders the run as indented JSON: the format version, the
// scenario and seed, the view of the trace ("changes", or "full" with
// [Options].FullView), its frames, the summary, the violations, warnings
// and missed steps, the outcomes, the write log and the Events. Every
// duration is an offset or a length in nanoseconds, and the same as a Go
// duration string in the field of the same name ending in "Text"; see
// [FormatVersion].
func (r *Result) JSON() ([]byte, error) {
	type out struct {
		FormatVersion int                 `json:"formatVersion"`
		Scenario      string              `json:"scenario"`
		Seed          uint64              `json:"seed"`
		View          string              `json:"view"`
		Frames        []Frame             `json:"frames"`
		Dropped       int                 `json:"droppedFrames,omitempty"`
		Summary       summaryJSON         `json:"summary"`
		Violations    []Violation         `json:"violations,omitempty"`
		Warnings      []Violation         `json:"warnings,omitempty"`
		Missed        []MissedStep        `json:"missedSteps,omitempty"`
		Outcomes      []DeploymentOutcome `json:"outcomes"`
		Writes        []Write             `json:"writes,omitempty"`
		Events        []ClusterEvent      `json:"events,omitempty"`
	}
	view := "changes"
	if r.Trace.Full {
		view = "full"
	}
	return json.MarshalIndent(out{FormatVersion, r.Scenario, r.Seed, view, r.Trace.Frames, r.Trace.Dropped, summaryJSON(r.Summary),
		r.Violations, r.Warnings, r.Missed, r.Outcomes, r.Writes, r.Events}, "", "  ")
}

// summaryJSON is a [Summary] in the run's JSON, its durations with their
// Go duration strings. Summary's own JSON form (which sim/sweep's reports
// hold) has the nanoseconds only.
type summaryJSON Summary

func (s summaryJSON) MarshalJSON() ([]byte, error) {
	type plain Summary
	return json.Marshal(struct {
		plain
		CompletedAtText       string `json:"completedAtText"`
		TimeToCompleteText    string `json:"timeToCompleteText"`
		BelowMinAvailableText string `json:"belowMinAvailableText"`
		StartText             string `json:"startText"`
		EndText               string `json:"endText"`
	}{plain(s), s.CompletedAt.String(), s.TimeToComplete.String(), s.BelowMinAvailable.String(), s.Start.String(), s.End.String()})
}

// MarshalJSON writes the figures with their durations also as Go duration
// strings.
func (d DeploymentSummary) MarshalJSON() ([]byte, error) {
	type plain DeploymentSummary
	return json.Marshal(struct {
		plain
		CompletedAtText       string `json:"completedAtText"`
		TimeToCompleteText    string `json:"timeToCompleteText"`
		BelowMinAvailableText string `json:"belowMinAvailableText"`
	}{plain(d), d.CompletedAt.String(), d.TimeToComplete.String(), d.BelowMinAvailable.String()})
}

// MarshalJSON writes the frame with its time also as a Go duration
// string, first ("atText").
func (f Frame) MarshalJSON() ([]byte, error) {
	type plain Frame
	return json.Marshal(struct {
		AtText string `json:"atText"`
		plain
	}{f.At.String(), plain(f)})
}

// MarshalJSON writes the condition with its times also as Go duration
// strings.
func (c ConditionRow) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type               string        `json:"type"`
		Status             string        `json:"status"`
		Reason             string        `json:"reason"`
		Message            string        `json:"message"`
		LastUpdate         time.Duration `json:"lastUpdate"`
		LastUpdateText     string        `json:"lastUpdateText"`
		LastTransition     time.Duration `json:"lastTransition"`
		LastTransitionText string        `json:"lastTransitionText"`
	}{c.Type, c.Status, c.Reason, c.Message, c.LastUpdate, c.LastUpdate.String(), c.LastTransition, c.LastTransition.String()})
}

// MarshalJSON writes the Event with its times also as Go duration
// strings.
func (e ClusterEvent) MarshalJSON() ([]byte, error) {
	type plain ClusterEvent
	return json.Marshal(struct {
		plain
		FirstSeenText string `json:"firstSeenText"`
		LastSeenText  string `json:"lastSeenText"`
	}{plain(e), e.FirstSeen.String(), e.LastSeen.String()})
}

// MarshalJSON writes the write with its time also as a Go duration
// string, first ("atText").
func (w Write) MarshalJSON() ([]byte, error) {
	type plain Write
	return json.Marshal(struct {
		AtText string `json:"atText"`
		plain
	}{w.At.String(), plain(w)})
}

// MarshalJSON writes the violation with its time also as a Go duration
// string.
func (v Violation) MarshalJSON() ([]byte, error) {
	type plain Violation
	return json.Marshal(struct {
		AtText string `json:"atText"`
		plain
	}{v.At.String(), plain(v)})
}

// MarshalJSON writes the missed step with its time also as a Go duration
// string.
func (m MissedStep) MarshalJSON() ([]byte, error) {
	type plain MissedStep
	return json.Marshal(struct {
		AtText string `json:"atText"`
		plain
	}{m.At.String(), plain(m)})
}
