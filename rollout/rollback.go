package rollout

import (
	"fmt"
	"strconv"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/revision"
	appsv1 "k8s.io/api/apps/v1"
)

// rollbackRevision reads the legacy rollback annotation
// (deprecated.deployment.rollback.to). An empty or unparsable value means
// "no rollback", as upstream.
func rollbackRevision(d *appsv1.Deployment) (int64, bool) {
	v := d.Annotations[revision.RollbackToAnnotation]
	if v == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// rollback performs the legacy server-side rollback requested by the
// rollback annotation: copy the template of the requested revision into the
// Deployment and remove the annotation.
func (p *planner) rollback(to int64) error {
	newRS, oldRSs, err := p.getAllReplicaSetsAndSyncRevision(true)
	if err != nil {
		return err
	}
	// Taken after the look-up, which may have written the Deployment: an
	// object handed to an earlier write belongs to that action.
	d := p.mut()
	allRSs := p.w.appendRS(oldRSs, newRS)
	if to == 0 {
		if to = lastRevision(allRSs); to == 0 {
			p.w.warning(RollbackRevisionNotFound, "Unable to find last revision.")
			return p.clearRollbackTo("no previous revision to roll back to")
		}
	}
	for _, rs := range allRSs {
		if rs == nil {
			continue
		}
		v, err := revision.Revision(rs)
		if err != nil || v != to {
			continue
		}
		if hashing.EqualIgnoreHash(&d.Spec.Template, &rs.Spec.Template) {
			p.w.warning(RollbackTemplateUnchanged, "The rollback revision contains the same template as current deployment %q", d.Name)
			return p.clearRollbackTo(fmt.Sprintf("revision %d has the current template", to))
		}
		// The template is shared with the ReplicaSet, read-only; only the
		// labels change.
		tmpl := rs.Spec.Template
		tmpl.Labels = hashing.LabelsWithoutHash(tmpl.Labels)
		d.Spec.Template = tmpl
		d.Annotations = revision.AnnotationsForRollback(d, rs)
		if err := p.clearRollbackTo(fmt.Sprintf("roll back to revision %d: template and annotations of %s", to, rs.Name)); err != nil {
			return err
		}
		p.w.normal(RollbackDone, "Rolled back deployment %q to revision %d", d.Name, to)
		return nil
	}
	p.w.warning(RollbackRevisionNotFound, "Unable to find the revision to rollback to.")
	return p.clearRollbackTo(fmt.Sprintf("revision %d not found", to))
}

func lastRevision(rss []*appsv1.ReplicaSet) int64 {
	var nonNil []*appsv1.ReplicaSet
	for _, rs := range rss {
		if rs != nil {
			nonNil = append(nonNil, rs)
		}
	}
	return revision.LastRevision(nonNil)
}

func (p *planner) clearRollbackTo(why string) error {
	d := p.mut()
	if _, ok := d.Annotations[revision.RollbackToAnnotation]; ok {
		ann := make(map[string]string, len(d.Annotations))
		for k, v := range d.Annotations {
			if k != revision.RollbackToAnnotation {
				ann[k] = v
			}
		}
		d.Annotations = ann
	}
	return p.writeDeployment(false, why)
}
