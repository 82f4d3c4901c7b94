package snapshot

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// getState is what to run instead of pasting parts of objects.
const getState = "kubectl get deploy,rs,pods -o yaml > state.yaml (-n NAMESPACE, or -A) and give that file"

// statusFields are the fields of a Deployment's or ReplicaSet's status:
// top-level keys of a status copied without its "status:" line.
var statusFields = map[string]bool{
	"observedGeneration": true, "replicas": true, "updatedReplicas": true, "readyReplicas": true,
	"availableReplicas": true, "unavailableReplicas": true, "terminatingReplicas": true,
	"fullyLabeledReplicas": true, "conditions": true, "collisionCount": true,
}

// fragment says what a document without kind and apiVersion is, when it
// is a part of an object (a status: block, a status's fields, a spec or
// metadata), and what to run instead; "" when it is none of these.
func fragment(raw []byte) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil || len(top) == 0 {
		return ""
	}
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	part := func(k string) bool { return k == "status" || k == "spec" || k == "metadata" }
	switch {
	case !slices.ContainsFunc(keys, func(k string) bool { return !part(k) }):
		what := "a " + strings.Join(keys, ": and ") + ": block"
		if len(keys) > 1 {
			what = "the " + strings.Join(keys, ":, ") + ": blocks"
		}
		return fmt.Sprintf("%s without the object it belongs to (no apiVersion, kind or metadata.name): explain reads whole objects, with their status: %s", what, getState)
	case !slices.ContainsFunc(keys, func(k string) bool { return !statusFields[k] }):
		return fmt.Sprintf("the fields of a status (%s) without the object they belong to: explain reads whole objects, with their status: %s", strings.Join(keys, ", "), getState)
	}
	return ""
}

// withoutMetadata is the error of an object of kind without metadata, as
// left by a copy of the part of a dump below its metadata.
func withoutMetadata(kind string) error {
	return fmt.Errorf("metadata: required value: a %s without its metadata (name, namespace, labels, owner references) looks cut out of a dump: %s", kind, getState)
}

// truncatedList is the error of a List that has items but no kind: kubectl
// prints kind: List and metadata after the items, so a paste cut short
// loses them.
func truncatedList(lastLine int) error {
	at := ""
	if lastLine > 0 {
		at = fmt.Sprintf(" (it ends at line %d)", lastLine)
	}
	return fmt.Errorf("kind: required value: a List with items but no kind: List after them, where kubectl prints it: the paste looks truncated%s; give the whole output of %s", at, getState)
}
