package controlplane

import (
	"bufio"
	"context"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/quota/v1/generic"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	apiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	kcontroller "k8s.io/kubernetes/pkg/controller"
	"k8s.io/kubernetes/pkg/controller/deployment"
	"k8s.io/kubernetes/pkg/controller/nodelifecycle"
	"k8s.io/kubernetes/pkg/controller/podgc"
	"k8s.io/kubernetes/pkg/controller/replicaset"
	"k8s.io/kubernetes/pkg/controller/resourcequota"
	"k8s.io/kubernetes/pkg/controller/tainteviction"
	quotainstall "k8s.io/kubernetes/pkg/quota/v1/install"
)

// cluster is a control plane running in the test process: embedded etcd,
// the real kube-apiserver, and the real Deployment, ReplicaSet, node
// lifecycle, taint eviction, pod GC and ResourceQuota controllers, all of
// Kubernetes v1.37.1.
type cluster struct {
	config *rest.Config
	client kubernetes.Interface
}

// clusterOptions choose what runs beside the API server.
type clusterOptions struct {
	// NoDeploymentController leaves the real Deployment controller out, for
	// a Deployment controller of our own (examples/controller) to take its
	// place. The ReplicaSet controller always runs.
	NoDeploymentController bool
	// NoNodeLifecycle leaves the node lifecycle and taint eviction
	// controllers out, for a pod driver that does not renew its nodes'
	// Leases (TestWriteClusterDumps'): they would mark its nodes
	// Ready=Unknown after the grace period and its pods not ready.
	NoNodeLifecycle bool
	// NodeMonitorGracePeriod is how long the node lifecycle controller
	// waits for a node's heartbeat before it marks the node Ready=Unknown
	// (default 40s, the simulator's default; kube-controller-manager's is
	// 50s).
	NodeMonitorGracePeriod time.Duration
	// EvictionTimeout is the tolerationSeconds the API server gives every
	// pod for the not-ready and unreachable NoExecute taints (whole
	// seconds; default 5m, the API server's and the simulator's default).
	EvictionTimeout time.Duration
}

// Timings of the node lifecycle and pod GC controllers that differ from
// kube-controller-manager's defaults (5s and 20s), so that they act within
// a fraction of a second of when the simulator, which models no polling,
// has them act.
const (
	nodeMonitorPeriod = 100 * time.Millisecond
	podGCCheckPeriod  = time.Second
)

// startCluster starts etcd, the API server and the controllers, and
// registers their teardown (controllers first, etcd last). It fails the
// test, never skips it, when any of them cannot start.
func startCluster(t *testing.T) *cluster { return startClusterWith(t, clusterOptions{}) }

