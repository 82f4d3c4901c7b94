package diagnose

import (
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// podProblem is why one new pod is not available, with what to say of it.
type podProblem struct {
	reason string
	pod    string
	detail string
}

// podBlockers reads why the new ReplicaSet's pods are not available at
// now, from their statuses and conditions, and counts them per reason.
func podBlockers(d *appsv1.Deployment, newRS *appsv1.ReplicaSet, pods []*corev1.Pod, now time.Time) []Blocker {
	var probs []podProblem
	total := 0
	for _, pod := range pods {
		ref := metav1.GetControllerOfNoCopy(pod)
		if ref == nil || ref.UID != newRS.UID || ref.Name != newRS.Name || pod.DeletionTimestamp != nil {
			continue
		}
		total++
		if pr, ok := classify(pod, d.Spec.MinReadySeconds, now); ok {
			probs = append(probs, pr)
		}
	}
	// Pods its status counts exist even when the snapshot lacks them
	// (Deployment.Missing says so).
	have := max(int32(total), newRS.Status.Replicas)
	missing := *newRS.Spec.Replicas - have
	var out []Blocker
	for _, reason := range []string{CrashLoopBackOff, ImagePullError, ContainerWaiting, PodFailed, Unschedulable, Pending, NotReady, NotYetAvailable} {
		var these []podProblem
		for _, p := range probs {
			if p.reason == reason {
				these = append(these, p)
			}
		}
		if len(these) == 0 {
			continue
		}
		slices.SortFunc(these, func(a, b podProblem) int { return strings.Compare(a.pod, b.pod) })
		var ex, details []string
		for _, p := range these[:min(len(these), maxExamples)] {
			ex = append(ex, p.pod)
			details = append(details, p.pod+": "+p.detail)
		}
		out = append(out, Blocker{Reason: reason, Count: len(these), Examples: ex,
			Message: fmt.Sprintf("%d of %d new pods (replica set %s) %s: %s", len(these), total, newRS.Name, verb(reason, d.Spec.MinReadySeconds), strings.Join(details, "; "))})
	}
	if missing > 0 && len(newRS.Status.Conditions) == 0 {
		out = append(out, Blocker{Reason: Pending, Count: int(missing), Message: fmt.Sprintf("replica set %s wants %d pods and has %d: its controller has not created the others yet", newRS.Name, *newRS.Spec.Replicas, have)})
	}
	return out
}

func verb(reason string, minReady int32) string {
	switch reason {
	case CrashLoopBackOff:
		return "are crash-looping (CrashLoopBackOff): their containers start and exit, and the kubelet waits longer before each restart"
	case ImagePullError:
		return "cannot pull their image (ErrImagePull, ImagePullBackOff): check the image name and tag, the registry, and imagePullSecrets"
	case ContainerWaiting:
		return "have containers that cannot start"
	case PodFailed:
		return "have failed"
	case Unschedulable:
		return "cannot be scheduled"
	case Pending:
		return "are not scheduled yet"
	case NotReady:
		return "run but are not ready (readiness probe failing or containers not ready)"
	case NotYetAvailable:
		return fmt.Sprintf("are ready but not yet available: minReadySeconds %d has not passed", minReady)
	}
	return reason
}

// classify says why pod is not available at now; false when it is.
func classify(pod *corev1.Pod, minReady int32, now time.Time) (podProblem, bool) {
	pr := podProblem{pod: pod.Name}
	if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		pr.reason, pr.detail = PodFailed, fmt.Sprintf("phase %s", pod.Status.Phase)
		if pod.Status.Reason != "" {
			pr.detail += ", " + pod.Status.Reason + ": " + pod.Status.Message
		}
		return pr, true
	}
	statuses := append(slices.Clone(pod.Status.InitContainerStatuses), pod.Status.ContainerStatuses...)
	for _, cs := range statuses {
		if w := cs.State.Waiting; w != nil && w.Reason == "CrashLoopBackOff" {
			pr.reason = CrashLoopBackOff
			pr.detail = fmt.Sprintf("container %s restarted %d times", cs.Name, cs.RestartCount)
			if t := cs.LastTerminationState.Terminated; t != nil {
				pr.detail += fmt.Sprintf(", last exit code %d (%s)", t.ExitCode, t.Reason)
			}
			return pr, true
		}
	}
	for _, cs := range statuses {
		if w := cs.State.Waiting; w != nil {
			switch w.Reason {
			case "ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull":
				pr.reason, pr.detail = ImagePullError, fmt.Sprintf("container %s image %s: %s: %s", cs.Name, cs.Image, w.Reason, w.Message)
				return pr, true
			}
		}
	}
	ready := podCondition(pod, corev1.PodReady)
	if sc := podCondition(pod, corev1.PodScheduled); sc != nil && sc.Status == corev1.ConditionFalse {
		pr.reason, pr.detail = Unschedulable, fmt.Sprintf("%s: %s", sc.Reason, sc.Message)
		return pr, true
	}
	if pod.Spec.NodeName == "" {
		pr.reason, pr.detail = Pending, "not bound to a node"
		return pr, true
	}
	for _, cs := range statuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" {
			pr.reason, pr.detail = ContainerWaiting, fmt.Sprintf("container %s waiting: %s", cs.Name, w.Reason)
			if w.Message != "" {
				pr.detail += ": " + w.Message
			}
			return pr, true
		}
	}
	if ready == nil || ready.Status != corev1.ConditionTrue {
		pr.reason, pr.detail = NotReady, "Ready condition not true"
		if ready != nil {
			pr.detail = fmt.Sprintf("Ready=%s since %s", ready.Status, stamp(ready.LastTransitionTime))
			if ready.Reason != "" {
				pr.detail += fmt.Sprintf(" (%s: %s)", ready.Reason, ready.Message)
			}
		}
		return pr, true
	}
	if at := ready.LastTransitionTime.Add(time.Duration(minReady) * time.Second); minReady > 0 && at.After(now) {
		pr.reason, pr.detail = NotYetAvailable, fmt.Sprintf("ready since %s, available at %s", stamp(ready.LastTransitionTime), at.UTC().Format(time.RFC3339))
		return pr, true
	}
	return pr, false
}

func podCondition(pod *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == t {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}
