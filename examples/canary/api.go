package main

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// GroupVersion is the API group and version of the [Canary] kind.
var GroupVersion = schema.GroupVersion{Group: "rollouts.example.com", Version: "v1"}

// Canary is a workload rolled out in weighted steps: the custom kind of
// this controller. A manifest:
//
//	apiVersion: rollouts.example.com/v1
//	kind: Canary
//	metadata: {name: web}
//	spec:
//	  replicas: 10
//	  steps: [20, 50, 100]
//	  maxSurge: 25%
//	  maxUnavailable: 25%
//	  progressDeadlineSeconds: 120
//	  template:
//	    metadata: {labels: {app: web}}
//	    spec:
//	      containers: [{name: web, image: "web:1"}]
type Canary struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              CanarySpec   `json:"spec"`
	Status            CanaryStatus `json:"status,omitempty"`
}

// CanarySpec is the desired workload and how to roll it out.
type CanarySpec struct {
	// Replicas is the number of pods.
	Replicas int32 `json:"replicas"`
	// Template is the pods' template. A change starts a rollout (once
	// the one under way, if any, has ended).
	Template corev1.PodTemplateSpec `json:"template"`
	// Steps are the canary's weights in percent, increasing, the last
	// 100. At a step of weight w the canary runs ceil(w × replicas / 100)
	// pods and the stable ReplicaSet the rest.
	Steps []int32 `json:"steps"`
	// MaxSurge and MaxUnavailable bound the rollout as a Deployment's
	// RollingUpdate fenceposts do (default 25% each).
	MaxSurge       *intstr.IntOrString `json:"maxSurge,omitempty"`
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
	// MinReadySeconds is how long a ready pod must stay ready to count as
	// available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// ProgressDeadlineSeconds halts a rollout that makes no progress for
	// that long (default 600).
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty"`
	// RevisionHistoryLimit is how many old, empty ReplicaSets to keep
	// (default 10).
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
}

// CanaryStatus is what the controller observed and decided.
type CanaryStatus struct {
	// ObservedGeneration is the generation of the spec last acted on.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// StableReplicaSet runs the stable version; CanaryReplicaSet the one
	// being rolled out (empty when no rollout is under way).
	StableReplicaSet string `json:"stableReplicaSet,omitempty"`
	CanaryReplicaSet string `json:"canaryReplicaSet,omitempty"`
	// Step is the position in spec.steps being rolled out.
	Step int32 `json:"step,omitempty"`
	// The pod counts of both ReplicaSets (updated: the canary's, or the
	// stable's when no rollout is under way), as a Deployment's status
	// has them.
	Replicas            int32  `json:"replicas,omitempty"`
	UpdatedReplicas     int32  `json:"updatedReplicas,omitempty"`
	ReadyReplicas       int32  `json:"readyReplicas,omitempty"`
	AvailableReplicas   int32  `json:"availableReplicas,omitempty"`
	UnavailableReplicas int32  `json:"unavailableReplicas,omitempty"`
	TerminatingReplicas *int32 `json:"terminatingReplicas,omitempty"`
	// Conditions holds Progressing, with a Deployment's reasons
	// (ReplicaSetUpdated, NewReplicaSetAvailable, ProgressDeadlineExceeded).
	Conditions []appsv1.DeploymentCondition `json:"conditions,omitempty"`
}

// CanaryList is a list of Canaries.
type CanaryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Canary `json:"items"`
}

// AddToScheme registers Canary and CanaryList in s.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Canary{}, &CanaryList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// NewScheme is a scheme with the Canary kind (the simulator adds the
// built-in kinds).
func NewScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = AddToScheme(s)
	return s
}

// DeepCopyInto copies c into out.
func (c *Canary) DeepCopyInto(out *Canary) {
	*out = *c
	c.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	c.Spec.DeepCopyInto(&out.Spec)
	c.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of c.
func (c *Canary) DeepCopy() *Canary {
	if c == nil {
		return nil
	}
	out := new(Canary)
	c.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (c *Canary) DeepCopyObject() runtime.Object {
	if c == nil {
		return nil
	}
	return c.DeepCopy()
}

// DeepCopyInto copies s into out.
func (s *CanarySpec) DeepCopyInto(out *CanarySpec) {
	*out = *s
	s.Template.DeepCopyInto(&out.Template)
	out.Steps = append([]int32(nil), s.Steps...)
	out.MaxSurge = copyIntOrString(s.MaxSurge)
	out.MaxUnavailable = copyIntOrString(s.MaxUnavailable)
	out.ProgressDeadlineSeconds = copyInt32(s.ProgressDeadlineSeconds)
	out.RevisionHistoryLimit = copyInt32(s.RevisionHistoryLimit)
}

// DeepCopyInto copies s into out.
func (s *CanaryStatus) DeepCopyInto(out *CanaryStatus) {
	*out = *s
	out.TerminatingReplicas = copyInt32(s.TerminatingReplicas)
	if s.Conditions != nil {
		out.Conditions = make([]appsv1.DeploymentCondition, len(s.Conditions))
		for i := range s.Conditions {
			s.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
}

// DeepCopy returns a copy of s.
func (s *CanaryStatus) DeepCopy() *CanaryStatus {
	if s == nil {
		return nil
	}
	out := new(CanaryStatus)
	s.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (l *CanaryList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := &CanaryList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]Canary, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

func copyInt32(p *int32) *int32 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func copyIntOrString(p *intstr.IntOrString) *intstr.IntOrString {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// DescribeStatus says in one line how the rollout stands (the
// simulator's trace shows it beside the Canary).
func (c *Canary) DescribeStatus() string {
	s := &c.Status
	n := int32(len(c.Spec.Steps))
	switch {
	case s.StableReplicaSet == "":
		return "not started"
	case s.CanaryReplicaSet == "":
		return fmt.Sprintf("stable %s, available %d/%d", s.StableReplicaSet, s.AvailableReplicas, c.Spec.Replicas)
	}
	at := "promoting"
	if s.Step < n {
		at = fmt.Sprintf("step %d/%d (%d%%)", s.Step+1, n, c.Spec.Steps[s.Step])
	}
	line := fmt.Sprintf("%s, stable %s, canary %s, available %d/%d", at, s.StableReplicaSet, s.CanaryReplicaSet, s.AvailableReplicas, c.Spec.Replicas)
	if cond := progressing(s.Conditions); cond != nil && cond.Reason == "ProgressDeadlineExceeded" {
		line += ", halted: progress deadline exceeded"
	}
	return line
}
