package revision

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Annotation keys and limits used by the Deployment controller and kubectl.
const (
	// RevisionAnnotation holds the revision of a ReplicaSet (and, copied from
	// its new ReplicaSet, of the Deployment), a decimal int64.
	RevisionAnnotation = "deployment.kubernetes.io/revision"
	// RevisionHistoryAnnotation lists, comma-separated, the earlier revisions
	// a ReplicaSet served before it was rolled back to.
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	// DesiredReplicasAnnotation records spec.replicas of the Deployment when
	// the ReplicaSet was last sized by it; it separates scaling events from
	// rollouts.
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	// MaxReplicasAnnotation records spec.replicas + maxSurge of the
	// Deployment; proportional scaling uses it.
	MaxReplicasAnnotation = "deployment.kubernetes.io/max-replicas"
	// ChangeCauseAnnotation is the change cause kubectl shows in
	// `kubectl rollout history`.
	ChangeCauseAnnotation = "kubernetes.io/change-cause"
	// RollbackToAnnotation is the legacy rollback request on a Deployment
	// (appsv1.DeprecatedRollbackTo).
	RollbackToAnnotation = appsv1.DeprecatedRollbackTo
	// LastAppliedConfigAnnotation is kubectl apply's record of the last
	// applied configuration.
	LastAppliedConfigAnnotation = corev1.LastAppliedConfigAnnotation
	// MaxHistoryChars is upstream's limit (2000) on the revision-history
	// annotation length.
	MaxHistoryChars = 2000
)

// isNil reports whether obj is nil or a typed nil pointer.
func isNil(obj any) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// describe names obj in error messages: its kind when known and
// namespace/name.
func describe(obj metav1.Object) string {
	kind := "object"
	switch obj.(type) {
	case *appsv1.ReplicaSet:
		kind = "ReplicaSet"
	case *appsv1.Deployment:
		kind = "Deployment"
	}
	name := obj.GetName()
	if ns := obj.GetNamespace(); ns != "" {
		name = ns + "/" + name
	}
	return fmt.Sprintf("%s %q", kind, name)
}

// Revision parses the revision annotation of obj. A missing annotation is
// revision 0 with no error. A value that is not a decimal int64 is an error
// naming the object and metadata.annotations["deployment.kubernetes.io/revision"],
// wrapping the [strconv.NumError]. A nil obj is an error.
func Revision(obj metav1.Object) (int64, error) {
	if isNil(obj) {
		return 0, errors.New("revision of a nil object")
	}
	v, ok := obj.GetAnnotations()[RevisionAnnotation]
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: metadata.annotations[%q]: invalid value %q: %w", describe(obj), RevisionAnnotation, v, err)
	}
	return n, nil
}

// MaxRevision returns the highest revision among rss, 0 if none. Like
// upstream, ReplicaSets whose revision does not parse are skipped; so are nil
// entries.
func MaxRevision(rss []*appsv1.ReplicaSet) int64 {
	var highest int64
	for _, rs := range rss {
		if rs == nil {
			continue
		}
		if v, err := Revision(rs); err == nil && v > highest {
			highest = v
		}
	}
	return highest
}

// LastRevision returns the second highest revision among rss (the revision a
// rollback without a target goes back to), 0 if there is none. It keeps
// upstream's semantics: a revision equal to the highest so far pushes the
// highest into second place, so with revisions {3, 3} it returns 3.
// Unparsable revisions and nil entries are skipped.
func LastRevision(rss []*appsv1.ReplicaSet) int64 {
	var highest, second int64
	for _, rs := range rss {
		if rs == nil {
			continue
		}
		v, err := Revision(rs)
		switch {
		case err != nil:
		case v >= highest:
			second, highest = highest, v
		case v > second:
			second = v
		}
	}
	return second
}

// Next returns the revision a new ReplicaSet gets when oldRSs are the
// Deployment's other ReplicaSets: [MaxRevision] + 1, in decimal, as upstream
// passes it to [NewReplicaSetAnnotations].
func Next(oldRSs []*appsv1.ReplicaSet) string {
	return strconv.FormatInt(MaxRevision(oldRSs)+1, 10)
}

