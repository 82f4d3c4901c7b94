package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/examples/bluegreen"
	bgv1 "github.com/deploymath/deploymath/examples/bluegreen/api/v1"
	"github.com/deploymath/deploymath/sim"
	"github.com/deploymath/deploymath/sim/crsim"
	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"
)

// bgOutcome is what a run of examples/bluegreen's scenario did: the
// BlueGreen's events as the events API holds them ("Reason: message
// (xCOUNT)", in the order of their first time), every size each
// ReplicaSet was written with (consecutive repeats dropped), the
// ReplicaSets' final images and the BlueGreen's final status.
type bgOutcome struct {
	Events []string
	Sizes  map[string][]int32
	Images map[string]string
	Status bgv1.BlueGreenStatus
}

// bgScenario is examples/bluegreen's scenario file.
const bgScenario = "../../examples/bluegreen/testdata/bluegreen.yaml"

// TestBlueGreen runs examples/bluegreen's controller, written with
// controller-runtime, with a real controller-runtime manager against the
// v1.37.1 API server (its CRD installed; the real ReplicaSet controller
// and the kubelet driver beside it) and through sim/crsim in the
// simulator, on examples/bluegreen/testdata/bluegreen.yaml, and compares
// the outcomes. On the control plane each apply step is an update of the
// BlueGreen's spec made once the previous one has settled (nothing
// changed for 2 s), the simulator's steps are 30 s apart; the outcome
// does not depend on when, as long as each change has settled.
func TestBlueGreen(t *testing.T) {
	start := time.Now()
	src, err := os.ReadFile(bgScenario)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := sim.ParseScenario(src)
	if err != nil {
		t.Fatal(err)
	}
	simOut := simBlueGreen(t, sc)
	t.Logf("simulator: %v wall time", time.Since(start).Round(time.Millisecond))
	realStart := time.Now()
	realOut := realBlueGreen(t, sc, src)
	t.Logf("control plane: %v wall time", time.Since(realStart).Round(time.Millisecond))

	// Events are compared as a multiset: their order between the two
	// ReplicaSets is timing (the sizes give each one's order).
	a, b := simOut, realOut
	a.Events, b.Events = sorted(a.Events), sorted(b.Events)
	result := "equal"
	if diff := cmp.Diff(a, b); diff != "" {
		result = "differs"
		if timingOnly(a, b) {
			result = "equal up to timing"
		}
		t.Logf("outcome (-simulator +control plane):\n%s", diff)
	}
	t.Logf("simulator:\n%s", simOut)
	t.Logf("control plane:\n%s", realOut)
	t.Logf("RESULT bluegreen: %s", result)
	if result == "differs" {
		t.Errorf("examples/bluegreen differs between the simulator and the control plane")
	}
}

// timingOnly reports whether a and b differ only in intermediate sizes
// and the Scaled events that record them: every ReplicaSet reaches the
// same largest and last size, and the status, images and other events
// are equal.
func timingOnly(a, b bgOutcome) bool {
	if a.Status != b.Status || !cmp.Equal(a.Images, b.Images) || len(a.Sizes) != len(b.Sizes) {
		return false
	}
	for name, sa := range a.Sizes {
		sb, ok := b.Sizes[name]
		if !ok || len(sa) == 0 || len(sb) == 0 || peak(sa) != peak(sb) || last(sa) != last(sb) {
			return false
		}
	}
	notScaled := func(evs []string) []string {
		var out []string
		for _, e := range evs {
			if !strings.HasPrefix(e, "Scaled: ") {
				out = append(out, e)
			}
		}
		return out
	}
	return cmp.Equal(notScaled(a.Events), notScaled(b.Events))
}

func (o bgOutcome) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  status: %+v\n", o.Status)
	for _, n := range sortedKeys(o.Sizes) {
		fmt.Fprintf(&b, "  %s: image %s, sizes %v\n", n, o.Images[n], o.Sizes[n])
	}
	for _, e := range o.Events {
		fmt.Fprintf(&b, "  event %s\n", e)
	}
	return b.String()
}

