// Command controller is a Deployment controller in the ordinary client-go
// shape whose decisions all come from deploymath's rollout.Plan: shared
// informers for Deployments, ReplicaSets and Pods, a rate-limited work queue
// keyed by namespace/name, N workers, and a sync that lists from the caches,
// plans, and applies the plan's writes with the typed client.
//
// Without flags it runs a scripted rollout against client-go's fake
// clientset and prints it as it happens:
//
//	cd examples/controller && go run .
//	cd examples/controller && go run . -v=4   # also print every plan, explained
//
// The fake clientset is wrapped so that it behaves like an API server where a
// controller depends on it (UIDs, creationTimestamp, generation,
// resourceVersion and optimistic concurrency, status subresource, graceful
// pod deletion: see fakeAPIServer), and a tiny stand-in for the ReplicaSet
// controller and the kubelet (see cluster) creates pods and reports
// ReplicaSet status so that the rollout progresses.
//
// With -kubeconfig it runs against a real cluster:
//
//	go run . -kubeconfig ~/.kube/config -workers 5
//
// Its client is rate-limited like kube-controller-manager's (-kube-api-qps
// 20, -kube-api-burst 30). Do that only where kube-controller-manager's own Deployment controller is
// off (--controllers=*,-deployment), or the two controllers fight.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "path to a kubeconfig: run against that cluster instead of the scripted fake one")
	workers := flag.Int("workers", 2, "number of workers syncing Deployments")
	qps := flag.Float64("kube-api-qps", 20, "queries per second to the API server (kube-controller-manager's default)")
	burst := flag.Int("kube-api-burst", 30, "burst of queries to the API server (kube-controller-manager's default)")
	klog.InitFlags(nil)
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var err error
	if *kubeconfig != "" {
		err = runCluster(ctx, *kubeconfig, *workers, float32(*qps), *burst)
	} else {
		err = runDemo(ctx, os.Stdout, *workers)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		os.Exit(1)
	}
}

// runCluster runs the controller against the cluster of a kubeconfig until
// ctx is done. Its client is limited to qps queries per second with bursts
// of burst, event writes included. client-go's defaults (5 and 10) are a
// quarter and a third of kube-controller-manager's (20 and 30): with them
// a rollout's writes queue up behind the limiter, each sync acts later on
// what it read, and the scale-downs come in fewer, larger steps than the
// real controller's.
func runCluster(ctx context.Context, kubeconfig string, workers int, qps float32, burst int) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = qps, burst
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	factory := informers.NewSharedInformerFactory(client, 10*time.Minute)
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartStructuredLogging(3)
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	defer broadcaster.Shutdown()
	recorder := broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "deploymath-deployment-controller"})

	c, err := NewController(client, factory.Apps().V1().Deployments(), factory.Apps().V1().ReplicaSets(),
		factory.Core().V1().Pods(), recorder, clock.RealClock{})
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	c.Run(ctx, workers)
	return nil
}
