package main

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// genDump returns the state dump of a cluster of n Deployments of 3
// replicas each (3n pods), as compact `kubectl get deploy,rs,pods -A -o
// json` output without the fields the simulator does not read (the
// ReplicaSets' templates as written, which sim/snapshot defaults): perNS
// Deployments per namespace, pods spread over 100 nodes. Nine Deployments
// in ten are rolled out (one ReplicaSet, three ready pods); every tenth
// is in the middle of a rolling update with maxSurge 0 and maxUnavailable
// 1 (the old ReplicaSet scaled from 3 to 2, the new one at 1 with a pod
// running but not ready), so that a run from the dump has work to do: the
// new pods become ready and the rollouts go on to completion. The dump of
// 10,000 Deployments is about 30 MB (snapshot.MaxBytes is 32 MiB).
func genDump(n, perNS int) []byte {
	const ts, now = "2026-11-23T21:50:00Z", "2026-11-23T22:00:00Z"
	uid := 0
	nextUID := func() string {
		uid++
		return fmt.Sprintf("uid-%06x", uid)
	}
	var b bytes.Buffer
	b.WriteString(`{"apiVersion":"v1","kind":"List","items":[`)
	sep := ""
	for i := range n {
		ns := "ns-" + strconv.Itoa(i/perNS)
		name := "app-" + strconv.Itoa(i)
		rolling := i%10 == 0
		images := []string{"app:v1"}
		if rolling {
			images = append(images, "app:v2")
		}
		// the pod-template-hash of each image's template, as the API
		// server defaults it
		var hashes []string
		for _, img := range images {
			r := int32(3)
			d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: &r,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: img}}}}}}
			if rolling {
				zero, one := intstr.FromInt32(0), intstr.FromInt32(1)
				d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
					RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &zero, MaxUnavailable: &one}}
			}
			hashes = append(hashes, hashing.PodTemplateHash(&rollout.Default(d).Spec.Template, nil))
		}
		cur := name + "-" + hashes[len(hashes)-1]
		dUID := nextUID()
		gen, strategy := 1, ""
		status := fmt.Sprintf(`"observedGeneration":1,"replicas":3,"updatedReplicas":3,"readyReplicas":3,"availableReplicas":3,`+
			`"conditions":[{"type":"Available","status":"True","lastUpdateTime":%[1]q,"lastTransitionTime":%[1]q,"reason":"MinimumReplicasAvailable","message":"Deployment has minimum availability."},`+
			`{"type":"Progressing","status":"True","lastUpdateTime":%[1]q,"lastTransitionTime":%[1]q,"reason":"NewReplicaSetAvailable","message":"ReplicaSet \"%[2]s\" has successfully progressed."}]`, ts, cur)
		if rolling {
			gen, strategy = 2, `,"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":0,"maxUnavailable":1}}`
			status = fmt.Sprintf(`"observedGeneration":2,"replicas":3,"updatedReplicas":1,"readyReplicas":2,"availableReplicas":2,"unavailableReplicas":1,`+
				`"conditions":[{"type":"Available","status":"True","lastUpdateTime":%[1]q,"lastTransitionTime":%[1]q,"reason":"MinimumReplicasAvailable","message":"Deployment has minimum availability."},`+
				`{"type":"Progressing","status":"True","lastUpdateTime":%[3]q,"lastTransitionTime":%[1]q,"reason":"ReplicaSetUpdated","message":"ReplicaSet \"%[2]s\" is progressing."}]`, ts, cur, now)
		}
		template := func(img, hash string) string {
			lbl := fmt.Sprintf(`"app":%q`, name)
			if hash != "" {
				lbl += fmt.Sprintf(`,"pod-template-hash":%q`, hash)
			}
			return fmt.Sprintf(`{"metadata":{"labels":{%s}},"spec":{"containers":[{"name":"app","image":%q}]}}`, lbl, img)
		}
		fmt.Fprintf(&b, `%s{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":%q,"namespace":%q,"uid":%q,"generation":%d,"creationTimestamp":%q,"annotations":{"deployment.kubernetes.io/revision":"%d"}},`+
			`"spec":{"replicas":3,"selector":{"matchLabels":{"app":%q}},"template":%s%s},"status":{%s}}`,
			sep, name, ns, dUID, gen, ts, gen, name, template(images[len(images)-1], ""), strategy, status)
		sep = ","
		for k, img := range images {
			hash := hashes[k]
			rsName := name + "-" + hash
			size, ready := 3, 3
			if rolling {
				size, ready = 2-k, 2-2*k // old: 2 ready; new: 1, not ready
			}
			rsUID := nextUID()
			fmt.Fprintf(&b, `,{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":%q,"namespace":%q,"uid":%q,"generation":1,"creationTimestamp":%q,`+
				`"labels":{"app":%q,"pod-template-hash":%q},"annotations":{"deployment.kubernetes.io/desired-replicas":"3","deployment.kubernetes.io/max-replicas":"3","deployment.kubernetes.io/revision":"%d"},`+
				`"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":%q,"uid":%q,"controller":true}]},`+
				`"spec":{"replicas":%d,"selector":{"matchLabels":{"app":%q,"pod-template-hash":%q}},"template":%s},`+
				`"status":{"replicas":%d,"fullyLabeledReplicas":%d,"readyReplicas":%d,"availableReplicas":%d,"observedGeneration":1}}`,
				rsName, ns, rsUID, ts, name, hash, k+1, name, dUID, size, name, hash, template(img, hash), size, size, ready, ready)
			for p := range size {
				st := "True"
				if p >= ready {
					st = "False"
				}
				fmt.Fprintf(&b, `,{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s-%05d","namespace":%q,"uid":%q,"creationTimestamp":%q,"labels":{"app":%q,"pod-template-hash":%q},`+
					`"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":%q,"uid":%q,"controller":true}]},`+
					`"spec":{"nodeName":"node-%d"},"status":{"phase":"Running","conditions":[{"type":"Ready","status":%q}]}}`,
					rsName, p, ns, nextUID(), ts, name, hash, rsName, rsUID, (i*3+p)%100, st)
			}
		}
	}
	b.WriteString("]}\n")
	return b.Bytes()
}