// SkipCopy reports whether the annotation key is never copied between a
// Deployment and its ReplicaSets (in either direction): the last applied
// configuration, revision, revision-history, desired-replicas, max-replicas
// and the legacy rollback request.
func SkipCopy(key string) bool {
	switch key {
	case LastAppliedConfigAnnotation, RevisionAnnotation, RevisionHistoryAnnotation,
		DesiredReplicasAnnotation, MaxReplicasAnnotation, RollbackToAnnotation:
		return true
	}
	return false
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+4)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// NewReplicaSetAnnotations returns the annotations the Deployment d's new
// ReplicaSet rs must carry, and whether they differ from rs's. It reproduces
// upstream's SetNewReplicaSetAnnotations(d, rs, newRevision, exists, 2000) on
// a copy: neither d nor rs is modified. The result is a new, non-nil map,
// except when rs exists and nothing changes (the case of almost every
// sync): then it is rs's own annotations map, returned without copying, and
// must not be modified.
//
// In order:
//   - every annotation of d except [SkipCopy] keys is copied (an annotation
//     already present with the same value is not a change);
//   - the revision is raised to newRevision only if rs's current revision
//     (missing or "" counts as 0) is lower;
//   - when it was raised and rs already had a revision annotation (a
//     rollback to rs), that old revision is appended to revision-history;
//     the oldest entries are dropped so that the value stays within
//     [MaxHistoryChars], and if even dropping all of them does not make it
//     fit, the history is left as it was;
//   - when !exists (rs is about to be created), desired-replicas is set to
//     d's spec.replicas and max-replicas to spec.replicas + maxSurge (the
//     caller resolves maxSurge, e.g. with fencepost.MaxSurge). A nil
//     spec.replicas counts as 0.
//
// When rs's revision annotation is present but not an int64, or newRevision
// is not one, upstream logs a warning and reports false after having copied
// d's annotations into its working copy of rs. This function does the same:
// it returns those copied annotations (no revision, history or replica
// changes) and false. Upstream still writes that copy when it updates rs for
// another reason (minReadySeconds), so a caller that does likewise stays
// faithful; a caller that only writes on true never sees the difference.
//
// A nil d copies nothing; a nil rs is a ReplicaSet without annotations.
func NewReplicaSetAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet, newRevision string, exists bool, maxSurge int32) (map[string]string, bool) {
	return newReplicaSetAnnotations(d, rs, newRevision, exists, maxSurge, MaxHistoryChars)
}

// newReplicaSetAnnotations is NewReplicaSetAnnotations with the history
// limit as a parameter (upstream's revHistoryLimitInChars), for tests.
func newReplicaSetAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet, newRevision string, exists bool, maxSurge int32, historyLimit int) (map[string]string, bool) {
	var rsAnnotations map[string]string
	if rs != nil {
		rsAnnotations = rs.Annotations
	}
	if exists && rsAnnotations != nil && !annotationsWouldChange(d, rsAnnotations, newRevision) {
		// The common case of every sync: nothing to do, nothing to copy.
		return rsAnnotations, false
	}
	out := copyMap(rsAnnotations)
	changed := false
	if d != nil {
		for k, v := range d.Annotations {
			if SkipCopy(k) {
				continue
			}
			if old, ok := out[k]; ok && old == v {
				continue
			}
			out[k] = v
			changed = true
		}
	}

	oldRevision, hadRevision := out[RevisionAnnotation]
	oldInt, err := strconv.ParseInt(oldRevision, 10, 64)
	if err != nil {
		if oldRevision != "" {
			return out, false
		}
		oldInt = 0
	}
	newInt, err := strconv.ParseInt(newRevision, 10, 64)
	if err != nil {
		return out, false
	}
	if oldInt < newInt {
		out[RevisionAnnotation] = newRevision
		changed = true
		if hadRevision {
			if h, ok := appendHistory(out[RevisionHistoryAnnotation], oldRevision, historyLimit); ok {
				out[RevisionHistoryAnnotation] = h
			}
		}
	}

	if !exists {
		var replicas int32
		if d != nil && d.Spec.Replicas != nil {
			replicas = *d.Spec.Replicas
		}
		if setReplicas(out, replicas, replicas+maxSurge) {
			changed = true
		}
	}
	return out, changed
}

