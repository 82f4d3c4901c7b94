package rollout_test

import (
	"fmt"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/rollout"
	"github.com/deploymath/deploymath/rollout/defaulting"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Benchmarks of one Plan call on Deployments of realistic size. The inputs
// are built once per sub-benchmark; Plan never mutates them, so every
// iteration plans the same sync.

var sinkResult *rollout.Result

// benchNow is the instant of every benchmarked sync.
var benchNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// benchTemplate is a production-like pod template (two containers with env,
// probes, resources and mounts; three volumes; anti-affinity) running image.
func benchTemplate(image string) corev1.PodTemplateSpec {
	grace := int64(30)
	mode := int32(0o644)
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{
			Labels:      map[string]string{"app": "web", "tier": "frontend"},
			Annotations: map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "9090"},
		},
		Spec: corev1.PodSpec{
			Volumes: []corev1.Volume{
				{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}, DefaultMode: &mode}}},
				{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "web-tls"}}},
				{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			},
			Containers: []corev1.Container{
				{
					Name:  "web",
					Image: image,
					Args:  []string{"--port=8080"},
					Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
					Env: []corev1.EnvVar{
						{Name: "LOG_LEVEL", Value: "info"},
						{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
							LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Key: "password"}}},
					},
					Resources: corev1.ResourceRequirements{
						Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("512Mi")},
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
					},
					VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/web"}, {Name: "tls", MountPath: "/etc/tls"}},
					ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
						Path: "/ready", Port: intstr.FromString("http")}}, PeriodSeconds: 5},
					LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
						Path: "/healthz", Port: intstr.FromString("http")}}, PeriodSeconds: 10},
					ImagePullPolicy: corev1.PullIfNotPresent,
				},
				{
					Name:  "proxy",
					Image: "registry.example.com/proxy:2.4",
					Resources: corev1.ResourceRequirements{
						Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")},
					},
				},
			},
			TerminationGracePeriodSeconds: &grace,
			Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
					Weight: 100,
					PodAffinityTerm: corev1.PodAffinityTerm{
						LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
						TopologyKey:   "kubernetes.io/hostname",
					},
				}},
			}},
		},
	}
}

// benchImage is the image of revision rev.
func benchImage(rev int) string {
	return "registry.example.com/web:1." + strconv.Itoa(rev) + ".0"
}

// benchDeployment is the defaulted Deployment "web" with replicas pods of
// image revision rev and the given strategy, observed at its generation.
func benchDeployment(replicas int32, rev int, strategy appsv1.DeploymentStrategyType) *appsv1.Deployment {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name: "web", Namespace: "prod", UID: "deploy-uid", Generation: 7,
			CreationTimestamp: metav1.NewTime(benchNow.Add(-30 * 24 * time.Hour)),
			Annotations:       map[string]string{"deployment.kubernetes.io/revision": strconv.Itoa(rev)},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "tier": "frontend"}},
			Template: benchTemplate(benchImage(rev)),
			Strategy: appsv1.DeploymentStrategy{Type: strategy},
		},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 6, Replicas: replicas},
	}
	d = rollout.Default(d)
	if strategy == appsv1.RollingUpdateDeploymentStrategyType {
		// Keep every old ReplicaSet in the history so that the plan looks
		// at all of them.
		limit := int32(1 << 20)
		d.Spec.RevisionHistoryLimit = &limit
	}
	return d
}

// benchReplicaSet is the ReplicaSet of d for image revision rev, created
// age ago, with spec.replicas = size and all its pods ready and available.
func benchReplicaSet(d *appsv1.Deployment, rev int, size int32, age time.Duration) *appsv1.ReplicaSet {
	// The ReplicaSet's template as the API server stores it: defaulted, like
	// the Deployment's (rollout.Default).
	raw := benchTemplate(benchImage(rev))
	tpl := *defaulting.PodTemplate(&raw)
	hash := hashing.PodTemplateHash(&tpl, nil)
	withHash := hashing.TemplateWithHash(&tpl, hash)
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: d.Name + "-" + hash, Namespace: d.Namespace, UID: types.UID("rs-uid-" + strconv.Itoa(rev)),
			CreationTimestamp: metav1.NewTime(benchNow.Add(-age)),
			Labels:            hashing.LabelsWithHash(d.Spec.Template.Labels, hash),
			Annotations: map[string]string{
				"deployment.kubernetes.io/revision":         strconv.Itoa(rev),
				"deployment.kubernetes.io/desired-replicas": strconv.Itoa(int(*d.Spec.Replicas)),
				"deployment.kubernetes.io/max-replicas":     strconv.Itoa(int(*d.Spec.Replicas) + 3),
			},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))},
			Generation:      3,
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &size,
			Selector: hashing.SelectorWithHash(d.Spec.Selector, hash),
			Template: *withHash,
		},
		Status: appsv1.ReplicaSetStatus{
			Replicas: size, FullyLabeledReplicas: size, ReadyReplicas: size, AvailableReplicas: size,
			ObservedGeneration: 3,
		},
	}
}

