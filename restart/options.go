package restart

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Default annotation keys and timings.
const (
	// DefaultEnabledAnnotation is the default opt-in annotation of a workload.
	DefaultEnabledAnnotation = "deploymath.io/restart-on-config-change"
	// DefaultEnabledValue is the value of the opt-in annotation that enables
	// restarts.
	DefaultEnabledValue = "true"
	// DefaultChecksumsAnnotation is the default key of the applied-checksums
	// annotation in the workload's metadata.
	DefaultChecksumsAnnotation = "deploymath.io/config-checksums"
	// DefaultRestartedAtAnnotation is the default key of the restart stamp in
	// the pod template's metadata.
	DefaultRestartedAtAnnotation = "deploymath.io/restarted-at"
	// DefaultGracePeriod is how long a change waits before it is processed
	// (the original controller's RESTART_GRACE_PERIOD default, 5 s).
	DefaultGracePeriod = 5 * time.Second
	// DefaultCheckInterval is the period of the check for due changes (the
	// original controller's RESTART_CHECK_PERIOD default, 500 ms).
	DefaultCheckInterval = 500 * time.Millisecond
)

// Annotation keys of the kubernetes-deployment-restart-controller
// (github.com/xing/kubernetes-deployment-restart-controller), used by
// [XingKeys].
const (
	XingEnabledAnnotation     = "com.xing.deployment-restart"
	XingEnabledValue          = "enabled"
	XingChecksumsAnnotation   = "com.xing.deployment-restart.applied-config-checksums"
	XingRestartedAtAnnotation = "com.xing.deployment-restart.timestamp"
)

// Annotations of stakater/Reloader honoured when [Options.Reloader] is set.
const (
	// ReloaderAuto "true": restart on a change of any referenced config.
	ReloaderAuto = "reloader.stakater.com/auto"
	// ReloaderConfigMapAuto "true": restart on a change of any referenced
	// ConfigMap.
	ReloaderConfigMapAuto = "configmap.reloader.stakater.com/auto"
	// ReloaderSecretAuto "true": restart on a change of any referenced Secret.
	ReloaderSecretAuto = "secret.reloader.stakater.com/auto"
	// ReloaderConfigMapReload "a,b": restart when ConfigMap a or b (in the
	// workload's namespace) changes, referenced by the template or not.
	ReloaderConfigMapReload = "configmap.reloader.stakater.com/reload"
	// ReloaderSecretReload "a,b": the same for Secrets.
	ReloaderSecretReload = "secret.reloader.stakater.com/reload"
)

// Options configure an [Engine]. Start from [DefaultOptions] or [XingKeys]
// and change fields; the zero value is not valid.
type Options struct {
	// EnabledAnnotation is the workload annotation that opts in; restarts
	// happen only while its value is EnabledValue.
	EnabledAnnotation string
	// EnabledValue is the opt-in value ("true"; "enabled" for Xing).
	EnabledValue string
	// ChecksumsAnnotation is the workload annotation holding the applied
	// checksums as a JSON object {"configmap/ns/name":"<16 hex>",…}.
	ChecksumsAnnotation string
	// RestartedAtAnnotation is the pod template annotation whose new value
	// (an RFC 3339 UTC time) restarts the pods.
	RestartedAtAnnotation string
	// GracePeriod is how long a change waits; repeats within it are counted,
	// not queued again. Zero processes changes at the next check.
	GracePeriod time.Duration
	// CheckInterval is the period at which the caller is expected to call
	// [Engine.Release]; used by [Engine.NextRelease].
	CheckInterval time.Duration
	// Checksum is the checksum algorithm for ConfigMaps and Secrets observed
	// as objects.
	Checksum ChecksumAlgorithm
	// Reloader also opts workloads in through stakater/Reloader's
	// annotations ([ReloaderAuto], [ReloaderConfigMapAuto],
	// [ReloaderSecretAuto], [ReloaderConfigMapReload],
	// [ReloaderSecretReload]); decisions and patches are this package's.
	Reloader bool
}

// DefaultOptions returns the options with keys under deploymath.io/, a 5 s
// grace period, a 500 ms check interval and [ChecksumFramed].
func DefaultOptions() Options {
	return Options{
		EnabledAnnotation:     DefaultEnabledAnnotation,
		EnabledValue:          DefaultEnabledValue,
		ChecksumsAnnotation:   DefaultChecksumsAnnotation,
		RestartedAtAnnotation: DefaultRestartedAtAnnotation,
		GracePeriod:           DefaultGracePeriod,
		CheckInterval:         DefaultCheckInterval,
		Checksum:              ChecksumFramed,
	}
}

