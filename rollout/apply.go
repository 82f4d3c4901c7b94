package rollout

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/deploymath/deploymath/internal/apirules"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Apply returns the snapshot as an API server would hold it after the
// result's actions, for tests and simulators that iterate plan → apply →
// plan. The input snapshot is not modified.
//
// It behaves like the API server, not like the other controllers: it checks
// resourceVersion and UID preconditions, bumps resourceVersion on every
// write and metadata.generation on changes of a ReplicaSet's spec or a
// Deployment's spec or annotations (the apps registry's rules), gives created ReplicaSets
// a deterministic UID ("<namespace>/<name>"), generation 1 and
// creationTimestamp s.Now, and keeps ReplicaSet statuses as they are (the
// ReplicaSet controller owns them). Pods are not touched; Now is unchanged.
//
// On the first action that the server would refuse (conflict, not found,
// already exists) Apply stops and returns the snapshot with the actions
// before it applied, together with an error naming the action.
func Apply(s Snapshot, r *Result) (Snapshot, error) {
	out := Snapshot{
		Deployment:  s.Deployment.DeepCopy(),
		ReplicaSets: slices.Clone(s.ReplicaSets),
		Pods:        s.Pods,
		Now:         s.Now,
	}
	if r == nil {
		return out, nil
	}
	if err := checkActions("rollout.Apply", r.Actions); err != nil {
		return out, err
	}
	for i, a := range r.Actions {
		if err := out.apply(a); err != nil {
			return out, fmt.Errorf("action %d (%s): %w", i+1, a.Explain(), err)
		}
	}
	return out, nil
}

func (s *Snapshot) apply(a Action) error {
	switch a := a.(type) {
	case CreateReplicaSet:
		if s.indexOf(a.ReplicaSet.Namespace, a.ReplicaSet.Name) >= 0 {
			return fmt.Errorf("replicasets.apps %q already exists", a.ReplicaSet.Name)
		}
		rs := a.ReplicaSet.DeepCopy()
		rs.UID = types.UID(rs.Namespace + "/" + rs.Name)
		rs.Generation = 1
		rs.ResourceVersion = "1"
		rs.CreationTimestamp = metav1.NewTime(s.Now).Rfc3339Copy()
		s.ReplicaSets = append(s.ReplicaSets, rs)
	case UpdateReplicaSet:
		return s.updateRS(a.ReplicaSet)
	case ScaleReplicaSet:
		return s.updateRS(a.ReplicaSet)
	case AdoptReplicaSet:
		return s.updateRS(a.ReplicaSet)
	case ReleaseReplicaSet:
		return s.updateRS(a.ReplicaSet)
	case DeleteReplicaSet:
		i := s.indexOf(a.Namespace, a.Name)
		if i < 0 {
			return fmt.Errorf("replicasets.apps %q not found", a.Name)
		}
		if a.UID != "" && s.ReplicaSets[i].UID != a.UID {
			return fmt.Errorf("precondition failed: UID in precondition: %s, UID in object meta: %s", a.UID, s.ReplicaSets[i].UID)
		}
		s.ReplicaSets = slices.Delete(slices.Clone(s.ReplicaSets), i, i+1)
	case UpdateDeployment:
		if s.Deployment == nil {
			return errors.New("the snapshot has no Deployment")
		}
		if err := checkVersion(a.Deployment.ResourceVersion, s.Deployment.ResourceVersion, "deployments.apps", a.Deployment.Name); err != nil {
			return err
		}
		d := s.Deployment.DeepCopy()
		if apirules.DeploymentGenerationBumps(d, a.Deployment) {
			d.Generation++
		}
		d.ObjectMeta.Annotations = a.Deployment.DeepCopy().Annotations
		d.ObjectMeta.Labels = a.Deployment.DeepCopy().Labels
		d.Spec = *a.Deployment.Spec.DeepCopy()
		d.ResourceVersion = nextVersion(d.ResourceVersion)
		s.Deployment = d
	case UpdateDeploymentStatus:
		if s.Deployment == nil {
			return errors.New("the snapshot has no Deployment")
		}
		if err := checkVersion(a.Deployment.ResourceVersion, s.Deployment.ResourceVersion, "deployments.apps", a.Deployment.Name); err != nil {
			return err
		}
		if err := validateStatusUpdate(a.Deployment.Name, &a.Deployment.Status, &s.Deployment.Status); err != nil {
			return err
		}
		d := s.Deployment.DeepCopy()
		d.Annotations = a.Deployment.DeepCopy().Annotations
		d.Status = *a.Deployment.Status.DeepCopy()
		d.ResourceVersion = nextVersion(d.ResourceVersion)
		s.Deployment = d
	default:
		return fmt.Errorf("unknown action type %T", a)
	}
	return nil
}

