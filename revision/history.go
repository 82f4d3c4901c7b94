package revision

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"text/tabwriter"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/deploymath/deploymath/hashing"
)

// Entry is one row of a Deployment's rollout history: one ReplicaSet and the
// revision it serves.
type Entry struct {
	// Revision is the ReplicaSet's revision annotation.
	Revision int64
	// ReplicaSet is the ReplicaSet's name.
	ReplicaSet string
	// ChangeCause is the ReplicaSet's kubernetes.io/change-cause annotation,
	// "" when missing.
	ChangeCause string
	// Template is a deep copy of the ReplicaSet's pod template with the
	// pod-template-hash label removed.
	Template corev1.PodTemplateSpec
}

// owned returns the ReplicaSets of rss that kubectl considers d's: those
// whose controller ownerReference has d's UID and whose labels match d's
// selector (a nil selector matches everything, as kubectl's list with an
// empty label selector does).
func owned(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) ([]*appsv1.ReplicaSet, error) {
	selector := labels.Everything()
	if d.Spec.Selector != nil {
		s, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil {
			return nil, fmt.Errorf("deployment %q: spec.selector: %w", d.Name, err)
		}
		selector = s
	}
	var out []*appsv1.ReplicaSet
	for _, rs := range rss {
		if rs == nil || !metav1.IsControlledBy(rs, d) || !selector.Matches(labels.Set(rs.Labels)) {
			continue
		}
		out = append(out, rs)
	}
	return out, nil
}

// templateWithoutHash returns a deep copy of t without the pod-template-hash
// label (a nil label map stays nil).
func templateWithoutHash(t *corev1.PodTemplateSpec) corev1.PodTemplateSpec {
	out := *t.DeepCopy()
	if out.Labels != nil {
		out.Labels = hashing.LabelsWithoutHash(out.Labels)
	}
	return out
}

// equalIgnoreHash compares two templates semantically (nil and empty maps
// and slices are equal), ignoring the pod-template-hash label, as kubectl's
// equalIgnoreHash does; it compares shallow copies instead of deep ones.
func equalIgnoreHash(a, b *corev1.PodTemplateSpec) bool {
	ma, mb := a.ObjectMeta, b.ObjectMeta
	ma.Labels, mb.Labels = hashing.LabelsWithoutHash(a.Labels), hashing.LabelsWithoutHash(b.Labels)
	return equality.Semantic.DeepEqual(&ma, &mb) && equality.Semantic.DeepEqual(&a.Spec, &b.Spec)
}

// History lists the rollout history of d, as `kubectl rollout history`
// gathers it: one [Entry] per ReplicaSet of rss that d controls (its
// controller ownerReference has d's UID) and that d's selector matches,
// sorted by revision (ties as in [ByRevision]). ReplicaSets whose revision
// annotation does not parse are skipped, as kubectl does; nil entries too.
//
// The error is for a nil d or an invalid spec.selector. d and rss are not
// modified.
func History(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) ([]Entry, error) {
	if d == nil {
		return nil, errors.New("history of a nil Deployment")
	}
	mine, err := owned(d, rss)
	if err != nil {
		return nil, err
	}
	var entries []Entry
	for _, rs := range ByRevision(mine) {
		v, err := Revision(rs)
		if err != nil {
			continue
		}
		entries = append(entries, Entry{
			Revision:    v,
			ReplicaSet:  rs.Name,
			ChangeCause: rs.Annotations[ChangeCauseAnnotation],
			Template:    templateWithoutHash(&rs.Spec.Template),
		})
	}
	return entries, nil
}

// DescribeHistory renders entries as `kubectl rollout history` prints them:
// a REVISION / CHANGE-CAUSE table in revision order, "<none>" for an empty
// change cause, or "No rollout history found." when there is no entry.
// kubectl shows one row per revision; when several entries share a revision,
// the last one in entries wins, as in kubectl's map.
func DescribeHistory(entries []Entry) string {
	if len(entries) == 0 {
		return "No rollout history found."
	}
	causes := make(map[int64]string, len(entries))
	revisions := make([]int64, 0, len(entries))
	for _, e := range entries {
		if _, seen := causes[e.Revision]; !seen {
			revisions = append(revisions, e.Revision)
		}
		causes[e.Revision] = e.ChangeCause
	}
	slices.Sort(revisions)
	var buf bytes.Buffer
	w := tabwriter.NewWriter(&buf, 0, 8, 2, ' ', 0)
	fmt.Fprintf(w, "REVISION\tCHANGE-CAUSE\n")
	for _, r := range revisions {
		cause := causes[r]
		if cause == "" {
			cause = "<none>"
		}
		fmt.Fprintf(w, "%d\t%s\n", r, cause)
	}
	_ = w.Flush()
	return buf.String()
}

