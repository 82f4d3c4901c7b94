package hashing

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"
)

// Generators of rich pod templates for the property tests. They cover what
// the hash is sensitive to: nil versus empty maps and slices, pointers set or
// unset (and, sometimes, one pointer shared by several fields, which spew
// prints as <shown>), quantities in every internal form, unicode strings,
// times with and without a location.

var (
	genName = rapid.OneOf(
		rapid.SampledFrom([]string{"web", "db", "cache", "a", "", "pod-template-hash", "app"}),
		rapid.StringMatching(`[a-z][a-z0-9-]{0,12}`),
	)
	genText = rapid.OneOf(
		genName,
		rapid.SampledFrom([]string{"日本語", "ünïcødé", "emoji 🚀", "with space", "a:b", "map[x:y]", "{}", "<nil>", "\x00\xff"}),
		rapid.String(),
	)
	genStringMap = rapid.OneOf(
		rapid.Just[map[string]string](nil),
		rapid.Just(map[string]string{}),
		rapid.MapOfN(genText, genText, 1, 6),
	)
	genStrings = rapid.OneOf(
		rapid.Just[[]string](nil),
		rapid.Just([]string{}),
		rapid.SliceOfN(genText, 1, 4),
	)
)

// sharedPtrs holds pointers a template may reuse in several fields, so that
// the generator also produces aliased pointers.
type sharedPtrs struct {
	i64  *int64
	i32  *int32
	b    *bool
	used bool
}

func drawInt64Ptr(t *rapid.T, sp *sharedPtrs, label string) *int64 {
	switch rapid.IntRange(0, 3).Draw(t, label) {
	case 0:
		return nil
	case 1:
		sp.used = true
		return sp.i64
	default:
		return ptrTo(rapid.Int64().Draw(t, label+".v"))
	}
}

func drawInt32Ptr(t *rapid.T, sp *sharedPtrs, label string) *int32 {
	switch rapid.IntRange(0, 3).Draw(t, label) {
	case 0:
		return nil
	case 1:
		sp.used = true
		return sp.i32
	default:
		return ptrTo(rapid.Int32().Draw(t, label+".v"))
	}
}

func drawBoolPtr(t *rapid.T, sp *sharedPtrs, label string) *bool {
	switch rapid.IntRange(0, 3).Draw(t, label) {
	case 0:
		return nil
	case 1:
		sp.used = true
		return sp.b
	default:
		return ptrTo(rapid.Bool().Draw(t, label+".v"))
	}
}

// drawQuantity returns quantities in their different internal forms: parsed
// (string cached), constructed (no cached string), big decimal (inf.Dec).
func drawQuantity(t *rapid.T, label string) resource.Quantity {
	switch rapid.IntRange(0, 5).Draw(t, label) {
	case 0:
		return resource.MustParse(rapid.SampledFrom([]string{
			"0", "1", "100m", "250m", "1.5", "64Mi", "1Gi", "2G", "1e3", "12345678901234567890", "0.000000001", "1.5e100", "-3",
		}).Draw(t, label+".s"))
	case 1:
		return *resource.NewQuantity(rapid.Int64Range(-1<<40, 1<<40).Draw(t, label+".n"), resource.BinarySI)
	case 2:
		return *resource.NewMilliQuantity(rapid.Int64Range(0, 1<<30).Draw(t, label+".m"), resource.DecimalSI)
	case 3:
		return *resource.NewScaledQuantity(rapid.Int64Range(0, 1<<20).Draw(t, label+".n"), resource.Scale(rapid.IntRange(-9, 9).Draw(t, label+".sc")))
	case 4:
		q := resource.MustParse("1.5e100")
		q.Add(resource.MustParse("3"))
		return q
	default:
		q := resource.MustParse("1Gi")
		_ = q.String() // fills the cached string
		return q
	}
}

