package sim

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
)

// Write is one accepted write of a Deployment or a ReplicaSet (or, by a
// hosted controller or the garbage collector, of any other stored kind),
// in the order the API server accepted them, as a watch on them would
// deliver them ([Options].Writes). States that last no time in the simulator
// (a ReplicaSet created at 0 and scaled up in the same sync,
// Progressing=NewReplicaSetCreated overwritten by the next status write)
// appear here, so a run can be compared with a real cluster's watch.
type Write struct {
	// At is the virtual time of the write.
	At time.Duration `json:"at"`
	// By is the writer: "deployment-controller", "replicaset-controller",
	// "restart-controller", a hosted controller's name,
	// "garbage-collector" or "user" (the scenario's steps and objects).
	By string `json:"by"`
	// Verb is "create", "update" (metadata and spec), "status" (the
	// status subresource) or "delete".
	Verb string `json:"verb"`
	// Kind is the object's kind ("Deployment", "ReplicaSet", …); Name is NAME, or
	// NAMESPACE/NAME outside the default namespace.
	Kind string `json:"kind"`
	Name string `json:"name"`
	// ResourceVersion and Generation are the stored object's after the
	// write ("" and 0 for a delete).
	ResourceVersion string `json:"resourceVersion,omitempty"`
	Generation      int64  `json:"generation,omitempty"`
	// Replicas is spec.replicas after the write.
	Replicas int32 `json:"replicas"`
	// Status is the object's status after the write.
	Status WriteStatus `json:"status"`
}

// WriteStatus is the part of a Deployment's or ReplicaSet's status a
// [Write] records.
type WriteStatus struct {
	ObservedGeneration int64 `json:"observedGeneration"`
	Replicas           int32 `json:"replicas"`
	// Updated and Unavailable are Deployments' only.
	Updated     int32 `json:"updated,omitempty"`
	Ready       int32 `json:"ready"`
	Available   int32 `json:"available"`
	Unavailable int32 `json:"unavailable,omitempty"`
	// Conditions are TYPE=STATUS/REASON, in the object's order.
	Conditions []string `json:"conditions,omitempty"`
}

// The writers of [Write].By.
const (
	writerUser       = "user"
	writerDeployment = "deployment-controller"
	writerReplicaSet = "replicaset-controller"
	writerRestart    = "restart-controller"
)

// by is the writer of the writes being made: the Deployment controller
// during a sync, the restart controller during a patch, else the user.
func (s *Sim) by() string {
	if s.writer == "" {
		return writerUser
	}
	return s.writer
}

// logDeploymentWrite records a write of d (Options.Writes).
func (s *Sim) logDeploymentWrite(verb string, d *appsv1.Deployment) {
	if !s.opts.Writes {
		return
	}
	st := d.Status
	w := Write{At: s.now, By: s.by(), Verb: verb, Kind: "Deployment", Name: outcomeName(d),
		ResourceVersion: d.ResourceVersion, Generation: d.Generation, Replicas: replicas(d),
		Status: WriteStatus{ObservedGeneration: st.ObservedGeneration, Replicas: st.Replicas, Updated: st.UpdatedReplicas,
			Ready: st.ReadyReplicas, Available: st.AvailableReplicas, Unavailable: st.UnavailableReplicas}}
	for _, c := range st.Conditions {
		w.Status.Conditions = append(w.Status.Conditions, string(c.Type)+"="+string(c.Status)+"/"+c.Reason)
	}
	s.writes = append(s.writes, w)
}

// logReplicaSetWrite records a write of rs by by (Options.Writes).
func (s *Sim) logReplicaSetWrite(by, verb string, rs *appsv1.ReplicaSet) {
	if !s.opts.Writes {
		return
	}
	name := rs.Name
	if rs.Namespace != "" && rs.Namespace != "default" {
		name = rs.Namespace + "/" + rs.Name
	}
	st := rs.Status
	w := Write{At: s.now, By: by, Verb: verb, Kind: "ReplicaSet", Name: name, ResourceVersion: rs.ResourceVersion,
		Generation: rs.Generation,
		Status: WriteStatus{ObservedGeneration: st.ObservedGeneration, Replicas: st.Replicas, Ready: st.ReadyReplicas,
			Available: st.AvailableReplicas}}
	if rs.Spec.Replicas != nil {
		w.Replicas = *rs.Spec.Replicas
	}
	if verb == "delete" {
		w.ResourceVersion, w.Generation = "", 0
	}
	for _, c := range st.Conditions {
		w.Status.Conditions = append(w.Status.Conditions, string(c.Type)+"="+string(c.Status)+"/"+c.Reason)
	}
	s.writes = append(s.writes, w)
}

// logObjectWrite records a write of obj of kind ki that is neither a
// Deployment nor a ReplicaSet (Options.Writes): its identity, no counts.
func (s *Sim) logObjectWrite(ki *kindInfo, verb string, obj Object) {
	if !s.opts.Writes {
		return
	}
	w := Write{At: s.now, By: s.by(), Verb: verb, Kind: ki.gvk.Kind, Name: obj.GetName(),
		ResourceVersion: obj.GetResourceVersion(), Generation: obj.GetGeneration()}
	if ns := obj.GetNamespace(); ns != "" && ns != metaDefault {
		w.Name = ns + "/" + w.Name
	}
	if verb == "delete" {
		w.ResourceVersion, w.Generation = "", 0
	}
	s.writes = append(s.writes, w)
}
