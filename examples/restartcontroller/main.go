// Command restartcontroller restarts Deployments when the ConfigMaps or
// Secrets they use change, with every decision taken by deploymath's
// restart.Engine: informers for ConfigMaps, Secrets and Deployments feed
// the engine, a periodic tick releases the changes that are due, and each
// decision is applied as one JSON merge patch.
//
// Without flags it runs a scripted ConfigMap edit against client-go's fake
// clientset and prints what happens:
//
//	cd examples/restartcontroller && go run .
//
// With -kubeconfig it runs against a real cluster (Deployments opt in with
// the annotation deploymath.io/restart-on-config-change: "true"):
//
//	go run . -kubeconfig ~/.kube/config
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/deploymath/deploymath/restart"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "path to a kubeconfig: run against that cluster instead of the scripted fake one")
	xing := flag.Bool("xing", false, "use the annotation keys and checksums of the kubernetes-deployment-restart-controller")
	reloader := flag.Bool("reloader", false, "also honour stakater/Reloader's opt-in annotations")
	klog.InitFlags(nil)
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := restart.DefaultOptions()
	if *xing {
		opts = restart.XingKeys()
	}
	opts.Reloader = *reloader
	var err error
	if *kubeconfig != "" {
		err = runCluster(ctx, *kubeconfig, opts)
	} else {
		err = runDemo(ctx, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "restartcontroller:", err)
		os.Exit(1)
	}
}

func runCluster(ctx context.Context, kubeconfig string, opts restart.Options) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	factory := informers.NewSharedInformerFactory(client, 10*time.Minute)
	c, err := NewController(client, factory.Core().V1().ConfigMaps(), factory.Core().V1().Secrets(),
		factory.Apps().V1().Deployments(), opts, clock.RealClock{})
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	c.Run(ctx)
	return nil
}

// demoObjects are the script's starting objects: a ConfigMap, a Deployment
// that uses it and opts in, and one that uses it without opting in.
func demoObjects(opts restart.Options) (*corev1.ConfigMap, []*appsv1.Deployment) {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "settings"},
		Data:       map[string]string{"LOG_LEVEL": "info"},
	}
	deployment := func(name string, annotations map[string]string) *appsv1.Deployment {
		labels := map[string]string{"app": name}
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Annotations: annotations},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](2),
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{
						Name: "app", Image: "shop/" + name + ":1",
						EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{
							LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}}}},
					}}},
				},
			},
		}
	}
	return cm, []*appsv1.Deployment{
		deployment("web", map[string]string{opts.EnabledAnnotation: opts.EnabledValue}),
		deployment("batch", nil),
	}
}

// runDemo creates the demo objects on a fake cluster, lets the controller
// record the ConfigMap's checksum, edits the ConfigMap three times within
// the grace period and shows the one restart that follows. The grace
// period is shortened to 1s (check every 100ms) so the demo is quick.
func runDemo(ctx context.Context, out io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	clk := clock.RealClock{}
	start := clk.Now()
	var mu sync.Mutex
	printf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(out, "t=%-5s ", clk.Since(start).Round(100*time.Millisecond))
		fmt.Fprintf(out, format, args...)
	}

	opts := restart.DefaultOptions()
	opts.GracePeriod = time.Second
	opts.CheckInterval = 100 * time.Millisecond
	cs, _ := newFakeClientset(clk)
	factory := informers.NewSharedInformerFactory(cs, 0)
	c, err := NewController(cs, factory.Core().V1().ConfigMaps(), factory.Core().V1().Secrets(),
		factory.Apps().V1().Deployments(), opts, clk)
	if err != nil {
		return err
	}
	patches := make(chan restart.Decision, 16)
	c.OnDecision = func(d restart.Decision, err error) {
		if err != nil {
			printf("patch %s failed: %v\n", d.Key(), err)
			return
		}
		verb := "record checksums"
		if d.Restart {
			verb = "RESTART"
		}
		printf("decision %s: %s\n", d.Key(), verb)
		for _, tr := range d.Triggers {
			printf("  because %s changed %s -> %s\n", tr.Config, tr.Recorded, tr.Current)
		}
		printf("  kubectl patch %s %s -n %s --type=merge -p '%s'\n", d.Kind, d.Name, d.Namespace, d.PatchJSON)
		patches <- d
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { c.Run(ctx) })

	cm, deployments := demoObjects(opts)
	printf("create configmap shop/settings LOG_LEVEL=info, deployment shop/web (opted in), deployment shop/batch (not opted in)\n")
	if _, err := cs.CoreV1().ConfigMaps("shop").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		return err
	}
	for _, d := range deployments {
		if _, err := cs.AppsV1().Deployments("shop").Create(ctx, d, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	if err := waitDecision(ctx, patches, false); err != nil {
		return err
	}

	for _, level := range []string{"debug", "trace", "warn"} {
		printf("edit configmap shop/settings LOG_LEVEL=%s\n", level)
		cur, err := cs.CoreV1().ConfigMaps("shop").Get(ctx, "settings", metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Data["LOG_LEVEL"] = level
		if _, err := cs.CoreV1().ConfigMaps("shop").Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
			return err
		}
		select {
		case <-clk.After(200 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err := waitDecision(ctx, patches, true); err != nil {
		return err
	}
	for _, name := range []string{"web", "batch"} {
		d, err := cs.AppsV1().Deployments("shop").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		printf("deployment shop/%s: annotations %v, template annotations %v\n", name, d.Annotations, d.Spec.Template.Annotations)
	}
	c.mu.Lock()
	n := c.engine.Counters()
	c.mu.Unlock()
	printf("counters: annotation updates %d, restarts %d, changes processed %d\n", n.AnnotationUpdates, n.Restarts, n.ChangesProcessed)
	return nil
}

// waitDecision waits for the next applied decision and checks whether it
// restarts.
func waitDecision(ctx context.Context, patches <-chan restart.Decision, wantRestart bool) error {
	return wait.PollUntilContextCancel(ctx, 10*time.Millisecond, true, func(context.Context) (bool, error) {
		select {
		case d := <-patches:
			if d.Restart != wantRestart {
				return false, fmt.Errorf("decision for %s: restart %v, want %v", d.Key(), d.Restart, wantRestart)
			}
			return true, nil
		default:
			return false, nil
		}
	})
}
