package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deploymath/deploymath/revision"
	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim/internal/cluster"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Step is one user action at a time offset. Exactly one action is set.
type Step struct {
	// At is the offset from the start.
	At Duration `json:"at"`
	// Deployment names the Deployment the step acts on; optional when the
	// scenario has one.
	Deployment string `json:"deployment,omitempty"`

	// Apply creates or replaces an object, like kubectl apply: a
	// Deployment (labels and spec replaced, annotations merged), a ConfigMap
	// or a Secret (labels, annotations and data replaced).
	Apply json.RawMessage `json:"apply,omitempty"`
	// Annotate is kubectl annotate --overwrite on the Deployment; a null
	// value removes the annotation (kubectl annotate KEY-).
	Annotate map[string]*string `json:"annotate,omitempty"`
	// SetImage is kubectl set image.
	SetImage *SetImage `json:"setImage,omitempty"`
	// Scale is kubectl scale --replicas.
	Scale *int32 `json:"scale,omitempty"`
	// Pause and Resume are kubectl rollout pause / resume.
	Pause  bool `json:"pause,omitempty"`
	Resume bool `json:"resume,omitempty"`
	// Undo is kubectl rollout undo [--to-revision].
	Undo *Undo `json:"undo,omitempty"`
	// EditConfigMap and EditSecret replace the data of a ConfigMap/Secret.
	EditConfigMap *EditConfig `json:"editConfigMap,omitempty"`
	EditSecret    *EditConfig `json:"editSecret,omitempty"`
	// DeleteConfigMap and DeleteSecret delete a ConfigMap/Secret by name
	// (like EditConfigMap, the first of that name in namespace order).
	DeleteConfigMap string `json:"deleteConfigMap,omitempty"`
	DeleteSecret    string `json:"deleteSecret,omitempty"`
	// KillPods deletes pods (kubectl delete pod).
	KillPods *KillPods `json:"killPods,omitempty"`
	// FailNode and RecoverNode take a node down and back.
	FailNode    string `json:"failNode,omitempty"`
	RecoverNode string `json:"recoverNode,omitempty"`
	// StopWhenConverged ends the run once every Deployment is complete
	// after the last step.
	StopWhenConverged bool `json:"stopWhenConverged,omitempty"`
	// Pod sets a pod's phase or readiness, deletes it or makes its node
	// unreachable.
	Pod *PodStep `json:"pod,omitempty"`
	// UnreachableNode makes a node's kubelet stop reporting; DeleteNode
	// deletes the Node object.
	UnreachableNode string `json:"unreachableNode,omitempty"`
	DeleteNode      string `json:"deleteNode,omitempty"`
	// RestartController restarts a controller of [Options].Controllers
	// (a [Restartable]): it loses its in-memory state and lists every
	// object again.
	RestartController string `json:"restartController,omitempty"`
	// When makes the step wait, from At, until a count or a condition
	// holds.
	When *When `json:"when,omitempty"`

	apply any // *appsv1.Deployment, *corev1.ConfigMap or *corev1.Secret
	line  int // line of the step in the scenario file, 0 if unknown
	// imageLine is the line of setImage.container, 0 if unknown
	imageLine int
	// podLines and whenLine are the lines of pod's fields and of when,
	// ctrlLine of restartController
	podLines podStepLines
	whenLine int
	ctrlLine int
}

// SetImage changes a container's image.
type SetImage struct {
	Container string `json:"container"`
	Image     string `json:"image"`
}

// Undo rolls back to a revision (0: the previous one).
type Undo struct {
	ToRevision int64 `json:"toRevision,omitempty"`
}

// EditConfig replaces the data of a ConfigMap or Secret.
type EditConfig struct {
	Name string            `json:"name"`
	Data map[string]string `json:"data"`
}

// KillPods deletes Count pods, of one ReplicaSet: "new" (the newest),
// "old" (any other) or a name; all pods when empty.
type KillPods struct {
	Count int    `json:"count"`
	RS    string `json:"rs,omitempty"`
}