// bgScheme is the scheme of the controller.
func bgScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := bgv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// simBlueGreen runs the scenario in the simulator.
func simBlueGreen(t *testing.T, sc *sim.Scenario) bgOutcome {
	t.Helper()
	mgr, err := crsim.NewManager(crsim.Options{Scheme: bgScheme(t)})
	if err != nil {
		t.Fatal(err)
	}
	r := &bluegreen.Reconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorderFor("bluegreen")}
	if err := crsim.NewControllerManagedBy(mgr).For(&bgv1.BlueGreen{}).Owns(&appsv1.ReplicaSet{}).Complete(r); err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(sc, mgr.SimOptions(sim.Options{Writes: true}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	o := bgOutcome{Sizes: map[string][]int32{}, Images: map[string]string{}}
	for _, e := range res.Events {
		if e.Object == "bluegreen/web" {
			o.Events = append(o.Events, fmt.Sprintf("%s: %s (x%d)", e.Reason, e.Message, e.Count))
		}
	}
	for _, w := range res.Writes {
		if w.Kind != "ReplicaSet" || (w.Verb != "create" && w.Verb != "update") {
			continue
		}
		if sz := o.Sizes[w.Name]; len(sz) == 0 || sz[len(sz)-1] != w.Replicas {
			o.Sizes[w.Name] = append(sz, w.Replicas)
		}
	}
	var bg bgv1.BlueGreen
	if err := s.APIReader().Get(types.NamespacedName{Namespace: "default", Name: "web"}, &bg); err != nil {
		t.Fatal(err)
	}
	o.Status = bg.Status
	for _, n := range []string{"web-blue", "web-green"} {
		var rs appsv1.ReplicaSet
		if err := s.APIReader().Get(types.NamespacedName{Namespace: "default", Name: n}, &rs); err != nil {
			t.Fatal(err)
		}
		o.Images[n] = rs.Spec.Template.Spec.Containers[0].Image
	}
	return o
}

// bgFile is the part of the scenario file the control plane plays.
type bgFile struct {
	Objects []json.RawMessage `json:"objects"`
	Steps   []struct {
		Apply json.RawMessage `json:"apply"`
	} `json:"steps"`
}

// realBlueGreen plays the scenario on a control plane with a real
// controller-runtime manager running the controller.
func realBlueGreen(t *testing.T, sc *sim.Scenario, src []byte) bgOutcome {
	t.Helper()
	var file bgFile
	if err := yaml.Unmarshal(src, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Objects) != 1 {
		t.Fatalf("the scenario has %d objects, the harness plays one BlueGreen", len(file.Objects))
	}
	manifests := []json.RawMessage{file.Objects[0]}
	for i, st := range file.Steps {
		if len(st.Apply) == 0 {
			t.Fatalf("steps[%d]: the harness plays apply steps only", i)
		}
		manifests = append(manifests, st.Apply)
	}

	c := startClusterWith(t, clusterOptions{NoDeploymentController: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	installCRD(ctx, t, c)
	k := &kubelet{Nodes: nodeNames(sc), Startup: time.Duration(sc.Cluster.Startup.Min), Readiness: time.Duration(sc.Cluster.Readiness.Min),
		Termination: time.Duration(sc.Cluster.Termination.Min), Failures: sc.Cluster.Failures, Grid: 100 * time.Millisecond}
	startKubelet(t, c, k)
	t.Cleanup(func() { k.check(t) })
	rec := watchReplicaSets(t, c, metav1.NamespaceDefault)

	// The controller, as cmd/bluegreen runs it: a manager, the
	// reconciler's SetupWithManager.
	ctrllog.SetLogger(logr.Discard())
	scheme := bgScheme(t)
	// JSON: the BlueGreen has no protobuf encoding (the harness's config
	// asks for protobuf).
	cfg := rest.CopyConfig(c.config)
	cfg.ContentType, cfg.AcceptContentTypes = "application/json", "application/json"
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1019 the core/v1 recorder, as cmd/bluegreen's: its aggregation is the one the simulator models
	r := &bluegreen.Reconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorderFor("bluegreen")}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	mctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("the manager: %v", err)
		}
	})

	cl, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: metav1.NamespaceDefault, Name: "web"}
	for i, m := range manifests {
		var want bgv1.BlueGreen
		if err := yaml.Unmarshal(m, &want); err != nil {
			t.Fatal(err)
		}
		want.Namespace = metav1.NamespaceDefault
		if i == 0 {
			if err := cl.Create(ctx, &want); err != nil {
				t.Fatal(err)
			}
		} else {
			err := wait.PollUntilContextCancel(ctx, 20*time.Millisecond, true, func(ctx context.Context) (bool, error) {
				var bg bgv1.BlueGreen
				if err := cl.Get(ctx, key, &bg); err != nil {
					return false, err
				}
				bg.Labels, bg.Spec = want.Labels, want.Spec
				err := cl.Update(ctx, &bg)
				return err == nil, ignoreConflict(err)
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("at %v: apply %s", time.Since(k.origin).Round(time.Millisecond), want.Spec.Template.Spec.Containers[0].Image)
		settle(ctx, t, cl, key)
	}

	o := bgOutcome{Sizes: map[string][]int32{}, Images: map[string]string{}}
	for _, rs := range rec.records() {
		o.Sizes[rs.Name] = rs.Sizes
	}
	var bg bgv1.BlueGreen
	if err := cl.Get(ctx, key, &bg); err != nil {
		t.Fatal(err)
	}
	o.Status = bg.Status
	for _, n := range []string{"web-blue", "web-green"} {
		var rs appsv1.ReplicaSet
		if err := cl.Get(ctx, types.NamespacedName{Namespace: metav1.NamespaceDefault, Name: n}, &rs); err != nil {
			t.Fatal(err)
		}
		o.Images[n] = rs.Spec.Template.Spec.Containers[0].Image
	}
	o.Events = bgEvents(ctx, t, cl, &bg)
	return o
}

func ignoreConflict(err error) error {
	if err != nil && strings.Contains(err.Error(), "the object has been modified") {
		return nil
	}
	return err
}

// installCRD creates examples/bluegreen's CRD and waits until it is
// established.
func installCRD(ctx context.Context, t *testing.T, c *cluster) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "bluegreen", "config", "crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(src, &crd); err != nil {
		t.Fatal(err)
	}
	cs := apiextensions.NewForConfigOrDie(c.config)
	if _, err := cs.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, &crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, cond := range got.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("the CRD was not established: %v", err)
	}
}