func (s *Snapshot) indexOf(namespace, name string) int {
	for i, rs := range s.ReplicaSets {
		if rs != nil && rs.Namespace == namespace && rs.Name == name {
			return i
		}
	}
	return -1
}

func (s *Snapshot) updateRS(want *appsv1.ReplicaSet) error {
	i := s.indexOf(want.Namespace, want.Name)
	if i < 0 {
		return fmt.Errorf("replicasets.apps %q not found", want.Name)
	}
	cur := s.ReplicaSets[i]
	if err := checkVersion(want.ResourceVersion, cur.ResourceVersion, "replicasets.apps", want.Name); err != nil {
		return err
	}
	rs := want.DeepCopy()
	rs.UID = cur.UID
	rs.CreationTimestamp = cur.CreationTimestamp
	rs.Status = *cur.Status.DeepCopy()
	rs.Generation = cur.Generation
	if apirules.ReplicaSetGenerationBumps(&cur.Spec, &rs.Spec) {
		rs.Generation++
	}
	rs.ResourceVersion = nextVersion(cur.ResourceVersion)
	s.ReplicaSets[i] = rs
	return nil
}

func checkVersion(sent, stored, resource, name string) error {
	if sent != "" && sent != stored {
		return errors.New(apirules.ConflictMessage(resource, name))
	}
	return nil
}

// nextVersion increments a numeric resourceVersion ("" counts as 0).
func nextVersion(rv string) string {
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		n = 0
	}
	return strconv.FormatInt(n+1, 10)
}

// validateStatusUpdate applies the apps/v1 validation of a Deployment
// status write: counts not negative, updated, ready and available not above
// replicas, available not above ready, collisionCount not decremented. The
// error reads like the API server's.
func validateStatusUpdate(name string, s, old *appsv1.DeploymentStatus) error {
	var errs []string
	bad := func(field string, v int64, msg string) {
		errs = append(errs, fmt.Sprintf("status.%s: Invalid value: %d: %s", field, v, msg))
	}
	nonNegative := func(field string, v int64) {
		if v < 0 {
			bad(field, v, "must be greater than or equal to 0")
		}
	}
	nonNegative("observedGeneration", s.ObservedGeneration)
	nonNegative("replicas", int64(s.Replicas))
	nonNegative("updatedReplicas", int64(s.UpdatedReplicas))
	nonNegative("readyReplicas", int64(s.ReadyReplicas))
	nonNegative("availableReplicas", int64(s.AvailableReplicas))
	nonNegative("unavailableReplicas", int64(s.UnavailableReplicas))
	if s.TerminatingReplicas != nil {
		nonNegative("terminatingReplicas", int64(*s.TerminatingReplicas))
	}
	if s.CollisionCount != nil {
		nonNegative("collisionCount", int64(*s.CollisionCount))
	}
	const msg = "cannot be greater than status.replicas"
	if s.UpdatedReplicas > s.Replicas {
		bad("updatedReplicas", int64(s.UpdatedReplicas), msg)
	}
	if s.ReadyReplicas > s.Replicas {
		bad("readyReplicas", int64(s.ReadyReplicas), msg)
	}
	if s.AvailableReplicas > s.Replicas {
		bad("availableReplicas", int64(s.AvailableReplicas), msg)
	}
	if s.AvailableReplicas > s.ReadyReplicas {
		bad("availableReplicas", int64(s.AvailableReplicas), "cannot be greater than readyReplicas")
	}
	if old.CollisionCount != nil && (s.CollisionCount == nil || *s.CollisionCount < *old.CollisionCount) {
		var v int64
		if s.CollisionCount != nil {
			v = int64(*s.CollisionCount)
		}
		bad("collisionCount", v, "cannot be decremented")
	}
	switch len(errs) {
	case 0:
		return nil
	case 1:
		//lint:ignore ST1005 the API server's message, verbatim
		return fmt.Errorf("Deployment.apps %q is invalid: %s", name, errs[0])
	}
	//lint:ignore ST1005 the API server's message, verbatim
	return fmt.Errorf("Deployment.apps %q is invalid: [%s]", name, strings.Join(errs, ", "))
}
