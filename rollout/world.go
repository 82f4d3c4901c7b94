package rollout

import (
	"errors"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// plannedUIDPrefix marks the placeholder UID of a ReplicaSet created in this
// plan, used only to track its versions; it never appears in an action.
const plannedUIDPrefix = "deploymath-planned-"

// errConflict is what a write returns when upstream would send a stale
// object: the API server answers 409 Conflict and the sync ends with an error.
var errConflict = errors.New("conflict")

// world stands in for upstream's client and event recorder during one sync.
// Every write is checked the way an API server checks resourceVersion
// preconditions, recorded as an Action, and answered with the object the
// server would return. Input objects are never modified: writes work on
// copies, as upstream does.
type world struct {
	opts Options
	snap Snapshot
	res  *Result

	// Version bookkeeping. Upstream sometimes writes an object it got back
	// from an earlier write (fresh) and sometimes a copy from its informer
	// cache (stale after any earlier write of the same object in this sync).
	// handed records, for each object we handed out, the server generation
	// it reflects; objects from the snapshot are generation 0. server
	// records the server generation of each object written. A sync writes a
	// few objects at most, so both are short lists (in buffers allocated
	// with the world).
	handed smallList[handedVersion]
	server smallList[serverVersion]
	// deploymentWrites counts writes of the Deployment. Upstream never uses
	// the Deployment a write returns, so every write after the first sends a
	// stale resourceVersion.
	deploymentWrites int
	// status is the Deployment status the server holds after the writes so far.
	status appsv1.DeploymentStatus
	// createdSeq numbers ReplicaSets created in this plan.
	createdSeq int

	// reuse is the Planner whose memory this plan borrows, or nil.
	reuse *Planner
	// claimed is the list of claimed ReplicaSets (see claimReplicaSets).
	claimed []*appsv1.ReplicaSet
	// rsBuf holds the plan's other lists of ReplicaSets (old, all, active)
	// back to back: one array instead of one per list. rsList hands out
	// its unused tail.
	rsBuf []*appsv1.ReplicaSet
	// copies counts the Deployment copies this plan made (see
	// cloneDeployment).
	copies int
	// rsCopies counts the ReplicaSet copies of updates this plan made (see
	// cloneRSForUpdate).
	rsCopies int
}

// init prepares w, which must be zero, for one plan of s. w itself may
// live on the caller's stack; only the Result it fills is allocated, unless
// reuse lends its own. (Field by field: assigning a whole world literal
// would zero the large struct a second time.)
func (w *world) init(s Snapshot, o Options) { w.initReusing(s, o, nil) }

// initReusing is init with the memory of reuse, when not nil.
func (w *world) initReusing(s Snapshot, o Options, reuse *Planner) {
	w.opts, w.snap, w.status = o, s, s.Deployment.Status
	if reuse == nil {
		w.res = &Result{}
		return
	}
	w.reuse, w.res, w.claimed, w.rsBuf = reuse, &reuse.res, reuse.claimed, reuse.rss
	reuse.res = Result{}
	// The previous plan's entries are garbage now: clear them so that the
	// Planner keeps nothing of it alive.
	clear(reuse.actions[:cap(reuse.actions)])
	clear(reuse.events[:cap(reuse.events)])
}

// claimedList returns an empty list with room for every ReplicaSet of the
// snapshot, for claimReplicaSets.
func (w *world) claimedList() []*appsv1.ReplicaSet {
	n := len(w.snap.ReplicaSets)
	if cap(w.claimed) < n {
		w.claimed = make([]*appsv1.ReplicaSet, 0, n)
	}
	return w.claimed[:0]
}

// rsList returns an empty list with room for n ReplicaSets, carved from
// rsBuf (nil for n = 0). Its capacity is exactly n, so an append beyond n
// moves it rather than overwrite the next list.
func (w *world) rsList(n int) []*appsv1.ReplicaSet {
	if n == 0 {
		return nil
	}
	if len(w.rsBuf)+n > cap(w.rsBuf) {
		// Room for the lists of a sync whose new ReplicaSet exists, one
		// of the claimed ones: old (the others), all (the claimed ones) and
		// active (at most the old ones).
		size := max(3*len(w.claimed)-2, 2*cap(w.rsBuf), n)
		w.rsBuf = make([]*appsv1.ReplicaSet, 0, size)
	}
	off := len(w.rsBuf)
	w.rsBuf = w.rsBuf[:off+n]
	return w.rsBuf[off : off : off+n]
}

// cloneDeployment copies d for changing by replacement (see clone.go):
// into a new object, or into the reusing Planner's copy for this slot.
func (w *world) cloneDeployment(d *appsv1.Deployment) *appsv1.Deployment {
	r := w.reuse
	if r == nil {
		return cloneDeployment(d)
	}
	if w.copies == len(r.deployments) {
		r.deployments = append(r.deployments, new(appsv1.Deployment))
	}
	c := r.deployments[w.copies]
	w.copies++
	*c = *d
	return c
}

// cloneRSForUpdate copies rs for an update or scale (see updateRS): into a
// new object, or into the reusing Planner's copy for this slot.
func (w *world) cloneRSForUpdate(rs *appsv1.ReplicaSet) *appsv1.ReplicaSet {
	r := w.reuse
	if r == nil {
		return cloneRS(rs)
	}
	if w.rsCopies == len(r.replicaSets) {
		r.replicaSets = append(r.replicaSets, new(appsv1.ReplicaSet))
	}
	c := r.replicaSets[w.rsCopies]
	w.rsCopies++
	*c = *rs
	return c
}

// smallList is a list whose first entries live inside it: no allocation
// for a few entries, and (unlike a slice of an array field) no pointer
// into itself, which would move its holder to the heap.
type smallList[T any] struct {
	n    int
	buf  [4]T
	more []T
}

func (l *smallList[T]) len() int { return l.n + len(l.more) }

func (l *smallList[T]) at(i int) *T {
	if i < len(l.buf) {
		return &l.buf[i]
	}
	return &l.more[i-len(l.buf)]
}

func (l *smallList[T]) add(v T) {
	if l.n < len(l.buf) {
		l.buf[l.n] = v
		l.n++
		return
	}
	l.more = append(l.more, v)
}

type handedVersion struct {
	rs  *appsv1.ReplicaSet
	gen int
}

type serverVersion struct {
	uid types.UID
	gen int
}

// gen is the server generation rs reflects: 0 for a snapshot object.
func (w *world) gen(rs *appsv1.ReplicaSet) int {
	for i := range w.handed.len() {
		if h := w.handed.at(i); h.rs == rs {
			return h.gen
		}
	}
	return 0
}

// serverGen is the number of writes of the object with uid so far.
func (w *world) serverGen(uid types.UID) int {
	for i := range w.server.len() {
		if v := w.server.at(i); v.uid == uid {
			return v.gen
		}
	}
	return 0
}

func (w *world) event(typ, reason, format string, args ...any) {
	w.addEvent(Event{Type: typ, Reason: reason, Message: fmt.Sprintf(format, args...), After: len(w.res.Actions)})
}

// addAction and addEvent append to the Result. A plan writes a few objects
// at most (usually a scale and a status), so the lists start with room for
// four instead of growing one by one.
func (w *world) addAction(a Action) {
	if w.res.Actions == nil {
		if w.reuse != nil && cap(w.reuse.actions) > 0 {
			w.res.Actions = w.reuse.actions[:0]
		} else {
			w.res.Actions = make([]Action, 0, 4)
		}
	}
	w.res.Actions = append(w.res.Actions, a)
}

func (w *world) addEvent(e Event) {
	if w.res.Events == nil {
		if w.reuse != nil && cap(w.reuse.events) > 0 {
			w.res.Events = w.reuse.events[:0]
		} else {
			w.res.Events = make([]Event, 0, 2)
		}
	}
	w.res.Events = append(w.res.Events, e)
}

func (w *world) normal(reason, format string, args ...any) {
	w.event(corev1.EventTypeNormal, reason, format, args...)
}

func (w *world) warning(reason, format string, args ...any) {
	w.event(corev1.EventTypeWarning, reason, format, args...)
}

// rsFresh reports whether rs reflects the latest server state of its object.
func (w *world) rsFresh(rs *appsv1.ReplicaSet) bool {
	return w.gen(rs) == w.serverGen(rs.UID)
}

// rsPrecondition returns the resourceVersion a write of a copy of base sends:
// the snapshot's for a snapshot object, "" (no precondition) for an object
// returned by an earlier write, whose real version only the server knows.
func (w *world) rsPrecondition(base *appsv1.ReplicaSet) string {
	if w.gen(base) == 0 {
		return base.ResourceVersion
	}
	return ""
}

// updateRS writes a modified copy of base, like upstream's
// `rsCopy := rs.DeepCopy(); mutate(rsCopy); client.Update(rsCopy)`.
func (w *world) updateRS(base *appsv1.ReplicaSet, mutate func(*appsv1.ReplicaSet), emit func(*appsv1.ReplicaSet) Action) (*appsv1.ReplicaSet, error) {
	if !w.rsFresh(base) {
		return nil, fmt.Errorf("update of replica set %s would send a stale object: %w", base.Name, errConflict)
	}
	rs := w.cloneRSForUpdate(base)
	mutate(rs)
	if rs.Spec.Replicas != nil && *rs.Spec.Replicas < 0 {
		// The API server's validation refuses the write. The input's sizes
		// are not negative, so only upstream's int32 arithmetic wrapping
		// around gets here.
		return nil, fmt.Errorf("ReplicaSet.apps %q is invalid: spec.replicas: Invalid value: %d: must be greater than or equal to 0 (int32 overflow: upstream's arithmetic wrapped around to give that size)", rs.Name, *rs.Spec.Replicas)
	}
	rs.ResourceVersion = w.rsPrecondition(base)
	out := rs
	if strings.HasPrefix(string(rs.UID), plannedUIDPrefix) {
		// Written after being created in this plan: the real UID is the
		// server's, so the action carries none.
		c := *rs
		c.UID = ""
		out = &c
	}
	w.addAction(emit(out))
	return w.written(rs), nil
}

// patchRS records an adopt or release patch. Patches carry no
// resourceVersion precondition, but they change the object: copies of it
// taken before the patch are stale afterwards.
func (w *world) patchRS(base *appsv1.ReplicaSet, mutate func(*appsv1.ReplicaSet), emit func(*appsv1.ReplicaSet) Action) *appsv1.ReplicaSet {
	rs := cloneRS(base)
	mutate(rs)
	rs.ResourceVersion = ""
	w.addAction(emit(rs))
	return w.written(rs)
}

// written registers rs as the server's newest version of its object and
// returns it (the caller must not modify it afterwards).
func (w *world) written(rs *appsv1.ReplicaSet) *appsv1.ReplicaSet {
	gen := 1
	for i := range w.server.len() {
		if v := w.server.at(i); v.uid == rs.UID {
			v.gen++
			gen = v.gen
			break
		}
	}
	if gen == 1 {
		w.server.add(serverVersion{rs.UID, 1})
	}
	w.handed.add(handedVersion{rs, gen})
	return rs
}

// createRS records the creation of rs (which the caller built).
func (w *world) createRS(rs *appsv1.ReplicaSet, why string) *appsv1.ReplicaSet {
	out := cloneRS(rs)
	w.addAction(CreateReplicaSet{ReplicaSet: out, Why: why})
	// The created object has no UID yet; key it by a placeholder that cannot
	// clash with a real UID so that later writes in this sync are tracked.
	w.createdSeq++
	created := cloneRS(out)
	if created.UID == "" {
		created.UID = types.UID(fmt.Sprintf("%s%d/%s", plannedUIDPrefix, w.createdSeq, created.Name))
	}
	return w.written(created)
}

func (w *world) deleteRS(rs *appsv1.ReplicaSet, why string) {
	w.addAction(DeleteReplicaSet{Namespace: rs.Namespace, Name: rs.Name, UID: rs.UID, Why: why})
}

// writeDeployment records a write of d (status subresource or not). d
// becomes part of the result: the caller must not change it afterwards.
func (w *world) writeDeployment(d *appsv1.Deployment, status bool, why string) error {
	if w.deploymentWrites > 0 {
		w.deploymentWrites++
		return fmt.Errorf("%s: upstream sends the deployment read at the start of the sync again after an earlier write: %w", why, errConflict)
	}
	if status {
		if err := validateStatusUpdate(d.Name, &d.Status, &w.status); err != nil {
			// The API server refuses the write; the object it holds is unchanged.
			if sumsOverflow(&d.Status) {
				err = fmt.Errorf("%w (the ReplicaSets' counts add up to more than an int32 holds, and upstream adds them in int32)", err)
			}
			return err
		}
	}
	w.deploymentWrites++
	out := d
	if status {
		w.addAction(w.statusAction(out, why))
		w.status = out.Status
	} else {
		w.addAction(UpdateDeployment{Deployment: out, Why: why})
	}
	return nil
}

// statusAction is UpdateDeploymentStatus{d, why} as an Action. A reusing
// Planner hands out the interface value it made last when the action is
// the same (its copy of the Deployment is reused from plan to plan, and a
// quiet status write's why is empty), instead of boxing the action anew
// at every status write: an Action's value cannot change, so sharing it is
// safe.
func (w *world) statusAction(d *appsv1.Deployment, why string) Action {
	a := UpdateDeploymentStatus{Deployment: d, Why: why}
	r := w.reuse
	if r == nil {
		return a
	}
	if last, ok := r.statusAction.(UpdateDeploymentStatus); !ok || last != a {
		r.statusAction = a
	}
	return r.statusAction
}

// note records a decision that produced no write.
func (p *planner) note(format string, args ...any) {
	if p.w.opts.Quiet {
		return
	}
	p.w.res.Notes = append(p.w.res.Notes, fmt.Sprintf(format, args...))
}

// writeDeployment writes the planner's Deployment. The written object
// belongs to the result from now on, so the next change copies it again.
func (p *planner) writeDeployment(status bool, why string) error {
	err := p.w.writeDeployment(p.d, status, why)
	if err == nil {
		p.owned = false
	}
	return err
}

// sumsOverflow reports whether a computed status has a negative count, which
// only an int32 overflow of upstream's sums produces.
func sumsOverflow(s *appsv1.DeploymentStatus) bool {
	return s.Replicas < 0 || s.UpdatedReplicas < 0 || s.ReadyReplicas < 0 || s.AvailableReplicas < 0 ||
		s.UnavailableReplicas < 0 || s.TerminatingReplicas != nil && *s.TerminatingReplicas < 0
}
