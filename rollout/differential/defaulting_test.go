package differential

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/deploymath/deploymath/hashing"
	"github.com/deploymath/deploymath/rollout/defaulting"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// TestDefaulting compares defaulting.Deployment with the real v1.37.1
// defaulters (legacyscheme.Scheme.Default, as the API server runs them on
// a decoded apps/v1 Deployment) followed by the real storage round trip
// (storedByServer: the form the controller reads and hashes) on random
// Deployments as users write them, quantities spelled every way: the
// template equal to the stored one (with every internal form the hash
// covers: the same pod-template-hash), and the rest of the Deployment
// equal to the defaulters'.
func TestDefaulting(t *testing.T) {
	checks(t, 5000)
	rapid.Check(t, defaultingProperty)
}

// defaultingProperty is TestDefaulting's property (TestRecordedFailures
// replays its recorded failures).
func defaultingProperty(t *rapid.T) {
	in := genRawDeployment(t)
	want := in.DeepCopy()
	legacyscheme.Scheme.Default(want)
	stored, err := storedByServer(want)
	if err != nil {
		t.Fatal(err)
	}
	got := defaulting.Deployment(in)
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(appsv1.DeploymentSpec{}, "Template")); diff != "" {
		t.Fatalf("defaulting.Deployment differs from the real defaulters (-real +ours):\n%s", diff)
	}
	if diff := cmp.Diff(&stored.Spec.Template, &got.Spec.Template); diff != "" {
		t.Fatalf("the template differs from the one the server stores (-stored +ours):\n%s", diff)
	}
	if w, g := hashing.PodTemplateHash(&stored.Spec.Template, nil), hashing.PodTemplateHash(&got.Spec.Template, nil); w != g {
		t.Fatalf("pod-template-hash %s, the stored template's is %s", g, w)
	}
}

