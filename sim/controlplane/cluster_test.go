package controlplane

import (
	"bufio"
	"context"
	"os"
	"path"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	apiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	"k8s.io/kubernetes/pkg/controller/deployment"
	"k8s.io/kubernetes/pkg/controller/replicaset"
)

// cluster is a control plane running in the test process: embedded etcd,
// the real kube-apiserver, and the real Deployment and ReplicaSet
// controllers, all of Kubernetes v1.37.1.
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
}

// startCluster starts etcd, the API server and the two controllers, and
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
	flags := []string{
		"--endpoint-reconciler-type=none",
		// No ServiceAccount controller runs, so the ServiceAccount admission
		// plugin would refuse every pod.
		"--disable-admission-plugins=ServiceAccount",
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

	var wg sync.WaitGroup
	factory.Start(ctx.Done())
	if dc != nil {
		wg.Go(func() { dc.Run(ctx, 5) })
	}
	wg.Go(func() { rsc.Run(ctx, 5) })
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
