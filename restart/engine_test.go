package restart_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/deploymath/deploymath/restart"
)

const sec = time.Second

type step struct {
	at time.Duration
	do func(c *cluster, now time.Time)
}

// scenario runs steps and a check every CheckInterval from 0 to until; steps
// at or before a check run before it, in order.
func scenario(c *cluster, steps []step, until time.Duration) []string {
	c.t.Helper()
	var out []string
	iv := c.e.Options().CheckInterval
	next := 0
	for d := time.Duration(0); d <= until; d += iv {
		for next < len(steps) && steps[next].at <= d {
			steps[next].do(c, at(steps[next].at))
			next++
		}
		for _, s := range c.tick(at(d)) {
			out = append(out, "t="+d.String()+" "+s)
		}
	}
	return out
}

func applyAt(d time.Duration, obj runtime.Object) step {
	return step{d, func(c *cluster, now time.Time) { c.apply(obj, now) }}
}

func removeAt(d time.Duration, obj runtime.Object) step {
	return step{d, func(c *cluster, now time.Time) { c.remove(obj) }}
}

var (
	web   = func(uses ...string) *appsv1.Deployment { return deployment("default", "web", optIn(), uses...) }
	cmA1  = configMap("default", "a", map[string]string{"k": "1"})
	cmA2  = configMap("default", "a", map[string]string{"k": "2"})
	cmA3  = configMap("default", "a", map[string]string{"k": "3"})
	cmB1  = configMap("default", "b", map[string]string{"k": "1"})
	cmB2  = configMap("default", "b", map[string]string{"k": "2"})
	cmB3  = configMap("default", "b", map[string]string{"k": "3"})
	other = configMap("default", "other", map[string]string{"k": "1"})
)

