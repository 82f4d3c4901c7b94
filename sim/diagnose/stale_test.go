package diagnose

import (
	"strings"
	"testing"

	"github.com/deploymath/deploymath/sim/snapshot"
	appsv1 "k8s.io/api/apps/v1"
)

// TestStaleDesiredReplicas: a new template and one active ReplicaSet at
// spec.replicas whose desired-replicas annotation says otherwise: every
// sync is a scaling event that writes nothing, and the blocker names the
// annotation and the kubectl command that removes it; not when the
// scaling event writes (the ReplicaSet is not at the size, or two are
// active), when the annotation agrees, or when the Deployment is paused.
func TestStaleDesiredReplicas(t *testing.T) {
	setup := func(edit func(d *appsv1.Deployment, old, other *appsv1.ReplicaSet) []*appsv1.ReplicaSet) *Report {
		d := deployment("web", 3, "web:1")
		old := replicaSet(d, 3, 3)
		other := replicaSet(d, 0, 0)
		other.Name, other.UID = "web-other", "uid-other"
		other.Spec.Template.Spec.Containers[0].Image = "web:0"
		d = d.DeepCopy()
		d.Spec.Template.Spec.Containers[0].Image = "web:2"
		d.Generation, d.Status.ObservedGeneration = 2, 2
		d.Status.Replicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas = 3, 3, 3
		old.Annotations["deployment.kubernetes.io/desired-replicas"] = "2"
		rss := []*appsv1.ReplicaSet{old, other}
		if edit != nil {
			rss = edit(d, old, other)
		}
		return Explain(&snapshot.Snapshot{Deployments: []*appsv1.Deployment{d}, ReplicaSets: rss}, Options{Now: t0})
	}
	r := setup(nil)
	b := find(r.Deployments[0].Blockers, StaleDesiredReplicas)
	if b == nil || !strings.Contains(b.Message, `has the annotation deployment.kubernetes.io/desired-replicas: "2", but spec.replicas is 3`) ||
		!strings.HasSuffix(b.Message, "kubectl annotate rs "+r.Deployments[0].ReplicaSets[0].Name+" -n ns deployment.kubernetes.io/desired-replicas-") || !statusOnly(r.Deployments[0].NextSync) {
		t.Errorf("blocker %+v\n%s", b, r.Text())
	}
	for name, edit := range map[string]func(d *appsv1.Deployment, old, other *appsv1.ReplicaSet) []*appsv1.ReplicaSet{
		"not at the size": func(d *appsv1.Deployment, old, other *appsv1.ReplicaSet) []*appsv1.ReplicaSet {
			old.Spec.Replicas = new(int32(2))
			return []*appsv1.ReplicaSet{old}
		},
		"two active": func(d *appsv1.Deployment, old, other *appsv1.ReplicaSet) []*appsv1.ReplicaSet {
			other.Spec.Replicas = new(int32(1))
			return []*appsv1.ReplicaSet{old, other}
		},
		"annotation agrees": func(d *appsv1.Deployment, old, other *appsv1.ReplicaSet) []*appsv1.ReplicaSet {
			old.Annotations["deployment.kubernetes.io/desired-replicas"] = "3"
			return []*appsv1.ReplicaSet{old}
		},
		"paused": func(d *appsv1.Deployment, old, other *appsv1.ReplicaSet) []*appsv1.ReplicaSet {
			d.Spec.Paused = true
			return []*appsv1.ReplicaSet{old}
		},
	} {
		if b := find(setup(edit).Deployments[0].Blockers, StaleDesiredReplicas); b != nil {
			t.Errorf("%s: %+v", name, b)
		}
	}
}

// statusOnly reports whether a next sync writes nothing but the status.
func statusOnly(n NextSync) bool {
	for _, a := range n.Actions {
		if a.Kind != "UpdateDeploymentStatus" {
			return false
		}
	}
	return true
}