// load creates the scenario's objects at time 0 and schedules its steps.
func (s *Sim) load() error {
	s.loading = true
	if s.sc.state != nil {
		s.loadState(s.sc.state)
	}
	if s.sc.objState != nil {
		s.loadState(s.sc.objState)
	}
	if err := s.loadCustom(s.custom); err != nil {
		return err
	}
	// what was stored as it is, the hosted controllers' informers list
	// when they start; what follows is created while they run
	s.loading = false
	s.startHosted()
	for _, cm := range s.sc.configMaps {
		cm = cm.DeepCopy()
		cm.UID, cm.ResourceVersion, cm.CreationTimestamp = s.st.NextUID(), s.st.NextRV(), s.stamp()
		s.st.ConfigMaps[objKey(cm.Namespace, cm.Name)] = cm
		s.observeRestart(cm)
		s.configChanged(nil, cm)
	}
	for _, sec := range s.sc.secrets {
		sec = storedSecret(sec)
		sec.UID, sec.ResourceVersion, sec.CreationTimestamp = s.st.NextUID(), s.st.NextRV(), s.stamp()
		s.st.Secrets[objKey(sec.Namespace, sec.Name)] = sec
		s.observeRestart(sec)
		s.configChanged(nil, sec)
	}
	for _, d := range s.sc.deployments {
		dd := rollout.Default(d)
		if err := rollout.Validate(dd); err != nil {
			return fmt.Errorf("deployment %s: %w", d.Name, err)
		}
		if err := s.createDeployment(dd); err != nil {
			return err
		}
		s.note("create deployment %s (%s)", d.Name, describeTemplate(dd))
	}
	s.stepsLeft = len(s.sc.Steps)
	for i, st := range s.sc.Steps {
		s.q.push(time.Duration(st.At), event{kind: evStep, n: uint32(i)})
	}
	return nil
}

// describeTemplate summarises a Deployment for the trace.
func describeTemplate(d *appsv1.Deployment) string {
	var imgs []string
	for _, c := range d.Spec.Template.Spec.Containers {
		imgs = append(imgs, c.Name+"="+c.Image)
	}
	s := fmt.Sprintf("replicas %d, %s", replicas(d), describeStrategy(d))
	if len(imgs) > 0 {
		s += ", " + joinComma(imgs)
	}
	return s
}

// describeStrategy names d's strategy, a percentage with what it
// resolves to against spec.replicas, as explain shows it: "RollingUpdate
// maxSurge 25% (1) maxUnavailable 25% (0)".
func describeStrategy(d *appsv1.Deployment) string {
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		return "Recreate"
	}
	ru := d.Spec.Strategy.RollingUpdate
	if ru == nil || ru.MaxSurge == nil || ru.MaxUnavailable == nil {
		return "RollingUpdate"
	}
	value := func(v *intstr.IntOrString, resolved int32) string {
		if v.Type == intstr.String {
			return fmt.Sprintf("%s (%d)", v.StrVal, resolved)
		}
		return v.String()
	}
	return fmt.Sprintf("RollingUpdate maxSurge %s maxUnavailable %s", value(ru.MaxSurge, maxSurge(d)), value(ru.MaxUnavailable, maxUnavailable(d)))
}

