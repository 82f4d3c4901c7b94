package sim

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deploymath/deploymath/rollout"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestStopKinds pins the classification of the planner's Stop texts: each
// kind is produced by rollout.Plan and recognised, and every stop of the
// bundled scenarios is of a known kind.
func TestStopKinds(t *testing.T) {
	now := Epoch.Add(time.Hour)
	replicas := int32(2)
	d := rollout.Default(&appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "d-uid", Generation: 1, ResourceVersion: "7"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web:1"}}},
			},
		},
	})
	plan := func(d *appsv1.Deployment, rss ...*appsv1.ReplicaSet) *rollout.Result {
		t.Helper()
		res, err := rollout.Plan(rollout.Snapshot{Deployment: d, ReplicaSets: rss, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// created is the new ReplicaSet a plan of d creates.
	created := func(d *appsv1.Deployment) *appsv1.ReplicaSet {
		t.Helper()
		for _, a := range plan(d).Actions {
			if c, ok := a.(rollout.CreateReplicaSet); ok {
				return c.ReplicaSet
			}
		}
		t.Fatal("the plan creates no replica set")
		return nil
	}
	// squatter is another template under the name the hash of d gives.
	squatter := func(d *appsv1.Deployment) *appsv1.ReplicaSet {
		rs := created(d).DeepCopy()
		rs.UID, rs.ResourceVersion, rs.OwnerReferences = "other-uid", "3", nil
		rs.Labels = map[string]string{"team": "other"}
		rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: rs.Labels}
		rs.Spec.Template.Labels = rs.Labels
		rs.Spec.Template.Spec.Containers[0].Image = "other:1"
		return rs
	}
	atMax := d.DeepCopy()
	atMax.Status.CollisionCount = new(int32)
	*atMax.Status.CollisionCount = math.MaxInt32
	// A paused Deployment, its revision recorded, with two ReplicaSets
	// whose counts add up beyond an int32.
	paused := d.DeepCopy()
	paused.Spec.Paused = true
	paused.Annotations = map[string]string{"deployment.kubernetes.io/revision": "2"}
	paused.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionUnknown, Reason: rollout.PausedDeployReason}}
	big := func(name, image, revision string) *appsv1.ReplicaSet {
		rs := created(d).DeepCopy()
		rs.Name, rs.UID, rs.ResourceVersion = name, types.UID("uid-"+name), "5"
		rs.Spec.Template.Spec.Containers[0].Image = image
		rs.Annotations = map[string]string{"deployment.kubernetes.io/revision": revision}
		n := int32(1<<30 + 1)
		rs.Spec.Replicas = &n
		rs.Status = appsv1.ReplicaSetStatus{Replicas: n, ObservedGeneration: 1}
		return rs
	}
	for _, c := range []struct {
		name string
		res  *rollout.Result
		want StopKind
	}{
		{"hash collision", plan(d, squatter(d)), StopHashCollision},
		{"collisionCount at its maximum", plan(atMax, squatter(atMax)), StopRefused},
		{"status beyond int32", plan(paused, big("web-a", "web:1", "2"), big("web-b", "web:0", "1")), StopRefused},
	} {
		if got := classifyStop(c.res.Stop); got != c.want {
			t.Errorf("%s: Stop %q is of kind %q, want %q", c.name, c.res.Stop, got, c.want)
		}
		line := DescribeStop(&Stop{Deployment: "web", Kind: c.want, Text: c.res.Stop})
		if !strings.HasPrefix(line, "deployment/web requeued: ") {
			t.Errorf("%s: line %q", c.name, line)
		}
	}

	files, err := filepath.Glob(filepath.Join(scenarioDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[StopKind]int{}
	for _, file := range files {
		sc, err := LoadScenario(file)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Trace.Frames {
			for _, st := range f.Stops {
				seen[st.Kind]++
				if st.Kind == StopOther {
					t.Errorf("%s: stop of no known kind: %q", file, st.Text)
				}
			}
		}
	}
	if seen[StopStaleDeployment] == 0 || seen[StopStaleReplicaSet] == 0 {
		t.Errorf("kinds seen in the bundled scenarios: %v; want both stale writes", seen)
	}
}

// TestFullStops: with Options.FullStops the text trace shows the planner's
// text of every stop, in the place of the one-line summary.
func TestFullStops(t *testing.T) {
	sc, err := LoadScenario(filepath.Join(scenarioDir, "undo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	short, err := Run(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	full, err := Run(sc, Options{FullStops: true})
	if err != nil {
		t.Fatal(err)
	}
	s, f := strings.Split(short.Text(), "\n"), strings.Split(full.Text(), "\n")
	if len(s) != len(f) {
		t.Fatalf("%d lines short, %d full", len(s), len(f))
	}
	var stops []Stop
	for _, fr := range short.Trace.Frames {
		stops = append(stops, fr.Stops...)
	}
	n := 0
	for i := range s {
		if s[i] == f[i] {
			continue
		}
		if n >= len(stops) || s[i] != "  "+DescribeStop(&stops[n]) || f[i] != "  # sync web stopped: "+stops[n].Text {
			t.Fatalf("line %d differs beyond a stop:\n%s\n%s", i+1, s[i], f[i])
		}
		n++
	}
	if n != len(stops) || n == 0 {
		t.Errorf("%d lines differ, %d stops", n, len(stops))
	}
	js, err := short.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"kind": "stale-deployment-write"`) || !strings.Contains(string(js), "upstream sends the deployment read") {
		t.Errorf("the JSON lacks a stop's kind or text")
	}
}