// startClusterWith is startCluster with options.
func startClusterWith(t *testing.T, o clusterOptions) *cluster {
	t.Helper()
	captureKlog(t)

	start := time.Now()
	etcdURL := startEtcd(t)
	t.Logf("etcd ready at %s after %v", etcdURL, time.Since(start).Round(time.Millisecond))

	// The storage configuration test/integration/framework.SharedEtcd
	// builds, pointed at our etcd.
	storage := storagebackend.NewDefaultConfig(path.Join("/deploymath", "registry"), nil)
	storage.Transport.ServerList = []string{etcdURL}

	opts := apiservertesting.NewDefaultTestServerOptions()
	// The metrics invariants upstream checks at teardown are about the API
	// server's own tests, not ours.
	opts.DisableInvariantChecks = true
	if o.NodeMonitorGracePeriod == 0 {
		o.NodeMonitorGracePeriod = 50 * time.Second
	}
	if o.EvictionTimeout == 0 {
		o.EvictionTimeout = 5 * time.Minute
	}
	if o.EvictionTimeout%time.Second != 0 {
		t.Fatalf("eviction timeout %v: tolerationSeconds are whole seconds", o.EvictionTimeout)
	}
	tolerate := strconv.Itoa(int(o.EvictionTimeout / time.Second))
	flags := []string{
		"--endpoint-reconciler-type=none",
		// No ServiceAccount controller runs, so the ServiceAccount admission
		// plugin would refuse every pod.
		"--disable-admission-plugins=ServiceAccount",
		// On by default; named so that a change of defaults cannot turn
		// them off unnoticed: quota admission refuses pods over a
		// ResourceQuota, DefaultTolerationSeconds gives every pod the
		// tolerations of the not-ready and unreachable taints.
		"--enable-admission-plugins=ResourceQuota,DefaultTolerationSeconds",
		// Always set: the flags write package variables, so a value would
		// otherwise carry over to the next test of the process.
		"--default-not-ready-toleration-seconds=" + tolerate,
		"--default-unreachable-toleration-seconds=" + tolerate,
	}
	server, err := apiservertesting.StartTestServer(t, opts, flags, storage)
	if err != nil {
		t.Fatalf("starting kube-apiserver: %v", err)
	}
	t.Cleanup(server.TearDownFn)
	t.Logf("kube-apiserver ready at %s after %v", server.ClientConfig.Host, time.Since(start).Round(time.Millisecond))

	config := rest.CopyConfig(server.ClientConfig)
	c := &cluster{config: config, client: kubernetes.NewForConfigOrDie(rest.AddUserAgent(config, "harness"))}

	ctx, cancel := context.WithCancel(context.Background())
	factory := informers.NewSharedInformerFactory(kubernetes.NewForConfigOrDie(rest.AddUserAgent(config, "controller-informers")), 0)
	var dc *deployment.DeploymentController
	if !o.NoDeploymentController {
		var err error
		dc, err = deployment.NewDeploymentController(ctx,
			factory.Apps().V1().Deployments(), factory.Apps().V1().ReplicaSets(), factory.Core().V1().Pods(),
			kubernetes.NewForConfigOrDie(rest.AddUserAgent(config, "deployment-controller")))
		if err != nil {
			cancel()
			t.Fatalf("creating the Deployment controller: %v", err)
		}
	}
	rsc := replicaset.NewReplicaSetController(ctx,
		factory.Apps().V1().ReplicaSets(), factory.Core().V1().Pods(),
		kubernetes.NewForConfigOrDie(rest.AddUserAgent(config, "replicaset-controller")),
		replicaset.BurstReplicas)

	// The node lifecycle controller with kube-controller-manager's
	// defaults except its monitor period and grace period (above): node
	// eviction rates 0.1 and 0.01 a second, large cluster threshold 50,
	// unhealthy zone threshold 0.55, startup grace period 1m.
	var nlc *nodelifecycle.Controller
	var tec *tainteviction.Controller
	if !o.NoNodeLifecycle {
		nlc, err = nodelifecycle.NewNodeLifecycleController(ctx,
			factory.Coordination().V1().Leases(), factory.Core().V1().Pods(), factory.Core().V1().Nodes(), factory.Apps().V1().DaemonSets(),
			kubernetes.NewForConfigOrDie(rest.AddUserAgent(config, "node-controller")),
			nodeMonitorPeriod, time.Minute, o.NodeMonitorGracePeriod, 0.1, 0.01, 50, 0.55)
		if err != nil {
			cancel()
			t.Fatalf("creating the node lifecycle controller: %v", err)
		}
		tec, err = tainteviction.New(ctx, kubernetes.NewForConfigOrDie(rest.AddUserAgent(config, "taint-eviction-controller")),
			factory.Core().V1().Pods(), factory.Core().V1().Nodes(), "taint-eviction-controller")
		if err != nil {
			cancel()
			t.Fatalf("creating the taint eviction controller: %v", err)
		}
	}
	// Pod GC with kube-controller-manager's threshold of terminated pods
	// and its 40s quarantine of a deleted node's pods.
	pgc := podgc.NewPodGCInternal(ctx, kubernetes.NewForConfigOrDie(rest.AddUserAgent(config, "pod-garbage-collector")),
		factory.Core().V1().Pods(), factory.Core().V1().Nodes(), 12500, podGCCheckPeriod, 40*time.Second)

	// The ResourceQuota controller, as test/integration/quota starts it:
	// quota admission refuses pods until it has computed a quota's usage.
	quotaClient := kubernetes.NewForConfigOrDie(rest.AddUserAgent(config, "resourcequota-controller"))
	discover := quotaClient.Discovery().ServerPreferredNamespacedResources
	quotaConfig, err := quotainstall.NewQuotaConfigurationForControllers(generic.ListerFuncForResourceFunc(factory.ForResource), factory)
	if err != nil {
		cancel()
		t.Fatalf("configuring the ResourceQuota controller: %v", err)
	}
	informersStarted := make(chan struct{})
	rqc, err := resourcequota.NewController(ctx, &resourcequota.ControllerOptions{
		QuotaClient:               quotaClient.CoreV1(),
		ResourceQuotaInformer:     factory.Core().V1().ResourceQuotas(),
		ResyncPeriod:              kcontroller.NoResyncPeriodFunc,
		InformerFactory:           factory,
		ReplenishmentResyncPeriod: kcontroller.NoResyncPeriodFunc,
		DiscoveryFunc:             discover,
		IgnoredResourcesFunc:      quotaConfig.IgnoredResources,
		InformersStarted:          informersStarted,
		Registry:                  generic.NewRegistry(quotaConfig.Evaluators()),
		UpdateFilter:              quotainstall.DefaultUpdateFilter(),
	})
	if err != nil {
		cancel()
		t.Fatalf("creating the ResourceQuota controller: %v", err)
	}

	var wg sync.WaitGroup
	factory.Start(ctx.Done())
	close(informersStarted)
	if dc != nil {
		wg.Go(func() { dc.Run(ctx, 5) })
	}
	wg.Go(func() { rsc.Run(ctx, 5) })
	if nlc != nil {
		wg.Go(func() { nlc.Run(ctx) })
		wg.Go(func() { tec.Run(ctx) })
	}
	wg.Go(func() { pgc.Run(ctx) })
	wg.Go(func() { rqc.Run(ctx, 5) })
	wg.Go(func() { rqc.Sync(ctx, discover, 30*time.Second) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		factory.Shutdown()
	})
	return c
}

// captureKlog sends the global klog output (the controllers and parts of
// the API server log there) to a file in the test's directory instead of
// stderr, and prints its tail when the test fails.
func captureKlog(t *testing.T) {
	t.Helper()
	name := filepath.Join(t.TempDir(), "klog.txt")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	klog.LogToStderr(false)
	klog.SetOutput(f)
	t.Cleanup(func() {
		klog.Flush()
		klog.SetOutput(os.Stderr)
		klog.LogToStderr(true)
		f.Close()
		if !t.Failed() {
			return
		}
		logTail(t, name, 80)
	})
}

// logTail logs the last n lines of a file.
func logTail(t *testing.T, name string, n int) {
	f, err := os.Open(name)
	if err != nil {
		t.Logf("reading %s: %v", name, err)
		return
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	t.Logf("last %d lines of klog's output (the controllers and the API server log there):", len(lines))
	for _, l := range lines {
		t.Log(l)
	}
}
