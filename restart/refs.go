package restart

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Kind is the kind of a config object: [KindConfigMap] or [KindSecret]. Its
// value is the first segment of a config key ("configmap/ns/name").
type Kind string

const (
	// KindConfigMap names a core/v1 ConfigMap.
	KindConfigMap Kind = "configmap"
	// KindSecret names a core/v1 Secret.
	KindSecret Kind = "secret"
)

// Ref is one config object used by a pod template.
type Ref struct {
	// Kind is [KindConfigMap] or [KindSecret].
	Kind Kind
	// Namespace is the namespace of the workload; pods can only use configs
	// of their own namespace.
	Namespace string
	// Name is the name of the ConfigMap or Secret.
	Name string
	// Optional is true when every use of the config in the template is marked
	// optional (the pod starts without it).
	Optional bool
}

// Key returns the key used in the checksums annotation and the catalog:
// "configmap/<namespace>/<name>" or "secret/<namespace>/<name>".
func (r Ref) Key() string { return ConfigKey(r.Kind, r.Namespace, r.Name) }

// ConfigKey formats the catalog and annotation key of a config:
// "<kind>/<namespace>/<name>", the format of the
// kubernetes-deployment-restart-controller.
func ConfigKey(kind Kind, namespace, name string) string {
	return string(kind) + "/" + namespace + "/" + name
}

func compareRefs(a, b Ref) int {
	return cmp.Or(
		cmp.Compare(a.Kind, b.Kind),
		cmp.Compare(a.Namespace, b.Namespace),
		cmp.Compare(a.Name, b.Name),
	)
}

// References returns every ConfigMap and Secret that spec uses, in namespace:
// volumes (configMap, secret and the configMap and secret sources of projected
// volumes), env valueFrom (configMapKeyRef, secretKeyRef) and envFrom, in
// containers, init containers and ephemeral containers. The result is sorted
// by kind, namespace and name and holds each config once; a config is Optional
// only when all its uses are optional. References with an empty name are
// skipped (the API server rejects them). A nil spec has no references.
//
// Image pull secrets and CSI node-publish secrets are not references: their
// content does not reach the containers.
func References(namespace string, spec *corev1.PodSpec) []Ref {
	if spec == nil {
		return nil
	}
	seen := map[Ref]int{} // Ref without Optional -> index in out
	var out []Ref
	add := func(kind Kind, name string, optional *bool) {
		if name == "" {
			return
		}
		id := Ref{Kind: kind, Namespace: namespace, Name: name}
		opt := optional != nil && *optional
		if i, ok := seen[id]; ok {
			out[i].Optional = out[i].Optional && opt
			return
		}
		id2 := id
		id2.Optional = opt
		seen[id] = len(out)
		out = append(out, id2)
	}
	for i := range spec.Volumes {
		v := &spec.Volumes[i].VolumeSource
		if v.ConfigMap != nil {
			add(KindConfigMap, v.ConfigMap.Name, v.ConfigMap.Optional)
		}
		if v.Secret != nil {
			add(KindSecret, v.Secret.SecretName, v.Secret.Optional)
		}
		if v.Projected != nil {
			for j := range v.Projected.Sources {
				s := &v.Projected.Sources[j]
				if s.ConfigMap != nil {
					add(KindConfigMap, s.ConfigMap.Name, s.ConfigMap.Optional)
				}
				if s.Secret != nil {
					add(KindSecret, s.Secret.Name, s.Secret.Optional)
				}
			}
		}
	}
	env := func(envFrom []corev1.EnvFromSource, vars []corev1.EnvVar) {
		for i := range envFrom {
			if r := envFrom[i].ConfigMapRef; r != nil {
				add(KindConfigMap, r.Name, r.Optional)
			}
			if r := envFrom[i].SecretRef; r != nil {
				add(KindSecret, r.Name, r.Optional)
			}
		}
		for i := range vars {
			vf := vars[i].ValueFrom
			if vf == nil {
				continue
			}
			if r := vf.ConfigMapKeyRef; r != nil {
				add(KindConfigMap, r.Name, r.Optional)
			}
			if r := vf.SecretKeyRef; r != nil {
				add(KindSecret, r.Name, r.Optional)
			}
		}
	}
	for i := range spec.InitContainers {
		env(spec.InitContainers[i].EnvFrom, spec.InitContainers[i].Env)
	}
	for i := range spec.Containers {
		env(spec.Containers[i].EnvFrom, spec.Containers[i].Env)
	}
	for i := range spec.EphemeralContainers {
		env(spec.EphemeralContainers[i].EnvFrom, spec.EphemeralContainers[i].Env)
	}
	slices.SortFunc(out, compareRefs)
	return out
}