func TestScenarios(t *testing.T) {
	withAnn := func(ann map[string]string, uses ...string) *appsv1.Deployment {
		return deployment("default", "web", ann, uses...)
	}
	relabelled := cmA1.DeepCopy()
	relabelled.Labels = map[string]string{"team": "x"}
	otherNS := configMap("prod", "a", map[string]string{"k": "9"})
	recA := "deployment/default/web record [configmap/default/a]"
	rstA := "deployment/default/web restart [configmap/default/a]"
	tests := []struct {
		name  string
		steps []step
		until time.Duration
		want  []string
	}{
		{
			name:  "new workload records checksums without restart",
			steps: []step{applyAt(0, cmA1), applyAt(0, web("cm:a"))},
			until: 20 * sec,
			want:  []string{"t=5s " + recA},
		},
		{
			name:  "config edit restarts once after the grace period",
			steps: []step{applyAt(0, cmA1), applyAt(0, web("cm:a")), applyAt(10*sec, cmA2)},
			until: 30 * sec,
			want:  []string{"t=5s " + recA, "t=15s " + rstA},
		},
		{
			name: "three edits within the grace period restart once",
			steps: []step{applyAt(0, cmA1), applyAt(0, web("cm:a")),
				applyAt(10*sec, cmA2), applyAt(11*sec, cmA3), applyAt(14900*time.Millisecond, configMap("default", "a", map[string]string{"k": "4"}))},
			until: 30 * sec,
			want:  []string{"t=5s " + recA, "t=15s " + rstA},
		},
		{
			name: "edit back to the recorded data within the grace period restarts nothing",
			steps: []step{applyAt(0, cmA1), applyAt(0, web("cm:a")),
				applyAt(10*sec, cmA2), applyAt(12*sec, cmA1)},
			until: 30 * sec,
			want:  []string{"t=5s " + recA},
		},
		{
			name: "caveat 1: two configs edited further apart than the grace period restart twice",
			steps: []step{applyAt(0, cmA1), applyAt(0, cmB1), applyAt(0, web("cm:a", "cm:b")),
				applyAt(10*sec, cmA2), applyAt(16*sec, cmB2)},
			until: 30 * sec,
			want: []string{
				"t=5s deployment/default/web record [configmap/default/a configmap/default/b]",
				"t=15s deployment/default/web restart [configmap/default/a configmap/default/b]",
				"t=21s deployment/default/web restart [configmap/default/a configmap/default/b]",
			},
		},
		{
			name: "two configs edited within the grace period restart once",
			steps: []step{applyAt(0, cmA1), applyAt(0, cmB1), applyAt(0, web("cm:a", "cm:b")),
				applyAt(10*sec, cmA2), applyAt(12*sec, cmB2)},
			until: 30 * sec,
			want: []string{
				"t=5s deployment/default/web record [configmap/default/a configmap/default/b]",
				"t=15s deployment/default/web restart [configmap/default/a configmap/default/b]",
			},
		},
		{
			name: "edit of an unreferenced config restarts nothing",
			steps: []step{applyAt(0, cmA1), applyAt(0, other), applyAt(0, web("cm:a")),
				applyAt(10*sec, configMap("default", "other", map[string]string{"k": "2"}))},
			until: 30 * sec,
			want:  []string{"t=5s " + recA},
		},
		{
			name:  "a config of the same name in another namespace restarts nothing",
			steps: []step{applyAt(0, cmA1), applyAt(0, web("cm:a")), applyAt(10*sec, otherNS)},
			until: 30 * sec,
			want:  []string{"t=5s " + recA},
		},
		{
			name:  "workload created before its config, config arrives within the grace period",
			steps: []step{applyAt(0, web("cm:a")), applyAt(2*sec, cmA1)},
			until: 30 * sec,
			want:  []string{"t=5s " + recA},
		},
		{
			name:  "workload created before its config, config arrives later",
			steps: []step{applyAt(0, web("cm:a")), applyAt(7*sec, cmA1)},
			until: 30 * sec,
			want:  []string{"t=12s " + recA},
		},
		{
			name: "newly referenced config changed twice before it was recorded restarts",
			steps: []step{applyAt(0, cmA1), applyAt(0, cmB1), applyAt(0, web("cm:a")),
				applyAt(20*sec, web("cm:a", "cm:b")), applyAt(21*sec, cmB2), applyAt(22*sec, cmB3)},
			until: 40 * sec,
			want: []string{
				"t=5s " + recA,
				"t=25s deployment/default/web restart [configmap/default/a configmap/default/b]",
			},
		},
		{
			name: "newly referenced config changed once before it was recorded only records (as upstream)",
			steps: []step{applyAt(0, cmA1), applyAt(0, cmB1), applyAt(0, web("cm:a")),
				applyAt(20*sec, web("cm:a", "cm:b")), applyAt(21*sec, cmB2)},
			until: 40 * sec,
			want: []string{
				"t=5s " + recA,
				"t=25s deployment/default/web record [configmap/default/a configmap/default/b]",
			},
		},
		{
			name: "opt-in annotation removed stops restarts",
			steps: []step{applyAt(0, cmA1), applyAt(0, web("cm:a")),
				applyAt(10*sec, withAnn(nil, "cm:a")), applyAt(12*sec, cmA2)},
			until: 30 * sec,
			want:  []string{"t=5s " + recA},
		},
		{
			name: "opt-in annotation with another value does not opt in",
			steps: []step{applyAt(0, cmA1),
				applyAt(0, withAnn(map[string]string{restart.DefaultEnabledAnnotation: "enabled"}, "cm:a")),
				applyAt(10*sec, cmA2)},
			until: 30 * sec,
			want:  nil,
		},
		{
			name: "dropped reference is removed from the annotation without restart",
			steps: []step{applyAt(0, cmA1), applyAt(0, cmB1), applyAt(0, web("cm:a", "cm:b")),
				applyAt(10*sec, web("cm:a"))},
			until: 30 * sec,
			want: []string{
				"t=5s deployment/default/web record [configmap/default/a configmap/default/b]",
				"t=15s " + recA,
			},
		},
		{
			name: "annotation removed by a user is restored without restart",
			steps: []step{applyAt(0, cmA1), applyAt(0, web("cm:a")),
				applyAt(10*sec, web("cm:a"))},
			until: 30 * sec,
			want:  []string{"t=5s " + recA, "t=15s " + recA},
		},
		{
			name: "garbage annotation is treated as empty, reported and rewritten",
			steps: []step{applyAt(0, cmA1), applyAt(0, withAnn(map[string]string{
				restart.DefaultEnabledAnnotation:   "true",
				restart.DefaultChecksumsAnnotation: "NOT A JSON STRING"}, "cm:a"))},
			until: 20 * sec,
			want:  []string{"t=5s " + recA + " (invalid annotation)"},
		},
		{
			name: "garbage annotation without configs is rewritten",
			steps: []step{applyAt(0, withAnn(map[string]string{
				restart.DefaultEnabledAnnotation:   "true",
				restart.DefaultChecksumsAnnotation: `{"a":1}`}))},
			until: 20 * sec,
			want:  []string{"t=5s deployment/default/web record [] (invalid annotation)"},
		},
		{
			name:  "metadata-only config edit restarts nothing",
			steps: []step{applyAt(0, cmA1), applyAt(0, web("cm:a")), applyAt(10*sec, relabelled)},
			until: 30 * sec,
			want:  []string{"t=5s " + recA},
		},
		{
			name: "config deleted and re-created with other data restarts",
			steps: []step{applyAt(0, cmA1), applyAt(0, web("cm:a")),
				removeAt(10*sec, cmA1), applyAt(20*sec, cmA2)},
			until: 40 * sec,
			want:  []string{"t=5s " + recA, "t=25s " + rstA},
		},
		{
			name: "config deleted and re-created with the same data restarts nothing",
			steps: []step{applyAt(0, cmA1), applyAt(0, web("cm:a")),
				removeAt(10*sec, cmA1), applyAt(20*sec, cmA1)},
			until: 40 * sec,
			want:  []string{"t=5s " + recA},
		},
		{
			name: "workload deleted during the grace period gets no decision",
			steps: []step{applyAt(0, cmA1), applyAt(0, web("cm:a")),
				removeAt(3*sec, web("cm:a"))},
			until: 20 * sec,
			want:  nil,
		},
		{
			name: "secrets and configmaps of one workload",
			steps: []step{applyAt(0, cmA1), applyAt(0, secret("default", "s", map[string]string{"p": "1"})),
				applyAt(0, web("cm:a", "secret:s")),
				applyAt(10*sec, secret("default", "s", map[string]string{"p": "2"}))},
			until: 30 * sec,
			want: []string{
				"t=5s deployment/default/web record [configmap/default/a secret/default/s]",
				"t=15s deployment/default/web restart [configmap/default/a secret/default/s]",
			},
		},
		{
			name: "two workloads using one config both restart",
			steps: []step{applyAt(0, cmA1), applyAt(0, web("cm:a")),
				applyAt(0, deployment("default", "api", optIn(), "cm:a")),
				applyAt(0, deployment("default", "batch", nil, "cm:a")),
				applyAt(10*sec, cmA2)},
			until: 30 * sec,
			want: []string{
				"t=5s deployment/default/api record [configmap/default/a]",
				"t=5s " + recA,
				"t=15s deployment/default/api restart [configmap/default/a]",
				"t=15s " + rstA,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCluster(t, restart.DefaultOptions())
			got := scenario(c, tt.steps, tt.until)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
			if n := c.e.Counters().ChangesWaiting; n != 0 {
				t.Errorf("changes still waiting at the end: %d (%v)", n, c.e.Waiting())
			}
		})
	}
}