// midRollout is a RollingUpdate Deployment of 10 replicas with n
// ReplicaSets: n-1 old ones (distinct images, revisions 1..n-1; all at 0
// but the latest old one, which still has 6 pods) and the new one (revision
// n, 4 pods). The slice is ordered newest first, as a lister might return
// it, so the plan has to sort it.
func midRollout(n int) rollout.Snapshot {
	d := benchDeployment(10, n, appsv1.RollingUpdateDeploymentStrategyType)
	rss := make([]*appsv1.ReplicaSet, 0, n)
	rss = append(rss, benchReplicaSet(d, n, 4, time.Minute))
	for rev := n - 1; rev >= 1; rev-- {
		size := int32(0)
		if rev == n-1 {
			size = 6
		}
		rss = append(rss, benchReplicaSet(d, rev, size, time.Duration(n-rev+1)*time.Hour))
	}
	return rollout.Snapshot{Deployment: d, ReplicaSets: rss, Now: benchNow}
}

// convergedSnapshot is a RollingUpdate Deployment of 10 replicas with n ReplicaSets
// whose rollout is complete and recorded: the sync a controller runs most
// often (resyncs, pod status changes), which writes nothing.
func convergedSnapshot(n int) rollout.Snapshot {
	s := midRollout(n)
	for i := 0; i < 10; i++ {
		r, err := rollout.Plan(s)
		if err != nil || len(r.Actions) == 0 {
			break
		}
		s, _ = rollout.Apply(s, r)
		for j, rs := range s.ReplicaSets {
			rs = rs.DeepCopy()
			size := *rs.Spec.Replicas
			zero := int32(0)
			rs.Status = appsv1.ReplicaSetStatus{Replicas: size, FullyLabeledReplicas: size, ReadyReplicas: size,
				AvailableReplicas: size, ObservedGeneration: rs.Generation, TerminatingReplicas: &zero}
			s.ReplicaSets[j] = rs
		}
	}
	return s
}

// recreateWithPods is a Recreate Deployment whose rollout has scaled its two
// old ReplicaSets to 0 and whose new ReplicaSet runs every pod: pods pods,
// nine in ten running under the new ReplicaSet and one in ten a Succeeded
// leftover of an old one. No old pod is running, so Plan looks at every pod.
func recreateWithPods(pods int) rollout.Snapshot {
	newPods := int32(pods - pods/10)
	d := benchDeployment(newPods, 3, appsv1.RecreateDeploymentStrategyType)
	newRS := benchReplicaSet(d, 3, newPods, time.Minute)
	old1 := benchReplicaSet(d, 1, 0, 2*time.Hour)
	old2 := benchReplicaSet(d, 2, 0, time.Hour)
	owners := []*appsv1.ReplicaSet{old1, old2}
	out := make([]*corev1.Pod, pods)
	for i := range out {
		owner, phase := newRS, corev1.PodRunning
		if i%10 == 9 {
			owner, phase = owners[i%2], corev1.PodSucceeded
		}
		out[i] = &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("%s-%05d", owner.Name, i), Namespace: d.Namespace, UID: types.UID(fmt.Sprintf("pod-%d", i)),
				Labels:          owner.Spec.Template.Labels,
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(owner, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))},
			},
			Status: corev1.PodStatus{Phase: phase},
		}
	}
	return rollout.Snapshot{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{newRS, old2, old1}, Pods: out, Now: benchNow}
}

