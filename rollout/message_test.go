package rollout

import (
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// isQuotedMessage never accepts a message other than the one it stands
// for, and accepts that one for every valid object name (non-ASCII names
// may be refused: the caller then builds the message).
func TestIsQuotedMessage(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		kind := rapid.SampledFrom([]string{"ReplicaSet ", "Deployment "}).Draw(t, "kind")
		objectName := rapid.Bool().Draw(t, "objectName")
		name := rapid.String().Draw(t, "anyName")
		if objectName {
			name = rapid.StringMatching(`[a-z0-9]([-a-z0-9.]{0,20}[a-z0-9])?`).Draw(t, "name")
		}
		rest := rapid.SampledFrom([]string{"is progressing.", "has successfully progressed.", "has timed out progressing."}).Draw(t, "rest")
		want := kind + strconv.Quote(name) + " " + rest
		msg := rapid.OneOf(rapid.Just(want), rapid.String(), rapid.Just(kind+`"`+name+`" `+rest)).Draw(t, "msg")
		if isQuotedMessage(msg, kind, name, rest) && msg != want {
			t.Fatalf("accepted %q for %q", msg, want)
		}
		if objectName && !isQuotedMessage(want, kind, name, rest) {
			t.Fatalf("rejected %q", want)
		}
	})
}