// appendHistory appends old to the comma-separated history, dropping the
// oldest entries until the result fits in limit characters. It reports false
// when the result cannot fit even with every entry dropped (upstream then
// leaves the history unchanged). An empty history, or one whose first entry
// is empty, is replaced by old without a length check, as upstream does.
//
// It computes what upstream's split / drop / join does without splitting:
// dropping an entry is moving past the next comma.
func appendHistory(history, old string, limit int) (string, bool) {
	if history == "" || history[0] == ',' {
		return old, true
	}
	total := len(history) + len(old) + 1
	pos := 0 // start of the first kept entry; len(history)+1 when none is kept
	for total > limit && pos <= len(history) {
		i := strings.IndexByte(history[pos:], ',')
		if i < 0 {
			i = len(history) - pos
		}
		total -= i + 1
		pos += i + 1
	}
	switch {
	case total > limit:
		return history, false
	case pos > len(history):
		return old, true
	default:
		return history[pos:] + "," + old, true
	}
}

// setReplicas sets desired-replicas and max-replicas in m (which the caller
// owns) and reports whether either changed.
func setReplicas(m map[string]string, desired, max int32) bool {
	changed := false
	if s := strconv.FormatInt(int64(desired), 10); m[DesiredReplicasAnnotation] != s {
		m[DesiredReplicasAnnotation] = s
		changed = true
	}
	if s := strconv.FormatInt(int64(max), 10); m[MaxReplicasAnnotation] != s {
		m[MaxReplicasAnnotation] = s
		changed = true
	}
	return changed
}

// ReplicasAnnotationsNeedUpdate reports whether [ReplicasAnnotations] would
// change annotations (upstream's ReplicasAnnotationsNeedUpdate), without
// copying or allocating.
func ReplicasAnnotationsNeedUpdate(annotations map[string]string, desired, max int32) bool {
	var buf [12]byte
	if v, ok := annotations[DesiredReplicasAnnotation]; !ok || v != string(strconv.AppendInt(buf[:0], int64(desired), 10)) {
		return true
	}
	v, ok := annotations[MaxReplicasAnnotation]
	return !ok || v != string(strconv.AppendInt(buf[:0], int64(max), 10))
}

// ReplicasAnnotations returns a copy of annotations with desired-replicas
// and max-replicas set to desired and max in decimal, and whether either
// value changed (upstream SetReplicasAnnotations; the bool is also upstream's
// ReplicasAnnotationsNeedUpdate). The result is never nil; annotations is not
// modified.
func ReplicasAnnotations(annotations map[string]string, desired, max int32) (map[string]string, bool) {
	out := copyMap(annotations)
	changed := setReplicas(out, desired, max)
	return out, changed
}

// WithRevision returns a copy of annotations with the revision annotation set
// to revision, and whether it changed (upstream SetDeploymentRevision, used
// to copy the new ReplicaSet's revision onto the Deployment). The result is
// never nil; annotations is not modified.
func WithRevision(annotations map[string]string, revision string) (map[string]string, bool) {
	out := copyMap(annotations)
	// Like upstream, a missing key and an empty revision compare equal, and
	// then nothing is set.
	if out[RevisionAnnotation] == revision {
		return out, false
	}
	out[RevisionAnnotation] = revision
	return out, true
}

// DesiredReplicas reads the desired-replicas annotation of rs. It reports
// false when rs is nil, the annotation is missing, or its value is not a
// non-negative decimal that fits in an int32 ("-1", "+1", "2147483648" and
// "abc" are all rejected), as upstream v1.37 reads it.
func DesiredReplicas(rs *appsv1.ReplicaSet) (int32, bool) {
	return nonNegativeInt32(rs, DesiredReplicasAnnotation)
}