// TestDefaultingVectors checks testdata/defaulting/vectors.json against the
// real defaulters and storage: each raw template, as a Deployment's,
// defaults to the file's template and, stored, hashes to the file's hash.
func TestDefaultingVectors(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/defaulting/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Vectors []struct {
			Name      string          `json:"name"`
			Raw       json.RawMessage `json:"raw"`
			Defaulted json.RawMessage `json:"defaulted"`
			Hash      string          `json:"hash"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Vectors) == 0 {
		t.Fatal("no vectors")
	}
	for _, v := range f.Vectors {
		var d appsv1.Deployment
		var want corev1.PodTemplateSpec
		if err := json.Unmarshal(v.Raw, &d.Spec.Template); err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if err := json.Unmarshal(v.Defaulted, &want); err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		legacyscheme.Scheme.Default(&d)
		stored, err := storedByServer(&d)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if diff := cmp.Diff(&want, &stored.Spec.Template); diff != "" {
			t.Errorf("%s: the real defaulters and storage differ from the file (-file +real):\n%s", v.Name, diff)
		}
		if h := hashing.PodTemplateHash(&stored.Spec.Template, nil); h != v.Hash {
			t.Errorf("%s: the real defaulters and storage give hash %s, file says %s", v.Name, h, v.Hash)
		}
	}
}

// genRawDeployment draws a Deployment as a user might write it: most
// fields missing, some set (to defaults or to other values), every kind of
// volume, probe handler, env source and resource quantity the defaulters
// touch, and ephemeral containers (which validation refuses in templates,
// but the defaulter reaches).
func genRawDeployment(t *rapid.T) *appsv1.Deployment {
	g := rawGen{t}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", Labels: g.labels("labels")}}
	s := &d.Spec
	s.Replicas = g.i32p("replicas")
	s.Strategy.Type = appsv1.DeploymentStrategyType(g.str("strategy", "RollingUpdate", "Recreate", "Other"))
	if g.maybe("rollingUpdate") {
		s.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: g.intstrp("maxSurge"), MaxUnavailable: g.intstrp("maxUnavailable")}
	}
	s.RevisionHistoryLimit = g.i32p("revisionHistoryLimit")
	s.ProgressDeadlineSeconds = g.i32p("progressDeadlineSeconds")
	s.MinReadySeconds = g.i32("minReadySeconds")
	s.Paused = g.maybe("paused")
	s.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	s.Template.Labels = g.labels("template labels")
	if g.maybe("template annotations") {
		s.Template.Annotations = map[string]string{"a": g.str("annotation", "x")}
	}
	g.podSpec(&s.Template.Spec)
	return d
}

type rawGen struct{ t *rapid.T }

func (g rawGen) maybe(label string) bool { return rapid.Bool().Draw(g.t, label) }

func (g rawGen) n(label string, max int) int { return rapid.IntRange(0, max).Draw(g.t, label) }

// str draws "" or one of opts.
func (g rawGen) str(label string, opts ...string) string {
	return rapid.SampledFrom(append([]string{""}, opts...)).Draw(g.t, label)
}

func (g rawGen) strp(label string, opts ...string) *string {
	if !g.maybe(label + " set") {
		return nil
	}
	return ptr(g.str(label, opts...))
}

func (g rawGen) i32(label string) int32 {
	return rapid.SampledFrom([]int32{0, 0, 1, 2, 3, 10, 30, 600, -1}).Draw(g.t, label)
}

func (g rawGen) i32p(label string) *int32 {
	if !g.maybe(label + " set") {
		return nil
	}
	return ptr(g.i32(label))
}

func (g rawGen) i64p(label string) *int64 {
	if !g.maybe(label + " set") {
		return nil
	}
	return ptr(int64(g.i32(label)))
}

func (g rawGen) boolp(label string) *bool {
	if !g.maybe(label + " set") {
		return nil
	}
	return ptr(g.maybe(label))
}

func (g rawGen) intstrp(label string) *intstr.IntOrString {
	switch g.n(label, 2) {
	case 1:
		return ptr(intstr.FromInt32(g.i32(label + " int")))
	case 2:
		return ptr(intstr.FromString(g.str(label+" string", "25%", "0%", "1")))
	}
	return nil
}

func (g rawGen) labels(label string) map[string]string {
	switch g.n(label, 2) {
	case 1:
		return map[string]string{}
	case 2:
		return map[string]string{"app": "web"}
	}
	return nil
}

// quantity draws quantities spelled every way users and tools write them:
// decimal with and without a fraction ("0.5", ".5", "1.0"), every SI and
// binary suffix, exponents of both cases, values finer than a milli (the
// defaulter rounds them up), zero spelled many ways, negative ones, huge
// ones, and quantities built in Go rather than parsed.
func (g rawGen) quantity(label string) resource.Quantity {
	var s string
	if g.maybe(label + " listed") {
		s = rapid.SampledFrom([]string{
			"0", "1", "100m", "0.5", "1.5", "250u", "1u", "1n", "0.0001", "1e-7", "1Ki", "1Mi", "128Mi", "1Gi", "2G",
			"1.0001", "-1", "-1u", "123456789", "1E3", "0.001", "1m", "999999999999999999", "1Ei", "10e-4",
			"500m", "1.0", "1000m", "0.1", "0.5Gi", "512Mi", "2048Ki", "2Mi", "5e-1", "1E0", ".5", "1000M",
			"0.001953125Gi", "536870912", "1e9", "0m", "0.0", "0Gi", "0e3", "-0", "+1", "1000000u", "0.001k",
			"1.5Gi", "100Mi", "1Ti", "1Pi", "1P", "1E", "3.14159", "0.333333333333", "1e18", "1e-18", "9.999999999n",
		}).Draw(g.t, label)
	} else {
		// A number of random digits, a fraction, and a suffix.
		digits := func(l string, min int) string {
			return rapid.StringOfN(rapid.RuneFrom([]rune("0123456789")), min, 7, -1).Draw(g.t, l)
		}
		s = digits(label+" int", 1)
		if g.maybe(label + " fraction") {
			s += "." + digits(label+" frac", 1)
		}
		s += rapid.SampledFrom([]string{"", "", "m", "u", "n", "k", "M", "G", "T", "Ki", "Mi", "Gi", "Ti", "e3", "e-3", "E2", "e-9", "E0"}).Draw(g.t, label+" suffix")
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		q = resource.MustParse("1")
	}
	if g.maybe(label + " constructed") {
		// Quantities built in Go rather than parsed: other internal forms.
		switch g.n(label+" constructor", 2) {
		case 0:
			q = *resource.NewMilliQuantity(q.MilliValue(), q.Format)
		case 1:
			q = *resource.NewQuantity(q.Value(), q.Format)
		case 2:
			q = *resource.NewScaledQuantity(q.ScaledValue(resource.Micro), resource.Micro)
		}
	}
	return q
}

func (g rawGen) resources(label string) corev1.ResourceList {
	switch g.n(label, 2) {
	case 0:
		return nil
	case 1:
		return corev1.ResourceList{}
	}
	l := corev1.ResourceList{}
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, "hugepages-2Mi", "example.com/gpu"} {
		if g.maybe(label + " " + string(name)) {
			l[name] = g.quantity(label + " " + string(name) + " value")
		}
	}
	return l
}

// image draws a reference: well-formed ones of every shape, near misses,
// and random strings.
func (g rawGen) image(label string) string {
	const hex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	switch g.n(label+" kind", 3) {
	case 0:
		return rapid.SampledFrom([]string{
			"", "nginx", "nginx:latest", "nginx:1.14.2", "nginx:LATEST", "library/nginx", "docker.io/library/nginx:latest",
			"index.docker.io/nginx", "localhost/app", "localhost:5000/app:latest", "registry.example.com:5000/team/app",
			"REGISTRY/app", "[::1]:5000/app", "a_b.c/x", "Nginx", "team/Nginx", " nginx", "nginx:", "nginx:-x", hex,
			"nginx@sha256:" + hex, "nginx:latest@sha256:" + hex, "nginx@sha256:" + hex[:32], "nginx@md5:" + hex[:32],
			"nginx@sha256:0123456789ABCDEF" + hex[16:], "nginx@sha512:" + hex + hex, "nginx@sha384:" + hex + hex[:32],
			"a/" + strings.Repeat("a", 254), strings.Repeat("a", 247), strings.Repeat("a", 248), "a__b", "a___b", "a--b:latest",
			"a.b.c/d", "a:1/b", "UPPER.case/x:latest", "x/y/z:" + strings.Repeat("t", 128), "x:" + strings.Repeat("t", 129),
		}).Draw(g.t, label)
	case 1:
		// name [":" tag] ["@" digest] from parts.
		s := g.str(label+" domain", "docker.io/", "quay.io/", "localhost/", "localhost:5000/", "Host/", "my-registry.local:443/", "-bad/", "[fe80::1]/", "index.docker.io/", "library/")
		s += rapid.SampledFrom([]string{"app", "team/app", "a.b", "a_b", "a-b", "App", "a/b/c", "a..b", "_a", strings.Repeat("a", 247), strings.Repeat("a", 248), "b/" + strings.Repeat("a", 253)}).Draw(g.t, label+" path")
		s += g.str(label+" tag", ":latest", ":1", ":v1.2.3", ":Latest", ":_x", ":.x", ":")
		s += g.str(label+" digest", "@sha256:"+hex, "@sha256:"+hex[:63], "@foo:"+hex, "@sha256", "@sha256:0123456789ABCDEF"+hex[16:], "@md5:"+hex[:32], "@sha512:"+hex+hex)
		return s
	default:
		return rapid.StringOfN(rapid.SampledFrom([]rune("ab:/@.-_A0[]")), 0, 24, -1).Draw(g.t, label)
	}
}

func (g rawGen) httpGet(label string) *corev1.HTTPGetAction {
	return &corev1.HTTPGetAction{
		Path:   g.str(label+" path", "/", "/healthz"),
		Port:   intstr.FromInt32(8080),
		Scheme: corev1.URIScheme(g.str(label+" scheme", "HTTP", "HTTPS")),
	}
}

func (g rawGen) probe(label string) *corev1.Probe {
	if !g.maybe(label) {
		return nil
	}
	p := &corev1.Probe{
		InitialDelaySeconds:           g.i32(label + " initialDelaySeconds"),
		TimeoutSeconds:                g.i32(label + " timeoutSeconds"),
		PeriodSeconds:                 g.i32(label + " periodSeconds"),
		SuccessThreshold:              g.i32(label + " successThreshold"),
		FailureThreshold:              g.i32(label + " failureThreshold"),
		TerminationGracePeriodSeconds: g.i64p(label + " terminationGracePeriodSeconds"),
	}
	switch g.n(label+" handler", 4) {
	case 1:
		p.Exec = &corev1.ExecAction{Command: []string{"true"}}
	case 2:
		p.HTTPGet = g.httpGet(label + " httpGet")
	case 3:
		p.TCPSocket = &corev1.TCPSocketAction{Port: intstr.FromInt32(1)}
	case 4:
		p.GRPC = &corev1.GRPCAction{Port: 9090, Service: g.strp(label+" grpc service", "svc")}
	}
	return p
}

func (g rawGen) lifecycleHandler(label string) *corev1.LifecycleHandler {
	switch g.n(label, 4) {
	case 1:
		return &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh"}}}
	case 2:
		return &corev1.LifecycleHandler{HTTPGet: g.httpGet(label + " httpGet")}
	case 3:
		return &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 5}}
	case 4:
		return &corev1.LifecycleHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(1)}}
	}
	return nil
}

func (g rawGen) fieldRef(label string) *corev1.ObjectFieldSelector {
	return &corev1.ObjectFieldSelector{APIVersion: g.str(label+" apiVersion", "v1", "v2"), FieldPath: "metadata.name"}
}

func (g rawGen) container(label string) corev1.Container {
	c := corev1.Container{
		Name:                     label,
		Image:                    g.image(label + " image"),
		ImagePullPolicy:          corev1.PullPolicy(g.str(label+" imagePullPolicy", "Always", "Never", "IfNotPresent")),
		TerminationMessagePath:   g.str(label+" terminationMessagePath", "/dev/termination-log", "/tmp/x"),
		TerminationMessagePolicy: corev1.TerminationMessagePolicy(g.str(label+" terminationMessagePolicy", "File", "FallbackToLogsOnError")),
		WorkingDir:               g.str(label+" workingDir", "/w"),
		RestartPolicy:            (*corev1.ContainerRestartPolicy)(g.strp(label+" restartPolicy", "Always")),
	}
	for i := range g.n(label+" ports", 3) {
		c.Ports = append(c.Ports, corev1.ContainerPort{
			Name:          g.str(label+" port name", "http"),
			ContainerPort: int32(80 + i),
			HostPort:      g.i32(label + " hostPort"),
			Protocol:      corev1.Protocol(g.str(label+" protocol", "TCP", "UDP", "SCTP")),
		})
	}
	for range g.n(label+" env", 4) {
		e := corev1.EnvVar{Name: "E"}
		switch g.n(label+" env source", 5) {
		case 0:
			e.Value = g.str(label+" env value", "x")
		case 1:
			e.ValueFrom = &corev1.EnvVarSource{FieldRef: g.fieldRef(label + " env fieldRef")}
		case 2:
			e.ValueFrom = &corev1.EnvVarSource{FileKeyRef: &corev1.FileKeySelector{VolumeName: "v", Path: "p", Key: "k", Optional: g.boolp(label + " fileKeyRef optional")}}
		case 3:
			e.ValueFrom = &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}, Key: "k", Optional: g.boolp(label + " configMapKeyRef optional")}}
		case 4:
			e.ValueFrom = &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu", Divisor: g.quantity(label + " divisor")}}
		case 5:
			e.ValueFrom = &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}, Key: "k"}}
		}
		c.Env = append(c.Env, e)
	}
	if g.maybe(label + " envFrom") {
		c.EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}}
	}
	c.Resources.Limits = g.resources(label + " limits")
	c.Resources.Requests = g.resources(label + " requests")
	c.LivenessProbe = g.probe(label + " livenessProbe")
	c.ReadinessProbe = g.probe(label + " readinessProbe")
	c.StartupProbe = g.probe(label + " startupProbe")
	if g.maybe(label + " lifecycle") {
		c.Lifecycle = &corev1.Lifecycle{PostStart: g.lifecycleHandler(label + " postStart"), PreStop: g.lifecycleHandler(label + " preStop")}
	}
	if g.maybe(label + " securityContext") {
		c.SecurityContext = &corev1.SecurityContext{Privileged: g.boolp(label + " privileged"), RunAsUser: g.i64p(label + " runAsUser")}
	}
	if g.maybe(label + " volumeMounts") {
		c.VolumeMounts = []corev1.VolumeMount{{Name: "v0", MountPath: "/v"}}
	}
	return c
}

func (g rawGen) keyToPaths(label string) []corev1.KeyToPath {
	if !g.maybe(label) {
		return nil
	}
	return []corev1.KeyToPath{{Key: "k", Path: "p", Mode: g.i32p(label + " mode")}}
}

func (g rawGen) downwardItems(label string) []corev1.DownwardAPIVolumeFile {
	var out []corev1.DownwardAPIVolumeFile
	for range g.n(label, 2) {
		f := corev1.DownwardAPIVolumeFile{Path: "p", Mode: g.i32p(label + " mode")}
		if g.maybe(label + " fieldRef") {
			f.FieldRef = g.fieldRef(label)
		} else {
			f.ResourceFieldRef = &corev1.ResourceFieldSelector{ContainerName: "c0", Resource: "limits.memory", Divisor: g.quantity(label + " divisor")}
		}
		out = append(out, f)
	}
	return out
}

// volume draws a volume of any kind, with its defaulted fields missing or
// set.
func (g rawGen) volume(label string) corev1.Volume {
	v := corev1.Volume{Name: label}
	src := &v.VolumeSource
	switch g.n(label+" kind", 22) {
	case 0: // no source
	case 1:
		src.EmptyDir = &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMedium(g.str(label+" medium", "Memory"))}
		if g.maybe(label + " sizeLimit") {
			src.EmptyDir.SizeLimit = ptr(g.quantity(label + " sizeLimit value"))
		}
	case 2:
		src.HostPath = &corev1.HostPathVolumeSource{Path: "/x", Type: (*corev1.HostPathType)(g.strp(label+" hostPath type", "Directory", "FileOrCreate"))}
	case 3:
		src.Secret = &corev1.SecretVolumeSource{SecretName: "s", DefaultMode: g.i32p(label + " defaultMode"), Items: g.keyToPaths(label + " items"), Optional: g.boolp(label + " optional")}
	case 4:
		src.ConfigMap = &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}, DefaultMode: g.i32p(label + " defaultMode"), Items: g.keyToPaths(label + " items")}
	case 5:
		src.DownwardAPI = &corev1.DownwardAPIVolumeSource{DefaultMode: g.i32p(label + " defaultMode"), Items: g.downwardItems(label + " items")}
	case 6:
		p := &corev1.ProjectedVolumeSource{DefaultMode: g.i32p(label + " defaultMode")}
		for range g.n(label+" sources", 4) {
			var s corev1.VolumeProjection
			switch g.n(label+" source kind", 5) {
			case 0:
				s.Secret = &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}, Items: g.keyToPaths(label + " secret items")}
			case 1:
				s.ConfigMap = &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}
			case 2:
				s.DownwardAPI = &corev1.DownwardAPIProjection{Items: g.downwardItems(label + " downward items")}
			case 3:
				s.ServiceAccountToken = &corev1.ServiceAccountTokenProjection{Audience: g.str(label+" audience", "a"), ExpirationSeconds: g.i64p(label + " expirationSeconds"), Path: "token"}
			case 4:
				s.ClusterTrustBundle = &corev1.ClusterTrustBundleProjection{Name: g.strp(label+" bundle", "b"), Path: "b"}
			}
			p.Sources = append(p.Sources, s)
		}
		src.Projected = p
	case 7:
		src.ISCSI = &corev1.ISCSIVolumeSource{TargetPortal: "1.2.3.4", IQN: "iqn", ISCSIInterface: g.str(label+" iscsiInterface", "default", "tcp")}
	case 8:
		src.RBD = &corev1.RBDVolumeSource{CephMonitors: []string{"m"}, RBDImage: "i", RBDPool: g.str(label+" pool", "rbd", "p"), RadosUser: g.str(label+" user", "admin", "u"), Keyring: g.str(label+" keyring", "/k")}
	case 9:
		src.AzureDisk = &corev1.AzureDiskVolumeSource{DiskName: "d", DataDiskURI: "u",
			CachingMode: (*corev1.AzureDataDiskCachingMode)(g.strp(label+" cachingMode", "None", "ReadWrite")),
			FSType:      g.strp(label+" fsType", "xfs"),
			ReadOnly:    g.boolp(label + " readOnly"),
			Kind:        (*corev1.AzureDataDiskKind)(g.strp(label+" kind", "Managed", "Shared"))}
	case 10:
		src.ScaleIO = &corev1.ScaleIOVolumeSource{Gateway: "g", System: "s", SecretRef: &corev1.LocalObjectReference{Name: "s"},
			StorageMode: g.str(label+" storageMode", "ThickProvisioned"), FSType: g.str(label+" scaleIO fsType", "ext4")}
	case 11:
		src.Image = &corev1.ImageVolumeSource{Reference: g.image(label + " reference"), PullPolicy: corev1.PullPolicy(g.str(label+" pullPolicy", "Never", "Always"))}
	case 12:
		e := &corev1.EphemeralVolumeSource{}
		if g.maybe(label + " claimTemplate") {
			e.VolumeClaimTemplate = &corev1.PersistentVolumeClaimTemplate{Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				VolumeMode:  (*corev1.PersistentVolumeMode)(g.strp(label+" volumeMode", "Block", "Filesystem")),
				Resources:   corev1.VolumeResourceRequirements{Limits: g.resources(label + " claim limits"), Requests: g.resources(label + " claim requests")},
			}}
		}
		src.Ephemeral = e
	case 13:
		src.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}
	case 14:
		src.NFS = &corev1.NFSVolumeSource{Server: "s", Path: "/"}
	case 15:
		src.CSI = &corev1.CSIVolumeSource{Driver: "d", ReadOnly: g.boolp(label + " csi readOnly")}
	case 16:
		src.GitRepo = &corev1.GitRepoVolumeSource{Repository: "r"}
	case 17:
		src.AWSElasticBlockStore = &corev1.AWSElasticBlockStoreVolumeSource{VolumeID: "v"}
	case 18:
		src.GCEPersistentDisk = &corev1.GCEPersistentDiskVolumeSource{PDName: "p"}
	case 19:
		src.CephFS = &corev1.CephFSVolumeSource{Monitors: []string{"m"}}
	case 20:
		src.FC = &corev1.FCVolumeSource{TargetWWNs: []string{"w"}}
	case 21:
		src.AzureFile = &corev1.AzureFileVolumeSource{SecretName: "s", ShareName: "x"}
	case 22:
		src.Glusterfs = &corev1.GlusterfsVolumeSource{EndpointsName: "e", Path: "p"}
	}
	return v
}

func (g rawGen) podSpec(s *corev1.PodSpec) {
	s.RestartPolicy = corev1.RestartPolicy(g.str("restartPolicy", "Always", "OnFailure", "Never"))
	s.DNSPolicy = corev1.DNSPolicy(g.str("dnsPolicy", "ClusterFirst", "Default", "None", "ClusterFirstWithHostNet"))
	s.SchedulerName = g.str("schedulerName", "default-scheduler", "other")
	s.ServiceAccountName = g.str("serviceAccountName", "a", "b")
	s.DeprecatedServiceAccount = g.str("serviceAccount", "a", "b")
	s.TerminationGracePeriodSeconds = g.i64p("terminationGracePeriodSeconds")
	s.ActiveDeadlineSeconds = g.i64p("activeDeadlineSeconds")
	s.HostNetwork = g.maybe("hostNetwork")
	s.EnableServiceLinks = g.boolp("enableServiceLinks")
	s.AutomountServiceAccountToken = g.boolp("automountServiceAccountToken")
	s.PreemptionPolicy = (*corev1.PreemptionPolicy)(g.strp("preemptionPolicy", "Never"))
	s.Priority = g.i32p("priority")
	s.HostUsers = g.boolp("hostUsers")
	if g.maybe("securityContext") {
		s.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: g.boolp("runAsNonRoot"), FSGroup: g.i64p("fsGroup")}
	}
	if g.maybe("tolerations") {
		s.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOperator(g.str("toleration operator", "Exists", "Equal")), Effect: corev1.TaintEffect(g.str("toleration effect", "NoSchedule")), TolerationSeconds: g.i64p("tolerationSeconds")}}
	}
	if g.maybe("topologySpreadConstraints") {
		s.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.UnsatisfiableConstraintAction(g.str("whenUnsatisfiable", "DoNotSchedule")),
			MinDomains: g.i32p("minDomains"), NodeAffinityPolicy: (*corev1.NodeInclusionPolicy)(g.strp("nodeAffinityPolicy", "Honor"))}}
	}
	if g.maybe("nodeSelector") {
		s.NodeSelector = map[string]string{"disk": "ssd"}
	}
	if g.maybe("dnsConfig") {
		s.DNSConfig = &corev1.PodDNSConfig{Nameservers: []string{"1.1.1.1"}}
	}
	s.Overhead = g.resources("overhead")
	if g.maybe("pod resources") {
		s.Resources = &corev1.ResourceRequirements{Limits: g.resources("pod limits"), Requests: g.resources("pod requests")}
	}
	for i := range g.n("containers", 3) {
		s.Containers = append(s.Containers, g.container("c"+string(rune('0'+i))))
	}
	for i := range g.n("initContainers", 2) {
		s.InitContainers = append(s.InitContainers, g.container("i"+string(rune('0'+i))))
	}
	if g.maybe("ephemeralContainers") {
		s.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon(g.container("e0")), TargetContainerName: "c0"}}
	}
	for i := range g.n("volumes", 4) {
		s.Volumes = append(s.Volumes, g.volume("v"+string(rune('0'+i))))
	}
}
