package sim

import (
	"fmt"
	"maps"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
)

// What a scenario does to the hosted controllers and their objects: a
// controller restart that loses its in-memory state (step
// restartController), write conflicts injected at random
// (cluster.writeConflicts), and kubectl apply of an object of a custom
// kind (step apply).

// Restartable is a [Controller] that a step restartController can
// restart: Restart returns a new instance in the state of a freshly
// started process (nothing remembered), which replaces it.
type Restartable interface {
	Controller
	Restart() Controller
}

// checkHostedSteps checks the steps that name hosted controllers (run by
// New, when the controllers are known).
func (s *Sim) checkHostedSteps() error {
	for i := range s.sc.Steps {
		st := &s.sc.Steps[i]
		name := st.RestartController
		if name == "" {
			continue
		}
		h := s.hostedNamed(name)
		if h == nil {
			return fmt.Errorf("%s: field %q: no controller %q in Options.Controllers (its names: %s)", s.sc.where(max(st.ctrlLine, st.line)), fmt.Sprintf("steps[%d].restartController", i), name, joinComma(s.hostedNames()))
		}
		if _, ok := h.ctrl.(Restartable); !ok {
			return fmt.Errorf("%s: field %q: controller %q (%T) cannot be restarted: implement sim.Restartable (a Restart method returning a fresh instance)", s.sc.where(max(st.ctrlLine, st.line)), fmt.Sprintf("steps[%d].restartController", i), name, h.ctrl)
		}
	}
	return nil
}

func (s *Sim) hostedNamed(name string) *hosted {
	for _, h := range s.host.ctrls {
		if h.name == name {
			return h
		}
	}
	return nil
}

func (s *Sim) hostedNames() []string {
	var out []string
	for _, h := range s.host.ctrls {
		out = append(out, h.name)
	}
	return out
}

// restartController restarts the hosted controller name: a fresh
// instance replaces it (a Starter gets its context), its keys'
// rate-limiter failures are forgotten, and its informers list every
// object again, queueing the keys of every
// object of a kind it watches (as a restarted process does).
func (s *Sim) restartController(name, label string) error {
	h := s.hostedNamed(name)
	fresh := h.ctrl.(Restartable).Restart()
	if fresh == nil || fresh.Name() != name {
		return fmt.Errorf("controller %s: Restart returned %v, want a controller named %q", name, fresh, name)
	}
	h.ctrl = fresh
	if st, ok := fresh.(Starter); ok {
		st.Start(&h.ctx)
	}
	s.wq.ForEach(func(it *wqItem) {
		if it.Key.Ctrl == h.num {
			it.Forget()
		}
	})
	s.note("%s: restart controller %s (its in-memory state is lost; its informers list every object again)", label, name)
	for _, ki := range s.kinds.all() {
		for _, w := range ki.watchers {
			if w.h != h {
				continue
			}
			var objs []Object
			if s.hostCache != nil {
				objs = s.hostCache.list(ki)
			} else {
				objs = s.storedAll(ki)
			}
			for _, o := range objs {
				for _, r := range w.requests(Change{New: o}) {
					s.notify(queueKey{Ctrl: h.num, Name: r.Namespace + "/" + r.Name})
				}
			}
		}
	}
	return nil
}

// injectConflict reports whether a write of the hosted controller h, of
// verb on an object of kind ki named name, is refused with an injected
// 409 Conflict (cluster.writeConflicts), noting it in the trace.
func (s *Sim) injectConflict(h *hosted, verb string, ki *kindInfo, name string) error {
	p := s.sc.Cluster.WriteConflicts
	if p <= 0 || h == nil || s.rng.Float64() >= p {
		return nil
	}
	s.note("%s: %s of %s %s refused: 409 Conflict (injected, cluster.writeConflicts)", h.name, verb, ki.resource, name)
	return apierrors.NewConflict(ki.resource, name, fmt.Errorf("%s", conflictTail))
}

// applyCustom is kubectl apply of an object of a custom kind: created, or
// its labels and every field but metadata and status replaced, its
// annotations merged.
func (s *Sim) applyCustom(label string, manifest Object) error {
	ki, err := s.kinds.of(manifest)
	if err != nil {
		return err
	}
	ns := manifest.GetNamespace()
	if ns == "" {
		ns = metaDefault
	}
	kind := strings.ToLower(ki.gvk.Kind)
	old := s.stored(ki, ns, manifest.GetName())
	if old == nil {
		stored, err := s.writeObject(ki, manifest, verbCreate)
		if err != nil {
			return fmt.Errorf("apply %s %s: %w", kind, manifest.GetName(), err)
		}
		s.note("%s: apply creates %s %s (generation %d)", label, kind, stored.GetName(), stored.GetGeneration())
		return nil
	}
	cur, err := runtime.DefaultUnstructuredConverter.ToUnstructured(old)
	if err != nil {
		return err
	}
	next, err := runtime.DefaultUnstructuredConverter.ToUnstructured(manifest)
	if err != nil {
		return err
	}
	for k, v := range next {
		if k != "metadata" && k != "status" && k != "apiVersion" && k != "kind" {
			cur[k] = v
		}
	}
	for k := range cur {
		if _, ok := next[k]; !ok && k != "metadata" && k != "status" && k != "apiVersion" && k != "kind" {
			delete(cur, k)
		}
	}
	obj, err := s.kinds.newObject(ki)
	if err != nil {
		return err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(cur, obj); err != nil {
		return err
	}
	obj.SetLabels(manifest.GetLabels())
	ann := maps.Clone(old.GetAnnotations())
	if ann == nil && len(manifest.GetAnnotations()) > 0 {
		ann = map[string]string{}
	}
	maps.Copy(ann, manifest.GetAnnotations())
	obj.SetAnnotations(ann)
	obj.SetResourceVersion(old.GetResourceVersion())
	stored, err := s.writeObject(ki, obj, verbUpdate)
	if err != nil {
		return fmt.Errorf("apply %s %s: %w", kind, manifest.GetName(), err)
	}
	s.note("%s: apply updates %s %s (generation %d)", label, kind, stored.GetName(), stored.GetGeneration())
	return nil
}
