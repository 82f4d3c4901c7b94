// Package snapshot reads the state of a cluster as users already hold it:
// the output of `kubectl get deploy,rs,pods -o yaml` (a List, with
// managedFields, resourceVersions, status and ownerReferences), several
// YAML documents separated by "---", single objects, bare manifests as
// written by hand, and the same in JSON (`-o json`, one or several
// objects); UTF-8 text or, as kubectl reads a file, UTF-16 with a byte
// order mark (PowerShell's > writes it). It gives typed objects, grouped per Deployment into what
// [rollout.Plan] needs, so that a tool can explain a rollout
// (sim/diagnose) or a simulator start from it (deploysim, sim.State).
//
// # What is read
//
// Deployments and ReplicaSets (apps/v1), and Pods, ConfigMaps, Secrets,
// Nodes and ResourceQuotas (v1), at the top level or as items of a List (kind List, or a
// typed list such as DeploymentList whose items may omit apiVersion and
// kind). Objects of any other kind are skipped and counted per kind
// ([Snapshot].Ignored). A top-level sequence of objects is read as a
// List. A Deployment or ReplicaSet of a version Kubernetes v1.37 no
// longer serves (extensions/v1beta1, apps/v1beta1, apps/v1beta2: dumps of
// old clusters, old manifests) is converted to apps/v1 as the API server
// converts it, with its version's defaults (maxSurge and maxUnavailable 1
// and no history limit or progress deadline for extensions/v1beta1;
// revisionHistoryLimit 2 for apps/v1beta1; spec.rollbackTo becomes its
// annotation), and a note says so ([Snapshot].Notes).
//
// # What the API server would refuse
//
// Objects are checked as a v1.37 API server checks them: Deployments
// with [rollout.Validate] and their containers, ReplicaSets' selectors,
// templates and sizes, and the status of both (no count above
// status.replicas, no more available than ready replicas). A status
// with fewer ready than available replicas, as written before
// Kubernetes reported ready replicas, is read with ready raised to
// available and a note; any other refused status is an error. sim.State
// applies the same rules, so that deploysim explain and a run from a dump
// agree on what is valid.
//
// # Fragments and cut pastes
//
// A status: block, the fields of a status, an object without metadata,
// the text of kubectl describe or the table kubectl get prints without -o
// is an error that says what it is and what to run instead, and so are a
// Markdown code fence, the command line pasted with the output, what
// kubectl wrote to standard error mixed in (2>&1) and a terminal's color
// codes (kubectl get
// deploy,rs,pods -o yaml; [KubectlText] tells such input from other YAML
// by its top level alone); a List with items but no kind (kubectl prints
// it after them), and YAML or JSON that ends inside a value, an error
// that says the paste looks truncated; a YAML syntax error elsewhere, one
// that says the line looks broken.
//
// Everything an object carries is kept: status, generation and
// observedGeneration, the revision annotations, resourceVersions, UIDs,
// owner references. A Deployment copied from a cluster therefore does not
// start from zero. Every Deployment is defaulted as a v1.37 API server
// stores it ([rollout.Default]): a bare manifest gets its defaults, an
// object from a dump is already defaulted and is unchanged (defaulting is
// idempotent). ReplicaSet templates are defaulted the same way. A
// Deployment with no generation (a manifest never stored) gets generation
// 1, as the API server's create gives it.
//
// # Strictness
//
// A field Kubernetes v1.37 does not know is an error in a Deployment or a
// ReplicaSet: the pod-template-hash is computed over the whole template,
// so an unknown field would silently give another hash, and the controller
// would seem about to start a new rollout. In Pods, ConfigMaps, Secrets,
// Nodes and ResourceQuotas, unknown fields (from a newer cluster) are ignored: nothing
// here hashes them.
//
// # Errors
//
// Every error names the input (the file name given to [Read], or
// "<stdin>"), a line, the object (kind namespace/name) and, where one is
// at fault, the field; the line is the field's when the input is YAML
// written in block style (as kubectl prints it), else the object's first;
// for example
//
//	state.yaml: line 42: Deployment shop/web: spec.replicas: cannot unmarshal string into int32
//
// An object given twice (same kind, namespace and name) is an error naming
// both lines. The input is bounded: at most [MaxBytes] bytes, as read and
// with its YAML aliases expanded, checked before it is parsed.
//
// # Namespaces
//
// [Options].Namespace keeps one namespace ("" keeps all, like kubectl's
// --all-namespaces). An object without a namespace (a bare manifest) is
// put in [Options].Namespace, or "default" when that is empty, as kubectl
// apply does with the default context. Nodes have no namespace.
//
// # Grouping
//
// [Snapshot.Rollouts] gives, per Deployment, the ReplicaSets its
// controller would claim (owned by it, or orphans its selector matches),
// the pods those ReplicaSets control, and the rest of its namespace; and
// [Rollout.Input] the [rollout.Snapshot] of one sync at a given instant.
package snapshot
