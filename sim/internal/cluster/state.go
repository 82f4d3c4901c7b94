package cluster

import (
	"slices"
	"time"

	"github.com/deploymath/deploymath/sim/internal/ranking"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Container waiting reasons that keep a pod of a cluster's state as it is
// (see LoadPod).
var (
	crashLoopReasons = []string{"CrashLoopBackOff"}
	pendingReasons   = []string{"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull", "CreateContainerConfigError"}
)

// Assumption is what a run assumes of a pod of a cluster's state, for the
// trace's notes.
type Assumption uint8

// The assumptions.
const (
	AssumeNothing Assumption = iota // the pod goes on as it shows
	AssumeStart                     // not started: starts as Config.Startup says
	AssumeReady                     // running, not ready: ready as Config.Readiness says
)

// LoadPod adds a pod of a cluster's state to its ReplicaSet's record st
// and sets the timer of what it does next, which it returns. uidNum orders
// it in the deletion ranking (its UID compares like it); at converts the
// state's times to the run's clock. Its node, when it names one, must have
// been added (AddNode).
func (c *Cluster) LoadPod(pod *corev1.Pod, st *ReplicaSet, uidNum uint64, at func(metav1.Time) time.Duration) Assumption {
	ns := pod.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	p := &Pod{
		Name: pod.Name, Namespace: ns, UID: pod.UID, uidNum: uidNum, Labels: pod.Labels,
		RS: st, Created: at(pod.CreationTimestamp), Phase: pod.Status.Phase, idx: int32(len(st.Pods)),
	}
	if p.Phase == "" {
		p.Phase = corev1.PodPending
	}
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue && p.Phase == corev1.PodRunning {
			p.Ready = true
			p.ReadyAt = p.Created
			if !cond.LastTransitionTime.IsZero() {
				p.ReadyAt = at(cond.LastTransitionTime)
			}
		}
	}
	for _, cs := range pod.Status.ContainerStatuses {
		p.Restarts = max(p.Restarts, cs.RestartCount)
		if w := cs.State.Waiting; w != nil && !p.Ready {
			switch {
			case slices.Contains(crashLoopReasons, w.Reason):
				p.Mode = ModeCrashLoop
			case slices.Contains(pendingReasons, w.Reason) && p.Phase == corev1.PodPending:
				p.Mode = ModePullError
			}
		}
	}
	if p.Mode == ModeHealthy && !p.Ready {
		p.Mode = c.failureModeFor(&st.Obj.Spec.Template)
	}
	if pod.DeletionTimestamp != nil {
		p.Terminating = true
		grace := time.Duration(0)
		if pod.DeletionGracePeriodSeconds != nil {
			grace = time.Duration(*pod.DeletionGracePeriodSeconds) * time.Second
		}
		p.DeletedAt = at(*pod.DeletionTimestamp) - grace
		p.Ready = false
	}
	if p.Ready {
		p.Available = st.minReady == 0 || p.ReadyAt+st.minReady <= 0
	}
	if pod.Spec.NodeName != "" {
		p.Node = c.Node(pod.Spec.NodeName)
	}
	c.names.add(p)
	st.Pods = append(st.Pods, p)
	st.meta = append(st.meta, ranking.Pod{})
	st.hot = append(st.hot, 0)
	c.account(p, podFlags{})
	if p.Node != nil && !p.Terminal() {
		p.Node.used++
	}
	switch {
	case p.Terminating:
		if p.Node == nil || p.Terminal() {
			c.podTimer(p, PodGone, 0)
			return AssumeNothing
		}
		left := at(*pod.DeletionTimestamp)
		if left <= 0 {
			left = c.draw(c.cfg.Termination)
		}
		c.podTimer(p, PodGone, left)
	case p.Terminal(), p.Phase == corev1.PodUnknown:
	case p.Node == nil:
		c.schedule(p)
		if p.Mode != ModePullError {
			return AssumeStart
		}
	case p.Phase == corev1.PodPending:
		if p.Mode != ModePullError {
			c.podTimer(p, PodRunning, c.draw(c.cfg.Startup))
			return AssumeStart
		}
	case p.Mode == ModeCrashLoop:
		c.podTimer(p, PodCrash, crashBackoff(p.Restarts)+crashAfter)
	case !p.Ready && p.Mode == ModeHealthy:
		c.podTimer(p, PodReady, c.draw(c.cfg.Readiness))
		return AssumeReady
	case p.Ready && !p.Available:
		c.podTimer(p, PodAvailable, p.ReadyAt+st.minReady)
	}
	return AssumeNothing
}