// A fresh engine (a restarted controller, a new leader) decides from the
// persisted annotations only: it restarts nothing when no config changed,
// and exactly the users of a config edited while no controller ran.
func TestFreshEngineRestartsOnlyChangedWorkloads(t *testing.T) {
	c := newCluster(t, restart.DefaultOptions())
	scenario(c, []step{applyAt(0, cmA1), applyAt(0, cmB1), applyAt(0, web("cm:a")),
		applyAt(0, deployment("default", "api", optIn(), "cm:b"))}, 10*sec)

	for _, edit := range []struct {
		name string
		b    *corev1.ConfigMap
		want []string
	}{
		{"nothing changed", cmB1, nil},
		{"b changed while down", cmB2, []string{"t=5s deployment/default/api restart [configmap/default/b]"}},
	} {
		t.Run(edit.name, func(t *testing.T) {
			fresh := newCluster(t, restart.DefaultOptions())
			var steps []step
			for _, o := range c.objs {
				if cm, ok := o.(*corev1.ConfigMap); ok && cm.Name == "b" {
					steps = append(steps, applyAt(0, edit.b))
					continue
				}
				steps = append(steps, applyAt(0, o))
			}
			got := scenario(fresh, steps, 20*sec)
			if diff := cmp.Diff(edit.want, got); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
		})
	}
}

