package sim

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim/internal/apivalidation"
	"github.com/deploymath/deploymath/sim/internal/cluster"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// State is the state of a cluster a run starts from (see
// [Scenario.WithState]): the objects as the API server holds them, with
// their status, revisions, generations and conditions, and the pods as
// their kubelets last reported them. It is what `kubectl get
// deploy,rs,pods -o yaml` shows; sim/snapshot reads such output.
//
// Time is shifted so that Now is the run's time 0 ([Epoch]): a pod
// created 90 s before Now was created at -1m30s, a Progressing condition
// last updated 5 min before Now reaches a 10 min progress deadline at
// t=5m.
//
// What each pod does next comes from what it shows and from the
// scenario's cluster model:
//   - a pod not yet bound to a node is scheduled at time 0;
//   - a pod waiting to start (Pending on a node) starts after a draw of
//     cluster.startup, a running pod that is not ready becomes ready after
//     a draw of cluster.readiness, and a ready pod becomes available once
//     it has been ready for its ReplicaSet's minReadySeconds;
//   - a container waiting in CrashLoopBackOff keeps crash-looping, one
//     waiting in ErrImagePull, ImagePullBackOff, InvalidImageName,
//     ErrImageNeverPull or CreateContainerConfigError keeps its pod
//     Pending; a pod that is not ready and shows neither follows the
//     scenario's failure rules (cluster.failures), as a new pod would;
//   - a terminating pod is gone at its deletionTimestamp (the end of its
//     grace period), or after a draw of cluster.termination when that has
//     passed;
//   - a pod whose controller is not a ReplicaSet of the state is left out.
//
// The objects are read, never modified. A State holds pointers: keep its
// objects unchanged while a scenario that uses it exists.
type State struct {
	// Now is the moment the state was taken (for a dump, the latest time
	// in it; sim/snapshot's Latest). Required; truncated to the second,
	// as the API serializes times.
	Now time.Time
	// Deployments, ReplicaSets and Pods as stored, status included.
	// Deployments are defaulted as the API server defaults them.
	Deployments []*appsv1.Deployment
	ReplicaSets []*appsv1.ReplicaSet
	Pods        []*corev1.Pod
	// ConfigMaps and Secrets (for the restart controller).
	ConfigMaps []*corev1.ConfigMap
	Secrets    []*corev1.Secret
	// ResourceQuotas: a hard limit on pods ("pods" or "count/pods") stops
	// pod creations in its namespace once that many pods that have not
	// finished (phase neither Succeeded nor Failed) exist, as quota
	// admission does; other resources are not modelled.
	ResourceQuotas []*corev1.ResourceQuota
	// Nodes: each becomes a simulated node with room for its allocatable
	// pods (110 when it does not say); a cordoned node (unschedulable) or
	// one not Ready takes no new pods. A node a pod names that is not
	// listed here or in the scenario's cluster is added with unlimited
	// room. The scenario's cluster.nodes come first and win over a Node of
	// the same name.
	Nodes []*corev1.Node
	// Source, when set, says where the object of a kind, namespace and
	// name was read ("state.yaml: line 12"; "" when unknown), so that
	// errors name it; sim/snapshot's Source gives it for a dump.
	Source func(kind, namespace, name string) string
	// Notes are said in the trace at time 0, before the run's own notes
	// on the state: what was done to read it (sim/snapshot's Notes).
	Notes []string
}

// WithState makes the run start from st, a copy of whose lists is kept,
// instead of an empty cluster: its objects are stored at time 0 as they
// are (the scenario's objects, if any, are created after them), every
// Deployment and ReplicaSet is queued as an informer's first list queues
// it (the Deployments first, so the first sync of each plans from the
// state as `deploysim explain` does), and its pods go on as [State]
// says. Steps (kubectl apply, scale, …) act on the stored objects. The
// state is checked when the scenario is run; see [State] for the rules.
func (sc *Scenario) WithState(st *State) *Scenario {
	if st == nil {
		sc.state = nil
		return sc
	}
	c := &State{Now: st.Now,
		Deployments: slices.Clone(st.Deployments), ReplicaSets: slices.Clone(st.ReplicaSets), Pods: slices.Clone(st.Pods),
		ConfigMaps: slices.Clone(st.ConfigMaps), Secrets: slices.Clone(st.Secrets), Nodes: slices.Clone(st.Nodes),
		ResourceQuotas: slices.Clone(st.ResourceQuotas), Source: st.Source, Notes: slices.Clone(st.Notes)}
	sc.state = c
	sc.validated = false
	return sc
}

