package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// dumpDirEnv names the directory TestWriteClusterDumps writes to; the
// test is skipped when it is unset. From this directory:
//
//	DEPLOYMATH_WRITE_DUMPS=$PWD/../../testdata/clusters go test -run TestWriteClusterDumps -v .
const dumpDirEnv = "DEPLOYMATH_WRITE_DUMPS"

// TestWriteClusterDumps brings a real v1.37.1 control plane into seven
// states a platform engineer asks about and writes each as
// `kubectl get deploy,rs,pods -o yaml` prints it (kind List; one as
// -o json, one as several documents, one with --show-managed-fields) for
// the explain goldens of sim/diagnose. It is not a comparison and is not
// run in CI: the dumps are committed, and regenerating them changes
// names, UIDs and times.
//
// Pods are driven by podDriver, which plays scheduler and kubelet from
// the image's tag: "-crash" crash-loops, "-missing" fails to pull,
// "-unready" runs but never passes its readiness probe, "-gated" becomes
// ready once the gate is opened, anything else is ready at once.
func TestWriteClusterDumps(t *testing.T) {
	dir := os.Getenv(dumpDirEnv)
	if dir == "" {
		t.Skipf("set %s to the directory to write the dumps to", dumpDirEnv)
	}
	// podDriver reports its nodes Ready once and renews no Lease.
	c := startClusterWith(t, clusterOptions{NoNodeLifecycle: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	drv := &podDriver{client: c.client, keepTerminating: map[string]bool{"batch": true}}
	drv.createNodes(ctx, t, "node-1", "node-2")
	go drv.run(ctx)

	type dump struct {
		file, ns string
		format   string // yaml, json, docs (one document per kind), managed
		setup    func(t *testing.T)
	}
	client := c.client
	dumps := []dump{
		{"rolling.yaml", "shop", "yaml", func(t *testing.T) {
			create(ctx, t, client, newDeployment("shop", "api", 2, "shop/api:3.2", nil))
			web := newDeployment("shop", "web", 4, "shop/web:1.0", nil)
			create(ctx, t, client, web)
			waitComplete(ctx, t, client, "shop", "web")
			waitComplete(ctx, t, client, "shop", "api")
			setImage(ctx, t, client, "shop", "web", "shop/web:1.1-unready")
			waitFor(ctx, t, "web: 2 new and 3 old replicas", func() bool {
				return rsSizes(ctx, client, "shop", "web") == "3,2"
			})
		}},
		{"crashloop.yaml", "payments", "managed", func(t *testing.T) {
			create(ctx, t, client, newDeployment("payments", "checkout", 3, "payments/checkout:2.4", func(d *appsv1.Deployment) {
				d.Spec.ProgressDeadlineSeconds = new(int32(20))
			}))
			waitComplete(ctx, t, client, "payments", "checkout")
			setImage(ctx, t, client, "payments", "checkout", "payments/checkout:2.5-crash")
			waitFor(ctx, t, "checkout: progress deadline exceeded", func() bool {
				d, err := client.AppsV1().Deployments("payments").Get(ctx, "checkout", metav1.GetOptions{})
				if err != nil {
					return false
				}
				for _, cnd := range d.Status.Conditions {
					if cnd.Type == appsv1.DeploymentProgressing && cnd.Reason == "ProgressDeadlineExceeded" {
						return true
					}
				}
				return false
			})
		}},
		{"imagepull.json", "media", "json", func(t *testing.T) {
			create(ctx, t, client, newDeployment("media", "thumbnailer", 2, "registry.example.com/media/thumbnailer:v7", nil))
			waitComplete(ctx, t, client, "media", "thumbnailer")
			setImage(ctx, t, client, "media", "thumbnailer", "registry.example.com/media/thumbnailer:v8-missing")
			waitFor(ctx, t, "thumbnailer: 1 new and 2 old replicas", func() bool {
				return rsSizes(ctx, client, "media", "thumbnailer") == "2,1"
			})
		}},
		{"paused.yaml", "blog", "yaml", func(t *testing.T) {
			create(ctx, t, client, newDeployment("blog", "frontend", 4, "blog/frontend:5", nil))
			waitComplete(ctx, t, client, "blog", "frontend")
			setImage(ctx, t, client, "blog", "frontend", "blog/frontend:6-gated")
			waitFor(ctx, t, "frontend: 2 new replicas", func() bool {
				return rsSizes(ctx, client, "blog", "frontend") == "3,2"
			})
			patch(ctx, t, client, "blog", "frontend", `{"spec":{"paused":true}}`)
			drv.open("blog")
			waitFor(ctx, t, "frontend: paused observed, new pods available", func() bool {
				d, err := client.AppsV1().Deployments("blog").Get(ctx, "frontend", metav1.GetOptions{})
				return err == nil && d.Status.ObservedGeneration == d.Generation && d.Status.AvailableReplicas == 5
			})
		}},
		{"recreate.yaml", "batch", "docs", func(t *testing.T) {
			create(ctx, t, client, newDeployment("batch", "worker", 3, "batch/worker:1.8", func(d *appsv1.Deployment) {
				d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
			}))
			waitComplete(ctx, t, client, "batch", "worker")
			setImage(ctx, t, client, "batch", "worker", "batch/worker:1.9")
			waitFor(ctx, t, "worker: old pods terminating", func() bool {
				pods, err := client.CoreV1().Pods("batch").List(ctx, metav1.ListOptions{})
				if err != nil {
					return false
				}
				n := 0
				for _, p := range pods.Items {
					if p.DeletionTimestamp != nil {
						n++
					}
				}
				return n == 3
			})
		}},
		{"progressing.yaml", "store", "yaml", func(t *testing.T) {
			create(ctx, t, client, newDeployment("store", "catalog-canary", 1, "store/catalog:9.1", func(d *appsv1.Deployment) {
				d.Spec.Template.Labels = map[string]string{"app": "catalog", "track": "canary"}
				d.Spec.Selector.MatchLabels = d.Spec.Template.Labels
			}))
			create(ctx, t, client, newDeployment("store", "catalog", 4, "store/catalog:9.0", nil))
			waitComplete(ctx, t, client, "store", "catalog")
			waitComplete(ctx, t, client, "store", "catalog-canary")
			patch(ctx, t, client, "store", "catalog", `{"spec":{"minReadySeconds":120,"template":{"spec":{"containers":[{"name":"catalog","image":"store/catalog:9.1"}]}}}}`)
			waitFor(ctx, t, "catalog: 2 new ready and 3 old replicas", func() bool {
				d, err := client.AppsV1().Deployments("store").Get(ctx, "catalog", metav1.GetOptions{})
				return err == nil && rsSizes(ctx, client, "store", "catalog") == "3,2" && d.Status.ReadyReplicas == 5 && d.Status.ObservedGeneration == d.Generation
			})
		}},
		{"quota.yaml", "search", "yaml", func(t *testing.T) {
			q := &corev1.ResourceQuota{
				ObjectMeta: metav1.ObjectMeta{Namespace: "search", Name: "pods"},
				Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("3")}},
			}
			q, err := client.CoreV1().ResourceQuotas("search").Create(ctx, q, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// No quota controller runs: report the usage it would, so that
			// quota admission counts from here.
			q.Status = corev1.ResourceQuotaStatus{Hard: q.Spec.Hard, Used: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("0")}}
			if _, err := client.CoreV1().ResourceQuotas("search").UpdateStatus(ctx, q, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			create(ctx, t, client, newDeployment("search", "indexer", 3, "search/indexer:4.0", nil))
			waitComplete(ctx, t, client, "search", "indexer")
			setImage(ctx, t, client, "search", "indexer", "search/indexer:4.1")
			waitFor(ctx, t, "indexer: ReplicaFailure", func() bool {
				d, err := client.AppsV1().Deployments("search").Get(ctx, "indexer", metav1.GetOptions{})
				if err != nil {
					return false
				}
				for _, cnd := range d.Status.Conditions {
					if cnd.Type == appsv1.DeploymentReplicaFailure && cnd.Status == corev1.ConditionTrue {
						return true
					}
				}
				return false
			})
		}},
	}
	for _, d := range dumps {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: d.ns}}
		if _, err := client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range dumps {
		t.Run(d.file, func(t *testing.T) {
			d.setup(t)
			time.Sleep(2 * time.Second) // let the controllers write what they will
			writeDump(ctx, t, client, filepath.Join(dir, d.file), d.ns, d.format)
		})
	}
	if err := drv.err(); err != nil {
		t.Fatal(err)
	}
}

