package snapshot

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Rollout is one Deployment of a snapshot with the objects its controller
// looks at. ReplicaSets and Pods are its own; NamespaceReplicaSets and
// NamespacePods are shared by the Rollouts of a namespace; the objects
// are the Snapshot's. Treat all of them as read-only.
type Rollout struct {
	// Deployment is the Deployment, defaulted.
	Deployment *appsv1.Deployment
	// ReplicaSets are the ReplicaSets the controller would claim: those
	// whose controller reference names the Deployment, and, unless the
	// Deployment is being deleted, orphans (no controller) its selector
	// matches and that are not being deleted. Oldest first (creation
	// time, then name).
	ReplicaSets []*appsv1.ReplicaSet
	// Pods are the pods whose controller is one of ReplicaSets, by name.
	Pods []*corev1.Pod
	// NamespaceReplicaSets and NamespacePods are every ReplicaSet and pod
	// of the Deployment's namespace, in the Snapshot's order.
	NamespaceReplicaSets []*appsv1.ReplicaSet
	NamespacePods        []*corev1.Pod

	// planRSs and planPods are what Input gives the planner (see Input).
	planRSs  []*appsv1.ReplicaSet
	planPods []*corev1.Pod
}

// Input is the [rollout.Snapshot] of a sync of the Deployment at now. Of
// its namespace's ReplicaSets and pods it holds those a sync can read,
// in the Snapshot's order: the ReplicaSets whose controller reference
// has the Deployment's UID (claimed, or released when they no longer match),
// every orphan (adopted when the selector matches), and those whose name
// begins with the Deployment's (a new ReplicaSet's name may collide with
// one of them); and the pods whose controller is one of those (the
// Recreate strategy waits for them). The ReplicaSets of other
// controllers and their pods cannot change a plan, so [rollout.Plan]
// gives the same result as with the whole namespace, at a cost that does
// not grow with the namespace.
func (r *Rollout) Input(now time.Time) rollout.Snapshot {
	rss, pods := r.planRSs, r.planPods
	if rss == nil && pods == nil {
		// A Rollout not made by Rollouts.
		rss, pods = r.NamespaceReplicaSets, r.NamespacePods
	}
	return rollout.Snapshot{Deployment: r.Deployment, ReplicaSets: rss, Pods: pods, Now: now}
}

// namespaceIndex holds a namespace's ReplicaSets and pods with the look-ups
// Rollouts needs, so that grouping n Deployments costs about n, not n
// times the size of the namespace.
type namespaceIndex struct {
	rss  []*appsv1.ReplicaSet
	pods []*corev1.Pod
	// rsAt is each ReplicaSet's index in rss.
	rsAt map[*appsv1.ReplicaSet]int
	// owned lists the ReplicaSets by controller (ownerKey); orphans are
	// those without one.
	owned   map[string][]*appsv1.ReplicaSet
	orphans []*appsv1.ReplicaSet
	// byUID lists the ReplicaSets by their controller's UID, whatever its
	// kind: the planner looks no further than that UID.
	byUID map[types.UID][]*appsv1.ReplicaSet
	// byName is rss sorted by name, for the names that begin with a
	// Deployment's.
	byName []*appsv1.ReplicaSet
	// podsOf lists, by the name of their controller (a ReplicaSet), the
	// pods in the order of pods.
	podsOf map[string][]int
}

// ownerKey identifies a Deployment as controller references name it: its
// UID, or its name when it has no UID (bare manifests), as OwnedBy does.
func ownerKey(uid, name string) string {
	if uid != "" {
		return "uid:" + uid
	}
	return "name:" + name
}

// namespaces are the namespaceIndex of each namespace, by name.
type namespaces map[string]*namespaceIndex

func (s *Snapshot) namespaces() namespaces {
	idx := namespaces{}
	ns := func(name string) *namespaceIndex {
		x := idx[name]
		if x == nil {
			x = &namespaceIndex{rsAt: map[*appsv1.ReplicaSet]int{}, owned: map[string][]*appsv1.ReplicaSet{}, byUID: map[types.UID][]*appsv1.ReplicaSet{}, podsOf: map[string][]int{}}
			idx[name] = x
		}
		return x
	}
	for _, rs := range s.ReplicaSets {
		x := ns(rs.Namespace)
		x.rsAt[rs] = len(x.rss)
		x.rss = append(x.rss, rs)
		ref := metav1.GetControllerOfNoCopy(rs)
		if ref == nil {
			x.orphans = append(x.orphans, rs)
			continue
		}
		x.byUID[ref.UID] = append(x.byUID[ref.UID], rs)
		if ref.Kind == "Deployment" {
			k := ownerKey(string(ref.UID), ref.Name)
			x.owned[k] = append(x.owned[k], rs)
		}
	}
	for _, p := range s.Pods {
		x := ns(p.Namespace)
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil && ref.Kind == "ReplicaSet" {
			x.podsOf[ref.Name] = append(x.podsOf[ref.Name], len(x.pods))
		}
		x.pods = append(x.pods, p)
	}
	for _, x := range idx {
		x.rss = slices.Clip(x.rss)
		x.pods = slices.Clip(x.pods)
		x.byName = slices.Clone(x.rss)
		slices.SortStableFunc(x.byName, func(a, b *appsv1.ReplicaSet) int { return strings.Compare(a.Name, b.Name) })
	}
	return idx
}