func sumReplicas(deps []*appsv1.Deployment) int64 {
	var n int64
	for _, d := range deps {
		n += int64(replicas(d))
	}
	return n
}

// defaultNodePods is a node's pod capacity when its status does not say
// (the kubelet's default maxPods).
const defaultNodePods = 110

// ref names an object of the state in errors: where it was read when
// Source says ("state.yaml: line 12: Deployment shop/web"), else "state:
// Deployment shop/web".
func (st *State) ref(kind string, m *metav1.ObjectMeta) string {
	ns := namespaceOf(m.Namespace)
	where := "state"
	if st.Source != nil {
		if w := st.Source(kind, ns, m.Name); w != "" {
			where = w
		}
	}
	return fmt.Sprintf("%s: %s %s/%s", where, kind, ns, m.Name)
}

// Validate checks the state as a run would before it starts, and refuses
// it as the run would: objects the API server would refuse (the rules
// sim/snapshot applies to a dump, so that a dump deploysim explain reads
// is one a run reads), what the simulator cannot hold (its limits, two
// pods of one name), and a Deployment whose status counts pods but none
// of whose ReplicaSets the state holds (a run would start from a cluster
// without them: the controller would create a new ReplicaSet and pods).
// Each problem names the object (where it was read, with Source) and the
// field.
func (st *State) Validate() error {
	_, err := st.validate()
	return err
}