// settle waits until the BlueGreen's status has observed its generation
// and nothing of it, its ReplicaSets or the pods changed for 2 s.
func settle(ctx context.Context, t *testing.T, cl client.Client, key types.NamespacedName) {
	t.Helper()
	last, since := "", time.Now()
	err := wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		var bg bgv1.BlueGreen
		if err := cl.Get(ctx, key, &bg); err != nil {
			return false, err
		}
		var rss appsv1.ReplicaSetList
		var pods corev1.PodList
		if err := cl.List(ctx, &rss, client.InNamespace(key.Namespace)); err != nil {
			return false, err
		}
		if err := cl.List(ctx, &pods, client.InNamespace(key.Namespace)); err != nil {
			return false, err
		}
		fp := []string{bg.ResourceVersion}
		for _, rs := range rss.Items {
			fp = append(fp, rs.ResourceVersion)
		}
		for _, p := range pods.Items {
			fp = append(fp, p.ResourceVersion)
		}
		slices.Sort(fp)
		now := strings.Join(fp, ",")
		if now != last || bg.Status.ObservedGeneration != bg.Generation {
			last, since = now, time.Now()
			return false, nil
		}
		return time.Since(since) >= 2*time.Second, nil
	})
	if err != nil {
		t.Fatalf("the BlueGreen did not settle: %v", err)
	}
}

// bgEvents lists the BlueGreen's events as the events API holds them, in
// the order of their first time, then name; it waits until two reads a
// second apart agree (the recorder writes them asynchronously).
func bgEvents(ctx context.Context, t *testing.T, cl client.Client, bg *bgv1.BlueGreen) []string {
	t.Helper()
	read := func() []string {
		var evs corev1.EventList
		if err := cl.List(ctx, &evs, client.InNamespace(bg.Namespace)); err != nil {
			t.Fatal(err)
		}
		var mine []corev1.Event
		for _, e := range evs.Items {
			if e.InvolvedObject.Kind == "BlueGreen" && e.InvolvedObject.Name == bg.Name {
				mine = append(mine, e)
			}
		}
		slices.SortFunc(mine, func(a, b corev1.Event) int {
			if c := a.FirstTimestamp.Compare(b.FirstTimestamp.Time); c != 0 {
				return c
			}
			return strings.Compare(a.Name, b.Name)
		})
		var out []string
		for _, e := range mine {
			out = append(out, fmt.Sprintf("%s: %s (x%d)", e.Reason, e.Message, e.Count))
		}
		return out
	}
	prev := read()
	for range 30 {
		time.Sleep(time.Second)
		cur := read()
		if cmp.Equal(prev, cur) {
			return cur
		}
		prev = cur
	}
	t.Fatal("the BlueGreen's events did not settle in 30 s")
	return nil
}
