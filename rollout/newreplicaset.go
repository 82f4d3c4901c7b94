package rollout

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/revision"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// getAllReplicaSetsAndSyncRevision returns the new ReplicaSet (creating it
// when asked and missing) and all old ones, syncing the new one's revision
// annotations and the Deployment's revision on the way.
func (p *planner) getAllReplicaSetsAndSyncRevision(create bool) (*appsv1.ReplicaSet, []*appsv1.ReplicaSet, error) {
	// Upstream sorts its list by creation time in place on the first look-up,
	// so every later use sees that order. The list and the template do not
	// change within a sync (a rollback ends it), so the look-up is done once.
	p.lookUpNew()
	oldRSs := p.w.findOldReplicaSets(p.rsList, p.existing)
	newRS, err := p.getNewReplicaSet(p.existing, oldRSs, create)
	if err != nil {
		return nil, nil, err
	}
	return newRS, oldRSs, nil
}

// lookUpNew sorts the claimed ReplicaSets and finds the new one, once.
func (p *planner) lookUpNew() {
	if !p.looked {
		p.looked = true
		if p.lookUpMemo() {
			return
		}
		var inBuf [8]*appsv1.ReplicaSet
		var in []*appsv1.ReplicaSet
		if p.memo != nil {
			in = append(inBuf[:0], p.rsList...)
		}
		// rsList is the planner's own slice (claimReplicaSets built it).
		slices.SortFunc(p.rsList, compareByCreation)
		p.existing = findNewReplicaSet(p.d, p.rsList)
		p.remember(in)
	}
}

// syncNewReplicaSet is getAllReplicaSetsAndSyncRevision(false) for a
// caller that needs only the new ReplicaSet: the old ones are p.rsList
// without it (see isOld), so no list of them is built.
func (p *planner) syncNewReplicaSet() (*appsv1.ReplicaSet, error) {
	p.lookUpNew()
	return p.getNewReplicaSet(p.existing, nil, false)
}

// isOld reports whether rs, one of p.rsList, is an old ReplicaSet when
// newRS is the new one (or nil): findOldReplicaSets's test.
func isOld(rs, newRS *appsv1.ReplicaSet) bool {
	return newRS == nil || rs.UID != newRS.UID
}

// maxOldRevision is revision.MaxRevision of the ReplicaSets
// findOldReplicaSets(p.rsList, existing) returns.
func (p *planner) maxOldRevision(existing *appsv1.ReplicaSet) int64 {
	var highest int64
	for _, rs := range p.rsList {
		if !isOld(rs, existing) {
			continue
		}
		if v, err := revision.Revision(rs); err == nil && v > highest {
			highest = v
		}
	}
	return highest
}