// validate is Validate, and returns the state's Deployments, defaulted.
func (st *State) validate() ([]*appsv1.Deployment, error) {
	stateRef := st.ref
	var errs []error
	if st.Now.IsZero() {
		errs = append(errs, errors.New("state: field \"now\": required (the moment the state was taken)"))
	}
	if n := len(st.Pods); n > 2*MaxTotalReplicas {
		errs = append(errs, fmt.Errorf("state: %d pods, above the simulator's limit of %d (twice sim.MaxTotalReplicas)", n, 2*MaxTotalReplicas))
	}
	seen := map[string]bool{}
	dup := func(kind string, m *metav1.ObjectMeta) error {
		ref := stateRef(kind, m)
		if m.Name == "" {
			return fmt.Errorf("%s: field \"metadata.name\": required", ref)
		}
		if seen[ref] {
			return fmt.Errorf("%s: given twice", ref)
		}
		seen[ref] = true
		return nil
	}
	var deps []*appsv1.Deployment
	var total int64
	for i, d := range st.Deployments {
		if d == nil {
			errs = append(errs, fmt.Errorf("state: deployments[%d]: nil", i))
			continue
		}
		if err := dup("Deployment", &d.ObjectMeta); err != nil {
			errs = append(errs, err)
			continue
		}
		dd := rollout.Default(d)
		if n := replicas(dd); n > MaxReplicas {
			errs = append(errs, fmt.Errorf("%s: %w", stateRef("Deployment", &d.ObjectMeta), errTooManyReplicas("spec.replicas", n)))
			continue
		}
		if err := rollout.Validate(dd); err != nil {
			errs = append(errs, fmt.Errorf("%s: %s", stateRef("Deployment", &d.ObjectMeta), strings.ReplaceAll(err.Error(), "\n", "; ")))
			continue
		}
		if e := apivalidation.PodTemplate(&dd.Spec.Template, "spec.template"); len(e) > 0 {
			errs = append(errs, refusedObject(stateRef("Deployment", &d.ObjectMeta), e))
			continue
		}
		if e := apivalidation.DeploymentStatus(&dd.Status); len(e) > 0 {
			errs = append(errs, refusedObject(stateRef("Deployment", &d.ObjectMeta), e))
		}
		if total += int64(replicas(dd)); total > MaxTotalReplicas {
			errs = append(errs, fmt.Errorf("%s: field \"spec.replicas\": the Deployments of the state have %d replicas in all, above the simulator's limit of %d (sim.MaxTotalReplicas)", stateRef("Deployment", &d.ObjectMeta), total, MaxTotalReplicas))
		}
		deps = append(deps, dd)
	}
	for i, rs := range st.ReplicaSets {
		if rs == nil {
			errs = append(errs, fmt.Errorf("state: replicaSets[%d]: nil", i))
			continue
		}
		if err := dup("ReplicaSet", &rs.ObjectMeta); err != nil {
			errs = append(errs, err)
			continue
		}
		if e := append(apivalidation.ReplicaSet(rs), apivalidation.ReplicaSetStatus(&rs.Status)...); len(e) > 0 {
			errs = append(errs, refusedObject(stateRef("ReplicaSet", &rs.ObjectMeta), e))
		} else if n := cluster.Replicas(rs); n > MaxReplicas {
			errs = append(errs, fmt.Errorf("%s: spec.replicas: %d is above the simulator's limit of %d (sim.MaxReplicas)", stateRef("ReplicaSet", &rs.ObjectMeta), n, MaxReplicas))
		}
	}
	held := newHolders(st.ReplicaSets)
	for _, d := range deps {
		if c := d.Status; (c.Replicas > 0 || c.AvailableReplicas > 0 || c.UpdatedReplicas > 0) && !held.holds(d) {
			errs = append(errs, fmt.Errorf("%s: status.replicas: the status counts %d pods (available %d), but the state holds none of its ReplicaSets: "+
				"a run would start from a cluster without them, where the controller creates a new ReplicaSet and pods; give the whole state (kubectl get deploy,rs,pods -o yaml)",
				stateRef("Deployment", &d.ObjectMeta), c.Replicas, c.AvailableReplicas))
		}
	}
	names := map[string]string{} // pod name → reference: the simulator keys pods by name
	for i, p := range st.Pods {
		if p == nil {
			errs = append(errs, fmt.Errorf("state: pods[%d]: nil", i))
			continue
		}
		if err := dup("Pod", &p.ObjectMeta); err != nil {
			errs = append(errs, err)
			continue
		}
		if other, ok := names[p.Name]; ok {
			errs = append(errs, fmt.Errorf("%s: the simulator keys pods by name, and %s has the same one", stateRef("Pod", &p.ObjectMeta), other))
		}
		names[p.Name] = stateRef("Pod", &p.ObjectMeta)
	}
	for i, c := range st.ConfigMaps {
		if c == nil {
			errs = append(errs, fmt.Errorf("state: configMaps[%d]: nil", i))
		} else if err := dup("ConfigMap", &c.ObjectMeta); err != nil {
			errs = append(errs, err)
		}
	}
	for i, c := range st.Secrets {
		if c == nil {
			errs = append(errs, fmt.Errorf("state: secrets[%d]: nil", i))
		} else if err := dup("Secret", &c.ObjectMeta); err != nil {
			errs = append(errs, err)
		}
	}
	for i, n := range st.Nodes {
		if n == nil || n.Name == "" {
			errs = append(errs, fmt.Errorf("state: nodes[%d]: field \"metadata.name\": required", i))
		}
	}
	for i, q := range st.ResourceQuotas {
		if q == nil {
			errs = append(errs, fmt.Errorf("state: resourceQuotas[%d]: nil", i))
			continue
		}
		if err := dup("ResourceQuota", &q.ObjectMeta); err != nil {
			errs = append(errs, err)
			continue
		}
		for _, r := range podQuotaResources {
			if v, ok := q.Spec.Hard[r]; ok && v.Sign() < 0 {
				errs = append(errs, fmt.Errorf("%s: field \"spec.hard.%s\": must not be negative", stateRef("ResourceQuota", &q.ObjectMeta), r))
			}
		}
	}
	return deps, errors.Join(errs...)
}

// refusedObject renders the problems the API server's validation finds
// in the object ref.
func refusedObject(ref string, errs []apivalidation.Error) error {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return fmt.Errorf("%s: %s (the API server refuses such an object)", ref, strings.Join(msgs, "; "))
}

// holders answers, for each Deployment of a state, whether one of the
// state's ReplicaSets is its, as its controller claims it: the
// ReplicaSet's controller reference names the Deployment (by UID, or by
// name when neither has a UID), or it is an orphan the Deployment's
// selector matches. It indexes the ReplicaSets once, so that asking for
// every Deployment is linear in the state (orphans are matched against
// the selector one by one, in their namespace).
type holders struct {
	// byUID and byName are the namespace and the controller's UID, or its
	// name when the reference has no UID, of each owned ReplicaSet.
	byUID, byName map[[2]string]bool
	// orphans are the ReplicaSets without a controller, by namespace.
	orphans map[string][]*appsv1.ReplicaSet
}

