package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/deploymath/deploymath/restart"
)

// rig drives the controller synchronously: the fake server's writes are fed
// to the controller's handlers at once (the informers, with no latency),
// and time only moves when the test ticks the fake clock.
type rig struct {
	t         *testing.T
	ctx       context.Context
	clk       *clocktesting.FakeClock
	start     time.Time
	cs        *fake.Clientset
	srv       *fakeServer
	c         *Controller
	opts      restart.Options
	decisions []outcome
}

type outcome struct {
	at       time.Duration
	key      string
	restart  bool
	failed   bool
	checksum string
	stamp    string
}

func newRig(t *testing.T) *rig {
	start := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	r := &rig{t: t, ctx: context.Background(), clk: clocktesting.NewFakeClock(start), start: start, opts: restart.DefaultOptions()}
	r.cs, r.srv = newFakeClientset(r.clk)
	factory := informers.NewSharedInformerFactory(r.cs, 0) // never started
	c, err := NewController(r.cs, factory.Core().V1().ConfigMaps(), factory.Core().V1().Secrets(),
		factory.Apps().V1().Deployments(), r.opts, r.clk)
	if err != nil {
		t.Fatal(err)
	}
	r.c = c
	r.srv.OnChange = func(old, cur runtime.Object) {
		if cur == nil {
			c.forget(old)
			return
		}
		c.observe(cur)
	}
	c.OnDecision = func(d restart.Decision, err error) {
		r.decisions = append(r.decisions, outcome{
			at: r.clk.Now().Sub(start), key: d.Key(), restart: d.Restart, failed: err != nil,
			checksum: d.Checksums["configmap/shop/settings"], stamp: d.RestartedAt,
		})
	}
	return r
}

// tickUntil ticks every CheckInterval up to offset d from the start.
func (r *rig) tickUntil(d time.Duration) {
	for end := r.start.Add(d); r.clk.Now().Before(end); {
		r.clk.Step(r.opts.CheckInterval)
		r.c.Tick(r.ctx, r.clk.Now())
	}
}

func (r *rig) setLevel(level string) *corev1.ConfigMap {
	cm, err := r.cs.CoreV1().ConfigMaps("shop").Get(r.ctx, "settings", metav1.GetOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	cm.Data["LOG_LEVEL"] = level
	cm, err = r.cs.CoreV1().ConfigMaps("shop").Update(r.ctx, cm, metav1.UpdateOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	return cm
}

// annotations returns the web Deployment's recorded checksum and restart
// stamp.
func (r *rig) web() (checksum, stamp string) {
	d, err := r.cs.AppsV1().Deployments("shop").Get(r.ctx, "web", metav1.GetOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	var sums map[string]string
	if v, ok := d.Annotations[r.opts.ChecksumsAnnotation]; ok {
		if err := json.Unmarshal([]byte(v), &sums); err != nil {
			r.t.Fatal(err)
		}
	}
	return sums["configmap/shop/settings"], d.Spec.Template.Annotations[r.opts.RestartedAtAnnotation]
}

func TestScriptedConfigMapEdit(t *testing.T) {
	r := newRig(t)
	cm, deployments := demoObjects(r.opts)
	if _, err := r.cs.CoreV1().ConfigMaps("shop").Create(r.ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, d := range deployments {
		if _, err := r.cs.AppsV1().Deployments("shop").Create(r.ctx, d, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	// The new workload's checksums are recorded once the grace period
	// (5s) has passed, without a restart.
	r.tickUntil(10 * time.Second)
	want := []outcome{{at: 5 * time.Second, key: "deployment/shop/web", checksum: restart.ChecksumConfigMap(cm)}}
	if !equalOutcomes(r.decisions, want) {
		t.Fatalf("after creation: %+v, want %+v", r.decisions, want)
	}
	if sum, stamp := r.web(); sum != restart.ChecksumConfigMap(cm) || stamp != "" {
		t.Fatalf("web after creation: checksum %q stamp %q", sum, stamp)
	}

	// Three edits within the grace period restart the pods once, 5s after
	// the first edit, with the last edit's checksum.
	r.decisions = nil
	r.tickUntil(20 * time.Second)
	r.setLevel("debug")
	r.tickUntil(21 * time.Second)
	r.setLevel("trace")
	r.tickUntil(23500 * time.Millisecond)
	last := r.setLevel("warn")
	r.tickUntil(40 * time.Second)
	stamp := r.start.Add(25 * time.Second).UTC().Format(time.RFC3339)
	want = []outcome{{at: 25 * time.Second, key: "deployment/shop/web", restart: true, checksum: restart.ChecksumConfigMap(last), stamp: stamp}}
	if !equalOutcomes(r.decisions, want) {
		t.Fatalf("after the edits: %+v, want %+v", r.decisions, want)
	}
	if sum, got := r.web(); sum != restart.ChecksumConfigMap(last) || got != stamp {
		t.Fatalf("web after the edits: checksum %q stamp %q, want %q %q", sum, got, restart.ChecksumConfigMap(last), stamp)
	}
	batch, err := r.cs.AppsV1().Deployments("shop").Get(r.ctx, "batch", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(batch.Annotations) != 0 || len(batch.Spec.Template.Annotations) != 0 {
		t.Fatalf("batch (not opted in) was patched: %v %v", batch.Annotations, batch.Spec.Template.Annotations)
	}

	// A failed patch is reported to the engine and retried: the restart
	// still happens.
	r.decisions = nil
	r.srv.FailPatches = 1
	r.tickUntil(50 * time.Second)
	last = r.setLevel("error")
	r.tickUntil(80 * time.Second)
	if len(r.decisions) != 2 || !r.decisions[0].failed || r.decisions[1].failed || !r.decisions[1].restart {
		t.Fatalf("failed patch and retry: %+v", r.decisions)
	}
	if sum, got := r.web(); sum != restart.ChecksumConfigMap(last) || got == stamp {
		t.Fatalf("web after the retry: checksum %q stamp %q", sum, got)
	}

	// A deleted workload is forgotten: later edits patch nothing.
	r.decisions = nil
	if err := r.cs.AppsV1().Deployments("shop").Delete(r.ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.setLevel("info")
	r.tickUntil(100 * time.Second)
	if len(r.decisions) != 0 {
		t.Fatalf("decisions after the workload was deleted: %+v", r.decisions)
	}
}

func equalOutcomes(got, want []outcome) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}