func joinComma(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

// target finds the Deployment a step acts on: the first, in key order,
// of the step's name, in any namespace.
func (s *Sim) target(st *Step) (*appsv1.Deployment, error) {
	keys := s.st.DeploymentKeys // sorted
	if st.Deployment != "" {
		// Deployments are never deleted: a new one changes the count
		if s.byName == nil || s.byNameOf != len(keys) {
			s.byName, s.byNameOf = make(map[string]string, len(keys)), len(keys)
			for i := len(keys) - 1; i >= 0; i-- {
				s.byName[s.st.Deployments[keys[i]].Name] = keys[i]
			}
		}
		if k, ok := s.byName[st.Deployment]; ok {
			return s.st.Deployments[k], nil
		}
		return nil, fmt.Errorf("deployment %q not found", st.Deployment)
	}
	if len(keys) != 1 {
		return nil, fmt.Errorf("the step must name its deployment (there are %d)", len(keys))
	}
	return s.st.Deployments[keys[0]], nil
}

// runStep executes step i.
func (s *Sim) runStep(i int) {
	st := &s.sc.Steps[i]
	s.stepsLeft--
	s.lastStepAt = s.now
	s.met.step(s)
	label := fmt.Sprintf("step %d", i+1)
	s.nodeStep(st)
	if err := s.doStep(st, label); err != nil {
		var fatal *fatalStepError
		if errors.As(err, &fatal) {
			s.failed = fmt.Errorf("%s: %w", s.sc.where(max(fatal.line, st.line)), fatal.err)
			return
		}
		s.note("%s: %v", label, err)
	}
	if s.checks != nil {
		s.checks.stepDone(i, st)
	}
	if s.userInv != nil {
		s.userInv.step = i + 1
	}
}

// fatalStepError is a step that cannot be what the scenario's author
// meant (kubectl would refuse it): the run stops with the error, which
// names the step's field, instead of noting it in the trace.
type fatalStepError struct {
	err  error
	line int // of the field at fault, 0: the step's
}

func (e *fatalStepError) Error() string { return e.err.Error() }

// stepField is the field path of a step's field ("steps[3].setImage").
func stepField(sc *Scenario, st *Step, field string) string {
	for i := range sc.Steps {
		if &sc.Steps[i] == st {
			return fmt.Sprintf("steps[%d].%s", i, field)
		}
	}
	return field
}

func (s *Sim) doStep(st *Step, label string) error {
	if handled, err := s.doNewStep(st, label); handled {
		return err
	}
	switch {
	case st.StopWhenConverged:
		s.stopWhenConverged = true
		s.note("%s: stop when converged", label)
		return nil
	case st.FailNode != "":
		n := s.node(st.FailNode)
		s.note("%s: node %s fails", label, n.Name)
		s.c.FailNode(n)
		if s.checks != nil {
			s.checks.fault()
		}
		return nil
	case st.RecoverNode != "":
		n := s.node(st.RecoverNode)
		s.note("%s: node %s recovers", label, n.Name)
		s.c.RecoverNode(n)
		return nil
	case st.EditConfigMap != nil:
		return s.editConfig(label, st.EditConfigMap, false)
	case st.EditSecret != nil:
		return s.editConfig(label, st.EditSecret, true)
	case st.DeleteConfigMap != "":
		return s.deleteConfig(label, st.DeleteConfigMap, false)
	case st.DeleteSecret != "":
		return s.deleteConfig(label, st.DeleteSecret, true)
	case len(st.Apply) > 0:
		switch o := st.apply.(type) {
		case *appsv1.Deployment:
			return s.applyDeployment(label, o)
		case *corev1.ConfigMap:
			return s.applyConfigMap(label, o)
		case *corev1.Secret:
			return s.applySecret(label, o)
		case *customObject:
			return s.applyCustom(label, s.stepObjs[st])
		}
		return fmt.Errorf("apply: unsupported object %T", st.apply)
	case st.RestartController != "":
		return s.restartController(st.RestartController, label)
	}
	old, err := s.target(st)
	if err != nil {
		return err
	}
	d := old.DeepCopy()
	switch {
	case st.SetImage != nil:
		found := false
		for j := range d.Spec.Template.Spec.Containers {
			if c := &d.Spec.Template.Spec.Containers[j]; c.Name == st.SetImage.Container {
				c.Image = st.SetImage.Image
				found = true
			}
		}
		if !found {
			var names []string
			for _, c := range d.Spec.Template.Spec.Containers {
				names = append(names, strconv.Quote(c.Name))
			}
			return &fatalStepError{err: fmt.Errorf("field %q: deployment %s has no container %q (its containers: %s)",
				stepField(s.sc, st, "setImage.container"), d.Name, st.SetImage.Container, joinComma(names)), line: st.imageLine}
		}
		s.note("%s: set image %s %s=%s", label, d.Name, st.SetImage.Container, st.SetImage.Image)
	case st.Scale != nil:
		d.Spec.Replicas = st.Scale
		s.note("%s: scale %s to %d", label, d.Name, *st.Scale)
	case st.Pause:
		d.Spec.Paused = true
		s.note("%s: rollout pause %s", label, d.Name)
	case st.Resume:
		d.Spec.Paused = false
		s.note("%s: rollout resume %s", label, d.Name)
	case st.Undo != nil:
		next, msg, err := s.undo(old, st.Undo.ToRevision)
		if err != nil {
			return fmt.Errorf("rollout undo %s: %w", d.Name, err)
		}
		s.note("%s: rollout undo %s: %s", label, d.Name, msg)
		if next == nil {
			return nil // kubectl sends no patch
		}
		d = next
	case st.KillPods != nil:
		return s.killPods(label, old, st.KillPods)
	case len(st.Annotate) > 0:
		keys := sortedKeys(st.Annotate)
		var parts []string
		for _, k := range keys {
			v := st.Annotate[k]
			if v == nil {
				delete(d.Annotations, k)
				parts = append(parts, k+"-")
				continue
			}
			if d.Annotations == nil {
				d.Annotations = map[string]string{}
			}
			d.Annotations[k] = *v
			parts = append(parts, k+"="+*v)
		}
		s.note("%s: annotate deployment %s %s", label, d.Name, strings.Join(parts, " "))
	}
	if err := rollout.Validate(d); err != nil {
		return fmt.Errorf("rejected by validation: %w", err)
	}
	s.writeDeploymentSpec(old, d)
	if s.checks != nil {
		s.checks.userChange(objKey(d.Namespace, d.Name))
	}
	return nil
}

func (s *Sim) node(name string) *cluster.Node {
	return s.c.Node(name) // validated at load: never nil
}

// applyDeployment is kubectl apply of a Deployment: labels and spec are
// replaced, annotations merged (the controller's annotations stay).
func (s *Sim) applyDeployment(label string, manifest *appsv1.Deployment) error {
	d := rollout.Default(manifest)
	if err := rollout.Validate(d); err != nil {
		return fmt.Errorf("apply %s rejected by validation: %w", d.Name, err)
	}
	key := objKey(d.Namespace, d.Name)
	old := s.st.Deployments[key]
	if old == nil {
		s.note("%s: apply creates deployment %s (%s)", label, d.Name, describeTemplate(d))
		return s.createDeployment(d)
	}
	next := old.DeepCopy()
	next.Labels = d.Labels
	ann := maps.Clone(old.Annotations)
	if ann == nil && len(d.Annotations) > 0 {
		ann = map[string]string{}
	}
	maps.Copy(ann, d.Annotations)
	next.Annotations = ann
	next.Spec = d.Spec
	s.note("%s: apply deployment %s (%s)", label, d.Name, describeTemplate(d))
	s.writeDeploymentSpec(old, next)
	if s.checks != nil {
		s.checks.userChange(key)
	}
	return nil
}

func (s *Sim) editConfig(label string, e *EditConfig, secret bool) error {
	if secret {
		for _, k := range sortedKeys(s.st.Secrets) {
			if old := s.st.Secrets[k]; old.Name == e.Name {
				sec := old.DeepCopy()
				sec.Data = map[string][]byte{}
				for dk, v := range e.Data {
					sec.Data[dk] = []byte(v)
				}
				sec.ResourceVersion = s.st.NextRV()
				s.st.Secrets[k] = sec
				s.observeRestart(sec)
				s.configChanged(old, sec)
				s.note("%s: edit secret %s (%d keys)", label, e.Name, len(e.Data))
				return nil
			}
		}
		return fmt.Errorf("secret %q not found", e.Name)
	}
	for _, k := range sortedKeys(s.st.ConfigMaps) {
		if old := s.st.ConfigMaps[k]; old.Name == e.Name {
			cm := old.DeepCopy()
			cm.Data = maps.Clone(e.Data)
			cm.ResourceVersion = s.st.NextRV()
			s.st.ConfigMaps[k] = cm
			s.observeRestart(cm)
			s.configChanged(old, cm)
			s.note("%s: edit configmap %s (%d keys)", label, e.Name, len(e.Data))
			return nil
		}
	}
	return fmt.Errorf("configmap %q not found", e.Name)
}

// applyConfigMap is kubectl apply of a ConfigMap: created, or its labels,
// annotations and data replaced.
func (s *Sim) applyConfigMap(label string, manifest *corev1.ConfigMap) error {
	key := objKey(manifest.Namespace, manifest.Name)
	cm := manifest.DeepCopy()
	var old *metav1.ObjectMeta
	if o := s.st.ConfigMaps[key]; o != nil {
		old = &o.ObjectMeta
	}
	verb := s.stampApplied(&cm.ObjectMeta, old)
	s.configChanged(s.st.ConfigMaps[key], cm)
	s.st.ConfigMaps[key] = cm
	s.note("%s: apply %s configmap %s (%d keys)", label, verb, cm.Name, len(cm.Data)+len(cm.BinaryData))
	s.observeRestart(cm)
	return nil
}

// stampApplied gives an applied object its identity: the UID and creation
// time of the stored object it replaces (nil when it is new, then fresh
// ones) and a new resourceVersion. It returns the verb for the trace.
func (s *Sim) stampApplied(m, old *metav1.ObjectMeta) string {
	verb := "creates"
	if old != nil {
		verb = "updates"
		m.UID, m.CreationTimestamp = old.UID, old.CreationTimestamp
	} else {
		m.UID, m.CreationTimestamp = s.st.NextUID(), s.stamp()
	}
	m.ResourceVersion = s.st.NextRV()
	return verb
}

// applySecret is kubectl apply of a Secret: created, or its labels,
// annotations and data replaced (stringData merged into data, as the API
// server stores it).
func (s *Sim) applySecret(label string, manifest *corev1.Secret) error {
	key := objKey(manifest.Namespace, manifest.Name)
	sec := storedSecret(manifest)
	var old *metav1.ObjectMeta
	if o := s.st.Secrets[key]; o != nil {
		old = &o.ObjectMeta
	}
	verb := s.stampApplied(&sec.ObjectMeta, old)
	s.configChanged(s.st.Secrets[key], sec)
	s.st.Secrets[key] = sec
	s.note("%s: apply %s secret %s (%d keys)", label, verb, sec.Name, len(sec.Data))
	s.observeRestart(sec)
	return nil
}

// storedSecret is a copy of a Secret manifest as the API server stores it:
// stringData merged over data.
func storedSecret(manifest *corev1.Secret) *corev1.Secret {
	sec := manifest.DeepCopy()
	if len(sec.StringData) > 0 {
		if sec.Data == nil {
			sec.Data = map[string][]byte{}
		}
		for k, v := range sec.StringData {
			sec.Data[k] = []byte(v)
		}
		sec.StringData = nil
	}
	return sec
}

// deleteConfig deletes the first ConfigMap (Secret) named name.
func (s *Sim) deleteConfig(label, name string, secret bool) error {
	if secret {
		for _, k := range sortedKeys(s.st.Secrets) {
			if old := s.st.Secrets[k]; old.Name == name {
				delete(s.st.Secrets, k)
				s.note("%s: delete secret %s", label, name)
				s.forgetRestart(old)
				s.configChanged(old, nil)
				return nil
			}
		}
		return fmt.Errorf("secret %q not found", name)
	}
	for _, k := range sortedKeys(s.st.ConfigMaps) {
		if old := s.st.ConfigMaps[k]; old.Name == name {
			delete(s.st.ConfigMaps, k)
			s.note("%s: delete configmap %s", label, name)
			s.forgetRestart(old)
			s.configChanged(old, nil)
			return nil
		}
	}
	return fmt.Errorf("configmap %q not found", name)
}

// killPods deletes pods of the target Deployment, newest ReplicaSet or old
// ones or a named one, choosing pods in name order.
func (s *Sim) killPods(label string, d *appsv1.Deployment, k *KillPods) error {
	rss := s.ownedReplicaSets(d)
	var pick []*cluster.Pod
	var candidates []*appsv1.ReplicaSet
	switch k.RS {
	case "":
		candidates = rss
	case "new":
		if len(rss) > 0 {
			candidates = rss[len(rss)-1:]
		}
	case "old":
		if len(rss) > 0 {
			candidates = rss[:len(rss)-1]
		}
	default:
		for _, rs := range rss {
			if rs.Name == k.RS {
				candidates = append(candidates, rs)
			}
		}
		if len(candidates) == 0 {
			return fmt.Errorf("kill pods: replica set %q not found", k.RS)
		}
	}
	for _, rs := range candidates {
		for _, p := range s.st.ReplicaSets[objKey(rs.Namespace, rs.Name)].Pods {
			if !p.Terminating {
				pick = append(pick, p)
			}
		}
	}
	slices.SortFunc(pick, func(a, b *cluster.Pod) int { return strings.Compare(a.Name, b.Name) })
	if len(pick) > k.Count {
		pick = pick[:k.Count]
	}
	names := make([]string, len(pick))
	for i, p := range pick {
		names[i] = p.Name
	}
	s.note("%s: kill %d pods: %s", label, len(pick), joinComma(names))
	for _, p := range pick {
		s.c.DeletePod(p)
	}
	if s.checks != nil {
		s.checks.fault()
	}
	return nil
}

// undo is kubectl rollout undo [--to-revision]: [revision.RollbackTarget]
// over the ReplicaSets of d's namespace, applied to d with
// [revision.Rollback.Apply] (template without the pod-template-hash label,
// annotations replaced as kubectl's patch does). It returns the Deployment to
// write (nil when kubectl skips the rollback) and the note for the trace.
func (s *Sim) undo(d *appsv1.Deployment, toRevision int64) (*appsv1.Deployment, string, error) {
	rb, err := revision.RollbackTarget(d, s.st.ReplicaSetsIn(d.Namespace), toRevision)
	if err != nil {
		return nil, "", err
	}
	if rb.AlreadyMatches {
		return nil, rb.Message, nil
	}
	return rb.Apply(d), fmt.Sprintf("rolled back to revision %d (%s)", rb.Revision, rb.ReplicaSet), nil
}