func newHolders(rss []*appsv1.ReplicaSet) *holders {
	h := &holders{byUID: map[[2]string]bool{}, byName: map[[2]string]bool{}, orphans: map[string][]*appsv1.ReplicaSet{}}
	for _, rs := range rss {
		if rs == nil {
			continue
		}
		ns := namespaceOf(rs.Namespace)
		switch ref := metav1.GetControllerOfNoCopy(rs); {
		case ref == nil:
			h.orphans[ns] = append(h.orphans[ns], rs)
		case ref.Kind != "Deployment":
		case ref.UID != "":
			h.byUID[[2]string{ns, string(ref.UID)}] = true
		default:
			h.byName[[2]string{ns, ref.Name}] = true
		}
	}
	return h
}

// holds reports whether one of the ReplicaSets is d's.
func (h *holders) holds(d *appsv1.Deployment) bool {
	ns := namespaceOf(d.Namespace)
	if d.UID != "" && h.byUID[[2]string{ns, string(d.UID)}] || d.UID == "" && h.byName[[2]string{ns, d.Name}] {
		return true
	}
	orphans := h.orphans[ns]
	if len(orphans) == 0 {
		return false
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || sel.Empty() {
		return false
	}
	for _, rs := range orphans {
		if sel.Matches(labels.Set(rs.Labels)) {
			return true
		}
	}
	return false
}

// stateNodes adds the state's nodes, and those its pods name, after the
// scenario's.
func (s *Sim) stateNodes(st *State) {
	known := map[string]bool{}
	for _, n := range s.c.Nodes {
		known[n.Name] = true
	}
	add := func(name string, capacity int, schedulable bool) {
		if known[name] {
			return
		}
		known[name] = true
		s.c.AddNode(name, capacity, schedulable)
	}
	for _, n := range st.Nodes {
		capacity := defaultNodePods
		if q, ok := n.Status.Allocatable[corev1.ResourcePods]; ok {
			capacity = int(min(q.Value(), 1<<30))
		}
		ready := false
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				ready = c.Status == corev1.ConditionTrue
			}
		}
		add(n.Name, capacity, ready && !n.Spec.Unschedulable)
	}
	for _, p := range st.Pods {
		if p.Spec.NodeName != "" {
			add(p.Spec.NodeName, 1<<30, true)
		}
	}
}

// stateClock converts the state's times to the run's: shift moves an API
// time, at gives its offset from time 0.
type stateClock struct{ now time.Time }

func (c stateClock) shift(t metav1.Time) metav1.Time {
	if t.IsZero() {
		return t
	}
	return metav1.NewTime(Epoch.Add(c.at(t)))
}

// far reports whether t, set, lies more than the century at bounds the
// run's times to from the state's moment (a time written by hand, or in
// year 1): shift moves it to the bound.
func (c stateClock) far(t metav1.Time) bool {
	if t.IsZero() {
		return false
	}
	d := t.Sub(c.now)
	return d <= -century || d >= century
}

// century bounds the run's times of a state: an offset from time 0 that
// time.Duration holds (±292 years) with room for differences.
const century = 100 * 365 * 24 * time.Hour

// at is t's offset from time 0, 0 for an unset time, and at most ±100
// years, so that the differences the ranking takes cannot overflow.
func (c stateClock) at(t metav1.Time) time.Duration {
	if t.IsZero() {
		return 0
	}
	return min(max(t.Sub(c.now), -century), century)
}