// oldRSs is needed only when create is set (nil otherwise).
func (p *planner) getNewReplicaSet(existing *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet, create bool) (*appsv1.ReplicaSet, error) {
	if existing != nil && p.existingInSync {
		// An earlier look-up in this sync found nothing to write for it, and
		// nothing it depends on has changed since.
		return existing, nil
	}
	if existing == nil && !create {
		return nil, nil
	}
	d := p.d
	if existing != nil && existing.Spec.MinReadySeconds == d.Spec.MinReadySeconds && p.revisionInSync(existing, d) {
		// The Planner's memo: the same objects found the revision in sync
		// at the last plan (see memo.go).
		return p.existingFound(existing, false, "")
	}
	maxOldRevision := p.maxOldRevision(existing)
	newRevision := strconv.FormatInt(maxOldRevision+1, 10)
	maxSurge := p.annotationSurge()

	if existing != nil {
		annotations, changed := revision.NewReplicaSetAnnotations(d, existing, newRevision, true, maxSurge)
		minReadyChanged := existing.Spec.MinReadySeconds != d.Spec.MinReadySeconds
		if changed || minReadyChanged {
			why := describeRevisionSync(existing, annotations, d.Spec.MinReadySeconds, changed, minReadyChanged, maxOldRevision)
			return p.w.updateRS(existing, func(rs *appsv1.ReplicaSet) {
				rs.Annotations = annotations
				rs.Spec.MinReadySeconds = d.Spec.MinReadySeconds
			}, func(rs *appsv1.ReplicaSet) Action { return UpdateReplicaSet{ReplicaSet: rs, Why: why} })
		}
		if _, err := revision.Revision(existing); err != nil && !maps.Equal(annotations, existing.Annotations) {
			// An unparsable revision: upstream copies the Deployment's
			// annotations into its working copy, reports no change and
			// writes nothing now, but every later write of the new
			// ReplicaSet in this sync (a scale) carries that copy.
			c := cloneRS(existing)
			c.Annotations = annotations
			existing, p.existing = c, c
		}
		needsUpdate := p.setRevision(existing.Annotations[revision.RevisionAnnotation])
		var why string
		if needsUpdate {
			why = fmt.Sprintf("record revision %s of the new replica set %s", existing.Annotations[revision.RevisionAnnotation], existing.Name)
		} else if !changed && p.memoValid && p.memo.existing == existing && mapID(annotations) == mapID(existing.Annotations) {
			p.memo.revOK, p.memo.dAnn = true, mapID(p.d.Annotations)
		}
		return p.existingFound(existing, needsUpdate, why)
	}
	if !create {
		return nil, nil
	}

	hash := hashing.PodTemplateHash(&d.Spec.Template, d.Status.CollisionCount)
	// A shallow copy with its own labels, like every object the planner
	// writes (see clone.go): the rest of the template stays shared with the
	// Deployment, read-only.
	template := d.Spec.Template
	template.Labels = hashing.LabelsWithHash(d.Spec.Template.Labels, hash)
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:            replicaSetName(d.Name, hash),
			Namespace:       d.Namespace,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, controllerKind)},
			Labels:          template.Labels,
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas:        new(int32),
			MinReadySeconds: d.Spec.MinReadySeconds,
			Selector:        hashing.SelectorWithHash(d.Spec.Selector, hash),
			Template:        template,
		},
	}
	allRSs := p.w.appendRS(oldRSs, rs)
	newReplicas, why := p.newRSSize(allRSs, rs)
	*rs.Spec.Replicas = newReplicas
	rs.Annotations, _ = revision.NewReplicaSetAnnotations(d, rs, newRevision, false, maxSurge)

	// The snapshot holds every ReplicaSet of the namespace, so the
	// AlreadyExists answer upstream gets from the server is known now.
	if clash := p.findByName(rs.Name); clash != nil {
		ref := metav1.GetControllerOfNoCopy(clash)
		if ref != nil && ref.UID == d.UID && hashing.EqualIgnoreHash(&d.Spec.Template, &clash.Spec.Template) {
			// A slow cache: the ReplicaSet is ours already. Upstream uses it
			// without recording a creation.
			return p.recordRevision(clash, newRevision, false)
		}
		before := int32(0)
		if d.Status.CollisionCount != nil {
			before = *d.Status.CollisionCount
		}
		if before == math.MaxInt32 {
			// Upstream's increment wraps to a negative count, which the API
			// server refuses; the sync ends with the collision either way.
			return nil, fmt.Errorf("replicasets.apps %q already exists, and status.collisionCount is at its maximum %d: the API server refuses another increment, so no new pod-template-hash can be tried", rs.Name, before)
		}
		after := before + 1
		p.mut().Status.CollisionCount = &after
		why := fmt.Sprintf("hash collision: replica set %s exists with another template or owner; collisionCount %d -> %d", rs.Name, before, after)
		if err := p.writeDeployment(true, why); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("replicasets.apps %q already exists (%s)", rs.Name, why)
	}

	if newReplicas < 0 {
		// Only int32 overflow gets here; the API server's validation refuses
		// the create. Its refusal is quoted as upstream records it; the
		// note and the Stop say where the number comes from.
		p.note("the new replica set's size %d is upstream's int32 arithmetic wrapped around: %s", newReplicas, why)
		err := p.createFailed(rs.Name, fmt.Errorf("ReplicaSet.apps %q is invalid: spec.replicas: Invalid value: %d: must be greater than or equal to 0", rs.Name, newReplicas))
		return nil, fmt.Errorf("%w (int32 overflow: upstream's sum of sizes or of replicas and maxSurge wrapped around to give that size)", err)
	}
	created := p.w.createRS(rs, fmt.Sprintf("no replica set has the pod template; revision %s, hash %s; %s", newRevision, hash, why))
	if newReplicas > 0 {
		p.w.normal("ScalingReplicaSet", "Scaled up replica set %s from 0 to %d", created.Name, newReplicas)
	}
	return p.recordRevision(created, newRevision, true)
}

