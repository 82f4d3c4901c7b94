package restart_test

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/deploymath/deploymath/restart"
)

var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func configMap(ns, name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
}

func secret(ns, name string, data map[string]string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

// deployment returns a Deployment using each named config through envFrom
// ("cm:name" or "secret:name"), with the given metadata annotations.
func deployment(ns, name string, annotations map[string]string, uses ...string) *appsv1.Deployment {
	c := corev1.Container{Name: "app", Image: "app:1"}
	for _, u := range uses {
		kind, n, _ := strings.Cut(u, ":")
		switch kind {
		case "cm":
			c.EnvFrom = append(c.EnvFrom, corev1.EnvFromSource{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: n}}})
		case "secret":
			c.EnvFrom = append(c.EnvFrom, corev1.EnvFromSource{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: n}}})
		default:
			panic("bad use " + u)
		}
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: annotations},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{c}},
		}},
	}
}

func optIn() map[string]string {
	return map[string]string{restart.DefaultEnabledAnnotation: "true"}
}

// cluster is a tiny in-memory API server: it stores objects, bumps resource
// versions, applies decisions' patches and feeds every write to the engine
// the way an informer would.
type cluster struct {
	t       testing.TB
	e       *restart.Engine
	objs    map[string]runtime.Object
	rv      int
	log     []string
	patches int
}

func newCluster(t testing.TB, opts restart.Options) *cluster {
	t.Helper()
	e, err := restart.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return &cluster{t: t, e: e, objs: map[string]runtime.Object{}}
}

func objKey(obj runtime.Object) string {
	m := obj.(metav1.Object)
	return fmt.Sprintf("%T/%s/%s", obj, m.GetNamespace(), m.GetName())
}

// apply stores obj (a copy, with a new resource version) and observes it.
func (c *cluster) apply(obj runtime.Object, now time.Time) {
	c.t.Helper()
	obj = obj.DeepCopyObject()
	c.rv++
	obj.(metav1.Object).SetResourceVersion(strconv.Itoa(c.rv))
	c.objs[objKey(obj)] = obj
	if err := c.e.Observe(obj, now); err != nil {
		c.t.Fatal(err)
	}
}

func (c *cluster) remove(obj runtime.Object) {
	c.t.Helper()
	delete(c.objs, objKey(obj))
	if err := c.e.Forget(obj); err != nil {
		c.t.Fatal(err)
	}
}

// tick releases at now, applies every decision and returns their
// descriptions.
func (c *cluster) tick(now time.Time) []string {
	c.t.Helper()
	b := c.e.Release(now)
	var out []string
	for _, d := range b.Decisions {
		out = append(out, describe(d))
		c.log = append(c.log, describe(d))
		var target runtime.Object
		for _, o := range c.objs {
			w, err := restart.WorkloadOf(o)
			if err == nil && w.Key() == d.Key() {
				target = o
			}
		}
		if target == nil {
			c.t.Fatalf("decision for unknown workload %s", d.Key())
		}
		patched, err := d.Patch.Apply(target)
		if err != nil {
			c.t.Fatal(err)
		}
		c.patches++
		c.apply(patched, now)
	}
	return out
}

// restarts counts "restart" decisions in descriptions.
func restarts(lines []string) int {
	n := 0
	for _, l := range lines {
		if strings.Contains(l, " restart ") || strings.HasSuffix(l, " restart") {
			n++
		}
	}
	return n
}

// describe renders a decision on one line: "<key> record|restart <checksum keys>".
func describe(d restart.Decision) string {
	verb := "record"
	if d.Restart {
		verb = "restart"
	}
	keys := slices.Sorted(maps.Keys(d.Checksums))
	s := fmt.Sprintf("%s %s [%s]", d.Key(), verb, strings.Join(keys, " "))
	if d.AnnotationError != nil {
		s += " (invalid annotation)"
	}
	return s
}