// loadState stores the state (see State and Scenario.WithState).
func (s *Sim) loadState(st *State) {
	clk := stateClock{now: st.Now.Truncate(time.Second)}
	meta := func(m *metav1.ObjectMeta) {
		if m.Namespace == "" {
			m.Namespace = metav1.NamespaceDefault
		}
		if m.UID == "" {
			m.UID = s.st.NextUID()
		}
		m.ResourceVersion = s.st.NextRV()
		m.CreationTimestamp = clk.shift(m.CreationTimestamp)
		if m.DeletionTimestamp != nil {
			t := clk.shift(*m.DeletionTimestamp)
			m.DeletionTimestamp = &t
		}
		m.ManagedFields = nil
	}
	for _, q := range st.ResourceQuotas {
		for _, r := range podQuotaResources {
			if v, ok := q.Spec.Hard[r]; ok {
				s.c.AddQuota(namespaceOf(q.Namespace), q.Name, string(r), v.Value())
			}
		}
	}
	for _, cm := range st.ConfigMaps {
		cm = cm.DeepCopy()
		meta(&cm.ObjectMeta)
		s.st.ConfigMaps[objKey(cm.Namespace, cm.Name)] = cm
		s.observeRestart(cm)
	}
	for _, sec := range st.Secrets {
		sec = storedSecret(sec)
		meta(&sec.ObjectMeta)
		s.st.Secrets[objKey(sec.Namespace, sec.Name)] = sec
		s.observeRestart(sec)
	}
	for _, d := range st.Deployments {
		d = rollout.Default(d) // a copy
		meta(&d.ObjectMeta)
		d.Generation = max(d.Generation, 1)
		d.Status.Conditions = slices.Clone(d.Status.Conditions)
		for i := range d.Status.Conditions {
			c := &d.Status.Conditions[i]
			for _, f := range []struct {
				name string
				t    metav1.Time
			}{{"lastUpdateTime", c.LastUpdateTime}, {"lastTransitionTime", c.LastTransitionTime}} {
				if clk.far(f.t) {
					s.note("state: deployment %s: condition %s's %s %s is 100 years or more from the state's moment: taken as 100 years %s it",
						d.Name, c.Type, f.name, f.t.UTC().Format(time.RFC3339), map[bool]string{true: "before", false: "after"}[f.t.Time.Before(clk.now)])
				}
			}
			c.LastUpdateTime, c.LastTransitionTime = clk.shift(c.LastUpdateTime), clk.shift(c.LastTransitionTime)
		}
		key := objKey(d.Namespace, d.Name)
		s.maxSpecReplicas = max(s.maxSpecReplicas, replicas(d))
		s.st.Deployments[key] = d
		it := s.wq.Item(queueKey{Ctrl: ctrlDeployment, Name: key})
		it.X.Dep = d
		s.st.AddDeploymentKey(key)
		s.seedCache(key, d, nil)
		if s.generic != nil {
			s.dispatchTo(s.generic, s.kinds.builtin[kindDeployment], nil, d)
		} else {
			s.notifyItem(it) // also with an informer delay: the first list
		}
		s.met.touch(it)
		s.observeRestart(d)
	}
	byUID := map[types.UID]*cluster.ReplicaSet{}
	var loaded []*cluster.ReplicaSet
	for _, rs := range st.ReplicaSets {
		rs = rs.DeepCopy()
		meta(&rs.ObjectMeta)
		rs.Generation = max(rs.Generation, 1)
		if rs.Spec.Replicas == nil {
			one := int32(1) // the API server's default
			rs.Spec.Replicas = &one
		}
		for i := range rs.Status.Conditions {
			c := &rs.Status.Conditions[i]
			c.LastTransitionTime = clk.shift(c.LastTransitionTime)
		}
		key := s.st.Key(rs.Namespace, rs.Name)
		rst := cluster.NewReplicaSet(key, rs, s.wq.Item(queueKey{Ctrl: ctrlReplicaSet, Name: key}))
		s.st.Index(rs.Namespace, rst)
		s.st.ReplicaSets[key] = rst
		s.syncRSState(rst, rs)
		s.seedCache(key, nil, rs)
		s.rsChanged(nil, rs)
		byUID[rs.UID] = rst
		loaded = append(loaded, rst)
	}
	// Pods compare by UID in the deletion ranking; the simulator's own
	// UIDs ("00000000-0000-4000-8000-…") sort before a cluster's random
	// ones, so the state's pods are numbered after every UID the run can
	// make, in the order of their UIDs.
	pods := slices.Clone(st.Pods)
	slices.SortStableFunc(pods, func(a, b *corev1.Pod) int { return strings.Compare(string(a.UID), string(b.UID)) })
	uidNum := make(map[*corev1.Pod]uint64, len(pods))
	for i, p := range pods {
		uidNum[p] = 1<<62 + uint64(i)
	}
	left := 0
	starts, readies, held := map[*cluster.ReplicaSet]int{}, map[*cluster.ReplicaSet]int{}, map[*cluster.ReplicaSet]int{}
	for _, pod := range st.Pods {
		ref := metav1.GetControllerOfNoCopy(pod)
		var rst *cluster.ReplicaSet
		if ref != nil && ref.Kind == "ReplicaSet" {
			rst = byUID[ref.UID]
			if rst == nil && ref.UID == "" {
				rst = s.st.ReplicaSets[s.st.Key(namespaceOf(pod.Namespace), ref.Name)]
			}
		}
		if rst == nil {
			left++
			continue
		}
		held[rst]++
		switch s.c.LoadPod(pod, rst, uidNum[pod], clk.at) {
		case cluster.AssumeStart:
			starts[rst]++
		case cluster.AssumeReady:
			readies[rst]++
		}
	}
	for _, n := range st.Notes {
		s.note("state: %s", n)
	}
	for _, k := range s.st.DeploymentKeys {
		d := s.st.Deployments[k]
		s.note("state: deployment %s (%s; revision %s, generation %d observed %d)", d.Name, describeTemplate(d),
			orNone(d.Annotations["deployment.kubernetes.io/revision"]), d.Generation, d.Status.ObservedGeneration)
	}
	// The assumptions about pods the state shows on their way, said where
	// a reader of the trace sees them.
	for _, r := range loaded {
		if n := r.Obj.Status.Replicas; n > 0 && held[r] == 0 {
			then := ""
			if want := cluster.Replicas(r.Obj); want > 0 {
				then = fmt.Sprintf(", and the ReplicaSet controller creates %d new ones", want)
			}
			s.note("state: replica set %s counts %d pods, none of which the state holds: the run starts without them%s (give the pods too: kubectl get deploy,rs,pods -o yaml)", r.Obj.Name, n, then)
		}
		if n := starts[r]; n > 0 {
			s.note("state: replica set %s: %d pods not started yet: assumed to start after cluster.startup (%s–%s) and become ready as a new pod does", r.Obj.Name, n, time.Duration(s.sc.Cluster.Startup.Min), time.Duration(s.sc.Cluster.Startup.Max))
		}
		if n := readies[r]; n > 0 {
			s.note("state: replica set %s: %d pods running but not ready: assumed to become ready after cluster.readiness (%s–%s) unless a failure rule (cluster.failures, e.g. in an -overlay) matches them", r.Obj.Name, n, time.Duration(s.sc.Cluster.Readiness.Min), time.Duration(s.sc.Cluster.Readiness.Max))
		}
	}
	for _, r := range loaded {
		if c := cluster.ReplicaFailure(r.Obj.Status.Conditions); c != nil && c.Status == corev1.ConditionTrue && s.sc.Cluster.PodQuota == 0 && !s.c.HasQuota(r.Obj.Namespace) {
			s.note("state: replica set %s could not create pods (%s: %s); the run assumes nothing stops it now (add the namespace's ResourceQuota to the state, kubectl get ...,resourcequota, or set cluster.podQuota)", r.Obj.Name, c.Reason, c.Message)
		}
	}
	if left > 0 {
		s.note("state: %d pods left out (their controller is not a ReplicaSet of the state)", left)
	}
}

func namespaceOf(ns string) string {
	if ns == "" {
		return metav1.NamespaceDefault
	}
	return ns
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// seedCache puts an object of the state into the Deployment controller's
// informer cache at once (its first list), with cluster.informerDelay.
func (s *Sim) seedCache(key string, d *appsv1.Deployment, rs *appsv1.ReplicaSet) {
	if !s.delayed() || s.generic != nil {
		return
	}
	if s.cache == nil {
		s.cache = &informerCache{deployments: map[string]*appsv1.Deployment{}, rss: map[string]*appsv1.ReplicaSet{}}
	}
	if d != nil {
		c := *d
		s.cache.deployments[key] = &c
	}
	if rs != nil {
		c := *rs
		s.cache.rss[key] = &c
	}
}

// podQuotaResources are the ResourceQuota resources that count pods.
var podQuotaResources = []corev1.ResourceName{corev1.ResourcePods, "count/pods"}