// existingFound is the tail of the look-up of an existing new ReplicaSet
// whose revision is in sync (needsUpdate: but not yet recorded in the
// Deployment, why says so): the first Progressing condition, the write.
func (p *planner) existingFound(existing *appsv1.ReplicaSet, needsUpdate bool, why string) (*appsv1.ReplicaSet, error) {
	d := p.d
	if hasProgressDeadline(d) && getCondition(d.Status, appsv1.DeploymentProgressing) == nil {
		p.setProgressing(newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, FoundNewRSReason,
			fmt.Sprintf("Found new replica set %q", existing.Name), p.w.snap.Now))
		needsUpdate = true
		why = fmt.Sprintf("first Progressing condition: found the new replica set %s", existing.Name)
	}
	if needsUpdate {
		if err := p.writeDeployment(true, why); err != nil {
			return nil, err
		}
	}
	p.existingInSync = true
	return existing, nil
}

// recordRevision is the tail of upstream's creation path: copy the revision
// to the Deployment and, for a real creation, set NewReplicaSetCreated.
func (p *planner) recordRevision(rs *appsv1.ReplicaSet, newRevision string, created bool) (*appsv1.ReplicaSet, error) {
	needsUpdate := p.setRevision(newRevision)
	why := fmt.Sprintf("record revision %s", newRevision)
	if created && hasProgressDeadline(p.d) {
		p.setProgressing(newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, NewReplicaSetReason,
			fmt.Sprintf("Created new replica set %q", rs.Name), p.w.snap.Now))
		needsUpdate = true
		why = fmt.Sprintf("record revision %s and Progressing=True NewReplicaSetCreated", newRevision)
	}
	if needsUpdate {
		if err := p.writeDeployment(true, why); err != nil {
			return rs, err
		}
	}
	return rs, nil
}

func (p *planner) findByName(name string) *appsv1.ReplicaSet {
	for _, rs := range p.w.snap.ReplicaSets {
		if rs.Namespace == p.d.Namespace && rs.Name == name {
			return rs
		}
	}
	return nil
}

// replicaSetName is "<deployment>-<hash>", the Deployment's name cut so
// that the result stays a valid object name (upstream since v1.34).
func replicaSetName(deployment, hash string) string {
	maxLen := validation.DNS1123SubdomainMaxLength - 1 - len(hash)
	if maxLen > 0 && len(deployment) > maxLen {
		deployment = deployment[:maxLen]
	}
	return deployment + "-" + hash
}

// setRevision sets the Deployment's revision annotation and reports
// whether it changed.
func (p *planner) setRevision(rev string) bool {
	if p.d.Annotations[revision.RevisionAnnotation] == rev {
		return false
	}
	d := p.mut()
	// A new map: the old one may be shared with the snapshot or a result.
	ann := make(map[string]string, len(d.Annotations)+1)
	maps.Copy(ann, d.Annotations)
	ann[revision.RevisionAnnotation] = rev
	d.Annotations = ann
	return true
}

// describeRevisionSync explains an update of the existing new ReplicaSet.
func describeRevisionSync(rs *appsv1.ReplicaSet, annotations map[string]string, minReady int32, annotationsChanged, minReadyChanged bool, maxOld int64) string {
	var parts []string
	if annotationsChanged {
		if old, cur := rs.Annotations[revision.RevisionAnnotation], annotations[revision.RevisionAnnotation]; old != cur {
			parts = append(parts, fmt.Sprintf("revision %q -> %q (max old revision %d + 1)", old, cur, maxOld))
		} else {
			parts = append(parts, "copy the deployment's annotations")
		}
	}
	if minReadyChanged {
		parts = append(parts, fmt.Sprintf("minReadySeconds %d -> %d", rs.Spec.MinReadySeconds, minReady))
	}
	return "sync the new replica set: " + strings.Join(parts, ", ")
}
