package snapshot

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	appsv1beta1 "k8s.io/api/apps/v1beta1"
	appsv1beta2 "k8s.io/api/apps/v1beta2"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The versions of Deployment and ReplicaSet that Kubernetes v1.37 no
// longer serves (since 1.16) but still converts, as dumps of old
// clusters and old manifests hold them. The API server defaults an
// object with its version's defaults, then converts it to apps/v1; the
// defaults differ:
//
//	                      extensions/v1beta1   apps/v1beta1   apps/v1beta2 (and apps/v1)
//	maxSurge              1                    25%            25%
//	maxUnavailable        1                    25%            25%
//	revisionHistoryLimit  2147483647 (all)     2              10
//	progressDeadline      2147483647 (none)    600 s          600 s
//	selector, labels      the template's       the template's required
//
// spec.rollbackTo (extensions/v1beta1, apps/v1beta1) becomes the
// deprecated.deployment.rollback.to annotation.
var oldVersions = map[string]map[string]bool{
	"extensions/v1beta1": {"Deployment": true, "ReplicaSet": true},
	"apps/v1beta1":       {"Deployment": true},
	"apps/v1beta2":       {"Deployment": true, "ReplicaSet": true},
}

// convert reads raw, a Deployment or ReplicaSet of version (one of
// oldVersions), as that version (its fields only), applies that version's
// defaults and converts it to apps/v1 as the API server converts it. It
// returns the apps/v1 object as JSON and a note saying what it did.
func convert(raw []byte, kind, version string) ([]byte, string, error) {
	var old any
	switch version + " " + kind {
	case "extensions/v1beta1 Deployment":
		old = &extensionsv1beta1.Deployment{}
	case "extensions/v1beta1 ReplicaSet":
		old = &extensionsv1beta1.ReplicaSet{}
	case "apps/v1beta1 Deployment":
		old = &appsv1beta1.Deployment{}
	case "apps/v1beta2 Deployment":
		old = &appsv1beta2.Deployment{}
	case "apps/v1beta2 ReplicaSet":
		old = &appsv1beta2.ReplicaSet{}
	}
	if err := strictAs(raw, old, version+" "+kind); err != nil {
		return nil, "", err
	}
	js, err := json.Marshal(old)
	if err != nil {
		return nil, "", err
	}
	// The fields of these versions are apps/v1's, but for rollbackTo.
	var rollbackTo *int64
	if kind == "Deployment" {
		var probe struct {
			Spec struct {
				RollbackTo *struct {
					Revision int64 `json:"revision"`
				} `json:"rollbackTo"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(js, &probe); err != nil {
			return nil, "", err
		}
		if r := probe.Spec.RollbackTo; r != nil {
			rollbackTo = &r.Revision
		}
	}
	var defaults []string
	var out any
	switch kind {
	case "Deployment":
		d := &appsv1.Deployment{}
		if err := lenient(js, d); err != nil { // rollbackTo dropped
			return nil, "", err
		}
		d.APIVersion = "apps/v1"
		defaults = defaultOldDeployment(d, version)
		if rollbackTo != nil {
			d.Annotations = cloneMap(d.Annotations)
			d.Annotations[appsv1.DeprecatedRollbackTo] = strconv.FormatInt(*rollbackTo, 10)
			defaults = append(defaults, fmt.Sprintf("spec.rollbackTo became the annotation %s: %d", appsv1.DeprecatedRollbackTo, *rollbackTo))
		}
		out = d
	case "ReplicaSet":
		rs := &appsv1.ReplicaSet{}
		if err := lenient(js, rs); err != nil {
			return nil, "", err
		}
		rs.APIVersion = "apps/v1"
		defaults = defaultOldReplicaSet(rs, version)
		out = rs
	}
	converted, err := json.Marshal(out)
	if err != nil {
		return nil, "", err
	}
	note := fmt.Sprintf("converted from %s (not served since Kubernetes 1.16) to apps/v1, as the API server converts it", version)
	if len(defaults) > 0 {
		note += fmt.Sprintf(", with %s's defaults: %s", version, strings.Join(defaults, ", "))
	}
	return converted, note, nil
}

func cloneMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// defaultOldDeployment applies the defaults of version to the fields d
// leaves unset, before apps/v1's, and says which it set.
func defaultOldDeployment(d *appsv1.Deployment, version string) []string {
	var set []string
	spec := &d.Spec
	if version != "apps/v1beta2" {
		set = append(set, selectorFromTemplate(&d.ObjectMeta, &spec.Selector, spec.Template.Labels)...)
	}
	if spec.Replicas == nil {
		spec.Replicas = new(int32(1))
		set = append(set, "replicas 1")
	}
	st := &spec.Strategy
	if st.Type == "" {
		st.Type = appsv1.RollingUpdateDeploymentStrategyType
		set = append(set, "strategy RollingUpdate")
	}
	surge := intstr.FromString("25%")
	rhl, pds := int32(10), int32(600)
	switch version {
	case "extensions/v1beta1":
		surge, rhl, pds = intstr.FromInt32(1), math.MaxInt32, math.MaxInt32
	case "apps/v1beta1":
		rhl = 2
	}
	if st.Type == appsv1.RollingUpdateDeploymentStrategyType || version == "extensions/v1beta1" && st.RollingUpdate != nil {
		if st.RollingUpdate == nil {
			st.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		if st.RollingUpdate.MaxUnavailable == nil {
			v := surge
			st.RollingUpdate.MaxUnavailable = &v
			set = append(set, "maxUnavailable "+v.String())
		}
		if st.RollingUpdate.MaxSurge == nil {
			v := surge
			st.RollingUpdate.MaxSurge = &v
			set = append(set, "maxSurge "+v.String())
		}
	}
	if spec.RevisionHistoryLimit == nil {
		spec.RevisionHistoryLimit = &rhl
		set = append(set, "revisionHistoryLimit "+limitText(rhl, "keeps every old ReplicaSet"))
	}
	if spec.ProgressDeadlineSeconds == nil {
		spec.ProgressDeadlineSeconds = &pds
		set = append(set, "progressDeadlineSeconds "+limitText(pds, "no progress deadline"))
	}
	return set
}

func limitText(v int32, unlimited string) string {
	if v == math.MaxInt32 {
		return fmt.Sprintf("%d (%s)", v, unlimited)
	}
	return strconv.Itoa(int(v))
}

// defaultOldReplicaSet applies the defaults of version to the fields rs
// leaves unset and says which it set.
func defaultOldReplicaSet(rs *appsv1.ReplicaSet, version string) []string {
	var set []string
	if version == "extensions/v1beta1" {
		set = selectorFromTemplate(&rs.ObjectMeta, &rs.Spec.Selector, rs.Spec.Template.Labels)
	}
	if rs.Spec.Replicas == nil {
		rs.Spec.Replicas = new(int32(1))
		set = append(set, "replicas 1")
	}
	return set
}

// selectorFromTemplate is the defaulting of the versions before
// apps/v1beta2: with template labels, a missing selector selects them
// and missing labels are them.
func selectorFromTemplate(m *metav1.ObjectMeta, sel **metav1.LabelSelector, labels map[string]string) []string {
	if labels == nil {
		return nil
	}
	var set []string
	if *sel == nil {
		*sel = &metav1.LabelSelector{MatchLabels: labels}
		set = append(set, "the selector from the template's labels")
	}
	if len(m.Labels) == 0 {
		m.Labels = labels
		set = append(set, "the labels from the template's")
	}
	return set
}