func benchPlan(b *testing.B, s rollout.Snapshot) {
	b.Helper()
	if _, err := rollout.Plan(s); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		r, err := rollout.Plan(s)
		if err != nil {
			b.Fatal(err)
		}
		sinkResult = r
	}
}

// BenchmarkPlan times one sync: RollingUpdate mid-rollout with 1, 10 and
// 100 ReplicaSets, and Recreate with 10, 1,000 and 10,000 pods (the only
// strategy that reads pods).
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		s := midRollout(n)
		b.Run(fmt.Sprintf("rolling/rs=%d", n), func(b *testing.B) { benchPlan(b, s) })
	}
	for _, n := range []int{1, 10, 100} {
		s := convergedSnapshot(n)
		b.Run(fmt.Sprintf("converged/rs=%d", n), func(b *testing.B) { benchPlan(b, s) })
	}
	for _, n := range []int{10, 1000, 10000} {
		s := recreateWithPods(n)
		b.Run(fmt.Sprintf("recreate/pods=%d", n), func(b *testing.B) { benchPlan(b, s) })
	}
}

// TestBenchInputs checks that the benchmark inputs exercise what they
// claim: the mid-rollout plan finds the existing new ReplicaSet (it creates
// none), and the Recreate plan neither creates a ReplicaSet nor waits for a
// running old pod.
func TestBenchInputs(t *testing.T) {
	for _, n := range []int{1, 10, 100} {
		r, err := rollout.Plan(midRollout(n))
		if err != nil {
			t.Fatalf("rs=%d: %v", n, err)
		}
		for _, a := range r.Actions {
			if _, ok := a.(rollout.CreateReplicaSet); ok {
				t.Fatalf("rs=%d: plan creates a ReplicaSet: the new one was not found\n%s", n, r.Explain())
			}
		}
	}
	for _, n := range []int{1, 10, 100} {
		r, err := rollout.Plan(convergedSnapshot(n))
		if err != nil || len(r.Actions) != 0 {
			t.Fatalf("converged rs=%d: err %v, plan:\n%s", n, err, r.Explain())
		}
	}
	for _, n := range []int{10, 1000} {
		r, err := rollout.Plan(recreateWithPods(n))
		if err != nil {
			t.Fatalf("pods=%d: %v", n, err)
		}
		for _, a := range r.Actions {
			if _, ok := a.(rollout.CreateReplicaSet); ok {
				t.Fatalf("pods=%d: plan creates a ReplicaSet\n%s", n, r.Explain())
			}
		}
		for _, note := range r.Notes {
			if len(note) >= 9 && note[:9] == "Recreate:" && note != "Recreate: no old pod is running any more" {
				t.Fatalf("pods=%d: unexpected note %q\n%s", n, note, r.Explain())
			}
		}
	}
}

// TestQuietPlanAllocations pins how many allocations a quiet plan makes,
// at today's counts: a converged sync (the Result, the list of claimed
// ReplicaSets, the old-ReplicaSet list) and the mid-rollout sync of BenchmarkPlan, which
// records a revision, scales, and is then stopped by the conflict its
// second Deployment write would meet (explaining that costs a dozen). A new
// allocation on these paths (an escaping planner, say) fails here rather
// than only in a benchmark nobody reads.
func TestQuietPlanAllocations(t *testing.T) {
	quiet := rollout.Options{Quiet: true}
	for _, c := range []struct {
		name string
		s    rollout.Snapshot
		max  float64
	}{
		{"converged", convergedSnapshot(1), 3},
		{"rolling/rs=1", midRollout(1), 31},
	} {
		// The least of a few measurements: allocations by goroutines of
		// other tests can only add to a count.
		n := math.Inf(1)
		for range 5 {
			n = min(n, testing.AllocsPerRun(100, func() {
				if _, err := rollout.PlanWith(c.s, quiet); err != nil {
					t.Fatal(err)
				}
			}))
		}
		if raceEnabled {
			c.max += 3 // the race detector's instrumentation moves a few values to the heap
		}
		if n > c.max {
			t.Errorf("%s: %v allocations per plan, want at most %v", c.name, n, c.max)
		}
		t.Logf("%s: %v allocations", c.name, n)
	}
}
