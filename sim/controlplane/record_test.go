package controlplane

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/deploymath/deploymath/sim"
)

const revisionAnnotation = "deployment.kubernetes.io/revision"

// rolloutRecord is what one side (the simulator or the real control plane)
// did to one Deployment, in a form both sides can give.
type rolloutRecord struct {
	// Revision is the Deployment's final revision annotation.
	Revision string
	// ReplicaSets in order of first appearance.
	ReplicaSets []rsRecord
	// Events of the Deployment in the order they were recorded:
	// "Type Reason: message", with every count > 1 expanded.
	Events []string
	// Final is the Deployment's status at the end.
	Final finalStatus
}

// rsRecord is one ReplicaSet: its name, revision and every spec.replicas
// it had, consecutive repeats dropped.
type rsRecord struct {
	Name, Revision string
	Sizes          []int32
	// Stamped is set when the ReplicaSet's pod template carries a restart
	// controller's stamp: a time, wall-clock on the control plane and
	// virtual in the simulator, so the names cannot be equal.
	Stamped bool
}

// finalStatus is the part of a Deployment's status that is compared.
type finalStatus struct {
	Generation, ObservedGeneration                   int64
	Replicas, Updated, Ready, Available, Unavailable int32
	Terminating                                      *int32
	Conditions                                       []condition
}

// condition is a Deployment condition without its times.
type condition struct{ Type, Status, Reason, Message string }

// rsWatch records every ReplicaSet of a namespace as the API server's watch
// delivers it: each create and update is one event, so every size a
// ReplicaSet was written with is seen.
type rsWatch struct {
	mu   sync.Mutex
	byNm map[string]*rsRecord
	ord  []string
}

func (w *rsWatch) observe(obj any) {
	rs, ok := obj.(*appsv1.ReplicaSet)
	if !ok {
		return
	}
	size := int32(1)
	if rs.Spec.Replicas != nil {
		size = *rs.Spec.Replicas
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.byNm[rs.Name]
	if r == nil {
		r = &rsRecord{Name: rs.Name}
		w.byNm[rs.Name] = r
		w.ord = append(w.ord, rs.Name)
	}
	r.Revision = rs.Annotations[revisionAnnotation]
	if n := len(r.Sizes); n == 0 || r.Sizes[n-1] != size {
		r.Sizes = append(r.Sizes, size)
	}
}

func (w *rsWatch) records() []rsRecord {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []rsRecord
	for _, n := range w.ord {
		r := *w.byNm[n]
		r.Sizes = slices.Clone(r.Sizes)
		out = append(out, r)
	}
	return out
}

// watchReplicaSets starts recording the namespace's ReplicaSets; it
// returns once the informer has synced and stops when the test ends.
func watchReplicaSets(t *testing.T, c *cluster, namespace string) *rsWatch {
	t.Helper()
	w := &rsWatch{byNm: map[string]*rsRecord{}}
	ctx, cancel := context.WithCancel(context.Background())
	factory := informers.NewSharedInformerFactoryWithOptions(c.client, 0, informers.WithNamespace(namespace))
	inf := factory.Apps().V1().ReplicaSets().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    w.observe,
		UpdateFunc: func(_, obj any) { w.observe(obj) },
	}); err != nil {
		cancel()
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	t.Cleanup(func() { cancel(); factory.Shutdown() })
	waitCtx, stop := context.WithTimeout(ctx, 30*time.Second)
	defer stop()
	if !cache.WaitForCacheSync(waitCtx.Done(), inf.HasSynced) {
		t.Fatal("the ReplicaSet informer did not sync in 30s")
	}
	return w
}