// maxRSNamePrefix is the longest part of a Deployment's name that the
// name of its new ReplicaSet keeps: the name is cut so that
// "<name>-<hash>" (a hash of at most 10 characters) stays within 253.
const maxRSNamePrefix = validation.DNS1123SubdomainMaxLength - 1 - 10

// Rollouts groups the snapshot per Deployment, in the order of
// [Snapshot].Deployments (namespace, then name).
func (s *Snapshot) Rollouts() []Rollout {
	idx := s.namespaces()
	out := make([]Rollout, len(s.Deployments))
	// Each Rollout reads the index alone, which nothing writes: those of
	// many Deployments are grouped on every core.
	group := func(i int) { out[i] = idx.rollout(s.Deployments[i]) }
	if len(out) >= parallelItems {
		parallel(len(out), group)
	} else {
		for i := range out {
			group(i)
		}
	}
	return out
}

// rollout is the Rollout of d.
func (idx namespaces) rollout(d *appsv1.Deployment) Rollout {
	x := idx[d.Namespace]
	if x == nil {
		x = &namespaceIndex{}
	}
	r := Rollout{Deployment: d, NamespaceReplicaSets: x.rss, NamespacePods: x.pods}
	owned := x.owned[ownerKey(string(d.UID), d.Name)]
	for _, rs := range owned {
		if Claims(d, rs) {
			r.ReplicaSets = append(r.ReplicaSets, rs)
		}
	}
	for _, rs := range x.orphans {
		if Claims(d, rs) {
			r.ReplicaSets = append(r.ReplicaSets, rs)
		}
	}
	slices.SortFunc(r.ReplicaSets, oldestFirst)
	var podAt []int
	for _, rs := range r.ReplicaSets {
		for _, i := range x.podsOf[rs.Name] {
			if ref := metav1.GetControllerOfNoCopy(x.pods[i]); ref.UID == rs.UID {
				podAt = append(podAt, i)
			}
		}
	}
	slices.Sort(podAt)
	for _, i := range podAt {
		r.Pods = append(r.Pods, x.pods[i])
	}
	r.planRSs, r.planPods = x.planInput(d)
	return r
}

// planInput is what Input gives the planner for d (see Input).
func (x *namespaceIndex) planInput(d *appsv1.Deployment) ([]*appsv1.ReplicaSet, []*corev1.Pod) {
	owned := x.byUID[d.UID]
	at := make([]int, 0, len(owned)+len(x.orphans)+1)
	for _, rs := range owned {
		at = append(at, x.rsAt[rs])
	}
	for _, rs := range x.orphans {
		at = append(at, x.rsAt[rs])
	}
	prefix := d.Name[:min(len(d.Name), maxRSNamePrefix)]
	i, _ := slices.BinarySearchFunc(x.byName, prefix, func(rs *appsv1.ReplicaSet, p string) int { return strings.Compare(rs.Name, p) })
	for ; i < len(x.byName) && strings.HasPrefix(x.byName[i].Name, prefix); i++ {
		at = append(at, x.rsAt[x.byName[i]])
	}
	slices.Sort(at)
	at = slices.Compact(at)
	rss := make([]*appsv1.ReplicaSet, len(at))
	var podAt []int
	for k, i := range at {
		rss[k] = x.rss[i]
		podAt = append(podAt, x.podsOf[x.rss[i].Name]...)
	}
	slices.Sort(podAt)
	podAt = slices.Compact(podAt)
	pods := make([]*corev1.Pod, len(podAt))
	for k, i := range podAt {
		pods[k] = x.pods[i]
	}
	return rss, pods
}

func oldestFirst(a, b *appsv1.ReplicaSet) int {
	return cmp.Or(a.CreationTimestamp.Compare(b.CreationTimestamp.Time), strings.Compare(a.Name, b.Name), strings.Compare(string(a.UID), string(b.UID)))
}

// Claims reports whether d's controller would count rs as its own at its
// next sync: rs is in d's namespace and either its controller reference
// names d (kind Deployment and d's UID; d's name when neither has a UID,
// as with bare manifests), or it has no controller, d's selector matches
// its labels, and neither is being deleted (the controller adopts it).
func Claims(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	if rs.Namespace != d.Namespace {
		return false
	}
	if ref := metav1.GetControllerOfNoCopy(rs); ref != nil {
		return OwnedBy(d, ref)
	}
	if d.DeletionTimestamp != nil || rs.DeletionTimestamp != nil {
		return false
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	return err == nil && !sel.Empty() && sel.Matches(labels.Set(rs.Labels))
}

// OwnedBy reports whether the controller reference ref names d.
func OwnedBy(d *appsv1.Deployment, ref *metav1.OwnerReference) bool {
	if ref.Kind != "Deployment" {
		return false
	}
	if ref.UID == "" && d.UID == "" {
		return ref.Name == d.Name
	}
	return ref.UID == d.UID
}