// XingKeys returns options that reproduce the kubernetes-deployment-restart-
// controller: opt-in com.xing.deployment-restart: "enabled", checksums in
// com.xing.deployment-restart.applied-config-checksums, the restart stamp in
// com.xing.deployment-restart.timestamp, and [ChecksumXing], so that the
// checksums it recorded stay valid and a switch restarts nothing. The stamp
// value is RFC 3339 (the original wrote time.Stamp, without a year); any new
// value restarts the pods, so the format does not matter for compatibility.
func XingKeys() Options {
	o := DefaultOptions()
	o.EnabledAnnotation = XingEnabledAnnotation
	o.EnabledValue = XingEnabledValue
	o.ChecksumsAnnotation = XingChecksumsAnnotation
	o.RestartedAtAnnotation = XingRestartedAtAnnotation
	o.Checksum = ChecksumXing
	return o
}

// Validate reports the first invalid field, named by its path
// ("Options.GracePeriod: …").
func (o Options) Validate() error {
	var errs []error
	if o.EnabledAnnotation == "" {
		errs = append(errs, errors.New("Options.EnabledAnnotation: must not be empty"))
	}
	if o.ChecksumsAnnotation == "" {
		errs = append(errs, errors.New("Options.ChecksumsAnnotation: must not be empty"))
	}
	if o.RestartedAtAnnotation == "" {
		errs = append(errs, errors.New("Options.RestartedAtAnnotation: must not be empty"))
	}
	if o.GracePeriod < 0 {
		errs = append(errs, fmt.Errorf("Options.GracePeriod: invalid value %v: must not be negative", o.GracePeriod))
	}
	if o.CheckInterval <= 0 {
		errs = append(errs, fmt.Errorf("Options.CheckInterval: invalid value %v: must be positive", o.CheckInterval))
	}
	if o.Checksum != ChecksumFramed && o.Checksum != ChecksumXing {
		errs = append(errs, fmt.Errorf("Options.Checksum: invalid value %v", o.Checksum))
	}
	return errors.Join(errs...)
}

// Tracked returns the configs whose changes restart w, and whether w opts in
// at all. With the opt-in annotation at EnabledValue, all of w.Refs. With
// [Options.Reloader], also: all Refs for reloader.stakater.com/auto "true";
// the ConfigMap (Secret) Refs for configmap. (secret.)reloader.stakater.com/
// auto "true"; and the comma-separated names of configmap. (secret.)
// reloader.stakater.com/reload, in w's namespace, whether the template uses
// them or not. The result is sorted and without duplicates.
func (o Options) Tracked(w Workload) ([]Ref, bool) {
	a := w.Annotations
	if v, ok := a[o.EnabledAnnotation]; ok && v == o.EnabledValue {
		return w.Refs, true
	}
	if !o.Reloader {
		return nil, false
	}
	if a[ReloaderAuto] == "true" {
		return w.Refs, true
	}
	cmAll, secAll := a[ReloaderConfigMapAuto] == "true", a[ReloaderSecretAuto] == "true"
	var out []Ref
	opted := cmAll || secAll
	for _, r := range w.Refs {
		if (r.Kind == KindConfigMap && cmAll) || (r.Kind == KindSecret && secAll) {
			out = append(out, r)
		}
	}
	for _, l := range []struct {
		key  string
		kind Kind
	}{{ReloaderConfigMapReload, KindConfigMap}, {ReloaderSecretReload, KindSecret}} {
		v, ok := a[l.key]
		if !ok {
			continue
		}
		for name := range strings.SplitSeq(v, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			opted = true
			r := Ref{Kind: l.kind, Namespace: w.Namespace, Name: name}
			for _, u := range w.Refs {
				if compareRefs(u, r) == 0 {
					r.Optional = u.Optional
				}
			}
			out = append(out, r)
		}
	}
	if !opted {
		return nil, false
	}
	slices.SortFunc(out, compareRefs)
	out = slices.CompactFunc(out, func(a, b Ref) bool { return compareRefs(a, b) == 0 })
	return out, true
}
