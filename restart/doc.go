// Package restart restarts workloads when the ConfigMaps or Secrets they use
// change: the algorithm of the kubernetes-deployment-restart-controller
// (github.com/xing/kubernetes-deployment-restart-controller) as pure
// functions and one state machine, with no clients, no goroutines and no
// clock. Observations and the time come in as arguments; merge patches come
// out as values. The same inputs always give the same outputs.
//
// # Pieces
//
//   - [References] lists every ConfigMap and Secret a pod spec uses (volumes,
//     projected sources, env valueFrom, envFrom; containers, init and
//     ephemeral containers). [PodTemplate] and [WorkloadOf] find the pod
//     template of Deployments, StatefulSets, DaemonSets and CronJobs.
//   - [ChecksumConfigMap] and [ChecksumSecret] summarise config data in 16
//     hex characters, independent of key order and blind to metadata;
//     [XingChecksumConfigMap] and [XingChecksumSecret] reproduce the
//     original controller's values.
//   - [DiffChecksums] answers "what changed in my configs?" for one
//     workload, with no Engine: from its references, its checksums
//     annotation and a [Lookup] of the current ConfigMaps and Secrets, the
//     configs added, changed or no longer referenced ([ConfigChange]), those
//     missing, the new annotation value and whether to restart.
//   - [Engine] holds the catalog (configs, real or placeholders, and
//     opted-in workloads, indexed by config so a change touches only the
//     workloads that use it), the change queue with its grace period, and
//     the [Counters] that mirror the original's metrics.
//   - [Decision] is the outcome for one workload: the new
//     applied-checksums annotation and, when due, a restart stamp in the pod
//     template, as one JSON merge [Patch].
//
// # Driving an Engine
//
// A shell (a client-go controller or a simulator) feeds informer events to
// [Engine.Observe] and [Engine.Forget], calls [Engine.Release] every
// [Options.CheckInterval] (or at [Engine.NextRelease]) and applies each
// decision's PatchJSON with a merge patch; a failed patch goes back through
// [Engine.PatchFailed]. At shutdown, [Engine.Drain] flushes the changes whose
// loss could miss a restart.
//
// # When a workload restarts
//
// A change (new config, new workload, a reference added or dropped, the
// checksums annotation edited, a checksum changed) waits
// [Options.GracePeriod] (5 s); repeats meanwhile only increment its count.
// When released, each affected workload's annotation is compared with the
// catalog. The pods restart when a checksum recorded in the annotation
// differs from the config's current one, or when a config not yet recorded
// has a waiting change observed more than once (it was added to the workload
// and then edited before the controller recorded it). Otherwise the new
// checksums are only recorded. Decisions depend only on the annotation and
// the live configs, so a fresh engine (after a restart or a leader change)
// never restarts a workload whose configs did not change.
//
// # One workload, without an Engine
//
// A controller that already has listers and its own work queue can call
// [DiffChecksums] when it syncs a workload: write the returned Annotation
// when Changes is not empty, and a new restart stamp too when Restart is
// set. The rule is the Engine's, less what needs its memory (an edit of a
// newly referenced config before it was recorded, the grace period). The
// annotation holds one checksum per config, so the changed data keys are
// known only when the caller also passes the recorded versions of the
// configs (an informer's old objects).
//
// # Keys and compatibility
//
// [DefaultOptions] uses deploymath.io/restart-on-config-change: "true",
// deploymath.io/config-checksums and deploymath.io/restarted-at.
// [XingKeys] uses com.xing.deployment-restart: "enabled",
// com.xing.deployment-restart.applied-config-checksums and
// com.xing.deployment-restart.timestamp with [ChecksumXing], so the
// original's users switch without restarts. [Options.Reloader] also honours
// stakater/Reloader's opt-in annotations.
//
// # Differences from the original controller
//
//   - More references: secret volumes, projected sources, env valueFrom,
//     init and ephemeral containers (it read envFrom and configMap volumes
//     of containers only); DaemonSets and CronJobs too.
//   - The restart stamp is RFC 3339 in UTC with the year and, when not a
//     whole second, the fraction (it wrote time.Stamp, local time without a
//     year); a stamp equal to the current one is moved by 1 ns so the
//     template always changes.
//   - Secret checksums merge stringData over data, as the API server does on
//     write, so manifests and stored objects agree; ConfigMap checksums
//     cover binaryData too.
//   - A failed patch can be reported ([Engine.PatchFailed]); like the
//     original, the engine otherwise assumes its decisions were applied.
//   - A deleted config that is still referenced stays a placeholder, so
//     re-creating it is noticed (the original unlinked it until the
//     workload changed).
//   - An annotation that is not valid JSON is rewritten and reported in
//     [Decision.AnnotationError] (the original kept it until a checksum
//     changed).
//   - Order: changes are processed oldest first and decisions sorted by key
//     (the original iterated maps).
//
// Known limitation, as in the original: a workload created shortly before a
// config it uses is edited restarts only if that config's change was
// observed twice before the workload was processed; and changes waiting in
// memory are lost if the process is killed before [Engine.Drain].
package restart