// Caveat 2 of the original: a config edited during a new workload's grace
// period, then the controller killed: a fresh engine records the new checksum
// without restart. Drain, called at shutdown, keeps the restart when the edit
// was observed twice.
func TestCaveatKilledDuringGracePeriod(t *testing.T) {
	steps := []step{applyAt(0, cmA1), applyAt(0, web("cm:a")), // steady at 5s
		applyAt(20*sec, web("cm:a", "cm:b")), applyAt(20*sec, cmB1),
		applyAt(21*sec, cmB2), applyAt(22*sec, cmB3)}
	c := newCluster(t, restart.DefaultOptions())
	scenario(c, steps, 23*sec)

	t.Run("killed", func(t *testing.T) {
		fresh := newCluster(t, restart.DefaultOptions())
		var s []step
		for _, o := range c.objs {
			s = append(s, applyAt(0, o))
		}
		got := scenario(fresh, s, 10*sec)
		want := []string{"t=5s deployment/default/web record [configmap/default/a configmap/default/b]"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("drained", func(t *testing.T) {
		b := c.e.Drain(at(23 * sec))
		var got []string
		for _, d := range b.Decisions {
			got = append(got, describe(d))
		}
		want := []string{"deployment/default/web restart [configmap/default/a configmap/default/b]"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if len(b.Processed) != 1 || b.Processed[0].Key != "configmap/default/b" || b.Processed[0].Count != 3 {
			t.Errorf("processed = %+v, want the configmap/default/b change with count 3", b.Processed)
		}
	})
}

func TestXingKeysSwitchWithoutRestart(t *testing.T) {
	// Annotations as the original controller wrote them.
	sum := restart.XingChecksumConfigMap(cmA1)
	ann := map[string]string{
		restart.XingEnabledAnnotation:   "enabled",
		restart.XingChecksumsAnnotation: `{"configmap/default/a":"` + sum + `"}`,
	}
	c := newCluster(t, restart.XingKeys())
	got := scenario(c, []step{applyAt(0, cmA1), applyAt(0, deployment("default", "web", ann, "cm:a")),
		applyAt(10*sec, cmA2)}, 20*sec)
	want := []string{"t=15s " + rstA()}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var web *appsv1.Deployment
	for _, o := range c.objs {
		if d, ok := o.(*appsv1.Deployment); ok {
			web = d
		}
	}
	if got := web.Annotations[restart.XingChecksumsAnnotation]; got != `{"configmap/default/a":"`+restart.XingChecksumConfigMap(cmA2)+`"}` {
		t.Errorf("annotation = %s", got)
	}
	if got := web.Spec.Template.Annotations[restart.XingRestartedAtAnnotation]; got != "2030-01-02T03:04:20Z" {
		t.Errorf("restart stamp = %q, want 2030-01-02T03:04:20Z", got)
	}
}

func rstA() string { return "deployment/default/web restart [configmap/default/a]" }

func TestReloaderAnnotations(t *testing.T) {
	opts := restart.DefaultOptions()
	opts.Reloader = true
	tests := []struct {
		name string
		ann  map[string]string
		want []string
	}{
		{"auto", map[string]string{restart.ReloaderAuto: "true"},
			[]string{"t=5s deployment/default/web record [configmap/default/a secret/default/s]",
				"t=15s deployment/default/web restart [configmap/default/a secret/default/s]"}},
		{"auto false", map[string]string{restart.ReloaderAuto: "false"}, nil},
		{"secret auto ignores configmaps", map[string]string{restart.ReloaderSecretAuto: "true"},
			[]string{"t=5s deployment/default/web record [secret/default/s]"}},
		{"configmap auto", map[string]string{restart.ReloaderConfigMapAuto: "true"},
			[]string{"t=5s " + "deployment/default/web record [configmap/default/a]",
				"t=15s " + rstA()}},
		{"reload list names an unreferenced config", map[string]string{restart.ReloaderConfigMapReload: " other , a"},
			[]string{"t=5s deployment/default/web record [configmap/default/a configmap/default/other]",
				"t=15s deployment/default/web restart [configmap/default/a configmap/default/other]"}},
		{"secret reload list", map[string]string{restart.ReloaderSecretReload: "s"},
			[]string{"t=5s deployment/default/web record [secret/default/s]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCluster(t, opts)
			got := scenario(c, []step{applyAt(0, cmA1), applyAt(0, other),
				applyAt(0, secret("default", "s", map[string]string{"p": "1"})),
				applyAt(0, deployment("default", "web", tt.ann, "cm:a", "secret:s")),
				applyAt(10*sec, cmA2)}, 20*sec)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	t.Run("ignored without the option", func(t *testing.T) {
		c := newCluster(t, restart.DefaultOptions())
		got := scenario(c, []step{applyAt(0, cmA1),
			applyAt(0, deployment("default", "web", map[string]string{restart.ReloaderAuto: "true"}, "cm:a"))}, 10*sec)
		if len(got) != 0 {
			t.Errorf("got %v, want nothing", got)
		}
	})
}

func TestPatchShape(t *testing.T) {
	e, _ := restart.New(restart.DefaultOptions())
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "nightly", ResourceVersion: "1",
		Annotations: map[string]string{restart.DefaultEnabledAnnotation: "true",
			restart.DefaultChecksumsAnnotation: `{"configmap/ns/a":"0000000000000000"}`}}}
	cj.Spec.JobTemplate.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "a"}}}}}
	cm := configMap("ns", "a", map[string]string{"x": "y"})
	must(t, e.Observe(cm, at(0)))
	must(t, e.Observe(cj, at(0)))
	b := e.Release(at(5 * sec))
	if len(b.Decisions) != 1 {
		t.Fatalf("decisions = %d", len(b.Decisions))
	}
	d := b.Decisions[0]
	sum := restart.ChecksumConfigMap(cm)
	want := `{"metadata":{"annotations":{"deploymath.io/config-checksums":"{\"configmap/ns/a\":\"` + sum +
		`\"}"}},"spec":{"jobTemplate":{"spec":{"template":{"metadata":{"annotations":{"deploymath.io/restarted-at":"2030-01-02T03:04:10Z"}}}}}}}`
	if string(d.PatchJSON) != want {
		t.Errorf("patch\n got %s\nwant %s", d.PatchJSON, want)
	}
	if !d.Restart || len(d.Triggers) != 1 || d.Triggers[0] != (restart.Trigger{Config: "configmap/ns/a", Recorded: "0000000000000000", Current: sum, Observations: 1}) {
		t.Errorf("decision = %+v", d)
	}
	var doc map[string]any
	must(t, json.Unmarshal(d.PatchJSON, &doc))
	patched, err := d.Patch.Apply(cj)
	must(t, err)
	got := patched.(*batchv1.CronJob)
	if got.Spec.JobTemplate.Spec.Template.Annotations[restart.DefaultRestartedAtAnnotation] != "2030-01-02T03:04:10Z" {
		t.Errorf("Apply did not stamp the job template: %+v", got.Spec.JobTemplate.Spec.Template.Annotations)
	}
	if cj.Spec.JobTemplate.Spec.Template.Annotations != nil || cj.Annotations[restart.DefaultChecksumsAnnotation] != `{"configmap/ns/a":"0000000000000000"}` {
		t.Error("Apply mutated its input")
	}
}

