package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
)

// nginxDeployment is the Deployment of the Kubernetes documentation
// ("Creating a Deployment").
func nginxDeployment() *appsv1.Deployment {
	labels := map[string]string{"app": "nginx"}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: "nginx-deployment", Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "nginx", Image: "nginx:1.14.2",
					Ports: []corev1.ContainerPort{{ContainerPort: 80}},
				}}},
			},
		},
	}
}

// runDemo runs the scripted rollout on the fake cluster: create the nginx
// Deployment, wait until it is available, set the image to nginx:1.16.1,
// wait until the rollout completes. Events and ReplicaSet sizes are printed
// to out as they happen.
func runDemo(ctx context.Context, out io.Writer, workers int) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
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

	cs, _ := newFakeClientset(clk)
	factory := informers.NewSharedInformerFactory(cs, 0)
	dInf, rsInf, podInf := factory.Apps().V1().Deployments(), factory.Apps().V1().ReplicaSets(), factory.Core().V1().Pods()

	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	defer broadcaster.Shutdown()
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: cs.CoreV1().Events("")})
	broadcaster.StartEventWatcher(func(e *corev1.Event) {
		printf("event %s/%s: %s %s %s\n", e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Type, e.Reason, e.Message)
	})
	recorder := broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "deploymath-deployment-controller"})

	c, err := NewController(cs, dInf, rsInf, podInf, recorder, clk)
	if err != nil {
		return err
	}

	// The fake ReplicaSet controller and kubelet run on one goroutine.
	loop := newLoop(clk)
	cl := newCluster(cs, loop, podTiming{Startup: 400 * time.Millisecond, Readiness: 300 * time.Millisecond, Termination: 500 * time.Millisecond})
	cl.notify = func(key string) {
		loop.post(func() {
			if err := cl.SyncReplicaSet(ctx, key); err != nil {
				printf("replicaset controller: %s: %v\n", key, err)
			}
		})
	}
	rsRow := func(rs *appsv1.ReplicaSet) string {
		return fmt.Sprintf("replicaset %s: desired %d current %d ready %d available %d terminating %d",
			rs.Name, ptrOr(rs.Spec.Replicas, 1), rs.Status.Replicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas, ptrOr(rs.Status.TerminatingReplicas, 0))
	}
	if _, err := rsInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			rs := obj.(*appsv1.ReplicaSet)
			printf("%s\n", rsRow(rs))
			cl.notify(rs.Namespace + "/" + rs.Name)
		},
		UpdateFunc: func(old, cur any) {
			o, rs := old.(*appsv1.ReplicaSet), cur.(*appsv1.ReplicaSet)
			if r := rsRow(rs); r != rsRow(o) {
				printf("%s\n", r)
			}
			cl.notify(rs.Namespace + "/" + rs.Name)
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if rs, ok := obj.(*appsv1.ReplicaSet); ok {
				printf("replicaset %s deleted\n", rs.Name)
				cl.notify(rs.Namespace + "/" + rs.Name)
			}
		},
	}); err != nil {
		return err
	}

	factory.Start(ctx.Done())
	defer factory.Shutdown()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { c.Run(ctx, workers) })
	wg.Go(func() { loop.run(ctx) })

	deployments := cs.AppsV1().Deployments(metav1.NamespaceDefault)
	printf("kubectl apply -f nginx-deployment.yaml (nginx:1.14.2, 3 replicas)\n")
	if _, err := deployments.Create(ctx, nginxDeployment(), metav1.CreateOptions{}); err != nil {
		return err
	}
	if err := waitComplete(ctx, c, "default/nginx-deployment"); err != nil {
		return err
	}
	printf("rollout complete\n")

	printf("kubectl set image deployment/nginx-deployment nginx=nginx:1.16.1\n")
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d, err := deployments.Get(ctx, "nginx-deployment", metav1.GetOptions{})
		if err != nil {
			return err
		}
		d.Spec.Template.Spec.Containers[0].Image = "nginx:1.16.1"
		_, err = deployments.Update(ctx, d, metav1.UpdateOptions{})
		return err
	}); err != nil {
		return err
	}
	if err := waitComplete(ctx, c, "default/nginx-deployment"); err != nil {
		return err
	}
	d, err := deployments.Get(ctx, "nginx-deployment", metav1.GetOptions{})
	if err != nil {
		return err
	}
	printf("rollout complete: revision %s, %d/%d updated and available\n",
		d.Annotations["deployment.kubernetes.io/revision"], d.Status.AvailableReplicas, ptrOr(d.Spec.Replicas, 1))
	for _, cond := range d.Status.Conditions {
		printf("condition %s=%s %s: %s\n", cond.Type, cond.Status, cond.Reason, cond.Message)
	}
	return nil
}

// waitComplete polls the controller's cache until the Deployment's rollout
// is complete: status observed, every replica updated and available, no
// old pod left. (Polling is fine in a demo; tests drive time themselves.)
func waitComplete(ctx context.Context, c *Controller, key string) error {
	ns, name, _ := cache.SplitMetaNamespaceKey(key)
	return wait.PollUntilContextCancel(ctx, 50*time.Millisecond, false, func(context.Context) (bool, error) {
		d, err := c.dLister.Deployments(ns).Get(name)
		if err != nil {
			return false, nil
		}
		want := ptrOr(d.Spec.Replicas, 1)
		st := d.Status
		if st.ObservedGeneration < d.Generation || st.UpdatedReplicas != want || st.Replicas != want || st.AvailableReplicas != want {
			return false, nil
		}
		for _, cond := range st.Conditions {
			if cond.Type == appsv1.DeploymentProgressing && cond.Reason == "NewReplicaSetAvailable" {
				return true, nil
			}
		}
		return false, nil
	})
}

// loop runs functions one at a time, now or after a delay on a real clock:
// the scheduler of the demo's fake cluster.
type loop struct {
	clock clock.Clock
	mu    sync.Mutex
	fns   []func()
	wake  chan struct{}
}

func newLoop(clk clock.Clock) *loop { return &loop{clock: clk, wake: make(chan struct{}, 1)} }

func (l *loop) Now() time.Time { return l.clock.Now() }

func (l *loop) After(d time.Duration, fn func()) {
	t := l.clock.NewTimer(d)
	go func() {
		<-t.C()
		l.post(fn)
	}()
}

func (l *loop) post(fn func()) {
	l.mu.Lock()
	l.fns = append(l.fns, fn)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *loop) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.wake:
		}
		for {
			l.mu.Lock()
			if len(l.fns) == 0 {
				l.mu.Unlock()
				break
			}
			fn := l.fns[0]
			l.fns = l.fns[1:]
			l.mu.Unlock()
			fn()
		}
	}
}
