// Command restart shows the restart decision for a ConfigMap edit: an
// opted-in Deployment records the checksum of the ConfigMap it uses, the
// ConfigMap is edited three times within the grace period, and one merge
// patch restarts the pods once. It plays a tiny in-memory API server on a
// virtual clock; run it with `go run ./examples/restart`.
package main

import (
	"fmt"
	"os"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploymath/deploymath/restart"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "restart:", err)
		os.Exit(1)
	}
}

func run() error {
	start := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	opts := restart.DefaultOptions()
	e, err := restart.New(opts)
	if err != nil {
		return err
	}

	rv := 0
	nextRV := func() string { rv++; return fmt.Sprint(rv) }

	settings := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "settings", ResourceVersion: nextRV()},
		Data:       map[string]string{"LOG_LEVEL": "info"},
	}
	web := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", ResourceVersion: nextRV(),
			Annotations: map[string]string{opts.EnabledAnnotation: opts.EnabledValue}},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Image: "shop/web:1", EnvFrom: []corev1.EnvFromSource{{
				ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}},
			}}}},
		}}},
	}

	// The script: what the cluster does, at offsets from start.
	type event struct {
		at    time.Duration
		level string // new LOG_LEVEL, or "" to create the objects
	}
	script := []event{{0, ""}, {20 * time.Second, "debug"}, {21 * time.Second, "trace"}, {23500 * time.Millisecond, "warn"}}

	observe := func(now time.Time, what string, obj interface{ GetResourceVersion() string }) {
		fmt.Printf("t=%-6v observe %s (resourceVersion %s)\n", now.Sub(start), what, obj.GetResourceVersion())
	}

	next := 0
	for d := time.Duration(0); d <= 40*time.Second; d += opts.CheckInterval {
		now := start.Add(d)
		for next < len(script) && script[next].at <= d {
			ev := script[next]
			next++
			if ev.level == "" {
				observe(now, "configmap/shop/settings", settings)
				if err := e.Observe(settings, now); err != nil {
					return err
				}
				observe(now, "deployment/shop/web", web)
				if err := e.Observe(web, now); err != nil {
					return err
				}
				continue
			}
			settings = settings.DeepCopy()
			settings.ResourceVersion = nextRV()
			settings.Data["LOG_LEVEL"] = ev.level
			observe(now, "configmap/shop/settings LOG_LEVEL="+ev.level, settings)
			if err := e.Observe(settings, now); err != nil {
				return err
			}
		}
		batch := e.Release(now)
		for _, c := range batch.Processed {
			fmt.Printf("t=%-6v release %s (first seen t=%v, observed %d×)\n", d, c.Key, c.First.Sub(start), c.Count)
		}
		for _, dec := range batch.Decisions {
			verb := "record checksums"
			if dec.Restart {
				verb = "RESTART"
			}
			fmt.Printf("t=%-6v decision %s: %s\n", d, dec.Key(), verb)
			for _, tr := range dec.Triggers {
				fmt.Printf("         because %s changed %s → %s\n", tr.Config, tr.Recorded, tr.Current)
			}
			fmt.Printf("         kubectl patch %s %s -n %s --type=merge -p '%s'\n", dec.Kind, dec.Name, dec.Namespace, dec.PatchJSON)
			patched, err := dec.Patch.Apply(web)
			if err != nil {
				return err
			}
			web = patched.(*appsv1.Deployment)
			web.ResourceVersion = nextRV()
			if err := e.Observe(web, now); err != nil { // the informer's echo of our patch
				return err
			}
		}
	}
	c := e.Counters()
	fmt.Printf("\ncounters: resource versions %d, configs %d, workloads %d, annotation updates %d, restarts %d, changes processed %d, waiting %d\n",
		c.ResourceVersions, c.Configs, c.Workloads, c.AnnotationUpdates, c.Restarts, c.ChangesProcessed, c.ChangesWaiting)
	fmt.Printf("template annotations now: %v\n", web.Spec.Template.Annotations)
	return nil
}