func TestPatchFailedRetriesRestart(t *testing.T) {
	for _, name := range []string{"recorded checksum changed", "changed twice before recorded"} {
		t.Run(name, func(t *testing.T) {
			e, _ := restart.New(restart.DefaultOptions())
			ann := optIn()
			if name == "recorded checksum changed" {
				ann[restart.DefaultChecksumsAnnotation] = `{"configmap/default/a":"` + restart.ChecksumConfigMap(cmA1) + `"}`
			}
			must(t, e.Observe(deployment("default", "web", ann, "cm:a"), at(0)))
			must(t, e.Observe(cmA1, at(0)))
			must(t, e.Observe(cmA2, at(0)))
			b := e.Release(at(5 * sec))
			if len(b.Decisions) != 1 || !b.Decisions[0].Restart {
				t.Fatalf("want one restart, got %+v", b.Decisions)
			}
			e.PatchFailed(b.Decisions[0], at(6*sec))
			if got := e.Counters().Restarts; got != 0 {
				t.Errorf("Restarts after failure = %d, want 0", got)
			}
			if b := e.Release(at(10 * sec)); len(b.Decisions) != 0 {
				t.Errorf("retry before its grace period: %+v", b.Decisions)
			}
			b = e.Release(at(11 * sec))
			if len(b.Decisions) != 1 || !b.Decisions[0].Restart {
				t.Fatalf("want the restart retried, got %+v", b.Decisions)
			}
			if b.Decisions[0].RestartedAt != "2030-01-02T03:04:16Z" {
				t.Errorf("stamp %s", b.Decisions[0].RestartedAt)
			}
		})
	}
}