func newDeployment(ns, name string, replicas int32, image string, edit func(*appsv1.Deployment)) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: name, Image: image,
					Ports: []corev1.ContainerPort{{ContainerPort: 8080}},
				}}},
			},
		},
	}
	if edit != nil {
		edit(d)
	}
	return d
}

func create(ctx context.Context, t *testing.T, c kubernetes.Interface, d *appsv1.Deployment) {
	t.Helper()
	if _, err := c.AppsV1().Deployments(d.Namespace).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func patch(ctx context.Context, t *testing.T, c kubernetes.Interface, ns, name, p string) {
	t.Helper()
	if _, err := c.AppsV1().Deployments(ns).Patch(ctx, name, types.StrategicMergePatchType, []byte(p), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// setImage patches the image as kubectl set image does.
func setImage(ctx context.Context, t *testing.T, c kubernetes.Interface, ns, name, image string) {
	t.Helper()
	patch(ctx, t, c, ns, name, fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":%q,"image":%q}]}}}}`, name, image))
}

func waitFor(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 90*time.Second, true, func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func waitComplete(ctx context.Context, t *testing.T, c kubernetes.Interface, ns, name string) {
	t.Helper()
	waitFor(ctx, t, name+" complete", func() bool {
		d, err := c.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false
		}
		s := d.Status
		return s.ObservedGeneration >= d.Generation && s.UpdatedReplicas == *d.Spec.Replicas &&
			s.Replicas == *d.Spec.Replicas && s.AvailableReplicas == *d.Spec.Replicas
	})
}

// rsSizes is the spec.replicas of the Deployment's ReplicaSets, largest
// first, comma-separated (creation times have a resolution of a second,
// too coarse to order a ReplicaSet created just after another).
func rsSizes(ctx context.Context, c kubernetes.Interface, ns, name string) string {
	l, err := c.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + name + ",!track"})
	if err != nil {
		return err.Error()
	}
	var sizes []int
	for _, rs := range l.Items {
		sizes = append(sizes, int(*rs.Spec.Replicas))
	}
	sort.Sort(sort.Reverse(sort.IntSlice(sizes)))
	var s []string
	for _, n := range sizes {
		s = append(s, fmt.Sprint(n))
	}
	return strings.Join(s, ",")
}

// writeDump writes the namespace's Deployments, ReplicaSets and Pods the
// way kubectl get deploy,rs,pods prints them.
func writeDump(ctx context.Context, t *testing.T, c kubernetes.Interface, file, ns, format string) {
	t.Helper()
	ds, err := c.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rss, err := c.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var groups [][]runtime.Object
	var all []runtime.Object
	var g []runtime.Object
	for i := range ds.Items {
		d := &ds.Items[i]
		d.APIVersion, d.Kind = "apps/v1", "Deployment"
		g = append(g, d)
	}
	groups, g = append(groups, g), nil
	for i := range rss.Items {
		rs := &rss.Items[i]
		rs.APIVersion, rs.Kind = "apps/v1", "ReplicaSet"
		g = append(g, rs)
	}
	groups, g = append(groups, g), nil
	for i := range pods.Items {
		p := &pods.Items[i]
		p.APIVersion, p.Kind = "v1", "Pod"
		g = append(g, p)
	}
	groups = append(groups, g)
	for _, g := range groups {
		for _, o := range g {
			if format != "managed" {
				// kubectl get hides managedFields unless --show-managed-fields.
				o.(metav1.Object).SetManagedFields(nil)
			}
			all = append(all, o)
		}
	}
	list := func(items []runtime.Object) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]any{"resourceVersion": ""}}
	}
	var out []byte
	switch format {
	case "json":
		out, err = json.MarshalIndent(list(all), "", "    ")
		out = append(out, '\n')
	case "docs":
		// kubectl get deploy -o yaml; echo ---; kubectl get rs -o yaml; ...
		for i, g := range groups {
			if i > 0 {
				out = append(out, "---\n"...)
			}
			b, e := yaml.Marshal(list(g))
			if e != nil {
				err = e
			}
			out = append(out, b...)
		}
	default:
		out, err = yaml.Marshal(list(all))
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: %d deployments, %d replica sets, %d pods", file, len(ds.Items), len(rss.Items), len(pods.Items))
}

