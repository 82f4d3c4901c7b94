package sim

import (
	"slices"
	"sort"
	"strings"

	"github.com/deploymath/deploymath/sim/internal/apiserver"
	"github.com/deploymath/deploymath/sim/internal/cluster"
	appsv1 "k8s.io/api/apps/v1"
)

// replicaSetOwners indexes the stored ReplicaSets' records by namespace
// and controller, so that a sync of a Deployment is given the
// ReplicaSets it can read instead of its whole namespace (readableBy).
// The engine keeps it in step where a record's controller is set
// (syncRSState: creates, updates, a state's load) and where a record is
// deleted (deleteReplicaSet).
type replicaSetOwners map[ownerOf][]*cluster.ReplicaSet

// ownerOf is a namespace and a controller's UID; "" for the orphans.
type ownerOf struct{ namespace, uid string }

// ownerOfRecord is where a record of namespace whose Owner is owner is
// indexed: under its controller's UID, or "" for an orphan (whose Owner
// is "rs:"+UID, see cluster.ReplicaSet).
func ownerOfRecord(namespace, owner string) ownerOf {
	if strings.HasPrefix(owner, "rs:") {
		owner = ""
	}
	return ownerOf{namespace, owner}
}

func (o replicaSetOwners) add(k ownerOf, st *cluster.ReplicaSet) {
	o[k] = append(o[k], st)
}

func (o replicaSetOwners) remove(k ownerOf, st *cluster.ReplicaSet) {
	l := o[k]
	if i := slices.Index(l, st); i >= 0 {
		l[i] = l[len(l)-1]
		l[len(l)-1] = nil
		if l = l[:len(l)-1]; len(l) == 0 {
			delete(o, k)
		} else {
			o[k] = l
		}
	}
}

// readableBy returns, of the ReplicaSets of ns (sorted by key), those a
// sync of d can read, in the same order: those whose controller is d
// (claimed, or released when they no longer match), every orphan
// (adopted when d's selector matches), and those whose name begins with
// d's (a new ReplicaSet's name may collide with one of them). The
// ReplicaSets of other controllers cannot change d's plan (the rule
// sim/snapshot's Rollout.Input applies for explain), so that the plan is
// the same as with the whole namespace, at a cost that does not grow
// with it.
//
// A namespace of at most smallNamespace ReplicaSets is given whole, as
// the controller's lister gives it: the plan is the same
// (TestReadableSamePlans), and copying a few pointers costs less than the
// index's look-ups (a run of 100 Deployments, each in a namespace of its
// own, spent 10 % of its time here).
func (s *Sim) readableBy(d *appsv1.Deployment, ns *apiserver.Namespace[*cluster.ReplicaSet]) []*appsv1.ReplicaSet {
	if ns == nil || len(ns.Records) == 0 {
		return nil
	}
	if len(ns.Records) <= s.smallNS {
		return s.st.ReplicaSetsOf(ns)
	}
	recs := ns.Records
	prefix := s.st.Key(d.Namespace, d.Name)
	from := sort.Search(len(recs), func(i int) bool { return recs[i].Key() >= prefix })
	to := from
	for to < len(recs) && strings.HasPrefix(recs[to].Key(), prefix) {
		to++
	}
	own, orphans := s.rsOwners[ownerOf{d.Namespace, string(d.UID)}], s.rsOwners[ownerOf{d.Namespace, ""}]
	picked := s.readBuf[:0]
	picked = append(picked, recs[from:to]...)
	picked = append(picked, own...)
	picked = append(picked, orphans...)
	slices.SortFunc(picked, func(a, b *cluster.ReplicaSet) int { return strings.Compare(a.Key(), b.Key()) })
	picked = slices.Compact(picked)
	clear(picked[len(picked):cap(picked)])
	s.readBuf = picked
	out := s.readOut[:0]
	for _, st := range picked {
		out = append(out, st.Obj)
	}
	clear(out[len(out):cap(out)]) // no stale object kept
	s.readOut = out
	return out
}

// smallNamespace is the most ReplicaSets of a namespace readableBy
// gives whole, without looking them up in the index.
const smallNamespace = 64

// ownedReplicaSets is the store's OwnedReplicaSets (the ReplicaSets whose
// controller is d, oldest first: creation time, then name) through the
// index of controllers, at a cost that does not grow with the namespace.
func (s *Sim) ownedReplicaSets(d *appsv1.Deployment) []*appsv1.ReplicaSet {
	if d.UID == "" {
		return nil // no record has an empty controller
	}
	own := s.rsOwners[ownerOf{d.Namespace, string(d.UID)}]
	if len(own) == 0 {
		return nil
	}
	out := make([]*appsv1.ReplicaSet, len(own))
	for i, st := range own {
		out[i] = st.Obj
	}
	slices.SortFunc(out, func(a, b *appsv1.ReplicaSet) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}