func drawResourceList(t *rapid.T, label string) corev1.ResourceList {
	switch rapid.IntRange(0, 3).Draw(t, label) {
	case 0:
		return nil
	case 1:
		return corev1.ResourceList{}
	}
	names := rapid.SliceOfNDistinct(rapid.SampledFrom([]corev1.ResourceName{
		corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, "nvidia.com/gpu", "hugepages-2Mi",
	}), 1, 4, func(n corev1.ResourceName) corev1.ResourceName { return n }).Draw(t, label+".names")
	rl := corev1.ResourceList{}
	for i, n := range names {
		rl[n] = drawQuantity(t, fmt.Sprintf("%s.q%d", label, i))
	}
	return rl
}

func drawEnv(t *rapid.T, label string) []corev1.EnvVar {
	n := rapid.IntRange(-1, 4).Draw(t, label+".n")
	if n < 0 {
		return nil
	}
	env := make([]corev1.EnvVar, n)
	for i := range env {
		l := fmt.Sprintf("%s[%d]", label, i)
		env[i].Name = genName.Draw(t, l+".name")
		switch rapid.IntRange(0, 4).Draw(t, l+".kind") {
		case 0:
			env[i].Value = genText.Draw(t, l+".value")
		case 1:
			env[i].ValueFrom = &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: genName.Draw(t, l+".cm")},
				Key:                  genName.Draw(t, l+".key"),
				Optional:             rapid.Ptr(rapid.Bool(), true).Draw(t, l+".opt"),
			}}
		case 2:
			env[i].ValueFrom = &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: genName.Draw(t, l+".sec")},
				Key:                  genName.Draw(t, l+".key"),
			}}
		case 3:
			env[i].ValueFrom = &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}
		default:
			env[i].ValueFrom = &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{
				ContainerName: genName.Draw(t, l+".c"),
				Resource:      "limits.memory",
				Divisor:       drawQuantity(t, l+".div"),
			}}
		}
	}
	return env
}

func drawProbe(t *rapid.T, sp *sharedPtrs, label string) *corev1.Probe {
	if rapid.IntRange(0, 2).Draw(t, label) == 0 {
		return nil
	}
	p := &corev1.Probe{
		InitialDelaySeconds:           rapid.Int32Range(0, 60).Draw(t, label+".delay"),
		PeriodSeconds:                 rapid.Int32Range(0, 60).Draw(t, label+".period"),
		TerminationGracePeriodSeconds: drawInt64Ptr(t, sp, label+".grace"),
	}
	switch rapid.IntRange(0, 3).Draw(t, label+".kind") {
	case 0:
		p.Exec = &corev1.ExecAction{Command: genStrings.Draw(t, label+".cmd")}
	case 1:
		port := intstr.FromInt32(rapid.Int32Range(1, 65535).Draw(t, label+".port"))
		if rapid.Bool().Draw(t, label+".named") {
			port = intstr.FromString(genName.Draw(t, label+".pname"))
		}
		p.HTTPGet = &corev1.HTTPGetAction{Path: genText.Draw(t, label+".path"), Port: port,
			HTTPHeaders: []corev1.HTTPHeader{{Name: "X-A", Value: genText.Draw(t, label+".h")}}}
	case 2:
		p.TCPSocket = &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}
	default:
		p.GRPC = &corev1.GRPCAction{Port: 9000, Service: rapid.Ptr(genName, true).Draw(t, label+".svc")}
	}
	return p
}

