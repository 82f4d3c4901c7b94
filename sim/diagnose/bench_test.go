package diagnose

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/sim/snapshot"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// genDump writes, as `kubectl get deploy,rs,pods -o yaml` of a v1.37
// cluster prints it (a List, without managedFields), n Deployments of 3
// replicas in one namespace, each with its ReplicaSet and 3 running,
// ready pods; every tenth is mid-rollout with maxSurge 1 and
// maxUnavailable 0: a new ReplicaSet of 2 pods (one not ready) beside the
// old one with 2, nothing can move until the new pod is ready.
func genDump(n int, full bool) []byte {
	var b strings.Builder
	b.Grow(n * 12 << 10)
	b.WriteString("apiVersion: v1\nitems:\n")
	const ts = "2026-11-23T22:34:19Z"
	for i := range n {
		name := fmt.Sprintf("app-%d", i)
		rolling := i%10 == 9
		image := name + ":1"
		if rolling {
			image = name + ":2"
		}
		d := rollout.Default(&appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "bench"},
			Spec: appsv1.DeploymentSpec{
				Replicas: new(int32(3)),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: image,
						Ports: []corev1.ContainerPort{{ContainerPort: 8080}}}}},
				},
			},
		})
		hash := hashing.PodTemplateHash(&d.Spec.Template, nil)
		uid := fmt.Sprintf("00000000-0000-4000-8000-%012d", 3*i)
		gen, rev := 1, 1
		if rolling {
			gen, rev = 2, 2
		}
		status := fmt.Sprintf(`    availableReplicas: 3
    conditions:
    - lastTransitionTime: %q
      lastUpdateTime: %q
      message: Deployment has minimum availability.
      reason: MinimumReplicasAvailable
      status: "True"
      type: Available
    - lastTransitionTime: %q
      lastUpdateTime: %q
      message: ReplicaSet "%s-%s" has successfully progressed.
      reason: NewReplicaSetAvailable
      status: "True"
      type: Progressing
    observedGeneration: %d
    readyReplicas: 3
    replicas: 3
    terminatingReplicas: 0
    updatedReplicas: 3
`, ts, ts, ts, ts, name, hash, gen)
		if rolling {
			status = fmt.Sprintf(`    availableReplicas: 3
    conditions:
    - lastTransitionTime: %q
      lastUpdateTime: %q
      message: Deployment has minimum availability.
      reason: MinimumReplicasAvailable
      status: "True"
      type: Available
    - lastTransitionTime: %q
      lastUpdateTime: %q
      message: ReplicaSet "%s-%s" is progressing.
      reason: ReplicaSetUpdated
      status: "True"
      type: Progressing
    observedGeneration: 2
    readyReplicas: 3
    replicas: 4
    terminatingReplicas: 0
    unavailableReplicas: 1
    updatedReplicas: 2
`, ts, ts, ts, ts, name, hash)
		}
		fmt.Fprintf(&b, `- apiVersion: apps/v1
  kind: Deployment
  metadata:
    annotations:
      deployment.kubernetes.io/revision: "%d"
    creationTimestamp: %q
    generation: %d
    labels:
      app: %s
    name: %s
    namespace: bench
    resourceVersion: "%d"
    uid: %s
  spec:
    progressDeadlineSeconds: 600
    replicas: 3
    revisionHistoryLimit: 10
    selector:
      matchLabels:
        app: %s
    strategy:
      rollingUpdate:
        maxSurge: 25%%
        maxUnavailable: 25%%
      type: RollingUpdate
    template:
      metadata:
        labels:
          app: %s
      spec:
%s  status:
%s`, rev, ts, gen, name, name, 100+i, uid, name, name, podSpec(image, "        ", full), status)
		type rsw struct {
			hash, image      string
			rev, size, ready int
			uid              string
		}
		rss := []rsw{{hash, image, rev, 3, 3, fmt.Sprintf("00000000-0000-4000-8000-%012d", 3*i+1)}}
		if rolling {
			old := d.DeepCopy()
			old.Spec.Template.Spec.Containers[0].Image = name + ":1"
			rss = []rsw{
				{hashing.PodTemplateHash(&old.Spec.Template, nil), name + ":1", 1, 2, 2, fmt.Sprintf("00000000-0000-4000-8000-%012d", 3*i+1)},
				{hash, image, 2, 2, 1, fmt.Sprintf("00000000-0000-4000-8000-%012d", 3*i+2)},
			}
		}
		for _, rs := range rss {
			rsName := name + "-" + rs.hash
			fmt.Fprintf(&b, `- apiVersion: apps/v1
  kind: ReplicaSet
  metadata:
    annotations:
      deployment.kubernetes.io/desired-replicas: "3"
      deployment.kubernetes.io/max-replicas: "4"
      deployment.kubernetes.io/revision: "%d"
    creationTimestamp: %q
    generation: 1
    labels:
      app: %s
      pod-template-hash: %q
    name: %s
    namespace: bench
    ownerReferences:
    - apiVersion: apps/v1
      blockOwnerDeletion: true
      controller: true
      kind: Deployment
      name: %s
      uid: %s
    resourceVersion: "%d"
    uid: %s
  spec:
    replicas: %d
    selector:
      matchLabels:
        app: %s
        pod-template-hash: %q
    template:
      metadata:
        labels:
          app: %s
          pod-template-hash: %q
      spec:
%s  status:
    availableReplicas: %d
    fullyLabeledReplicas: %d
    observedGeneration: 1
    readyReplicas: %d
    replicas: %d
    terminatingReplicas: 0
`, rs.rev, ts, name, rs.hash, rsName, name, uid, 100+i, rs.uid, rs.size, name, rs.hash, name, rs.hash,
				podSpec(rs.image, "        ", full), rs.ready, rs.size, rs.ready, rs.size)
			for k := range rs.size {
				ready := k < rs.ready
				fmt.Fprintf(&b, `- apiVersion: v1
  kind: Pod
  metadata:
    creationTimestamp: %q
    generateName: %s-
    generation: 1
    labels:
      app: %s
      pod-template-hash: %q
    name: %s-p%d
    namespace: bench
    ownerReferences:
    - apiVersion: apps/v1
      blockOwnerDeletion: true
      controller: true
      kind: ReplicaSet
      name: %s
      uid: %s
    resourceVersion: "%d"
    uid: %s-%d
  spec:
%s    nodeName: node-%d
%s  status:
%s`, ts, rsName, name, rs.hash, rsName, k, rsName, rs.uid, 100+i, rs.uid, k, podSpec(rs.image, "    ", full), (i+k)%100, podExtra(full), podStatus(rs.image, ready, ts, full))
			}
		}
	}
	b.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	return []byte(b.String())
}

