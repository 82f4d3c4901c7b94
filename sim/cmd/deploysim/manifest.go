package main

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/deploymath/deploymath/sim"
	"github.com/deploymath/deploymath/sim/snapshot"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// manifestScenario turns manifests, or a cluster's state, into a scenario.
//
// A file that holds cluster state (kubectl get -o yaml output with
// ReplicaSets or Pods, or Deployments with a status) is a what-next run:
// the simulator starts from that state (sim.State, taken at now or, when
// now is zero, at the latest time in the file) and runs on. Bare
// manifests are created at t=0 on a default cluster and the run goes on
// until everything settles.
//
// With from, file's objects are applied as `kubectl apply -f file` would,
// to from's: when from is cluster state, at t=0 of a run that starts from
// it; when from holds manifests, once they are rolled out (the first of
// file's Deployments, or without one the first of from's, has all its
// replicas available).
func manifestScenario(file string, data []byte, from string, now time.Time) (*sim.Scenario, error) {
	next, err := snapshot.Parse(data, file, snapshot.Options{})
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	if from == "" {
		if isState(next) {
			sc := sim.NewScenario(name)
			sc.Description = "what happens next to the cluster state of " + file
			st, err := stateOf(next, now, file)
			if err != nil {
				return nil, err
			}
			sc.WithState(st)
			return sc, nil
		}
		if len(next.Deployments)+len(next.ConfigMaps)+len(next.Secrets) == 0 {
			return nil, fmt.Errorf("%s: no Deployment, ConfigMap or Secret to simulate", file)
		}
		sc := sim.NewScenario(name)
		sc.Description = "the manifests of " + file + " created on a default cluster"
		addObjects(sc, next)
		return sc, nil
	}
	if len(next.Deployments)+len(next.ConfigMaps)+len(next.Secrets) == 0 {
		return nil, fmt.Errorf("%s: no Deployment, ConfigMap or Secret to apply", file)
	}
	prev, err := snapshot.ReadFile(from, snapshot.Options{})
	if err != nil {
		return nil, err
	}
	if len(prev.Deployments) == 0 {
		return nil, fmt.Errorf("-from %s: no Deployment", from)
	}
	sc := sim.NewScenario(name)
	if isState(prev) {
		sc.Description = "kubectl apply -f " + file + " on the cluster state of " + from
		st, err := stateOf(prev, now, "-from "+from)
		if err != nil {
			return nil, err
		}
		sc.WithState(st)
		for _, o := range objectsOf(next) {
			sc.WithApply(0, o)
		}
		return sc, nil
	}
	sc.Description = "kubectl apply -f " + file + " on the objects of " + from + ", once they are rolled out"
	addObjects(sc, prev)
	wait := prev.Deployments[0]
	if len(next.Deployments) > 0 {
		d := next.Deployments[0]
		for _, p := range prev.Deployments {
			if p.Namespace == d.Namespace && p.Name == d.Name {
				wait = p
			}
		}
	}
	when := &sim.When{Deployment: wait.Name, Available: wait.Spec.Replicas}
	for _, o := range objectsOf(next) {
		sc.WithApply(0, o)
		sc.Steps[len(sc.Steps)-1].When = when
	}
	return sc, nil
}

// isState reports whether s is a cluster's state rather than manifests:
// it has ReplicaSets or Pods, or a Deployment with a status.
func isState(s *snapshot.Snapshot) bool {
	if len(s.ReplicaSets) > 0 || len(s.Pods) > 0 {
		return true
	}
	for _, d := range s.Deployments {
		if d.Status.ObservedGeneration > 0 || len(d.Status.Conditions) > 0 {
			return true
		}
	}
	return false
}

// stateOf is the simulator's view of a snapshot read from name, taken at
// now (zero: the latest time in the snapshot).
func stateOf(s *snapshot.Snapshot, now time.Time, name string) (*sim.State, error) {
	if now.IsZero() {
		now = s.Latest()
	}
	if now.IsZero() {
		return nil, fmt.Errorf("%s: the state holds no time to start from: say when it was taken with -now (RFC 3339)", name)
	}
	st := &sim.State{Now: now, Deployments: s.Deployments, ReplicaSets: s.ReplicaSets, Pods: s.Pods,
		ConfigMaps: s.ConfigMaps, Secrets: s.Secrets, Nodes: s.Nodes, ResourceQuotas: s.ResourceQuotas, Notes: s.Notes,
		Source: func(kind, namespace, name string) string {
			return s.Source(snapshot.Ref{Kind: kind, Namespace: namespace, Name: name}).String()
		}}
	// Checked here, so that an error names the file and line without the
	// scenario around it.
	if err := st.Validate(); err != nil {
		return nil, err
	}
	return st, nil
}

