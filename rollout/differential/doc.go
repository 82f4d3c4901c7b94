// Package differential measures "identical to upstream": it runs
// [rollout.Plan] and the real Deployment controller of Kubernetes v1.37.1
// (k8s.io/kubernetes/pkg/controller/deployment) side by side on random
// cluster states and fails on the first difference. It is a Go module of
// its own, so that k8s.io/kubernetes never enters the library's module
// graph; no package of deploymath imports it.
//
// # Running it
//
// From this directory (the first run builds the controller: about five
// minutes on two cores, seconds afterwards):
//
//	go test ./...                                            # what CI runs: 3,000 single syncs, 1,000 runs to the fixpoint, 5,000 defaultings, the blocks (2,000 each, 300 syncs)
//	go test -run TestSingleSync -rapid.checks=100000 -timeout 2h .
//	go test -run TestFixpoint   -rapid.checks=20000  -timeout 2h .
//	go test -run 'TestDefaulting$' -rapid.checks=100000 -timeout 3h .
//	go test -run 'TestBlock' -rapid.checks=100000 -timeout 6h .
//	go test -run '^$' -bench BenchmarkBlocksVsUpstream -benchmem .
//
// -rapid.checks on the command line sets every test's count; without it
// each test runs its own default.
//
// Runs of record, 2026-11-27 (issue 26), at 27852a7: TestSingleSync
// 100,000 syncs and TestFixpoint 20,000 runs, no difference;
// TestBlockNewRSNewReplicas 100,000; TestBlockSync 100,000 syncs, no
// difference, decided by RollingStep 71,210 times (its old ReplicaSets'
// steps 8,458), HistoryToDelete 19,269, RequeueAfter 81,747, IsSaturated
// 17,313, Proportions 7,576, ActiveOrLatest 1,596 and a Recreate scaling
// event 2,305. At 50e7df5 (the same package rollout but for
// NewRSNewReplicas): TestDefaulting 100,000 and every other test of
// blocks_diff_test.go 100,000 cases, no difference.
//
// A failure prints the first differing sync (upstream's writes, events and
// stored objects against the plan's, with the plan's own explanation) and
// the rapid seed that reproduces it; rapid then shrinks it to a minimal
// state.
//
// # Defaulting
//
// TestDefaulting (defaulting_test.go) compares
// [github.com/deploymath/deploymath/rollout/defaulting.Deployment] with the
// real v1.37.1 defaulters (legacyscheme.Scheme.Default on an apps/v1
// Deployment, as the API server runs them) followed by the object's real
// way to the controller (storage_test.go: conversion to the internal
// version, the API server's protobuf storage codec and back, then
// protobuf on the wire) on random Deployments as users write them: every
// defaulted field missing or set, containers, init containers and
// ephemeral containers (which validation refuses in a template, but the
// defaulter reaches), image references of every shape and many that do not
// parse, ports, env sources, resource quantities spelled every way (listed
// spellings and random digits, fractions and suffixes, exponents, values
// below a milli, quantities built in Go), probes and lifecycle handlers of
// every kind, and volumes of every kind. The template must equal the one
// the controller reads (cmp.Diff) and hash alike; the rest of the
// Deployment must equal the defaulters'. TestDefaultingVectors checks
// testdata/defaulting/vectors.json against the same.
//
// # The building blocks
//
// blocks_diff_test.go compares each exported block of package rollout with
// the upstream function of the same meaning
// (pkg/controller/deployment/util), used as the package documentation says
// (Params from ParamsOf, values from ReplicaSetOf): Limits and MinAvailable
// (MaxSurge, MaxUnavailable, MinAvailable), NewRSNewReplicas,
// FindNewReplicaSet and FindOldReplicaSets (the same objects in the same
// order), ActiveOrLatest (FindActiveOrLatest), IsSaturated, Counts
// (calculateStatus's sums), Complete, Progressing and TimedOut, and each
// ReplicaSet's share of proportional scaling (GetReplicaSetProportion).
// blocks_sync_test.go compares the blocks upstream has no function for
// with what one real sync leaves (every ReplicaSet's size and the deleted
// ones): scaling events (ActiveOrLatest, IsSaturated and Proportions
// composed as documented), RollingUpdate steps (RollingStep, and
// MaxScaledDown, CleanupUnhealthy and ScaleDownOld composed as documented),
// the history cleanup of a complete rollout (HistoryToDelete), and the
// requeue of a sync that writes nothing (RequeueAfter). The generator
// (blocks_gen_test.go) draws sizes and fenceposts near MaxInt32 and
// desired- and max-replicas annotations spelled as users and old tools
// write them ("+3", "007", "-0", 2³² + n, spaces, hex, garbage).
// blocks_bench_test.go measures each block beside upstream's function.
//
// # What runs
//
// The generator (gen_test.go) draws states an API server can hold: a
// Deployment defaulted and validated by the real apps/v1 code (both
// strategies; int and percent fenceposts, including 0 and 0%; huge replica
// counts; paused; being deleted; progress deadlines of 10 s, 60 s, 600 s
// and none, with Progressing and Available conditions of every reason last
// updated anywhere, or within two seconds of the deadline; revision history
// limits 0, 1, 2, 3, 5, 10 and none; the legacy rollback annotation;
// collisionCount; revision annotations that do not parse), up to five
// ReplicaSets (owned, orphaned or someone else's; matching the selector or
// not; a name that collides with the new ReplicaSet's; any size up to
// MaxInt32; consistent statuses with terminating replicas and a
// ReplicaFailure condition; stale or unparsable desired- and max-replicas
// and revision annotations; being deleted), and for Recreate pods of every
// phase, owned through controller references that are right or off in kind
// or name.
//
// A server (apiserver_test.go) holds the objects as JSON and runs the real
// apps registry strategies of v1.37.1 on every write: PrepareForCreate and
// PrepareForUpdate (status subresource, generation rules) and their
// validation, with resourceVersion and UID preconditions and unconditional
// updates as the generic registry handles them. The real controller writes
// to it through a fake clientset; the plan is applied to an identical server
// the way a controller built on deploymath applies it: [rollout.Execute]
// with the client-go writer of the module rollout/clientgo (so the test
// covers both). The controller is
// driven one sync at a time: its informer caches are loaded from the
// server, then syncDeployment runs through the controller's syncHandler
// field (the injection point upstream's own tests use; reached with
// reflection because this is another package), with its event recorder and
// work queue replaced by recording ones.
//
// TestSingleSync compares one sync. TestFixpoint syncs both sides
// alternately until a sync writes nothing (at most 30 syncs; ReplicaSet
// statuses stay as generated, since no ReplicaSet controller runs), and
// also follows the plans through [rollout.Apply], comparing the snapshot
// it keeps with the server's objects after every sync.
//
// # What is compared, and every normalisation
//
// After each sync: every write the server accepted, in order (verb,
// resource, subresource, name, request body); the events recorded; whether
// the sync failed (upstream returned an error, or the plan has a Stop);
// whether a rate-limited requeue was asked for; the requeue delay; and
// every stored Deployment and ReplicaSet, byte for byte as JSON (including
// resourceVersions, generations, UIDs and times). What is left out or
// reshaped, and why:
//
//  1. Writes the server refused are dropped from upstream's log. Upstream
//     sends them and gets a Conflict or Invalid answer; a plan stops before
//     such a write instead (Result.Stop) and the test requires that it
//     does: a refused write on the plan's side is a difference.
//  2. A write's resourceVersion and generation are not compared in the
//     request body. The server sets the generation itself, and upstream
//     sends the fresh version returned by an earlier write where a plan,
//     which cannot know it, sends none (an unconditional update); which
//     writes succeed, and the stored versions, are compared instead.
//  3. A delete's UID precondition is not compared: the plan asks for one
//     (it never deletes a different incarnation), upstream does not.
//  4. Adoptions and releases are applied in the order upstream used. The
//     controller claims ReplicaSets in informer-cache order, which is Go
//     map order (random), so that order is not a decision of its own.
//  5. Time. The controller reads the wall clock (condition times, the
//     progress deadline, the requeue delay); the plan takes Now. Each sync
//     is planned with the clock read just before and just after the real
//     sync; when the two plans differ (a second boundary or a deadline
//     between the readings) the case is run again at another instant.
//     Condition times are compared as stored (whole seconds). The requeue
//     delay must lie within the window the two readings allow.
//  6. Pods are never written, so they are not compared; created
//     ReplicaSets get the UID "<namespace>/<name>" on both sides (as
//     rollout.Apply gives them); Apply's own resourceVersions count per
//     object, so its snapshot is compared without them.
//
// Everything else must be equal.
package differential
