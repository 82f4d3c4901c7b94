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

// genDump writes a dump of n Deployments of 3 replicas in one namespace,
// each with its ReplicaSet and 3 running, ready pods; every tenth is
// mid-rollout with maxSurge 1 and maxUnavailable 0: a new ReplicaSet of 2
// pods (one not ready) beside the old one with 2, and nothing can move
// until the new pod is ready (31,000 pods for 10,000 Deployments). full
// writes every field kubectl prints for objects of a v1.37 cluster
// (without managedFields): about 11 KB per Deployment with its
// ReplicaSet and pods. Otherwise the objects hold what explain and a run
// read (metadata, owner references, spec, the status counts and
// conditions, the pods' phase, Ready condition and node): about 4 KB.
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
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: image, Ports: []corev1.ContainerPort{{ContainerPort: 8080}}}}},
				},
			},
		})
		hash := hashing.PodTemplateHash(&d.Spec.Template, nil)
		uid := fmt.Sprintf("00000000-0000-4000-8000-%012d", 3*i)
		gen, progressing, counts := 1, "has successfully progressed.\n      reason: NewReplicaSetAvailable", "availableReplicas: 3\n    %s\n    readyReplicas: 3\n    replicas: 3\n%s    updatedReplicas: 3"
		if rolling {
			gen, progressing, counts = 2, "is progressing.\n      reason: ReplicaSetUpdated", "availableReplicas: 3\n    %s\n    readyReplicas: 3\n    replicas: 4\n%s    unavailableReplicas: 1\n    updatedReplicas: 2"
		}
		opt := func(s string) string {
			if full {
				return s
			}
			return ""
		}
		conditions := fmt.Sprintf(`conditions:
    - lastTransitionTime: %q
      lastUpdateTime: %q
      message: Deployment has minimum availability.
      reason: MinimumReplicasAvailable
      status: "True"
      type: Available
    - lastTransitionTime: %q
      lastUpdateTime: %q
      message: ReplicaSet "%s-%s" %s
      status: "True"
      type: Progressing
    observedGeneration: %d`, ts, ts, ts, ts, name, hash, progressing, gen)
		status := fmt.Sprintf(counts, conditions, opt("    terminatingReplicas: 0\n"))
		fmt.Fprintf(&b, `- apiVersion: apps/v1
  kind: Deployment
  metadata:
    annotations:
      deployment.kubernetes.io/revision: "%d"
    creationTimestamp: %q
    generation: %d
%s    name: %s
    namespace: bench
%s    uid: %s
  spec:
%s    replicas: 3
%s    selector:
      matchLabels:
        app: %s
%s    template:
      metadata:
        labels:
          app: %s
      spec:
%s  status:
    %s
`, gen, ts, gen, opt("    labels:\n      app: "+name+"\n"), name, opt(fmt.Sprintf("    resourceVersion: \"%d\"\n", 100+i)), uid,
			opt("    progressDeadlineSeconds: 600\n"), opt("    revisionHistoryLimit: 10\n"), name,
			opt("    strategy:\n      rollingUpdate:\n        maxSurge: 25%\n        maxUnavailable: 25%\n      type: RollingUpdate\n"), name, podSpec(image, "        ", full), status)
		type rsw struct {
			hash, image      string
			rev, size, ready int
			uid              string
		}
		rss := []rsw{{hash, image, gen, 3, 3, fmt.Sprintf("00000000-0000-4000-8000-%012d", 3*i+1)}}
		if rolling {
			old := d.DeepCopy()
			old.Spec.Template.Spec.Containers[0].Image = name + ":1"
			rss = []rsw{
				{hashing.PodTemplateHash(&old.Spec.Template, nil), name + ":1", 1, 2, 2, fmt.Sprintf("00000000-0000-4000-8000-%012d", 3*i+1)},
				{hash, image, 2, 2, 1, fmt.Sprintf("00000000-0000-4000-8000-%012d", 3*i+2)},
			}
		}
		owner := func(kind, name, uid string) string {
			return fmt.Sprintf("    ownerReferences:\n    - apiVersion: apps/v1\n%s      controller: true\n      kind: %s\n      name: %s\n      uid: %s\n",
				opt("      blockOwnerDeletion: true\n"), kind, name, uid)
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
%s    labels:
      app: %s
      pod-template-hash: %q
    name: %s
    namespace: bench
%s%s    uid: %s
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
%s    observedGeneration: 1
    readyReplicas: %d
    replicas: %d
%s`, rs.rev, ts, opt("    generation: 1\n"), name, rs.hash, rsName, owner("Deployment", name, uid), opt(fmt.Sprintf("    resourceVersion: \"%d\"\n", 100+i)), rs.uid,
				rs.size, name, rs.hash, name, rs.hash, podSpec(rs.image, "        ", full),
				rs.ready, opt(fmt.Sprintf("    fullyLabeledReplicas: %d\n", rs.size)), rs.ready, rs.size, opt("    terminatingReplicas: 0\n"))
			for k := range rs.size {
				fmt.Fprintf(&b, `- apiVersion: v1
  kind: Pod
  metadata:
    creationTimestamp: %q
%s    labels:
      app: %s
      pod-template-hash: %q
    name: %s-p%d
    namespace: bench
%s%s    uid: %s-%d
  spec:
%s    nodeName: node-%d
%s  status:
%s`, ts, opt("    generateName: "+rsName+"-\n    generation: 1\n"), name, rs.hash, rsName, k, owner("ReplicaSet", rsName, rs.uid),
					opt(fmt.Sprintf("    resourceVersion: \"%d\"\n", 100+i)), rs.uid, k, podSpec(rs.image, "    ", full), (i+k)%100, podExtra(full), podStatus(rs.image, k < rs.ready, ts, full))
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
    phase: Running
    startTime: %q
`, ts, cond, ts)
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