func drawContainer(t *rapid.T, sp *sharedPtrs, label string) corev1.Container {
	c := corev1.Container{
		Name:    genName.Draw(t, label+".name"),
		Image:   genText.Draw(t, label+".image"),
		Command: genStrings.Draw(t, label+".command"),
		Args:    genStrings.Draw(t, label+".args"),
		Env:     drawEnv(t, label+".env"),
		Resources: corev1.ResourceRequirements{
			Limits:   drawResourceList(t, label+".limits"),
			Requests: drawResourceList(t, label+".requests"),
		},
		LivenessProbe:   drawProbe(t, sp, label+".liveness"),
		ReadinessProbe:  drawProbe(t, sp, label+".readiness"),
		ImagePullPolicy: rapid.SampledFrom([]corev1.PullPolicy{"", corev1.PullAlways, corev1.PullIfNotPresent}).Draw(t, label+".pull"),
		TTY:             rapid.Bool().Draw(t, label+".tty"),
	}
	if rapid.Bool().Draw(t, label+".envFrom") {
		c.EnvFrom = []corev1.EnvFromSource{
			{Prefix: genName.Draw(t, label+".prefix"), ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}},
			{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "sec"}, Optional: drawBoolPtr(t, sp, label+".optional")}},
		}
	}
	if rapid.Bool().Draw(t, label+".ports") {
		c.Ports = []corev1.ContainerPort{{Name: genName.Draw(t, label+".pname"), ContainerPort: rapid.Int32Range(1, 65535).Draw(t, label+".port"), Protocol: corev1.ProtocolTCP}}
	}
	if rapid.Bool().Draw(t, label+".secctx") {
		c.SecurityContext = &corev1.SecurityContext{
			RunAsUser:    drawInt64Ptr(t, sp, label+".runAsUser"),
			RunAsGroup:   drawInt64Ptr(t, sp, label+".runAsGroup"),
			RunAsNonRoot: drawBoolPtr(t, sp, label+".nonRoot"),
			Privileged:   drawBoolPtr(t, sp, label+".privileged"),
		}
	}
	return c
}

func drawVolume(t *rapid.T, sp *sharedPtrs, label string) corev1.Volume {
	v := corev1.Volume{Name: genName.Draw(t, label+".name")}
	switch rapid.IntRange(0, 6).Draw(t, label+".kind") {
	case 0:
		v.ConfigMap = &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: genName.Draw(t, label+".cm")},
			Items:                []corev1.KeyToPath{{Key: "k", Path: "p", Mode: drawInt32Ptr(t, sp, label+".mode")}},
			DefaultMode:          drawInt32Ptr(t, sp, label+".defaultMode"),
		}
	case 1:
		v.Secret = &corev1.SecretVolumeSource{SecretName: genName.Draw(t, label+".secret"), Optional: drawBoolPtr(t, sp, label+".opt")}
	case 2:
		v.EmptyDir = &corev1.EmptyDirVolumeSource{}
		if rapid.Bool().Draw(t, label+".sized") {
			v.EmptyDir.SizeLimit = ptrTo(drawQuantity(t, label+".size"))
		}
	case 3:
		v.HostPath = &corev1.HostPathVolumeSource{Path: genText.Draw(t, label+".path"),
			Type: rapid.Ptr(rapid.SampledFrom([]corev1.HostPathType{corev1.HostPathDirectory, corev1.HostPathFile}), true).Draw(t, label+".type")}
	case 4:
		v.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: genName.Draw(t, label+".claim"), ReadOnly: rapid.Bool().Draw(t, label+".ro")}
	case 5:
		v.Projected = &corev1.ProjectedVolumeSource{
			Sources: []corev1.VolumeProjection{
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}},
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: drawInt64Ptr(t, sp, label+".exp")}},
			},
			DefaultMode: drawInt32Ptr(t, sp, label+".mode"),
		}
	default:
		v.DownwardAPI = &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{{
			Path:             "mem",
			ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.memory", Divisor: drawQuantity(t, label+".div")},
		}}}
	}
	return v
}

func drawAffinity(t *rapid.T, label string) *corev1.Affinity {
	if rapid.IntRange(0, 2).Draw(t, label) == 0 {
		return nil
	}
	return &corev1.Affinity{
		NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
				Key: genName.Draw(t, label+".key"), Operator: corev1.NodeSelectorOpIn, Values: genStrings.Draw(t, label+".values"),
			}}}},
		}},
		PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
			Weight: rapid.Int32Range(1, 100).Draw(t, label+".weight"),
			PodAffinityTerm: corev1.PodAffinityTerm{
				LabelSelector: &metav1.LabelSelector{MatchLabels: genStringMap.Draw(t, label+".match")},
				TopologyKey:   "kubernetes.io/hostname",
			},
		}}},
	}
}

