package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// TestDescribePodTemplate: a template with every part kubectl describes,
// against the text read off kubectl v1.37's describe.go (DescribePodTemplate
// and the functions it calls): two spaces a level, tabs between fields and
// values, sorted labels, annotations, mounts, constraints and
// tolerations, kubectl's quirks (a CSI attribute's continuation indent,
// PodGroupName at the header's level) and terminal escapes neutralised.
// The template is not modified.
func TestDescribePodTemplate(t *testing.T) {
	q := resource.MustParse
	long := strings.Repeat("a", 150)
	tmpl := &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{
			Labels: map[string]string{"tier": "front", "app": "web"},
			Annotations: map[string]string{"short": "v", "note": "multi\nline", "long": long,
				corev1.LastAppliedConfigAnnotation: "{}"},
		},
		Spec: corev1.PodSpec{
			ServiceAccountName: "web-sa",
			InitContainers: []corev1.Container{{Name: "init", Image: "busybox", Command: []string{"sh", "-c", "echo hi\necho there"},
				// no limit: the value is 0, which kubectl calls node allocatable
				Env: []corev1.EnvVar{{Name: "M", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.memory"}}}}}},
			Containers: []corev1.Container{{
				Name: "web", Image: "web:2",
				Ports:           []corev1.ContainerPort{{Name: "http", ContainerPort: 80, Protocol: "TCP"}, {ContainerPort: 443, HostPort: 8443, Protocol: "TCP"}},
				SecurityContext: &corev1.SecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost, LocalhostProfile: ptr.To("p.json")}},
				Args:            []string{"--v=2"},
				Resources: corev1.ResourceRequirements{
					Limits:   corev1.ResourceList{"memory": q("128Mi"), "cpu": q("500m")},
					Requests: corev1.ResourceList{"cpu": q("250m")},
				},
				LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080), Scheme: "HTTP"}},
					InitialDelaySeconds: 5, TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/tmp/ready"}}},
					TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3},
				StartupProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(80)}},
					TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 30},
				EnvFrom: []corev1.EnvFromSource{{Prefix: "P_", ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}},
				Env: []corev1.EnvVar{
					{Name: "A", Value: "1\x1b"},
					{Name: "B", Value: "x\ny"},
					{Name: "POD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}},
					{Name: "MEM", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.memory", Divisor: q("1Mi")}}},
					{Name: "CPU", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu"}}},
					{Name: "REQ", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "requests.memory"}}},
					{Name: "BAD", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.gpu"}}},
					{Name: "SEC", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}, Key: "k"}}},
					{Name: "CM", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "c"}, Key: "k", Optional: ptr.To(true)}}},
				},
				VolumeMounts:  []corev1.VolumeMount{{Name: "cfg", MountPath: "/etc/cfg", ReadOnly: true, SubPath: "app.conf"}, {Name: "data", MountPath: "/data"}},
				VolumeDevices: []corev1.VolumeDevice{{Name: "blk", DevicePath: "/dev/xvda"}},
			}},
			Volumes: []corev1.Volume{
				{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: "Memory", SizeLimit: ptr.To(q("1Gi"))}}},
				{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}},
				{Name: "sec", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s", Optional: ptr.To(true)}}},
				{Name: "pvc", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "claim"}}},
				{Name: "proj", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
					{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "s2"}}},
					{DownwardAPI: &corev1.DownwardAPIProjection{}},
					{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "c2"}, Optional: ptr.To(true)}},
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](3600)}},
				}}}},
				{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/log", Type: ptr.To(corev1.HostPathDirectory)}}},
				{Name: "dapi", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}}}}}},
				{Name: "csi", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "x", VolumeAttributes: map[string]string{"b": "2", "a": "1"}}}},
				{Name: "git", VolumeSource: corev1.VolumeSource{GitRepo: &corev1.GitRepoVolumeSource{Repository: "r"}}},
			},
			TopologySpreadConstraints: []corev1.TopologySpreadConstraint{
				{TopologyKey: "zone", MaxSkew: 2, WhenUnsatisfiable: corev1.ScheduleAnyway},
				{TopologyKey: "host", MaxSkew: 1, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
			},
			PriorityClassName: "high",
			NodeSelector:      map[string]string{"disk": "ssd"},
			Tolerations: []corev1.Toleration{
				{Key: "k2", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
				{Key: "k1", Operator: corev1.TolerationOpEqual, Value: "v", Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)},
				{Operator: corev1.TolerationOpExists},
			},
			SchedulingGroup: &corev1.PodSchedulingGroup{PodGroupName: ptr.To("pg")},
		},
	}
	before := tmpl.DeepCopy()
	want := "Pod Template:\n" +
		"  Labels:\tapp=web\n" +
		"\ttier=front\n" +
		"  Annotations:\tlong:\n" +
		"\t  " + long[:138] + "...\n" +
		"\tnote:\n" +
		"\t  multi\n" +
		"\t  line\n" +
		"\tshort: v\n" +
		"  Service Account:\tweb-sa\n" +
		"  Init Containers:\n" +
		"   init:\n" +
		"    Image:\tbusybox\n" +
		"    Port:\t<none>\n" +
		"    Host Port:\t<none>\n" +
		"    Command:\n" +
		"      sh\n" +
		"      -c\n" +
		"      echo hi\n" +
		"      echo there\n" +
		"    Environment:\n" +
		"      M:\tnode allocatable (limits.memory)\n" +
		"    Mounts:\t<none>\n" +
		"  Containers:\n" +
		"   web:\n" +
		"    Image:\tweb:2\n" +
		"    Ports:\t80/TCP (http), 443/TCP\n" +
		"    Host Ports:\t0/TCP (http), 8443/TCP\n" +
		"    SeccompProfile:\tLocalhost\n" +
		"      LocalhostProfile:\tp.json\n" +
		"    Args:\n" +
		"      --v=2\n" +
		"    Limits:\n" +
		"      cpu:\t500m\n" +
		"      memory:\t128Mi\n" +
		"    Requests:\n" +
		"      cpu:\t250m\n" +
		"    Liveness:\thttp-get http://:8080/healthz delay=5s timeout=1s period=10s successThreshold=1 failureThreshold=3\n" +
		"    Readiness:\texec [cat /tmp/ready] delay=0s timeout=1s period=10s successThreshold=1 failureThreshold=3\n" +
		"    Startup:\ttcp-socket :80 delay=0s timeout=1s period=10s successThreshold=1 failureThreshold=30\n" +
		"    Environment Variables from:\n" +
		"      cfg\tConfigMap with prefix 'P_'\tOptional: false\n" +
		"    Environment:\n" +
		"      A:\t1^[\n" +
		"      B:\tx\n" +
		"      \ty\n" +
		"      POD:\t (v1:metadata.name)\n" +
		"      MEM:\t128 (limits.memory)\n" +
		"      CPU:\t1 (limits.cpu)\n" +
		"      REQ:\t0 (requests.memory)\n" +
		"      BAD:\t (limits.gpu)\n" +
		"      SEC:\t<set to the key 'k' in secret 's'>\tOptional: false\n" +
		"      CM:\t<set to the key 'k' of config map 'c'>\tOptional: true\n" +
		"    Mounts:\n" +
		"      /data from data (rw)\n" +
		"      /etc/cfg from cfg (ro,path=\"app.conf\")\n" +
		"    Devices:\n" +
		"      /dev/xvda from blk\n" +
		"  Volumes:\n" +
		"   data:\n" +
		"    Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n" +
		"    Medium:\tMemory\n" +
		"    SizeLimit:\t1Gi\n" +
		"   cfg:\n" +
		"    Type:\tConfigMap (a volume populated by a ConfigMap)\n" +
		"    Name:\tcfg\n" +
		"    Optional:\tfalse\n" +
		"   sec:\n" +
		"    Type:\tSecret (a volume populated by a Secret)\n" +
		"    SecretName:\ts\n" +
		"    Optional:\ttrue\n" +
		"   pvc:\n" +
		"    Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n" +
		"    ClaimName:\tclaim\n" +
		"    ReadOnly:\tfalse\n" +
		"   proj:\n" +
		"    Type:\tProjected (a volume that contains injected data from multiple sources)\n" +
		"    SecretName:\ts2\n" +
		"    Optional:\tfalse\n" +
		"    DownwardAPI:\ttrue\n" +
		"    ConfigMapName:\tc2\n" +
		"    Optional:\ttrue\n" +
		"    TokenExpirationSeconds:\t3600\n" +
		"   host:\n" +
		"    Type:\tHostPath (bare host directory volume)\n" +
		"    Path:\t/var/log\n" +
		"    HostPathType:\tDirectory\n" +
		"   dapi:\n" +
		"    Type:\tDownwardAPI (a volume populated by information about the pod)\n" +
		"    Items:\n" +
		"      metadata.labels -> labels\n" +
		"   csi:\n" +
		"    Type:\tCSI (a Container Storage Interface (CSI) volume source)\n" +
		"    Driver:\tx\n" +
		"    FSType:\t\n" +
		"    ReadOnly:\tfalse\n" +
		"    VolumeAttributes:\t    a=1\n" +
		"        \t    b=2\n" +
		"   git:\n" +
		"    Type:\tgitRepo (not described further by deploysim)\n" +
		"  Topology Spread Constraints:\thost:DoNotSchedule when max skew 1 is exceeded for selector app=web\n" +
		"  \tzone:ScheduleAnyway when max skew 2 is exceeded\n" +
		"  Priority Class Name:\thigh\n" +
		"  Node-Selectors:\tdisk=ssd\n" +
		"  Tolerations:\top=Exists\n" +
		"\tk1=v:NoExecute for 300s\n" +
		"\tk2:NoSchedule op=Exists\n" +
		"  SchedulingGroup:\n" +
		"  PodGroupName:\tpg\n"
	if got := describePodTemplate(tmpl); got != want {
		t.Errorf("(-want +got):\n%s", cmp.Diff(strings.Split(want, "\n"), strings.Split(got, "\n")))
	}
	if !cmp.Equal(before, tmpl) {
		t.Errorf("describePodTemplate modified its input: %s", cmp.Diff(before, tmpl))
	}
}
