package rollout

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// fuzzReader turns fuzzer bytes into small decisions.
type fuzzReader struct{ b []byte }

func (r *fuzzReader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *fuzzReader) int32() int32 {
	var buf [4]byte
	for i := range buf {
		buf[i] = r.byte()
	}
	return int32(binary.LittleEndian.Uint32(buf[:]))
}

func (r *fuzzReader) small() int32 { return int32(r.byte()%24) - 2 } // -2..21

func (r *fuzzReader) intOrString() *intstr.IntOrString {
	switch r.byte() % 6 {
	case 0:
		return nil
	case 1:
		v := intstr.FromInt32(r.small())
		return &v
	case 2:
		v := intstr.FromString(fmt.Sprintf("%d%%", int(r.byte())-20))
		return &v
	case 3:
		v := intstr.FromString([]string{"12x", "", "%", "1.5%", "-0%", "99999999999%"}[r.byte()%6])
		return &v
	case 4:
		v := intstr.FromInt32(r.int32())
		return &v
	}
	v := intstr.FromString("25%")
	return &v
}

// fuzzSnapshot builds an arbitrary, possibly invalid snapshot.
func fuzzSnapshot(data []byte) Snapshot {
	r := &fuzzReader{b: data}
	d := testDeployment(3, "25%", "25%")
	if r.byte()%8 == 0 {
		d.Spec.Replicas = nil
	} else if r.byte()%8 == 0 {
		d.Spec.Replicas = ptr(r.int32())
	} else {
		d.Spec.Replicas = ptr(r.small())
	}
	switch r.byte() % 5 {
	case 0:
		d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	case 1:
		d.Spec.Strategy.RollingUpdate = nil
	case 2:
		d.Spec.Strategy.Type = appsv1.DeploymentStrategyType("Blue")
	default:
		d.Spec.Strategy.RollingUpdate.MaxSurge = r.intOrString()
		d.Spec.Strategy.RollingUpdate.MaxUnavailable = r.intOrString()
	}
	switch r.byte() % 6 {
	case 0:
		d.Spec.Selector = nil
	case 1:
		d.Spec.Selector = &metav1.LabelSelector{}
	case 2:
		d.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}
	}
	d.Spec.Paused = r.byte()%5 == 0
	if r.byte()%4 == 0 {
		d.Spec.RevisionHistoryLimit = ptr(r.small())
	}
	if r.byte()%4 == 0 {
		d.Spec.ProgressDeadlineSeconds = ptr(r.small())
	}
	if r.byte()%6 == 0 {
		d.Annotations = map[string]string{"deprecated.deployment.rollback.to": fmt.Sprint(r.small())}
	}
	d.Spec.Template.Spec.Containers[0].Image = fmt.Sprintf("img:%d", r.byte()%4)
	s := Snapshot{Deployment: d, Now: t0.Add(time.Duration(r.byte()) * time.Minute)}
	n := int(r.byte() % 6)
	for i := 0; i < n; i++ {
		dd := d.DeepCopy()
		dd.Spec.Template.Spec.Containers[0].Image = fmt.Sprintf("img:%d", r.byte()%4)
		if dd.Spec.Template.Labels == nil {
			dd.Spec.Template.Labels = map[string]string{}
		}
		rs := testRS(dd, fmt.Sprintf("h%d", i), int(r.small()), max(r.small(), 0), max(r.small(), 0), t0.Add(time.Duration(r.small())*time.Minute))
		switch r.byte() % 8 {
		case 0:
			rs.Spec.Replicas = ptr(r.small())
		case 1:
			rs.OwnerReferences = nil
		case 2:
			rs.Annotations["deployment.kubernetes.io/revision"] = "garbage"
		case 3:
			rs.Annotations["deployment.kubernetes.io/desired-replicas"] = fmt.Sprint(r.int32())
			rs.Annotations["deployment.kubernetes.io/max-replicas"] = fmt.Sprint(r.small())
		case 4:
			rs.Labels = map[string]string{"app": "other"}
		case 5:
			rs.UID = types.UID("uid-h0")
		}
		rs.Status.Replicas = max(r.small(), 0)
		rs.Status.AvailableReplicas = max(r.small(), 0)
		s.ReplicaSets = append(s.ReplicaSets, rs)
	}
	if r.byte()%3 == 0 {
		s.Pods = append(s.Pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p"}})
	}
	return s
}

// FuzzPlan: no input makes Plan panic; every error names a field.
func FuzzPlan(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 1, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3})
	f.Add([]byte("some longer seed with many bytes to drive all branches of the builder"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := fuzzSnapshot(data)
		r, err := Plan(s)
		if err != nil {
			if !strings.Contains(err.Error(), "spec.") && !strings.Contains(err.Error(), "deployment") {
				t.Fatalf("error does not name a field: %v", err)
			}
			return
		}
		_ = r.Explain()
		if _, err := Apply(s, r); err != nil {
			t.Fatalf("planned actions refused by Apply: %v\n%s", err, r.Explain())
		}
	})
}
