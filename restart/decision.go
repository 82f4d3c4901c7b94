package restart

import (
	"encoding/json"
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Decision is what to do with one workload after a release: write the
// checksums annotation and, when Restart is set, the restart stamp, both in
// one patch. Apply Patch (or PatchJSON) with a JSON merge patch
// (types.MergePatchType) to the object named by Kind, Namespace and Name.
// If the patch fails, report it with [Engine.PatchFailed].
type Decision struct {
	// Kind, Namespace and Name identify the workload.
	Kind      WorkloadKind
	Namespace string
	Name      string
	// Restart is true when the pods must be restarted: a recorded checksum
	// changed, or a newly referenced config changed again before its
	// checksum was recorded.
	Restart bool
	// Triggers are the configs that caused the restart, sorted by key.
	Triggers []Trigger
	// Recorded is the applied-checksums annotation as it was (parsed; empty
	// when missing or invalid). Read only.
	Recorded map[string]string
	// Checksums is the new content of the annotation: the current checksum
	// of every tracked config (a placeholder keeps its recorded value; keys
	// no longer referenced are dropped). Read only.
	Checksums map[string]string
	// RestartedAt is the new restart stamp (RFC 3339, UTC), when Restart.
	RestartedAt string
	// AnnotationError is set when the annotation was present but not a JSON
	// object of strings; it was treated as empty and is rewritten.
	AnnotationError error
	// Patch is the structured merge patch.
	Patch Patch
	// PatchJSON is Patch as JSON merge-patch bytes.
	PatchJSON []byte
}

// Key returns the workload key "<kind>/<namespace>/<name>".
func (d Decision) Key() string { return WorkloadKey(d.Kind, d.Namespace, d.Name) }

// Trigger is one config that caused a restart.
type Trigger struct {
	// Config is the config key.
	Config string
	// Recorded is the checksum in the annotation; empty when the config was
	// newly referenced and changed again before it was recorded.
	Recorded string
	// Current is the config's checksum now.
	Current string
	// Observations is the count of its waiting change (0 when none waits).
	Observations int
}

// Patch is a JSON merge patch on a workload.
type Patch struct {
	// Annotations are merged into metadata.annotations.
	Annotations map[string]string
	// TemplateAnnotations are merged into the pod template's
	// metadata.annotations; nil when there is no restart.
	TemplateAnnotations map[string]string
	// TemplatePath is the path of the pod template in the object, see
	// [WorkloadKind.TemplatePath].
	TemplatePath []string
}

// JSON returns the merge patch document, e.g.
// {"metadata":{"annotations":{…}},"spec":{"template":{"metadata":{"annotations":{…}}}}}.
// Keys are sorted, so equal patches give equal bytes.
func (p Patch) JSON() []byte {
	doc := map[string]any{}
	if len(p.Annotations) > 0 {
		doc["metadata"] = map[string]any{"annotations": p.Annotations}
	}
	if len(p.TemplateAnnotations) > 0 && len(p.TemplatePath) > 0 {
		var node any = map[string]any{"metadata": map[string]any{"annotations": p.TemplateAnnotations}}
		for i := len(p.TemplatePath) - 1; i >= 1; i-- {
			node = map[string]any{p.TemplatePath[i]: node}
		}
		doc[p.TemplatePath[0]] = node
	}
	b, _ := json.Marshal(doc) // maps of strings always marshal
	return b
}

// Apply returns a deep copy of obj (a Deployment, StatefulSet, DaemonSet or
// CronJob) with the patch applied, the way the API server would merge it.
// obj is not modified.
func (p Patch) Apply(obj runtime.Object) (runtime.Object, error) {
	if _, _, err := PodTemplate(obj); err != nil {
		return nil, err
	}
	out := obj.DeepCopyObject()
	tpl, _, _ := PodTemplate(out)
	var meta interface {
		GetAnnotations() map[string]string
		SetAnnotations(map[string]string)
	}
	switch o := out.(type) {
	case *appsv1.Deployment:
		meta = o
	case *appsv1.StatefulSet:
		meta = o
	case *appsv1.DaemonSet:
		meta = o
	case *batchv1.CronJob:
		meta = o
	default:
		return nil, fmt.Errorf("%T: %w", obj, ErrUnsupported)
	}
	if len(p.Annotations) > 0 {
		a := meta.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		maps.Copy(a, p.Annotations)
		meta.SetAnnotations(a)
	}
	if len(p.TemplateAnnotations) > 0 {
		if tpl.Annotations == nil {
			tpl.Annotations = map[string]string{}
		}
		maps.Copy(tpl.Annotations, p.TemplateAnnotations)
	}
	return out, nil
}

// ParseChecksums decodes an applied-checksums annotation value. An empty
// value or JSON null is an empty map. Anything but a JSON object of strings
// returns an empty map and an error naming the annotation.
func ParseChecksums(key, value string) (map[string]string, error) {
	if value == "" {
		return map[string]string{}, nil
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(value), &m); err != nil {
		return map[string]string{}, fmt.Errorf("metadata.annotations[%s]: invalid value %q: %w", key, truncate(value, 64), err)
	}
	if m == nil {
		m = map[string]string{}
	}
	return m, nil
}

// FormatChecksums encodes checksums as the annotation value: a JSON object
// with sorted keys, the format of the kubernetes-deployment-restart-controller.
func FormatChecksums(checksums map[string]string) string {
	if checksums == nil {
		checksums = map[string]string{}
	}
	b, _ := json.Marshal(checksums) // maps of strings always marshal
	return string(b)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
