// Package v1 is the BlueGreen kind (example.deploymath.dev/v1) of
// examples/bluegreen: a workload served by one of two ReplicaSets, blue
// and green, that moves to a new pod template only once the idle colour
// runs it with every replica available.
package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the group and version of the kind.
var GroupVersion = schema.GroupVersion{Group: "example.deploymath.dev", Version: "v1"}

// AddToScheme adds BlueGreen and BlueGreenList to a scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &BlueGreen{}, &BlueGreenList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// Colour is a colour of a BlueGreen: one of its two ReplicaSets.
type Colour string

// The colours.
const (
	Blue  Colour = "blue"
	Green Colour = "green"
)

// Other is the other colour.
func (c Colour) Other() Colour {
	if c == Blue {
		return Green
	}
	return Blue
}

// BlueGreen keeps spec.replicas pods of spec.template behind one of two
// ReplicaSets, NAME-blue and NAME-green. The active colour serves; on a
// change of the template the idle colour is given the new template and
// scaled up, the active pointer (status.active) moves to it once all its
// replicas are available, and the old colour is scaled down to zero.
type BlueGreen struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BlueGreenSpec   `json:"spec"`
	Status BlueGreenStatus `json:"status,omitempty"`
}

// BlueGreenSpec is the desired state.
type BlueGreenSpec struct {
	// Replicas is the number of pods of the active colour.
	Replicas int32 `json:"replicas"`
	// Template is the pod template; its labels are the pods' labels,
	// with the BlueGreen's name, the colour and the template's hash added.
	Template corev1.PodTemplateSpec `json:"template"`
}

// BlueGreenStatus is the observed state (a status subresource).
type BlueGreenStatus struct {
	// ObservedGeneration is the generation the status is about.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Active is the colour that serves ("" until the first colour has
	// all its replicas available).
	Active Colour `json:"active,omitempty"`
	// ActiveHash is the hash of the template the active colour runs.
	ActiveHash string `json:"activeHash,omitempty"`
	// Phase is Pending (no colour active yet), Promoting (the idle colour
	// is being given the template) or Stable.
	Phase string `json:"phase,omitempty"`
	// AvailableReplicas are the active colour's available pods.
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`
}

// The phases.
const (
	PhasePending   = "Pending"
	PhasePromoting = "Promoting"
	PhaseStable    = "Stable"
)

// BlueGreenList is a list of BlueGreens.
type BlueGreenList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BlueGreen `json:"items"`
}

// DeepCopyInto copies b into out.
func (b *BlueGreen) DeepCopyInto(out *BlueGreen) {
	*out = *b
	out.TypeMeta = b.TypeMeta
	b.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	b.Spec.Template.DeepCopyInto(&out.Spec.Template)
	out.Status = b.Status
}

// DeepCopy returns a copy of b.
func (b *BlueGreen) DeepCopy() *BlueGreen {
	if b == nil {
		return nil
	}
	out := new(BlueGreen)
	b.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (b *BlueGreen) DeepCopyObject() runtime.Object {
	if c := b.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyObject implements runtime.Object.
func (l *BlueGreenList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := new(BlueGreenList)
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]BlueGreen, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}