func drawTime(t *rapid.T, label string) metav1.Time {
	switch rapid.IntRange(0, 3).Draw(t, label) {
	case 0:
		return metav1.Time{}
	case 1:
		return metav1.NewTime(time.Unix(rapid.Int64Range(0, 1<<32).Draw(t, label+".unix"), 0).UTC())
	case 2:
		return metav1.NewTime(time.Date(2024, 5, 6, 7, 8, 9, 10, time.FixedZone("X", 3600)))
	default:
		// A time with a monotonic reading and a non-nil location pointer.
		return metav1.NewTime(time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC).In(time.FixedZone("Y", -7200)))
	}
}

// genTemplate draws a rich pod template.
var genTemplate = rapid.Custom(func(t *rapid.T) *corev1.PodTemplateSpec {
	sp := &sharedPtrs{i64: ptrTo[int64](30), i32: ptrTo[int32](0o644), b: ptrTo(true)}
	tpl := &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{
			Name:              genText.Draw(t, "name"),
			Labels:            genStringMap.Draw(t, "labels"),
			Annotations:       genStringMap.Draw(t, "annotations"),
			Finalizers:        genStrings.Draw(t, "finalizers"),
			CreationTimestamp: drawTime(t, "creationTimestamp"),
		},
	}
	// Shallow pointers stay in spew's pointer map while it walks the
	// containers, so sharing one with a container field prints <shown>.
	tpl.DeletionGracePeriodSeconds = drawInt64Ptr(t, sp, "deletionGracePeriodSeconds")
	if rapid.IntRange(0, 4).Draw(t, "hashLabel") == 0 {
		tpl.Labels = LabelsWithHash(tpl.Labels, genName.Draw(t, "hash"))
	}
	s := &tpl.Spec
	for i := range rapid.IntRange(-1, 2).Draw(t, "volumes") + 1 {
		if i == 0 {
			s.Volumes = []corev1.Volume{}
			continue
		}
		s.Volumes = append(s.Volumes, drawVolume(t, sp, fmt.Sprintf("volume%d", i)))
	}
	for i := range rapid.IntRange(0, 2).Draw(t, "initContainers") {
		s.InitContainers = append(s.InitContainers, drawContainer(t, sp, fmt.Sprintf("init%d", i)))
	}
	for i := range rapid.IntRange(0, 3).Draw(t, "containers") {
		s.Containers = append(s.Containers, drawContainer(t, sp, fmt.Sprintf("container%d", i)))
	}
	s.TerminationGracePeriodSeconds = drawInt64Ptr(t, sp, "terminationGracePeriodSeconds")
	s.ActiveDeadlineSeconds = drawInt64Ptr(t, sp, "activeDeadlineSeconds")
	s.NodeSelector = genStringMap.Draw(t, "nodeSelector")
	s.AutomountServiceAccountToken = drawBoolPtr(t, sp, "automount")
	s.Affinity = drawAffinity(t, "affinity")
	s.Priority = drawInt32Ptr(t, sp, "priority")
	s.Overhead = drawResourceList(t, "overhead")
	if rapid.Bool().Draw(t, "tolerations") {
		s.Tolerations = []corev1.Toleration{
			{Key: genName.Draw(t, "tolKey"), Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: drawInt64Ptr(t, sp, "tolSeconds")},
			{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: genText.Draw(t, "tolValue")},
		}
	}
	if rapid.Bool().Draw(t, "podSecurityContext") {
		s.SecurityContext = &corev1.PodSecurityContext{
			FSGroup:            drawInt64Ptr(t, sp, "fsGroup"),
			RunAsUser:          drawInt64Ptr(t, sp, "podRunAsUser"),
			SupplementalGroups: []int64{1, 2, rapid.Int64().Draw(t, "group")},
			Sysctls:            []corev1.Sysctl{{Name: "net.core.somaxconn", Value: "1024"}},
		}
	}
	s.RestartPolicy = rapid.SampledFrom([]corev1.RestartPolicy{"", corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure}).Draw(t, "restartPolicy")
	return tpl
})
