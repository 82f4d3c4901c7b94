package sim

import (
	"github.com/deploymath/deploymath/sim/internal/cluster"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The cluster model's pods and nodes as the API objects a controller
// reads: what a kubelet and the node controller would report of them.

// podAPIObject renders the pod p as the API server would hold it: its
// metadata (the ReplicaSet as controller owner), the ReplicaSet's pod
// template as its spec with the node it is bound to, and the status its
// kubelet reports (phase, PodScheduled, Ready and ContainersReady with the
// time the pod became ready, each container's state and restarts).
func podAPIObject(p *cluster.Pod) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: p.Name, Namespace: p.Namespace, UID: p.UID, Labels: p.Labels,
			CreationTimestamp: truncTime(metav1.NewTime(Epoch.Add(p.Created))),
		},
		Status: corev1.PodStatus{Phase: p.Phase},
	}
	var rs *appsv1.ReplicaSet
	if p.RS != nil {
		rs = p.RS.Obj
		pod.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}
		pod.Spec = *rs.Spec.Template.Spec.DeepCopy()
		pod.Annotations = rs.Spec.Template.Annotations
	}
	pod.Spec.NodeName = p.NodeName()
	if p.Terminating {
		t := truncTime(metav1.NewTime(Epoch.Add(p.DeletedAt)))
		pod.DeletionTimestamp = &t
		grace := int64(30)
		if pod.Spec.TerminationGracePeriodSeconds != nil {
			grace = *pod.Spec.TerminationGracePeriodSeconds
		}
		pod.DeletionGracePeriodSeconds = &grace
	}
	created := pod.CreationTimestamp
	if p.Node == nil {
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
			Reason: corev1.PodReasonUnschedulable, LastTransitionTime: created}}
		return pod
	}
	ready := corev1.ConditionFalse
	readyAt := created
	if p.Ready {
		ready = corev1.ConditionTrue
		readyAt = truncTime(metav1.NewTime(Epoch.Add(p.ReadyAt)))
	}
	pod.Status.Conditions = []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: created},
		{Type: corev1.ContainersReady, Status: ready, LastTransitionTime: readyAt},
		{Type: corev1.PodReady, Status: ready, LastTransitionTime: readyAt},
	}
	for _, c := range pod.Spec.Containers {
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, containerStatus(p, c))
	}
	return pod
}

// containerStatus is what the kubelet reports of container c of p.
func containerStatus(p *cluster.Pod, c corev1.Container) corev1.ContainerStatus {
	cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image, Ready: p.Ready, RestartCount: p.Restarts}
	switch {
	case p.Phase == corev1.PodSucceeded || p.Phase == corev1.PodFailed:
		code, reason := int32(0), "Completed"
		if p.Phase == corev1.PodFailed {
			code, reason = 1, "Error"
		}
		cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason}
	case p.Mode == cluster.ModePullError:
		cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff",
			Message: "Back-off pulling image \"" + c.Image + "\""}
	case p.Phase == corev1.PodPending:
		cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}
	case p.Mode == cluster.ModeCrashLoop && p.Restarts > 0:
		cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}
		cs.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}
	default:
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: truncTime(metav1.NewTime(Epoch.Add(p.Created)))}
		started := true
		cs.Started = &started
	}
	return cs
}

// nodeAPIObject renders the node n as the API server would hold it: its
// pod capacity as capacity and allocatable, the Ready condition (False
// when it failed, Unknown once the node controller marked it unreachable)
// and the taints the node controller puts on such a node.
func nodeAPIObject(n *cluster.Node) *corev1.Node {
	pods := *resource.NewQuantity(int64(n.Capacity), resource.DecimalSI)
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: map[string]string{"kubernetes.io/hostname": n.Name}},
		Status: corev1.NodeStatus{
			Capacity:    corev1.ResourceList{corev1.ResourcePods: pods},
			Allocatable: corev1.ResourceList{corev1.ResourcePods: pods},
		},
	}
	ready := corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"}
	switch {
	case n.Down:
		ready.Status, ready.Reason = corev1.ConditionFalse, "KubeletNotReady"
		node.Spec.Taints = []corev1.Taint{{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}}
	case n.Unreachable && n.Tainted():
		ready.Status, ready.Reason = corev1.ConditionUnknown, "NodeStatusUnknown"
		node.Spec.Taints = []corev1.Taint{{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute}}
	case n.Tainted():
		node.Spec.Unschedulable = true
	}
	node.Status.Conditions = []corev1.NodeCondition{ready}
	return node
}