func podSpec(image, ind string, full bool) string {
	if !full {
		return indent(ind, "containers:\n- image: "+image+"\n  name: main\n")
	}
	return indent(ind, `containers:
- image: `+image+`
  imagePullPolicy: IfNotPresent
  name: main
  ports:
  - containerPort: 8080
    protocol: TCP
  resources: {}
  terminationMessagePath: /dev/termination-log
  terminationMessagePolicy: File
dnsPolicy: ClusterFirst
restartPolicy: Always
schedulerName: default-scheduler
securityContext: {}
terminationGracePeriodSeconds: 30
`)
}

// indent prefixes every line of s with ind.
func indent(ind, s string) string {
	return ind + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+ind) + "\n"
}

// podExtra is the rest of a pod's spec as the API server defaults it.
func podExtra(full bool) string {
	if !full {
		return ""
	}
	return `    enableServiceLinks: true
    preemptionPolicy: PreemptLowerPriority
    priority: 0
    tolerations:
    - effect: NoExecute
      key: node.kubernetes.io/not-ready
      operator: Exists
      tolerationSeconds: 300
    - effect: NoExecute
      key: node.kubernetes.io/unreachable
      operator: Exists
      tolerationSeconds: 300
`
}

func podStatus(image string, ready bool, ts string, full bool) string {
	r := "true"
	if !ready {
		r = "false"
	}
	cond := `"True"`
	if !ready {
		cond = `"False"`
	}
	if !full {
		return fmt.Sprintf(`    conditions:
    - lastTransitionTime: %q
      status: %s
      type: Ready
    containerStatuses:
    - name: main
      ready: %s
      restartCount: 0
      state:
        running:
          startedAt: %q
    phase: Running
    startTime: %q
`, ts, cond, r, ts, ts)
	}
	return fmt.Sprintf(`    conditions:
    - lastProbeTime: null
      lastTransitionTime: %q
      status: "True"
      type: PodReadyToStartContainers
    - lastProbeTime: null
      lastTransitionTime: %q
      status: "True"
      type: Initialized
    - lastProbeTime: null
      lastTransitionTime: %q
      status: %s
      type: Ready
    - lastProbeTime: null
      lastTransitionTime: %q
      status: %s
      type: ContainersReady
    - lastProbeTime: null
      lastTransitionTime: %q
      status: "True"
      type: PodScheduled
    containerStatuses:
    - containerID: containerd://1111111111111111111111111111111111111111111111111111111111111111
      image: %s
      imageID: docker.io/%s@sha256:5555555555555555555555555555555555555555555555555555555555555555
      lastState: {}
      name: main
      ready: %s
      restartCount: 0
      started: true
      state:
        running:
          startedAt: %q
    hostIP: 10.0.0.1
    phase: Running
    podIP: 10.244.0.3
    podIPs:
    - ip: 10.244.0.3
    qosClass: BestEffort
    startTime: %q
`, ts, ts, ts, cond, ts, cond, ts, image, image, r, ts, ts)
}

// BenchmarkExplainDump is deploysim explain (read, diagnose, render as
// text) of generated dumps of 1,000, 3,000 and 10,000 Deployments of 3
// replicas (see genDump and sim/BENCHMARKS.md).
func BenchmarkExplainDump(b *testing.B) {
	for _, n := range []int{1000, 3000, 10000} {
		data := genDump(n, false)
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				s, err := snapshot.Parse(data, "gen.yaml", snapshot.Options{})
				if err != nil {
					b.Fatal(err)
				}
				_ = Explain(s, Options{}).Text()
			}
		})
	}
}