func TestRestartStampAlwaysChangesTemplate(t *testing.T) {
	e, _ := restart.New(restart.DefaultOptions())
	d := deployment("default", "web", map[string]string{restart.DefaultEnabledAnnotation: "true",
		restart.DefaultChecksumsAnnotation: `{"configmap/default/a":"1111111111111111"}`}, "cm:a")
	d.Spec.Template.Annotations = map[string]string{restart.DefaultRestartedAtAnnotation: "2030-01-02T03:04:10Z"}
	must(t, e.Observe(d, at(0)))
	must(t, e.Observe(cmA1, at(0)))
	b := e.Release(at(5 * sec))
	if got := b.Decisions[0].RestartedAt; got != "2030-01-02T03:04:10.000000001Z" {
		t.Errorf("stamp = %s, want one nanosecond later than the current one", got)
	}
}

func TestCounters(t *testing.T) {
	c := newCluster(t, restart.DefaultOptions())
	scenario(c, []step{applyAt(0, cmA1), applyAt(0, other), applyAt(0, web("cm:a", "cm:missing")),
		applyAt(0, deployment("default", "plain", nil, "cm:a")),
		applyAt(10*sec, cmA2), applyAt(11*sec, cmA2), applyAt(12*sec, cmA3)}, 30*sec)
	// Observing the same object again at the same version is not a new version.
	again := c.objs[objKey(cmA1)]
	must(t, c.e.Observe(again, at(31*sec)))
	got := c.e.Counters()
	want := restart.Counters{
		// cmA1, other, web, plain, cmA2 (x2: new versions), cmA3, and web twice after its patches.
		ResourceVersions:  9,
		Configs:           3, // a, other, missing (placeholder)
		Workloads:         1,
		AnnotationUpdates: 2,
		Restarts:          1,
		// t=5: a, other, web; t=15: a.
		ChangesProcessed: 4,
		ChangesWaiting:   0,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counters (-want +got):\n%s", diff)
	}
}

func TestNextRelease(t *testing.T) {
	e, _ := restart.New(restart.DefaultOptions())
	if _, ok := e.NextRelease(t0); ok {
		t.Error("empty queue has a next release")
	}
	must(t, e.Observe(cmA1, at(1200*time.Millisecond)))
	must(t, e.Observe(other, at(3*sec)))
	got, ok := e.NextRelease(t0)
	if !ok || !got.Equal(at(6500*time.Millisecond)) {
		t.Errorf("NextRelease = %v, want t0+6.5s", got.Sub(t0))
	}
	if due := e.Due(at(6200 * time.Millisecond)); len(due) != 1 || due[0].Key != "configmap/default/a" {
		t.Errorf("Due = %+v", due)
	}
	if b := e.Release(at(6 * sec)); len(b.Processed) != 0 {
		t.Errorf("released too early: %+v", b.Processed)
	}
	if b := e.Release(at(6500 * time.Millisecond)); len(b.Processed) != 1 {
		t.Errorf("processed %+v", b.Processed)
	}
	got, _ = e.NextRelease(t0)
	if !got.Equal(at(8 * sec)) {
		t.Errorf("NextRelease = %v, want t0+8s", got.Sub(t0))
	}
	late, _ := e.NextRelease(at(20 * sec))
	if !late.Equal(at(20500 * time.Millisecond)) {
		t.Errorf("NextRelease with a late epoch = %v, want the first tick", late.Sub(t0))
	}
}