// podDriver plays scheduler and kubelet by polling: it binds pods to the
// nodes in turn and reports their status from the image's tag (see
// TestWriteClusterDumps), and deletes terminating pods at once except in
// the namespaces of keepTerminating (a kubelet whose containers do not
// stop within the grace period).
type podDriver struct {
	client          kubernetes.Interface
	keepTerminating map[string]bool
	nodes           []string

	mu     sync.Mutex
	opened map[string]bool
	done   map[types.UID]string // the status reported, by pod
	next   int
	errs   []error
}

func (d *podDriver) open(ns string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.opened == nil {
		d.opened = map[string]bool{}
	}
	d.opened[ns] = true
}

func (d *podDriver) err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.errs) > 0 {
		return fmt.Errorf("pod driver: %v", d.errs)
	}
	return nil
}

func (d *podDriver) createNodes(ctx context.Context, t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n, Labels: map[string]string{"kubernetes.io/hostname": n}}}
		node, err := d.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		now := metav1.Now()
		node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status", LastHeartbeatTime: now, LastTransitionTime: now}}
		if _, err := d.client.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	d.nodes = names
	d.done = map[types.UID]string{}
}

func (d *podDriver) run(ctx context.Context) {
	for ctx.Err() == nil {
		pods, err := d.client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
		if err == nil {
			for i := range pods.Items {
				if err := d.drive(ctx, &pods.Items[i]); err != nil && ctx.Err() == nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
					d.mu.Lock()
					d.errs = append(d.errs, err)
					d.mu.Unlock()
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (d *podDriver) drive(ctx context.Context, pod *corev1.Pod) error {
	if pod.DeletionTimestamp != nil {
		if d.keepTerminating[pod.Namespace] {
			return nil
		}
		return d.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64(0))})
	}
	if pod.Spec.NodeName == "" {
		d.mu.Lock()
		node := d.nodes[d.next%len(d.nodes)]
		d.next++
		d.mu.Unlock()
		b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID}, Target: corev1.ObjectReference{Kind: "Node", Name: node}}
		return d.client.CoreV1().Pods(pod.Namespace).Bind(ctx, b, metav1.CreateOptions{})
	}
	image := pod.Spec.Containers[0].Image
	d.mu.Lock()
	want := "ready"
	switch {
	case strings.HasSuffix(image, "-crash"):
		want = "crash"
	case strings.HasSuffix(image, "-missing"):
		want = "missing"
	case strings.HasSuffix(image, "-unready"):
		want = "unready"
	case strings.HasSuffix(image, "-gated") && !d.opened[pod.Namespace]:
		want = "unready"
	}
	if d.done[pod.UID] == want {
		d.mu.Unlock()
		return nil
	}
	d.done[pod.UID] = want
	n := len(d.done)
	d.mu.Unlock()
	st := podStatus(pod, want, n)
	p, err := json.Marshal(map[string]any{"status": st})
	if err != nil {
		return err
	}
	_, err = d.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, p, metav1.PatchOptions{}, "status")
	return err
}

