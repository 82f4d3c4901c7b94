package main

import (
	"fmt"
	"math"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// describePodTemplate renders a pod template as kubectl v1.37 describes
// one (`kubectl rollout history --revision N`, `kubectl describe
// deployment`): "Pod Template:", then labels, annotations, containers,
// volumes, topology spread constraints, node selectors and tolerations,
// indented by two spaces a level, a tab between a field and its value,
// as kubectl writes them before any tab alignment. Terminal escapes in
// values are neutralised as kubectl does (ESC as "^[", CR as "\r").
//
// Volume sources are described field for field for the kinds a
// Deployment commonly mounts (emptyDir, configMap, secret, hostPath,
// persistentVolumeClaim, projected, downwardAPI, nfs, csi, image); an
// ephemeral volume shows only its type line (kubectl adds the claim
// template's description), and the legacy in-tree kinds one line naming
// the kind. t is not modified.
func describePodTemplate(t *corev1.PodTemplateSpec) string {
	w := &describeWriter{}
	w.write(0, "Pod Template:\n")
	if t == nil {
		w.write(1, "<unset>")
		return w.b.String()
	}
	w.labels("  Labels", t.Labels)
	if len(t.Annotations) > 0 {
		w.annotations("  Annotations", t.Annotations)
	}
	if t.Spec.ServiceAccountName != "" {
		w.write(1, "Service Account:\t%s\n", t.Spec.ServiceAccountName)
	}
	if len(t.Spec.InitContainers) > 0 {
		w.containers("Init Containers", t.Spec.InitContainers)
	}
	w.containers("Containers", t.Spec.Containers)
	w.volumes(t.Spec.Volumes)
	w.topologySpread(t.Spec.TopologySpreadConstraints)
	if t.Spec.PriorityClassName != "" {
		w.write(1, "Priority Class Name:\t%s\n", t.Spec.PriorityClassName)
	}
	w.labels("  Node-Selectors", t.Spec.NodeSelector)
	w.tolerations("  Tolerations", t.Spec.Tolerations)
	if g := t.Spec.SchedulingGroup; g != nil {
		w.write(0, "  SchedulingGroup:\n")
		w.write(1, "PodGroupName:\t%s\n", deref(g.PodGroupName))
	}
	return w.b.String()
}

// describeWriter writes kubectl's describe text: two spaces per level,
// terminal escapes neutralised.
type describeWriter struct{ b strings.Builder }

// terminalEscaper replaces what could drive a terminal, as kubectl's
// printers do.
var terminalEscaper = strings.NewReplacer("\x1b", "^[", "\r", "\\r")

func (w *describeWriter) write(level int, format string, a ...any) {
	w.b.WriteString(terminalEscaper.Replace(strings.Repeat("  ", level) + fmt.Sprintf(format, a...)))
}

// line ends a line started with write: value and a newline.
func (w *describeWriter) line(value string) {
	w.b.WriteString(terminalEscaper.Replace(value + "\n"))
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// labels writes "TITLE:\tk=v" and further pairs on lines of their own
// after a tab, sorted by key; "<none>" when there is none.
func (w *describeWriter) labels(title string, m map[string]string) {
	w.write(0, "%s:\t", title)
	if len(m) == 0 {
		w.line("<none>")
		return
	}
	for i, k := range sortedMapKeys(m) {
		if i > 0 {
			w.write(0, "\t")
		}
		w.write(0, "%s=%s\n", k, m[k])
	}
}

// maxAnnotationLen is where kubectl puts a long annotation on lines of
// its own, and cuts each line.
const maxAnnotationLen = 140

// annotations writes the annotations but kubectl's last-applied
// configuration, sorted by key; a long or multi-line value goes on lines
// of its own, each cut at 138 bytes.
func (w *describeWriter) annotations(title string, m map[string]string) {
	w.write(0, "%s:\t", title)
	keys := slices.DeleteFunc(sortedMapKeys(m), func(k string) bool { return k == corev1.LastAppliedConfigAnnotation })
	if len(keys) == 0 {
		w.line("<none>")
		return
	}
	for i, k := range keys {
		if i > 0 {
			w.write(0, "\t")
		}
		v := strings.TrimSuffix(m[k], "\n")
		if len(v)+len(k)+2 <= maxAnnotationLen && !strings.Contains(v, "\n") {
			w.write(0, "%s: %s\n", k, v)
			continue
		}
		w.write(0, "%s:\n", k)
		for _, l := range strings.Split(v, "\n") {
			if len(l) > maxAnnotationLen-2 {
				l = l[:maxAnnotationLen-2] + "..."
			}
			w.write(0, "\t  %s\n", l)
		}
	}
}

func sortedMapKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// containers writes "  LABEL:" and each container.
func (w *describeWriter) containers(label string, cs []corev1.Container) {
	none := ""
	if len(cs) == 0 {
		none = " <none>"
	}
	w.write(0, "  %s:%s\n", label, none)
	for i := range cs {
		c := &cs[i]
		w.write(1, " %s:\n", c.Name)
		w.write(2, "Image:\t%s\n", c.Image)
		if ports := portList(c.Ports, func(p corev1.ContainerPort) int32 { return p.ContainerPort }); strings.Contains(ports, ",") {
			w.write(2, "Ports:\t%s\n", ports)
		} else {
			w.write(2, "Port:\t%s\n", orNone(ports))
		}
		if ports := portList(c.Ports, func(p corev1.ContainerPort) int32 { return p.HostPort }); strings.Contains(ports, ",") {
			w.write(2, "Host Ports:\t%s\n", ports)
		} else {
			w.write(2, "Host Port:\t%s\n", orNone(ports))
		}
		if sc := c.SecurityContext; sc != nil && sc.SeccompProfile != nil {
			w.write(2, "SeccompProfile:\t%s\n", sc.SeccompProfile.Type)
			if sc.SeccompProfile.Type == corev1.SeccompProfileTypeLocalhost {
				w.write(3, "LocalhostProfile:\t%s\n", deref(sc.SeccompProfile.LocalhostProfile))
			}
		}
		w.lines("Command", c.Command)
		w.lines("Args", c.Args)
		w.resources("Limits", c.Resources.Limits)
		w.resources("Requests", c.Resources.Requests)
		for _, p := range []struct {
			name  string
			probe *corev1.Probe
		}{{"Liveness", c.LivenessProbe}, {"Readiness", c.ReadinessProbe}, {"Startup", c.StartupProbe}} {
			if p.probe != nil {
				w.write(2, "%s:\t%s\n", p.name, describeProbe(p.probe))
			}
		}
		if len(c.EnvFrom) > 0 {
			w.envFrom(c.EnvFrom)
		}
		w.env(c)
		w.mounts(c)
	}
}

// portList is "80/TCP (http), 443/TCP", with the port port picks.
func portList(ps []corev1.ContainerPort, port func(corev1.ContainerPort) int32) string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		s := fmt.Sprintf("%d/%s", port(p), p.Protocol)
		if p.Name != "" {
			s += " (" + p.Name + ")"
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

// lines writes a command or its args, one line per argument line.
func (w *describeWriter) lines(title string, args []string) {
	if len(args) == 0 {
		return
	}
	w.write(2, "%s:\n", title)
	for _, a := range args {
		for _, l := range strings.Split(a, "\n") {
			w.write(3, "%s\n", l)
		}
	}
}

func (w *describeWriter) resources(title string, l corev1.ResourceList) {
	if len(l) == 0 {
		return
	}
	w.write(2, "%s:\n", title)
	names := make([]string, 0, len(l))
	for n := range l {
		names = append(names, string(n))
	}
	slices.Sort(names)
	for _, n := range names {
		q := l[corev1.ResourceName(n)]
		w.write(3, "%s:\t%s\n", n, q.String())
	}
}

// describeProbe is kubectl's one-line probe: its action, then delay,
// timeout, period and thresholds.
func describeProbe(p *corev1.Probe) string {
	attrs := fmt.Sprintf("delay=%ds timeout=%ds period=%ds successThreshold=%d failureThreshold=%d", p.InitialDelaySeconds, p.TimeoutSeconds, p.PeriodSeconds, p.SuccessThreshold, p.FailureThreshold)
	switch {
	case p.Exec != nil:
		return fmt.Sprintf("exec %v %s", p.Exec.Command, attrs)
	case p.HTTPGet != nil:
		u := url.URL{Scheme: strings.ToLower(string(p.HTTPGet.Scheme)), Host: p.HTTPGet.Host, Path: p.HTTPGet.Path}
		if port := p.HTTPGet.Port.String(); port != "" {
			u.Host = net.JoinHostPort(p.HTTPGet.Host, port)
		}
		return fmt.Sprintf("http-get %s %s", u.String(), attrs)
	case p.TCPSocket != nil:
		return fmt.Sprintf("tcp-socket %s:%s %s", p.TCPSocket.Host, p.TCPSocket.Port.String(), attrs)
	case p.GRPC != nil:
		return fmt.Sprintf("grpc <pod>:%d %s %s", p.GRPC.Port, deref(p.GRPC.Service), attrs)
	}
	return "unknown " + attrs
}

func (w *describeWriter) envFrom(from []corev1.EnvFromSource) {
	w.write(2, "Environment Variables from:\n")
	for _, e := range from {
		kind, name, optional := "", "", false
		switch {
		case e.ConfigMapRef != nil:
			kind, name, optional = "ConfigMap", e.ConfigMapRef.Name, e.ConfigMapRef.Optional != nil && *e.ConfigMapRef.Optional
		case e.SecretRef != nil:
			kind, name, optional = "Secret", e.SecretRef.Name, e.SecretRef.Optional != nil && *e.SecretRef.Optional
		}
		if e.Prefix == "" {
			w.write(3, "%s\t%s\tOptional: %t\n", name, kind, optional)
		} else {
			w.write(3, "%s\t%s with prefix '%s'\tOptional: %t\n", name, kind, e.Prefix, optional)
		}
	}
}

// env writes the environment as kubectl describes a template: a field
// reference has no pod to resolve against (its value is empty), a
// resource reference is computed from the container's resources.
func (w *describeWriter) env(c *corev1.Container) {
	none := ""
	if len(c.Env) == 0 {
		none = "\t<none>"
	}
	w.write(2, "Environment:%s\n", none)
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			for i, l := range strings.Split(e.Value, "\n") {
				if i == 0 {
					w.write(3, "%s:\t%s\n", e.Name, l)
				} else {
					w.write(3, "\t%s\n", l)
				}
			}
			continue
		}
		switch f := e.ValueFrom; {
		case f.FieldRef != nil:
			w.write(3, "%s:\t%s (%s:%s)\n", e.Name, "", f.FieldRef.APIVersion, f.FieldRef.FieldPath)
		case f.ResourceFieldRef != nil:
			v := resourceFieldValue(f.ResourceFieldRef, c)
			if r := f.ResourceFieldRef.Resource; v == "0" && (r == "limits.cpu" || r == "limits.memory") {
				v = "node allocatable"
			}
			w.write(3, "%s:\t%s (%s)\n", e.Name, v, f.ResourceFieldRef.Resource)
		case f.SecretKeyRef != nil:
			w.write(3, "%s:\t<set to the key '%s' in secret '%s'>\tOptional: %t\n", e.Name, f.SecretKeyRef.Key, f.SecretKeyRef.Name, f.SecretKeyRef.Optional != nil && *f.SecretKeyRef.Optional)
		case f.ConfigMapKeyRef != nil:
			w.write(3, "%s:\t<set to the key '%s' of config map '%s'>\tOptional: %t\n", e.Name, f.ConfigMapKeyRef.Key, f.ConfigMapKeyRef.Name, f.ConfigMapKeyRef.Optional != nil && *f.ConfigMapKeyRef.Optional)
		}
	}
}

// resourceFieldValue is the value a resourceFieldRef gives the container,
// rounded up in units of its divisor (1 by default); "" for a resource a
// container cannot reference.
func resourceFieldValue(fs *corev1.ResourceFieldSelector, c *corev1.Container) string {
	divisor := fs.Divisor
	if divisor.IsZero() {
		divisor = resource.MustParse("1")
	}
	ceil := func(v, d int64) string {
		return strconv.FormatInt(int64(math.Ceil(float64(v)/float64(d))), 10)
	}
	kind, name, ok := strings.Cut(fs.Resource, ".")
	if !ok {
		return ""
	}
	list := c.Resources.Requests
	switch kind {
	case "limits":
		list = c.Resources.Limits
	case "requests":
	default:
		return ""
	}
	switch {
	case name == string(corev1.ResourceCPU):
		return ceil(list.Cpu().MilliValue(), divisor.MilliValue())
	case name == string(corev1.ResourceMemory) || name == string(corev1.ResourceEphemeralStorage) ||
		strings.HasPrefix(name, corev1.ResourceHugePagesPrefix):
		q := list[corev1.ResourceName(name)]
		return ceil(q.Value(), divisor.Value())
	}
	return ""
}

// mounts writes the volume mounts by mount path, and the devices by path
// (under "Devices:\t<none>" when the container has devices but no mounts,
// as kubectl writes it).
func (w *describeWriter) mounts(c *corev1.Container) {
	none := ""
	if len(c.VolumeMounts) == 0 {
		none = "\t<none>"
	}
	w.write(2, "Mounts:%s\n", none)
	ms := slices.Clone(c.VolumeMounts)
	slices.SortStableFunc(ms, func(a, b corev1.VolumeMount) int { return strings.Compare(a.MountPath, b.MountPath) })
	for _, m := range ms {
		flags := []string{"rw"}
		if m.ReadOnly {
			flags[0] = "ro"
		}
		if m.SubPath != "" {
			flags = append(flags, fmt.Sprintf("path=%q", m.SubPath))
		}
		w.write(3, "%s from %s (%s)\n", m.MountPath, m.Name, strings.Join(flags, ","))
	}
	if len(c.VolumeDevices) > 0 {
		w.write(2, "Devices:%s\n", none)
		ds := slices.Clone(c.VolumeDevices)
		slices.SortStableFunc(ds, func(a, b corev1.VolumeDevice) int { return strings.Compare(a.DevicePath, b.DevicePath) })
		for _, d := range ds {
			w.write(3, "%s from %s\n", d.DevicePath, d.Name)
		}
	}
}

// volumes writes "  Volumes:" and each volume by its source.
func (w *describeWriter) volumes(vs []corev1.Volume) {
	if len(vs) == 0 {
		w.write(0, "  Volumes:\t<none>\n")
		return
	}
	w.write(0, "  Volumes:\n")
	for _, v := range vs {
		w.write(1, " %s:\n", v.Name)
		w.volumeSource(&v.VolumeSource)
	}
}

func (w *describeWriter) volumeSource(s *corev1.VolumeSource) {
	optional := func(b *bool) bool { return b != nil && *b }
	switch {
	case s.HostPath != nil:
		t := "<none>"
		if s.HostPath.Type != nil {
			t = string(*s.HostPath.Type)
		}
		w.write(2, "Type:\tHostPath (bare host directory volume)\n    Path:\t%v\n    HostPathType:\t%v\n", s.HostPath.Path, t)
	case s.EmptyDir != nil:
		limit := "<unset>"
		if l := s.EmptyDir.SizeLimit; l != nil && l.Sign() > 0 {
			limit = l.String()
		}
		w.write(2, "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n    Medium:\t%v\n    SizeLimit:\t%v\n", s.EmptyDir.Medium, limit)
	case s.Secret != nil:
		w.write(2, "Type:\tSecret (a volume populated by a Secret)\n    SecretName:\t%v\n    Optional:\t%v\n", s.Secret.SecretName, optional(s.Secret.Optional))
	case s.ConfigMap != nil:
		w.write(2, "Type:\tConfigMap (a volume populated by a ConfigMap)\n    Name:\t%v\n    Optional:\t%v\n", s.ConfigMap.Name, optional(s.ConfigMap.Optional))
	case s.NFS != nil:
		w.write(2, "Type:\tNFS (an NFS mount that lasts the lifetime of a pod)\n    Server:\t%v\n    Path:\t%v\n    ReadOnly:\t%v\n", s.NFS.Server, s.NFS.Path, s.NFS.ReadOnly)
	case s.PersistentVolumeClaim != nil:
		w.write(2, "Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n    ClaimName:\t%v\n    ReadOnly:\t%v\n", s.PersistentVolumeClaim.ClaimName, s.PersistentVolumeClaim.ReadOnly)
	case s.Ephemeral != nil:
		w.write(2, "Type:\tEphemeralVolume (an inline specification for a volume that gets created and deleted with the pod)\n")
	case s.DownwardAPI != nil:
		w.write(2, "Type:\tDownwardAPI (a volume populated by information about the pod)\n    Items:\n")
		for _, it := range s.DownwardAPI.Items {
			if it.FieldRef != nil {
				w.write(3, "%v -> %v\n", it.FieldRef.FieldPath, it.Path)
			}
			if it.ResourceFieldRef != nil {
				w.write(3, "%v -> %v\n", it.ResourceFieldRef.Resource, it.Path)
			}
		}
	case s.Projected != nil:
		w.write(2, "Type:\tProjected (a volume that contains injected data from multiple sources)\n")
		for _, src := range s.Projected.Sources {
			switch {
			case src.Secret != nil:
				w.write(2, "SecretName:\t%v\n    Optional:\t%v\n", src.Secret.Name, optional(src.Secret.Optional))
			case src.DownwardAPI != nil:
				w.write(2, "DownwardAPI:\ttrue\n")
			case src.ConfigMap != nil:
				w.write(2, "ConfigMapName:\t%v\n    Optional:\t%v\n", src.ConfigMap.Name, optional(src.ConfigMap.Optional))
			case src.ServiceAccountToken != nil:
				var exp int64
				if src.ServiceAccountToken.ExpirationSeconds != nil {
					exp = *src.ServiceAccountToken.ExpirationSeconds
				}
				w.write(2, "TokenExpirationSeconds:\t%d\n", exp)
			}
		}
	case s.CSI != nil:
		fsType := deref(s.CSI.FSType)
		w.write(2, "Type:\tCSI (a Container Storage Interface (CSI) volume source)\n    Driver:\t%v\n    FSType:\t%v\n    ReadOnly:\t%v\n", s.CSI.Driver, fsType, optional(s.CSI.ReadOnly))
		w.write(2, "VolumeAttributes:\t")
		if len(s.CSI.VolumeAttributes) == 0 {
			w.line("<none>")
			break
		}
		for i, k := range sortedMapKeys(s.CSI.VolumeAttributes) {
			if i > 0 {
				w.write(2, "")
				w.write(2, "\t")
			}
			l := k + "=" + s.CSI.VolumeAttributes[k]
			if len(l) > maxAnnotationLen {
				l = l[:maxAnnotationLen] + "..."
			}
			w.write(2, "%s\n", l)
		}
	case s.Image != nil:
		w.write(2, "Type:\tImage (a container image or OCI artifact)\n    Reference:\t%v\n    PullPolicy:\t%v\n", s.Image.Reference, s.Image.PullPolicy)
	default:
		w.write(2, "Type:\t%s (not described further by deploysim)\n", volumeKind(s))
	}
}

// volumeKind names the field of a volume source that is set ("gitRepo"),
// for the kinds describePodTemplate does not describe.
func volumeKind(s *corev1.VolumeSource) string {
	for _, k := range []struct {
		name string
		set  bool
	}{
		{"gcePersistentDisk", s.GCEPersistentDisk != nil}, {"awsElasticBlockStore", s.AWSElasticBlockStore != nil},
		{"gitRepo", s.GitRepo != nil}, {"iscsi", s.ISCSI != nil}, {"glusterfs", s.Glusterfs != nil}, {"rbd", s.RBD != nil},
		{"flexVolume", s.FlexVolume != nil}, {"cinder", s.Cinder != nil}, {"cephfs", s.CephFS != nil}, {"flocker", s.Flocker != nil},
		{"fc", s.FC != nil}, {"azureFile", s.AzureFile != nil}, {"vsphereVolume", s.VsphereVolume != nil}, {"quobyte", s.Quobyte != nil},
		{"azureDisk", s.AzureDisk != nil}, {"photonPersistentDisk", s.PhotonPersistentDisk != nil}, {"portworxVolume", s.PortworxVolume != nil},
		{"scaleIO", s.ScaleIO != nil}, {"storageos", s.StorageOS != nil},
	} {
		if k.set {
			return k.name
		}
	}
	return "<unknown>"
}

// topologySpread writes the constraints by topology key.
func (w *describeWriter) topologySpread(cs []corev1.TopologySpreadConstraint) {
	if len(cs) == 0 {
		return
	}
	cs = slices.Clone(cs)
	slices.SortStableFunc(cs, func(a, b corev1.TopologySpreadConstraint) int { return strings.Compare(a.TopologyKey, b.TopologyKey) })
	w.write(0, "  Topology Spread Constraints:\t")
	for i, c := range cs {
		if i > 0 {
			w.write(0, "  \t")
		}
		w.write(0, "%s:%v when max skew %d is exceeded", c.TopologyKey, c.WhenUnsatisfiable, c.MaxSkew)
		if c.LabelSelector != nil {
			w.write(0, " for selector %s", metav1.FormatLabelSelector(c.LabelSelector))
		}
		w.write(0, "\n")
	}
}

// tolerations writes the tolerations by key: key[=value][:effect], " op=Exists"
// for an Exists without a value, " for Ns" with tolerationSeconds.
func (w *describeWriter) tolerations(title string, ts []corev1.Toleration) {
	w.write(0, "%s:\t", title)
	if len(ts) == 0 {
		w.line("<none>")
		return
	}
	ts = slices.Clone(ts)
	slices.SortStableFunc(ts, func(a, b corev1.Toleration) int { return strings.Compare(a.Key, b.Key) })
	for i, t := range ts {
		if i > 0 {
			w.write(0, "\t")
		}
		s := t.Key
		if t.Value != "" {
			s += "=" + t.Value
		}
		if t.Effect != "" {
			s += ":" + string(t.Effect)
		}
		if t.Operator == corev1.TolerationOpExists && t.Value == "" {
			if t.Key != "" || t.Effect != "" {
				s += " op=Exists"
			} else {
				s += "op=Exists"
			}
		}
		if t.TolerationSeconds != nil {
			s += fmt.Sprintf(" for %ds", *t.TolerationSeconds)
		}
		w.write(0, "%s\n", s)
	}
}