// Rollback is what `kubectl rollout undo deployment/NAME [--to-revision=N]`
// computes before it patches the Deployment.
type Rollback struct {
	// Revision is the revision rolled back to.
	Revision int64
	// ReplicaSet is the name of the ReplicaSet serving that revision.
	ReplicaSet string
	// AlreadyMatches is true when the Deployment's template already equals
	// the target's (ignoring the pod-template-hash label): kubectl then
	// skips the rollback, and Template and Annotations are zero.
	AlreadyMatches bool
	// Template is the target's pod template with the pod-template-hash
	// label removed: the new spec.template.
	Template corev1.PodTemplateSpec
	// Annotations is the Deployment's complete new metadata.annotations
	// (kubectl replaces them): its own [SkipCopy] annotations plus every
	// other annotation of the target ReplicaSet. Never nil unless
	// AlreadyMatches.
	Annotations map[string]string
	// Message is what kubectl prints after "deployment.apps/NAME ":
	// "rolled back", or "skipped rollback (current template already matches
	// revision N)" where N is the --to-revision given (0 when none was, as
	// kubectl prints it).
	Message string
}

// Apply returns a deep copy of d with the rollback applied (spec.template
// and metadata.annotations replaced, as kubectl's JSON patch does). When the
// rollback was skipped it returns an unchanged deep copy. d is not modified.
func (r Rollback) Apply(d *appsv1.Deployment) *appsv1.Deployment {
	out := d.DeepCopy()
	if out == nil || r.AlreadyMatches {
		return out
	}
	out.Spec.Template = *r.Template.DeepCopy()
	out.Annotations = copyMap(r.Annotations)
	return out
}

// RollbackTarget computes `kubectl rollout undo` for d against its
// ReplicaSets rss (kubectl's DeploymentRollbacker; filtered as in [History]).
//
// toRevision 0 means the previous revision: the second highest, where a
// duplicate of the highest counts (see [LastRevision]). Errors, with
// kubectl's wording and in kubectl's order:
//   - toRevision < 0, or no ReplicaSet has revision toRevision:
//     "unable to find specified revision N in history";
//   - toRevision 0 and fewer than two revisions:
//     "no rollout history found for deployment \"NAME\"";
//   - d is paused: "you cannot rollback a paused deployment; resume it first
//     with 'kubectl rollout resume' and try again" (kubectl's wording since
//     v1.26, without the Deployment's name);
//   - a nil d or an invalid spec.selector.
//
// When several ReplicaSets carry the target revision, the one kubectl sees
// first wins: old ReplicaSets in creation order, then the new one (the
// oldest whose template equals d's ignoring the hash label). d and rss are
// not modified.
func RollbackTarget(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, toRevision int64) (Rollback, error) {
	if d == nil {
		return Rollback{}, errors.New("rollback of a nil Deployment")
	}
	if toRevision < 0 {
		return Rollback{}, revisionNotFound(toRevision)
	}
	mine, err := owned(d, rss)
	if err != nil {
		return Rollback{}, err
	}
	target, rev, err := findRevision(d, kubectlOrder(d, mine), toRevision)
	if err != nil {
		return Rollback{}, err
	}
	if d.Spec.Paused {
		return Rollback{}, errors.New("you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again")
	}
	if equalIgnoreHash(&target.Spec.Template, &d.Spec.Template) {
		return Rollback{
			Revision:       rev,
			ReplicaSet:     target.Name,
			AlreadyMatches: true,
			Message:        fmt.Sprintf("skipped rollback (current template already matches revision %d)", toRevision),
		}, nil
	}
	return Rollback{
		Revision:    rev,
		ReplicaSet:  target.Name,
		Template:    templateWithoutHash(&target.Spec.Template),
		Annotations: AnnotationsForRollback(d, target),
		Message:     "rolled back",
	}, nil
}

func revisionNotFound(r int64) error {
	return fmt.Errorf("unable to find specified revision %d in history", r)
}

// kubectlOrder orders rss as kubectl's GetAllReplicaSets returns them: the
// old ReplicaSets by creation timestamp (then name, then UID), then the new
// one: the oldest whose template equals d's ignoring the hash label.
func kubectlOrder(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	sorted := slices.Clone(rss)
	slices.SortStableFunc(sorted, byCreation)
	newIdx := slices.IndexFunc(sorted, func(rs *appsv1.ReplicaSet) bool {
		return equalIgnoreHash(&rs.Spec.Template, &d.Spec.Template)
	})
	if newIdx < 0 {
		return sorted
	}
	newRS := sorted[newIdx]
	return append(slices.Delete(sorted, newIdx, newIdx+1), newRS)
}

// findRevision picks the ReplicaSet for toRevision (0: the previous one) as
// kubectl's deploymentRevision does.
func findRevision(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, toRevision int64) (*appsv1.ReplicaSet, int64, error) {
	var latest, previous *appsv1.ReplicaSet
	latestRev, previousRev := int64(-1), int64(-1)
	for _, rs := range rss {
		v, err := Revision(rs)
		if err != nil {
			continue
		}
		if toRevision > 0 {
			if v == toRevision {
				return rs, v, nil
			}
			continue
		}
		if latestRev < v {
			previous, previousRev = latest, latestRev
			latest, latestRev = rs, v
		} else if previousRev < v {
			previous, previousRev = rs, v
		}
	}
	if toRevision > 0 {
		return nil, 0, revisionNotFound(toRevision)
	}
	if previous == nil {
		return nil, 0, fmt.Errorf("no rollout history found for deployment %q", d.Name)
	}
	return previous, previousRev, nil
}