// deploymentEvents lists the Deployment's events from the events API in
// the order they were created (an event's name is the object's name and
// the creation time in nanoseconds, in hex).
func deploymentEvents(ctx context.Context, c *cluster, namespace, name string) ([]string, error) {
	list, err := c.client.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{
		FieldSelector: fields.Set{"involvedObject.kind": "Deployment", "involvedObject.name": name}.String(),
	})
	if err != nil {
		return nil, err
	}
	evs := slices.Clone(list.Items)
	slices.SortFunc(evs, func(a, b corev1.Event) int {
		if c := a.FirstTimestamp.Compare(b.FirstTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	var out []string
	for _, e := range evs {
		for range max(e.Count, 1) {
			out = append(out, fmt.Sprintf("%s %s: %s", e.Type, e.Reason, e.Message))
		}
	}
	return out, nil
}

// statusOf takes the compared part of a Deployment's status.
func statusOf(d *appsv1.Deployment) finalStatus {
	s := finalStatus{
		Generation: d.Generation, ObservedGeneration: d.Status.ObservedGeneration,
		Replicas: d.Status.Replicas, Updated: d.Status.UpdatedReplicas, Ready: d.Status.ReadyReplicas,
		Available: d.Status.AvailableReplicas, Unavailable: d.Status.UnavailableReplicas,
		Terminating: d.Status.TerminatingReplicas,
	}
	for _, c := range d.Status.Conditions {
		s.Conditions = append(s.Conditions, condition{string(c.Type), string(c.Status), c.Reason, c.Message})
	}
	return s
}

// scaledTo matches the Deployment controller's scaling messages.
var scaledTo = regexp.MustCompile(`^Scaled (?:up|down) replica set (\S+) from (\d+) to (\d+)$`)

// simRecord takes the same record from a simulator run: the ReplicaSet
// rows, events and final row of the Deployment in every frame.
func simRecord(res *sim.Result, deployment string) (rolloutRecord, error) {
	var rec rolloutRecord
	byName := map[string]int{}
	var last *sim.DeploymentRow
	// the state of every Deployment after each frame (a frame holds what
	// changed)
	for f, rows := range res.Trace.States() {
		for _, e := range f.Events {
			if e.Object == deployment { // the simulator names the Deployment alone
				rec.Events = append(rec.Events, fmt.Sprintf("%s %s: %s", e.Type, e.Reason, e.Message))
			}
		}
		for di := range rows {
			d := &rows[di]
			if d.Name != deployment {
				continue
			}
			c := *d // rows are valid until the next frame
			last = &c
			for _, rs := range d.ReplicaSets {
				i, ok := byName[rs.Name]
				if !ok {
					i = len(rec.ReplicaSets)
					byName[rs.Name] = i
					rec.ReplicaSets = append(rec.ReplicaSets, rsRecord{Name: rs.Name})
				}
				r := &rec.ReplicaSets[i]
				r.Revision = rs.Revision
				if n := len(r.Sizes); n == 0 || r.Sizes[n-1] != rs.Desired {
					r.Sizes = append(r.Sizes, rs.Desired)
				}
			}
		}
	}
	if last == nil {
		return rec, fmt.Errorf("the simulator's trace has no Deployment %s", deployment)
	}
	// A frame shows the state at the end of an instant, so a size a
	// ReplicaSet had only within one instant (created at 1 and scaled to 2
	// by the next sync at the same instant) is missing from the frames;
	// the Deployment controller's scaling events name every size it wrote.
	scaled := map[string][]int32{}
	for _, f := range res.Trace.Frames {
		for _, e := range f.Events {
			m := scaledTo.FindStringSubmatch(e.Message)
			if e.Object != deployment || e.Reason != "ScalingReplicaSet" || m == nil {
				continue
			}
			from, _ := strconv.ParseInt(m[2], 10, 32)
			to, _ := strconv.ParseInt(m[3], 10, 32)
			if len(scaled[m[1]]) == 0 && from != 0 {
				scaled[m[1]] = append(scaled[m[1]], int32(from))
			}
			scaled[m[1]] = append(scaled[m[1]], int32(to))
		}
	}
	for i := range rec.ReplicaSets {
		r := &rec.ReplicaSets[i]
		ev, ok := scaled[r.Name]
		if !ok {
			continue
		}
		var sizes []int32
		if r.Sizes[0] == 0 && ev[0] != 0 {
			sizes = append(sizes, 0) // created at 0, with no event
		}
		for _, n := range ev {
			if len(sizes) == 0 || sizes[len(sizes)-1] != n {
				sizes = append(sizes, n)
			}
		}
		r.Sizes = sizes
	}
	rec.Revision = last.Revision
	rec.Final = finalStatus{
		Generation: last.Generation, ObservedGeneration: last.ObservedGeneration,
		Replicas: last.Replicas, Updated: last.Updated, Ready: last.Ready,
		Available: last.Available, Unavailable: last.Unavailable, Terminating: last.Terminating,
	}
	for _, c := range last.Conditions {
		rec.Final.Conditions = append(rec.Final.Conditions, condition{c.Type, c.Status, c.Reason, c.Message})
	}
	return rec, nil
}