// podStatus is the status a kubelet reports for the pod in state want
// (ready, unready, crash, missing); n varies the pod IPs.
func podStatus(pod *corev1.Pod, want string, n int) corev1.PodStatus {
	now := metav1.Now()
	start := pod.CreationTimestamp
	c := pod.Spec.Containers[0]
	ready := want == "ready"
	cond := func(ok bool) corev1.ConditionStatus {
		if ok {
			return corev1.ConditionTrue
		}
		return corev1.ConditionFalse
	}
	notReady := func(ty corev1.PodConditionType) corev1.PodCondition {
		pc := corev1.PodCondition{Type: ty, Status: cond(ready), LastTransitionTime: now}
		if !ready {
			pc.Reason = "ContainersNotReady"
			pc.Message = fmt.Sprintf("containers with unready status: [%s]", c.Name)
		}
		return pc
	}
	st := corev1.PodStatus{
		Phase:     corev1.PodRunning,
		HostIP:    "10.0.0.1",
		PodIP:     fmt.Sprintf("10.244.%d.%d", n/200, n%200+2),
		StartTime: &start,
		QOSClass:  corev1.PodQOSBestEffort,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodReadyToStartContainers, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: start},
			notReady(corev1.PodReady),
			notReady(corev1.ContainersReady),
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: start},
		},
	}
	cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image, Ready: ready, Started: new(ready || want == "unready")}
	switch want {
	case "ready", "unready":
		cs.ImageID = fullImage(c.Image) + "@sha256:" + strings.Repeat("5", 64)
		cs.ContainerID = "containerd://" + strings.Repeat(fmt.Sprintf("%x", n%16), 64)
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: now}
	case "crash":
		cs.ImageID = fullImage(c.Image) + "@sha256:" + strings.Repeat("7", 64)
		cs.ContainerID = "containerd://" + strings.Repeat(fmt.Sprintf("%x", n%16), 64)
		cs.RestartCount = 4
		cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: fmt.Sprintf("back-off 1m20s restarting failed container=%s pod=%s_%s(%s)", c.Name, pod.Name, pod.Namespace, pod.UID)}
		cs.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", StartedAt: now, FinishedAt: now, ContainerID: cs.ContainerID}
	case "missing":
		st.Phase = corev1.PodPending
		st.PodIP = ""
		reason, msg := "ImagePullBackOff", fmt.Sprintf("Back-off pulling image %q", c.Image)
		if n%2 == 0 {
			reason, msg = "ErrImagePull", fmt.Sprintf("failed to pull and unpack image %q: failed to resolve reference %q: %s: not found", fullImage(c.Image), fullImage(c.Image), fullImage(c.Image))
		}
		st.Conditions[0].Status = corev1.ConditionTrue
		cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: reason, Message: msg}
	}
	st.ContainerStatuses = []corev1.ContainerStatus{cs}
	return st
}

// fullImage is the image reference as containerd reports it: docker.io
// for an image without a registry host.
func fullImage(image string) string {
	if host, _, ok := strings.Cut(image, "/"); ok && strings.ContainsAny(host, ".:") {
		return image
	}
	return "docker.io/" + image
}