// MaxReplicas reads the max-replicas annotation of rs, with the same rules as
// [DesiredReplicas].
func MaxReplicas(rs *appsv1.ReplicaSet) (int32, bool) {
	return nonNegativeInt32(rs, MaxReplicasAnnotation)
}

func nonNegativeInt32(rs *appsv1.ReplicaSet, key string) (int32, bool) {
	if rs == nil {
		return 0, false
	}
	s, ok := rs.Annotations[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n > math.MaxInt32 {
		return 0, false
	}
	return int32(n), true
}

// AnnotationsForRollback returns the Deployment's annotations after rolling
// back to rs: d's [SkipCopy] annotations are kept, every other annotation of
// rs is taken, and d's other annotations are dropped (upstream
// SetDeploymentAnnotationsTo; kubectl rollout undo computes the same map).
// The result is a new, non-nil map; d and rs are not modified.
func AnnotationsForRollback(d *appsv1.Deployment, rs *appsv1.ReplicaSet) map[string]string {
	out := make(map[string]string)
	if d != nil {
		for k, v := range d.Annotations {
			if SkipCopy(k) {
				out[k] = v
			}
		}
	}
	if rs != nil {
		for k, v := range rs.Annotations {
			if !SkipCopy(k) {
				out[k] = v
			}
		}
	}
	return out
}

// ByRevision returns a new slice with the ReplicaSets of rss sorted by
// revision, lowest first; equal revisions by creation timestamp, then name,
// then UID, so the order is total (upstream ReplicaSetsByRevision with a
// total order). Upstream's comparison falls back to creation order whenever
// either revision does not parse, which is not a consistent order; here
// ReplicaSets with an unparsable revision come first, among themselves by
// creation timestamp, name and UID. nil entries come last. rss is not
// modified.
func ByRevision(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	type keyed struct {
		rs  *appsv1.ReplicaSet
		rev int64
		bad bool
	}
	ks := make([]keyed, len(rss))
	for i, rs := range rss {
		ks[i].rs = rs
		if rs != nil {
			v, err := Revision(rs)
			ks[i].rev, ks[i].bad = v, err != nil
		}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		if a.rs == nil || b.rs == nil {
			return boolCmp(a.rs == nil, b.rs == nil)
		}
		if a.bad != b.bad {
			return boolCmp(!a.bad, !b.bad)
		}
		if c := cmp.Compare(a.rev, b.rev); c != 0 && !a.bad {
			return c
		}
		return byCreation(a.rs, b.rs)
	})
	out := make([]*appsv1.ReplicaSet, len(ks))
	for i := range ks {
		out[i] = ks[i].rs
	}
	return out
}

// boolCmp orders false before true.
func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	default:
		return -1
	}
}

// byCreation orders by creation timestamp, then name, then UID.
func byCreation(a, b *appsv1.ReplicaSet) int {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		if a.CreationTimestamp.Before(&b.CreationTimestamp) {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return cmp.Compare(a.UID, b.UID)
}

// annotationsWouldChange reports, without copying, whether
// newReplicaSetAnnotations may change an existing ReplicaSet's annotations
// (or must take its slow path to reproduce upstream's garbage handling).
func annotationsWouldChange(d *appsv1.Deployment, rsAnnotations map[string]string, newRevision string) bool {
	if d != nil {
		for k, v := range d.Annotations {
			if SkipCopy(k) {
				continue
			}
			if old, ok := rsAnnotations[k]; !ok || old != v {
				return true
			}
		}
	}
	oldRevision := rsAnnotations[RevisionAnnotation]
	oldInt, err := strconv.ParseInt(oldRevision, 10, 64)
	if err != nil {
		if oldRevision != "" {
			return true
		}
		oldInt = 0
	}
	newInt, err := strconv.ParseInt(newRevision, 10, 64)
	return err != nil || oldInt < newInt
}