// addObjects adds s's Deployments, ConfigMaps and Secrets to sc as
// manifests.
func addObjects(sc *sim.Scenario, s *snapshot.Snapshot) {
	for _, o := range objectsOf(s) {
		switch o := o.(type) {
		case *appsv1.Deployment:
			sc.WithDeployment(o)
		case *corev1.ConfigMap:
			sc.WithConfigMap(o)
		case *corev1.Secret:
			sc.WithSecret(o)
		}
	}
}

// objectsOf returns s's Deployments, ConfigMaps and Secrets as manifests:
// metadata reduced to what a user writes (name, namespace, labels, and
// annotations other than the controller's and kubectl's), no status.
func objectsOf(s *snapshot.Snapshot) []any {
	meta := func(m metav1.ObjectMeta) metav1.ObjectMeta {
		out := metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, Labels: m.Labels}
		for k, v := range m.Annotations {
			if strings.HasPrefix(k, "deployment.kubernetes.io/") || k == corev1.LastAppliedConfigAnnotation {
				continue
			}
			if out.Annotations == nil {
				out.Annotations = map[string]string{}
			}
			out.Annotations[k] = v
		}
		return out
	}
	var out []any
	for _, d := range s.Deployments {
		out = append(out, &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: meta(d.ObjectMeta), Spec: d.Spec})
	}
	for _, c := range s.ConfigMaps {
		out = append(out, &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: meta(c.ObjectMeta), Data: c.Data, BinaryData: c.BinaryData})
	}
	for _, c := range s.Secrets {
		out = append(out, &corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: meta(c.ObjectMeta), Data: c.Data, StringData: c.StringData, Type: c.Type})
	}
	return out
}

// withOverlay lays the scenario file overlay (a scenario without objects)
// over sc: its cluster (delays, failures, nodes) when it sets one, its
// seed, time limit and expectations when set, and its steps after sc's.
// It states the assumptions of a what-if ("the new image crash-loops").
func withOverlay(sc *sim.Scenario, overlay string) (*sim.Scenario, error) {
	ov, err := sim.LoadScenario(overlay)
	if err != nil {
		return nil, err
	}
	if len(ov.Objects) > 0 {
		return nil, fmt.Errorf("-overlay %s: an overlay has no objects (the manifests give them)", overlay)
	}
	if !reflect.DeepEqual(ov.Cluster, sim.Cluster{}) {
		sc.Cluster = ov.Cluster
	}
	if ov.Seed != 0 {
		sc.Seed = ov.Seed
	}
	if ov.Until != 0 {
		sc.Until = ov.Until
	}
	if len(ov.Expect) > 0 {
		sc.Expect = ov.Expect
	}
	sc.Steps = append(sc.Steps, ov.Steps...)
	return sc, nil
}

// loadScenario reads a scenario file, or manifests or cluster state (see
// manifestScenario) with an optional overlay.
func loadScenario(file, from, overlay string, now time.Time) (*sim.Scenario, error) {
	data, manifest, err := readInput(file)
	if err != nil {
		return nil, err
	}
	if !manifest {
		if !now.IsZero() {
			return nil, fmt.Errorf("-now: %s is a scenario: -now is the moment a cluster state was taken", file)
		}
		if from != "" {
			return nil, fmt.Errorf("-from %s: %s is a scenario, not a manifest: -from takes the state a manifest is applied to", from, file)
		}
		if overlay != "" {
			return nil, fmt.Errorf("-overlay %s: %s is a scenario, not a manifest: write the assumptions in the scenario itself", overlay, file)
		}
		return sim.LoadScenario(file)
	}
	sc, err := manifestScenario(file, data, from, now)
	if err != nil || overlay == "" {
		return sc, err
	}
	return withOverlay(sc, overlay)
}
