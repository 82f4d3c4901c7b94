package sim

import (
	"fmt"
	"regexp"
	"strings"
)

// StopKind classifies why a sync of the Deployment controller ended early
// ([rollout.Result].Stop). Upstream's sync returns an error in each case and
// the work queue retries the Deployment rate-limited; most are the normal
// course of a rollout, not faults.
type StopKind string

const (
	// StopStaleDeployment: the sync wrote the Deployment a second time,
	// sending the object it read at the start of the sync, which its first
	// write made stale; the API server answers 409 Conflict. Upstream's
	// controller does this on most first syncs of a rollout (it records
	// the new revision, then the status), and the retry goes on.
	StopStaleDeployment StopKind = "stale-deployment-write"
	// StopStaleReplicaSet: the sync wrote a ReplicaSet it had already
	// written in this sync from its older copy: 409 Conflict, as upstream.
	StopStaleReplicaSet StopKind = "stale-replicaset-write"
	// StopHashCollision: the new ReplicaSet's name (its pod-template-hash)
	// is taken by another ReplicaSet; the sync raised
	// status.collisionCount, so the retry computes another hash.
	StopHashCollision StopKind = "hash-collision"
	// StopRefused: the API server refused a write as invalid, for example
	// a status whose counts overflowed int32 as upstream adds them, or a
	// collisionCount that cannot be raised any more. The retry meets the
	// same refusal until something changes.
	StopRefused StopKind = "refused"
	// StopOther is any other early end; the trace shows its full text.
	StopOther StopKind = "other"
)

// Stop is a sync of the Deployment controller that ended early and was
// requeued rate-limited.
type Stop struct {
	// Deployment is the Deployment's name.
	Deployment string `json:"deployment"`
	// Kind classifies Text.
	Kind StopKind `json:"kind"`
	// Text is the planner's explanation ([rollout.Result].Stop), verbatim.
	Text string `json:"text"`
	// FirstWrite is, for StopStaleDeployment, the Why of the sync's first
	// write of the Deployment (usually "record revision N ...").
	FirstWrite string `json:"firstWrite,omitempty"`
	// AfterNotes is the number of the frame's Notes recorded before the
	// stop: the text trace shows it after them, in the order of the run.
	AfterNotes int `json:"afterNotes"`

	// seq orders the frame's stops, syncs and restarts (see Frame.seq).
	seq int
}

// The texts of rollout's Stop, by kind (rollout/world.go writeDeployment
// and updateRS, rollout/newreplicaset.go, rollout/apply.go
// validateStatusUpdate). TestStopKinds pins them against the planner.
var (
	staleDeploymentSuffix = ": upstream sends the deployment read at the start of the sync again after an earlier write: conflict"
	staleReplicaSetRE     = regexp.MustCompile(`^update of replica set (\S+) would send a stale object: conflict$`)
	hashCollisionRE       = regexp.MustCompile(`^replicasets\.apps "([^"]+)" already exists \(hash collision: replica set \S+ exists with another template or owner; collisionCount (\d+) -> (\d+)\)$`)
	collisionMaxRE        = regexp.MustCompile(`^replicasets\.apps "([^"]+)" already exists, and status\.collisionCount is at its maximum (\d+):`)
	recordRevisionRE      = regexp.MustCompile(`^record revision (\d+)\b`)
	invalidRE             = regexp.MustCompile(`^(?:Deployment|ReplicaSet)\.apps "[^"]+" is invalid: `)
)

// classifyStop returns the kind of a Stop text.
func classifyStop(text string) StopKind {
	switch {
	case strings.HasSuffix(text, staleDeploymentSuffix):
		return StopStaleDeployment
	case staleReplicaSetRE.MatchString(text):
		return StopStaleReplicaSet
	case hashCollisionRE.MatchString(text):
		return StopHashCollision
	case collisionMaxRE.MatchString(text), invalidRE.MatchString(text):
		return StopRefused
	}
	return StopOther
}

// DescribeStop renders a stop as one line of the text trace (without
// indentation): what happened in a few words for the known kinds, the full
// text for the others. The stale writes, which upstream's controller makes
// at the start of most rollouts, read as the normal course they are; a
// hash collision and a refused write as the requeues they are.
func DescribeStop(st *Stop) string {
	const normal = ": upstream's normal course, not an error)"
	head := "deployment/" + st.Deployment + " requeued: "
	switch st.Kind {
	case StopStaleDeployment:
		if m := recordRevisionRE.FindStringSubmatch(st.FirstWrite); m != nil {
			return "deployment/" + st.Deployment + ": recorded revision " + m[1] + ", then synced again (the sync's next write of the deployment met 409 Conflict" + normal
		}
		return "deployment/" + st.Deployment + ": synced again (the sync's 2nd write of the deployment met 409 Conflict" + normal
	case StopStaleReplicaSet:
		if m := staleReplicaSetRE.FindStringSubmatch(st.Text); m != nil {
			return "deployment/" + st.Deployment + ": synced again (the sync's 2nd write of replica set " + m[1] + " met 409 Conflict" + normal
		}
	case StopHashCollision:
		if m := hashCollisionRE.FindStringSubmatch(st.Text); m != nil {
			return fmt.Sprintf("%spod-template-hash collision with replica set %s; collisionCount %s -> %s, the retry tries another hash (as upstream)", head, m[1], m[2], m[3])
		}
	case StopRefused:
		return head + "the API server refused a write (as upstream; retried): " + st.Text
	}
	return describeStopFull(st)
}

// describeStopFull renders a stop as the planner explains it.
func describeStopFull(st *Stop) string {
	return "# sync " + st.Deployment + " stopped: " + st.Text
}
