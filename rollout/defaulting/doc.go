// Package defaulting applies the defaults a Kubernetes v1.37 API server
// applies to a Deployment when it is created or updated, so that a manifest
// as written becomes the object a cluster stores — and its pod template the
// one whose pod-template-hash names the ReplicaSet.
//
// The hash is computed over the stored template, so a raw manifest hashes
// differently: the Kubernetes documentation's nginx Deployment (3 replicas,
// nginx:1.14.2, containerPort 80, labels app: nginx) gets the ReplicaSet
// nginx-deployment-54fd4d6d4c on a v1.37 control plane only after
// [Deployment] has filled in imagePullPolicy, the port's protocol, the
// termination message path, the pod's restart and DNS policies and the rest.
//
// Everything here is pure: the input is never modified (it is copied first),
// nothing is read from a clock or a client, and applying the defaults twice
// gives the same object as applying them once.
//
// # What is defaulted
//
// Exactly what the apps/v1 Deployment defaulter of the v1.37 API server does,
// with the feature gates at their v1.37 defaults:
//
//   - the Deployment: replicas 1; strategy RollingUpdate with maxSurge and
//     maxUnavailable 25% (a Recreate strategy is left alone);
//     revisionHistoryLimit 10; progressDeadlineSeconds 600;
//   - the pod spec: restartPolicy Always, dnsPolicy ClusterFirst,
//     schedulerName default-scheduler, an empty securityContext,
//     terminationGracePeriodSeconds 30, and serviceAccountName and the
//     deprecated serviceAccount made equal (serviceAccountName wins); the
//     quantities of overhead and pod-level resources rounded up to
//     millis;
//   - every container, init container and ephemeral container:
//     imagePullPolicy (Always when the image's tag is latest or it has
//     neither tag nor digest, IfNotPresent otherwise, also for an image that
//     does not parse), terminationMessagePath /dev/termination-log,
//     terminationMessagePolicy File; ports' protocol TCP; env fieldRef
//     apiVersion v1 and fileKeyRef optional false; resource quantities rounded
//     up to millis; liveness, readiness and startup probes (timeoutSeconds
//     1, periodSeconds 10, successThreshold 1, failureThreshold 3; httpGet
//     path / and scheme HTTP; grpc service ""); lifecycle postStart and
//     preStop httpGet (path and scheme);
//   - every volume: a volume with no source becomes an emptyDir; image
//     volumes get a pull policy as containers do (the ImageVolume gate is GA
//     in v1.37); defaultMode 0644 for configMap, secret, downwardAPI and
//     projected; hostPath type "" (unset); downwardAPI and projected
//     fieldRef apiVersion v1; projected serviceAccountToken
//     expirationSeconds 3600; iscsi interface default; rbd pool rbd, user
//     admin, keyring /etc/ceph/keyring; azureDisk cachingMode ReadWrite,
//     fsType ext4, readOnly false, kind Shared; scaleIO storageMode
//     ThinProvisioned, fsType xfs; an ephemeral volume's claim template
//     volumeMode Filesystem and its resource quantities rounded up to
//     millis.
//
// # What is not defaulted, and why
//
// A v1.37 server applies some defaults to Pods only, never to the template
// of a Deployment, and so does this package: requests copied from limits,
// enableServiceLinks, host ports under hostNetwork, pod-level requests, a
// negative grace period raised to 1, and the HTTP probe protocol of the
// H2CContainerProbe gate (alpha, off in v1.37). Tolerations and topology
// spread constraints have no defaults. Admission plugins and webhooks a
// cluster may run (a LimitRange, a service-account token mount, policy
// engines) change Pods, not Deployments, or are the cluster's own: they are
// not API-server defaults and are not modelled.
//
// # Quantities and the stored form
//
// The hash covers the Go value's internals, and the controller hashes the
// template it decoded from the server, not the one the server decoded from
// the request: the server writes every quantity as its canonical string
// (or the spelling ParseQuantity kept, which String returns as written) and
// reads that back. So "0.5" and "500m" are stored alike (as parsed from
// "500m"), "1.0" as "1", "0.5Gi" as "512Mi", a sub-milli "250u" rounded up
// to "1m", and an empty map or list becomes nil. [Deployment] and
// [PodTemplate] therefore end with [Stored]: the template is encoded the
// way the server encodes objects for storage (protobuf, with k8s.io/api's
// generated code) and decoded again, which gives the stored form by
// construction, whatever the spelling. The result is, like the
// controller's object, decoded and never encoded since: encoding a
// quantity caches its string in it, and the hash covers that cache (a
// divisor or an emptyDir sizeLimit of 0.5Gi, stored as 512Mi, would hash
// otherwise); Stored leaves its input's caches alone as well. A manifest defaulted here hashes as
// on a cluster; a template built or edited in Go can be brought to the
// stored form with Stored alone. A quantity keeps its format: "1e9"
// (decimal exponent) and "1G" (decimal SI) are one value stored two ways,
// with two hashes, on a cluster as here.
//
// # Verification
//
// The module rollout/differential compares [Deployment] with the real
// v1.37.1 defaulters followed by the real storage round trip (conversion
// to the internal version, the apiserver's protobuf storage codec, and
// back) on random Deployments with quantities of every spelling: every
// field equal, and the same pod-template-hash.
// testdata/defaulting/vectors.json holds raw templates (as written) and
// defaulted ones with their hashes, checked against both, on every
// reading path of the simulator, and on a real v1.37.1 API server and
// controller (sim/controlplane), which names each ReplicaSet with that
// hash.
package defaulting