func TestInvalidInput(t *testing.T) {
	if _, err := restart.New(restart.Options{}); err == nil || !strings.Contains(err.Error(), "Options.EnabledAnnotation") ||
		!strings.Contains(err.Error(), "Options.CheckInterval") {
		t.Errorf("New(Options{}) error = %v", err)
	}
	o := restart.DefaultOptions()
	o.GracePeriod = -1
	if _, err := restart.New(o); err == nil || !strings.Contains(err.Error(), "Options.GracePeriod: invalid value -1ns") {
		t.Errorf("negative grace period: %v", err)
	}
	e, _ := restart.New(restart.DefaultOptions())
	var nilDep *appsv1.Deployment
	for _, obj := range []struct {
		name string
		err  error
	}{
		{"pod", e.Observe(&corev1.Pod{}, t0)},
		{"nil deployment", e.Observe(nilDep, t0)},
		{"nil configmap", e.Observe((*corev1.ConfigMap)(nil), t0)},
		{"forget pod", e.Forget(&corev1.Pod{})},
		{"forget nil configmap", e.Forget((*corev1.ConfigMap)(nil))},
		{"forget nil secret", e.Forget((*corev1.Secret)(nil))},
		{"forget nil daemonset", e.Forget((*appsv1.DaemonSet)(nil))},
		{"observe nil", e.Observe(nil, t0)},
		{"config without checksum", e.ObserveConfig(restart.Config{Kind: restart.KindSecret, Name: "x"}, t0)},
		{"config with bad kind", e.ObserveConfig(restart.Config{Kind: "Secret", Name: "x", Checksum: "1"}, t0)},
		{"workload with bad kind", e.ObserveWorkload(restart.Workload{Kind: "Deployment", Name: "x"}, t0)},
		{"workload without name", e.ObserveWorkload(restart.Workload{Kind: restart.KindDeployment}, t0)},
	} {
		if obj.err == nil {
			t.Errorf("%s: no error", obj.name)
		}
	}
	if err := e.Observe(&corev1.Pod{}, t0); !errors.Is(err, restart.ErrUnsupported) {
		t.Errorf("pod: %v does not wrap ErrUnsupported", err)
	}
	if n := e.Counters(); n != (restart.Counters{}) {
		t.Errorf("invalid input changed the engine: %+v", n)
	}
}

func TestParseChecksums(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    map[string]string
		wantErr string
	}{
		{"", map[string]string{}, ""},
		{"null", map[string]string{}, ""},
		{"{}", map[string]string{}, ""},
		{`{"configmap/a/b":"0123456789abcdef"}`, map[string]string{"configmap/a/b": "0123456789abcdef"}, ""},
		{"NOT A JSON STRING", map[string]string{}, `metadata.annotations[k]: invalid value "NOT A JSON STRING": invalid character`},
		{`["x"]`, map[string]string{}, "cannot unmarshal array"},
		{`{"a":1}`, map[string]string{}, "cannot unmarshal number"},
	} {
		got, err := restart.ParseChecksums("k", tt.in)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q: (-want +got):\n%s", tt.in, diff)
		}
		if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%q: error %v, want %q", tt.in, err, tt.wantErr)
		}
	}
	if got := restart.FormatChecksums(map[string]string{"secret/n/b": "2", "configmap/n/a": "1"}); got != `{"configmap/n/a":"1","secret/n/b":"2"}` {
		t.Errorf("FormatChecksums = %s", got)
	}
	if got := restart.FormatChecksums(nil); got != "{}" {
		t.Errorf("FormatChecksums(nil) = %s", got)
	}
}

func TestCatalogPlaceholders(t *testing.T) {
	e, _ := restart.New(restart.DefaultOptions())
	must(t, e.Observe(web("cm:a", "secret:s"), t0))
	must(t, e.Observe(deployment("default", "api", optIn(), "cm:a"), t0))
	want := []restart.ConfigState{
		{Key: "configmap/default/a", Users: []string{"deployment/default/api", "deployment/default/web"}},
		{Key: "secret/default/s", Users: []string{"deployment/default/web"}},
	}
	if diff := cmp.Diff(want, e.Configs()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	must(t, e.Forget(web()))
	want = []restart.ConfigState{{Key: "configmap/default/a", Users: []string{"deployment/default/api"}}}
	if diff := cmp.Diff(want, e.Configs()); diff != "" {
		t.Errorf("after forgetting web (-want +got):\n%s", diff)
	}
	if w := e.Waiting(); len(w) != 1 || w[0].Key != "deployment/default/api" {
		t.Errorf("waiting = %+v", w)
	}
	must(t, e.Forget(deployment("default", "api", nil)))
	if n := e.Counters(); n.Configs != 0 || n.Workloads != 0 || n.ChangesWaiting != 0 {
		t.Errorf("catalog not empty: %+v", n)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func FuzzParseChecksums(f *testing.F) {
	for _, s := range []string{"", "null", "{}", `{"configmap/a/b":"0123456789abcdef"}`, "NOT JSON", `{"a":1}`, `[1]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := restart.ParseChecksums("k", s)
		if m == nil {
			t.Fatal("nil map")
		}
		if err != nil {
			if len(m) != 0 {
				t.Fatalf("error with a non-empty map: %v", m)
			}
			return
		}
		back, err := restart.ParseChecksums("k", restart.FormatChecksums(m))
		if err != nil || !cmp.Equal(m, back) {
			t.Fatalf("round trip: %v → %v (%v)", m, back, err)
		}
	})
}
