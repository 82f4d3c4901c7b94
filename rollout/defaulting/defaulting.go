package defaulting

import (
	"reflect"
	"sync"
	"sync/atomic"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Deployment returns a copy of d with the defaults a v1.37 API server
// applies to an apps/v1 Deployment on create and update: the Deployment's
// own (replicas, strategy, revisionHistoryLimit, progressDeadlineSeconds)
// and those of its pod template (see [PodTemplate]). Fields already set are
// kept. d is not modified; a nil d gives nil.
func Deployment(d *appsv1.Deployment) *appsv1.Deployment {
	if d == nil {
		return nil
	}
	out := d.DeepCopy()
	deploymentSpec(&out.Spec)
	podSpec(&out.Spec.Template.Spec)
	out.Spec.Template = Stored(&out.Spec.Template)
	return out
}

// PodTemplate returns a copy of t with the defaults a v1.37 API server
// applies to the pod template of a Deployment (the package documentation
// lists them), in the form the server stores it (see [Stored]). Fields
// already set are kept. t is not modified; a nil t gives nil.
func PodTemplate(t *corev1.PodTemplateSpec) *corev1.PodTemplateSpec {
	if t == nil {
		return nil
	}
	out := t.DeepCopy()
	podSpec(&out.Spec)
	st := Stored(out)
	return &st
}

// deploymentSpec sets the apps/v1 defaults of spec in place.
func deploymentSpec(spec *appsv1.DeploymentSpec) {
	if spec.Replicas == nil {
		spec.Replicas = ptr(int32(1))
	}
	st := &spec.Strategy
	if st.Type == "" {
		st.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if st.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if st.RollingUpdate == nil {
			st.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		if st.RollingUpdate.MaxUnavailable == nil {
			st.RollingUpdate.MaxUnavailable = ptr(intstr.FromString("25%"))
		}
		if st.RollingUpdate.MaxSurge == nil {
			st.RollingUpdate.MaxSurge = ptr(intstr.FromString("25%"))
		}
	}
	if spec.RevisionHistoryLimit == nil {
		spec.RevisionHistoryLimit = ptr(int32(10))
	}
	if spec.ProgressDeadlineSeconds == nil {
		spec.ProgressDeadlineSeconds = ptr(int32(600))
	}
}

// podSpec sets the defaults of a pod template's spec in place.
func podSpec(spec *corev1.PodSpec) {
	// serviceAccount is the deprecated spelling of serviceAccountName; the
	// server keeps the two equal, the newer one winning.
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = spec.DeprecatedServiceAccount
	}
	spec.DeprecatedServiceAccount = spec.ServiceAccountName
	if spec.DNSPolicy == "" {
		spec.DNSPolicy = corev1.DNSClusterFirst
	}
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = corev1.RestartPolicyAlways
	}
	if spec.SecurityContext == nil {
		spec.SecurityContext = &corev1.PodSecurityContext{}
	}
	if spec.TerminationGracePeriodSeconds == nil {
		spec.TerminationGracePeriodSeconds = ptr(int64(corev1.DefaultTerminationGracePeriodSeconds))
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = corev1.DefaultSchedulerName
	}
	for i := range spec.Volumes {
		volume(&spec.Volumes[i])
	}
	for i := range spec.InitContainers {
		container(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		container(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		// The common part of an ephemeral container has a container's
		// fields and a container's defaults.
		container((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
	roundUp(spec.Overhead)
	if r := spec.Resources; r != nil {
		roundUp(r.Limits)
		roundUp(r.Requests)
	}
}

// container sets the defaults of a container in place.
func container(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = pullPolicy(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if p := &c.Ports[i]; p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
	}
	for i := range c.Env {
		from := c.Env[i].ValueFrom
		if from == nil {
			continue
		}
		fieldRef(from.FieldRef)
		if f := from.FileKeyRef; f != nil && f.Optional == nil {
			f.Optional = ptr(false)
		}
	}
	roundUp(c.Resources.Limits)
	roundUp(c.Resources.Requests)
	probe(c.LivenessProbe)
	probe(c.ReadinessProbe)
	probe(c.StartupProbe)
	if l := c.Lifecycle; l != nil {
		if l.PostStart != nil {
			httpGet(l.PostStart.HTTPGet)
		}
		if l.PreStop != nil {
			httpGet(l.PreStop.HTTPGet)
		}
	}
}

// pullPolicy is the image pull policy of an image reference that has
// none: Always for the tag latest, or when there is neither a tag nor a
// digest (the tag is then latest); IfNotPresent otherwise, including for a
// reference that does not parse. Parsing a reference costs tens of
// thousands of instructions (regular expressions) and a cluster's
// templates name few images, so the policy of each image is remembered,
// for up to maxPullPolicies images.
func pullPolicy(image string) corev1.PullPolicy {
	if p, ok := pullPolicies.Load(image); ok {
		return p.(corev1.PullPolicy)
	}
	p := corev1.PullIfNotPresent
	if tag, ok := imageTag(image); ok && tag == "latest" {
		p = corev1.PullAlways
	}
	if pullPoliciesHeld.Add(1) <= maxPullPolicies {
		pullPolicies.Store(image, p)
	}
	return p
}

// pullPolicies remembers pullPolicy's answers, image to policy;
// pullPoliciesHeld counts the answers offered to it (stored while there
// are at most maxPullPolicies).
var (
	pullPolicies     sync.Map
	pullPoliciesHeld atomic.Int64
)

// maxPullPolicies bounds the images pullPolicy remembers.
const maxPullPolicies = 4096

// probe sets the defaults of p (nil: none) in place.
func probe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	httpGet(p.HTTPGet)
	if g := p.GRPC; g != nil && g.Service == nil {
		g.Service = ptr("")
	}
}

// httpGet sets the defaults of an HTTP GET handler (nil: none) in place.
func httpGet(h *corev1.HTTPGetAction) {
	if h == nil {
		return
	}
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = corev1.URISchemeHTTP
	}
}

// fieldRef sets the API version of a field reference (nil: none) in place.
func fieldRef(f *corev1.ObjectFieldSelector) {
	if f != nil && f.APIVersion == "" {
		f.APIVersion = "v1"
	}
}

// volume sets the defaults of a volume and of its source in place.
func volume(v *corev1.Volume) {
	src := &v.VolumeSource
	if noSource(src) {
		src.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
	if img := src.Image; img != nil && img.PullPolicy == "" {
		img.PullPolicy = pullPolicy(img.Reference)
	}
	if hp := src.HostPath; hp != nil && hp.Type == nil {
		hp.Type = ptr(corev1.HostPathUnset)
	}
	if s := src.Secret; s != nil && s.DefaultMode == nil {
		s.DefaultMode = ptr(corev1.SecretVolumeSourceDefaultMode)
	}
	if is := src.ISCSI; is != nil && is.ISCSIInterface == "" {
		is.ISCSIInterface = "default"
	}
	if rbd := src.RBD; rbd != nil {
		if rbd.RBDPool == "" {
			rbd.RBDPool = "rbd"
		}
		if rbd.RadosUser == "" {
			rbd.RadosUser = "admin"
		}
		if rbd.Keyring == "" {
			rbd.Keyring = "/etc/ceph/keyring"
		}
	}
	if da := src.DownwardAPI; da != nil {
		if da.DefaultMode == nil {
			da.DefaultMode = ptr(corev1.DownwardAPIVolumeSourceDefaultMode)
		}
		for i := range da.Items {
			fieldRef(da.Items[i].FieldRef)
		}
	}
	if cm := src.ConfigMap; cm != nil && cm.DefaultMode == nil {
		cm.DefaultMode = ptr(corev1.ConfigMapVolumeSourceDefaultMode)
	}
	if az := src.AzureDisk; az != nil {
		if az.CachingMode == nil {
			az.CachingMode = ptr(corev1.AzureDataDiskCachingReadWrite)
		}
		if az.FSType == nil {
			az.FSType = ptr("ext4")
		}
		if az.ReadOnly == nil {
			az.ReadOnly = ptr(false)
		}
		if az.Kind == nil {
			az.Kind = ptr(corev1.AzureSharedBlobDisk)
		}
	}
	if pr := src.Projected; pr != nil {
		if pr.DefaultMode == nil {
			pr.DefaultMode = ptr(corev1.ProjectedVolumeSourceDefaultMode)
		}
		for i := range pr.Sources {
			p := &pr.Sources[i]
			if p.DownwardAPI != nil {
				for j := range p.DownwardAPI.Items {
					fieldRef(p.DownwardAPI.Items[j].FieldRef)
				}
			}
			if t := p.ServiceAccountToken; t != nil && t.ExpirationSeconds == nil {
				t.ExpirationSeconds = ptr(int64(3600))
			}
		}
	}
	if sio := src.ScaleIO; sio != nil {
		if sio.StorageMode == "" {
			sio.StorageMode = "ThinProvisioned"
		}
		if sio.FSType == "" {
			sio.FSType = "xfs"
		}
	}
	if e := src.Ephemeral; e != nil && e.VolumeClaimTemplate != nil {
		spec := &e.VolumeClaimTemplate.Spec
		if spec.VolumeMode == nil {
			spec.VolumeMode = ptr(corev1.PersistentVolumeFilesystem)
		}
		roundUp(spec.Resources.Limits)
		roundUp(spec.Resources.Requests)
	}
}

// noSource reports whether every source of a volume is nil. VolumeSource
// has one pointer field per kind of volume; reading them by reflection keeps
// a kind added to the API from being mistaken for none.
func noSource(src *corev1.VolumeSource) bool {
	v := reflect.ValueOf(src).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			return false
		}
	}
	return true
}

// roundUp rounds every quantity of l up to a multiple of 1m, in place (l
// belongs to a copy).
func roundUp(l corev1.ResourceList) {
	for name, q := range l {
		q.RoundUp(resource.Milli)
		l[name] = q
	}
}

func ptr[T any](v T) *T { return &v }
