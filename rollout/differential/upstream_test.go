package differential

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"time"
	"unsafe"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/deployment"
)

func init() {
	// The controller logs conflicts and dropped errors; they are what the
	// test compares, not noise to print.
	klog.SetLogger(klog.Background().V(100))
	klog.LogToStderr(false)
}

// upstream is the real v1.37.1 Deployment controller, driven one sync at a
// time: its informer caches are filled from a server before each sync
// (nothing else runs: no informers, no workers), syncDeployment is called
// through the controller's syncHandler field (the hook upstream's own tests
// use), its events go to a recorder of ours and its work queue is wrapped
// so that requeues are recorded.
type upstream struct {
	srv     *server
	dc      *deployment.DeploymentController
	sync    func(context.Context, string) error
	factory informers.SharedInformerFactory
	events  *recorder
	queue   *queue
	client  *fake.Clientset
}

// newUpstream builds the controller once; reset points it at a server.
func newUpstream() *upstream {
	u := &upstream{events: &recorder{}}
	client := fake.NewClientset()
	u.client = client
	client.PrependReactor("*", "*", func(a clienttesting.Action) (bool, runtime.Object, error) { return u.srv.react(a) })
	u.factory = informers.NewSharedInformerFactory(client, 0)
	apps := u.factory.Apps().V1()
	dc, err := deployment.NewDeploymentController(context.Background(), apps.Deployments(), apps.ReplicaSets(), u.factory.Core().V1().Pods(), client)
	if err != nil {
		panic(err)
	}
	u.dc = dc
	u.sync = private(dc, "syncHandler").Interface().(func(context.Context, string) error)
	var rec record.EventRecorder = u.events
	private(dc, "eventRecorder").Set(reflect.ValueOf(&rec).Elem())
	u.queue = &queue{TypedRateLimitingInterface: private(dc, "queue").Interface().(workqueue.TypedRateLimitingInterface[string])}
	var q workqueue.TypedRateLimitingInterface[string] = u.queue
	private(dc, "queue").Set(reflect.ValueOf(&q).Elem())
	return u
}

// private is an unexported field of the controller, made settable.
func private(dc *deployment.DeploymentController, name string) reflect.Value {
	f := reflect.ValueOf(dc).Elem().FieldByName(name)
	if !f.IsValid() {
		panic("DeploymentController has no field " + name)
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// syncOnce loads the server's objects into the controller's caches and
// runs one syncDeployment of ns/name. It returns the sync's error, events
// and requeue.
func (u *upstream) syncOnce(srv *server, ns, name string) ([]string, requeue, error) {
	u.srv = srv
	replace := func(inf cache.SharedIndexInformer, objs []any) {
		if err := inf.GetIndexer().Replace(objs, ""); err != nil {
			panic(err)
		}
	}
	var ds, rss, pods []any
	for _, d := range srv.deployments() {
		ds = append(ds, d)
	}
	for _, rs := range srv.replicaSets() {
		rss = append(rss, rs)
	}
	for _, p := range srv.pods() {
		pods = append(pods, p)
	}
	replace(u.factory.Apps().V1().Deployments().Informer(), ds)
	replace(u.factory.Apps().V1().ReplicaSets().Informer(), rss)
	replace(u.factory.Core().V1().Pods().Informer(), pods)
	u.events.list = nil
	u.queue.reset()
	u.client.ClearActions() // the fake clientset keeps every action otherwise
	err := u.sync(context.Background(), ns+"/"+name)
	return u.events.list, u.queue.got, err
}

// recorder keeps events as "Type Reason Message", like record.FakeRecorder
// but without a channel to drain.
type recorder struct{ list []string }

func (r *recorder) Event(_ runtime.Object, typ, reason, msg string) {
	r.list = append(r.list, typ+" "+reason+" "+msg)
}

func (r *recorder) Eventf(o runtime.Object, typ, reason, format string, args ...any) {
	r.Event(o, typ, reason, fmt.Sprintf(format, args...))
}

func (r *recorder) AnnotatedEventf(o runtime.Object, _ map[string]string, typ, reason, format string, args ...any) {
	r.Eventf(o, typ, reason, format, args...)
}

// requeue is what a sync asked of the work queue besides its error.
type requeue struct {
	after       time.Duration // AddAfter
	rateLimited bool          // AddRateLimited
	added       bool          // Add
}

// queue records the controller's own requeues (requeueStuckDeployment).
type queue struct {
	workqueue.TypedRateLimitingInterface[string]
	mu  sync.Mutex
	got requeue
}

func (q *queue) reset() { q.mu.Lock(); q.got = requeue{}; q.mu.Unlock() }

func (q *queue) AddAfter(_ string, d time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if d <= 0 {
		q.got.added = true // workqueue: a non-positive delay adds at once
		return
	}
	q.got.after = d
}

func (q *queue) AddRateLimited(string) { q.mu.Lock(); q.got.rateLimited = true; q.mu.Unlock() }

func (q *queue) Add(string) { q.mu.Lock(); q.got.added = true; q.mu.Unlock() }
