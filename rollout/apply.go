package rollout

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"

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
// write and metadata.generation on spec changes, gives created ReplicaSets
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
		if err := checkVersion(a.Deployment.ResourceVersion, s.Deployment.ResourceVersion, "deployments.apps", a.Deployment.Name); err != nil {
			return err
		}
		d := s.Deployment.DeepCopy()
		if !reflect.DeepEqual(d.Spec, a.Deployment.Spec) {
			d.Generation++
		}
		d.ObjectMeta.Annotations = a.Deployment.DeepCopy().Annotations
		d.ObjectMeta.Labels = a.Deployment.DeepCopy().Labels
		d.Spec = *a.Deployment.Spec.DeepCopy()
		d.ResourceVersion = nextVersion(d.ResourceVersion)
		s.Deployment = d
	case UpdateDeploymentStatus:
		if err := checkVersion(a.Deployment.ResourceVersion, s.Deployment.ResourceVersion, "deployments.apps", a.Deployment.Name); err != nil {
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
		if rs.Namespace == namespace && rs.Name == name {
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
	if !reflect.DeepEqual(cur.Spec, rs.Spec) {
		rs.Generation++
	}
	rs.ResourceVersion = nextVersion(cur.ResourceVersion)
	s.ReplicaSets[i] = rs
	return nil
}

func checkVersion(sent, stored, resource, name string) error {
	if sent != "" && sent != stored {
		return fmt.Errorf("Operation cannot be fulfilled on %s %q: the object has been modified; please apply your changes to the latest version and try again", resource, name)
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