// WorkloadKind is the kind of an object with a pod template. Its value is the
// first segment of a workload key ("deployment/ns/name").
type WorkloadKind string

const (
	// KindDeployment is an apps/v1 Deployment.
	KindDeployment WorkloadKind = "deployment"
	// KindStatefulSet is an apps/v1 StatefulSet.
	KindStatefulSet WorkloadKind = "statefulset"
	// KindDaemonSet is an apps/v1 DaemonSet.
	KindDaemonSet WorkloadKind = "daemonset"
	// KindCronJob is a batch/v1 CronJob; its pod template is
	// spec.jobTemplate.spec.template.
	KindCronJob WorkloadKind = "cronjob"
)

// TemplatePath returns the JSON path of the pod template inside an object of
// this kind: ["spec","template"], or ["spec","jobTemplate","spec","template"]
// for a CronJob.
func (k WorkloadKind) TemplatePath() []string {
	if k == KindCronJob {
		return []string{"spec", "jobTemplate", "spec", "template"}
	}
	return []string{"spec", "template"}
}

// Workload is what the restart logic needs to know about an object with a pod
// template. Build it with [WorkloadOf] or by hand (a simulator can).
type Workload struct {
	// Kind, Namespace and Name identify the object.
	Kind      WorkloadKind
	Namespace string
	Name      string
	// ResourceVersion is metadata.resourceVersion. An observation with the
	// same non-empty version as the previous one is ignored; an empty
	// version is never ignored.
	ResourceVersion string
	// Annotations are metadata.annotations (opt-in and checksums).
	Annotations map[string]string
	// TemplateAnnotations are the pod template's metadata.annotations
	// (restart stamp).
	TemplateAnnotations map[string]string
	// Refs are the configs the pod template uses, as [References] returns
	// them.
	Refs []Ref
}

// Key returns "<kind>/<namespace>/<name>", e.g. "deployment/default/web".
func (w Workload) Key() string { return WorkloadKey(w.Kind, w.Namespace, w.Name) }

// WorkloadKey formats the key of a workload: "<kind>/<namespace>/<name>".
func WorkloadKey(kind WorkloadKind, namespace, name string) string {
	return string(kind) + "/" + namespace + "/" + name
}

// ErrUnsupported is wrapped by the errors of [PodTemplate], [WorkloadOf],
// [ConfigOf] and [Engine.Observe] for objects of a type they do not handle.
var ErrUnsupported = errors.New("unsupported object type")

// PodTemplate returns the pod template of a Deployment, StatefulSet,
// DaemonSet or CronJob (its jobTemplate's template) and the kind. It returns
// a pointer into obj: callers must not modify it.
func PodTemplate(obj runtime.Object) (*corev1.PodTemplateSpec, WorkloadKind, error) {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		if o != nil {
			return &o.Spec.Template, KindDeployment, nil
		}
	case *appsv1.StatefulSet:
		if o != nil {
			return &o.Spec.Template, KindStatefulSet, nil
		}
	case *appsv1.DaemonSet:
		if o != nil {
			return &o.Spec.Template, KindDaemonSet, nil
		}
	case *batchv1.CronJob:
		if o != nil {
			return &o.Spec.JobTemplate.Spec.Template, KindCronJob, nil
		}
	default:
		return nil, "", fmt.Errorf("%T: %w", obj, ErrUnsupported)
	}
	return nil, "", fmt.Errorf("%T: nil object", obj)
}

// WorkloadOf builds the [Workload] of a Deployment, StatefulSet, DaemonSet or
// CronJob. The annotation maps are copies: obj is not retained.
func WorkloadOf(obj runtime.Object) (Workload, error) {
	tpl, kind, err := PodTemplate(obj)
	if err != nil {
		return Workload{}, err
	}
	meta := objectMeta(obj)
	return Workload{
		Kind:                kind,
		Namespace:           meta.Namespace,
		Name:                meta.Name,
		ResourceVersion:     meta.ResourceVersion,
		Annotations:         maps.Clone(meta.Annotations),
		TemplateAnnotations: maps.Clone(tpl.Annotations),
		Refs:                References(meta.Namespace, &tpl.Spec),
	}, nil
}
