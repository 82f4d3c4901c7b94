package revision

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fixture: Deployment "web" at image v3 with revisions 1 (v1), 2 (v2), 3 (v3).
func fixture() (*appsv1.Deployment, []*appsv1.ReplicaSet) {
	d := deploymentWith(map[string]string{
		RevisionAnnotation:          "3",
		LastAppliedConfigAnnotation: "{}",
		ChangeCauseAnnotation:       "set image v3",
		"team":                      "payments",
	}, 3)
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	d.Spec.Template = template("v3", "")
	rss := []*appsv1.ReplicaSet{
		ownedRS(d, "web-3", "3", "v3", "set image v3", 30),
		ownedRS(d, "web-1", "1", "v1", "", 10),
		ownedRS(d, "web-2", "2", "v2", "set image v2", 20),
	}
	rss[2].Annotations["team"] = "checkout"
	rss[2].Annotations[DesiredReplicasAnnotation] = "3"
	return d, rss
}

func TestHistory(t *testing.T) {
	d, rss := fixture()
	foreign := ownedRS(d, "other-1", "9", "x", "", 1)
	foreign.OwnerReferences[0].UID = "someone-else"
	notController := ownedRS(d, "other-2", "8", "x", "", 1)
	notController.OwnerReferences[0].Controller = nil
	unmatched := ownedRS(d, "other-3", "7", "x", "", 1)
	unmatched.Labels = map[string]string{"app": "api"}
	garbage := ownedRS(d, "web-g", "abc", "x", "", 1)
	all := append(append([]*appsv1.ReplicaSet(nil), rss...), foreign, notController, unmatched, garbage, nil)
	dBefore := d.DeepCopy()
	before := make([]*appsv1.ReplicaSet, len(all))
	for i, rs := range all {
		before[i] = rs.DeepCopy()
	}

	got, err := History(d, all)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Revision: 1, ReplicaSet: "web-1", Template: template("v1", "")},
		{Revision: 2, ReplicaSet: "web-2", ChangeCause: "set image v2", Template: template("v2", "")},
		{Revision: 3, ReplicaSet: "web-3", ChangeCause: "set image v3", Template: template("v3", "")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("History (-want +got):\n%s", diff)
	}
	if !reflect.DeepEqual(d, dBefore) || !reflect.DeepEqual(all, before) {
		t.Errorf("inputs mutated")
	}

	wantTable := "REVISION  CHANGE-CAUSE\n" +
		"1         <none>\n" +
		"2         set image v2\n" +
		"3         set image v3\n"
	if table := DescribeHistory(got); table != wantTable {
		t.Errorf("DescribeHistory:\n%s\nwant:\n%s", table, wantTable)
	}
}

func TestHistoryEdges(t *testing.T) {
	d, rss := fixture()
	if got := DescribeHistory(nil); got != "No rollout history found." {
		t.Errorf("empty DescribeHistory = %q", got)
	}
	entries, err := History(d, nil)
	if err != nil || len(entries) != 0 {
		t.Errorf("History(d, nil) = %v, %v", entries, err)
	}
	if _, err := History(nil, rss); err == nil {
		t.Errorf("History(nil) gave no error")
	}
	bad := d.DeepCopy()
	bad.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}
	if _, err := History(bad, rss); err == nil || !strings.Contains(err.Error(), "spec.selector") || !strings.HasPrefix(err.Error(), "deployment ") {
		t.Errorf("invalid selector error = %v, want a lower-case error naming spec.selector", err)
	}
	// A nil selector does not filter (kubectl lists with an empty selector).
	noSel := d.DeepCopy()
	noSel.Spec.Selector = nil
	if entries, _ := History(noSel, rss); len(entries) != 3 {
		t.Errorf("nil selector: %d entries, want 3", len(entries))
	}
	// Duplicate revisions: one row per revision, the later entry wins.
	dup := []Entry{{Revision: 2, ChangeCause: "first"}, {Revision: 1}, {Revision: 2, ChangeCause: "second"}}
	want := "REVISION  CHANGE-CAUSE\n1         <none>\n2         second\n"
	if got := DescribeHistory(dup); got != want {
		t.Errorf("duplicates:\n%s\nwant:\n%s", got, want)
	}
}

func TestRollbackTarget(t *testing.T) {
	tests := []struct {
		name       string
		mutate     func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet
		toRevision int64
		want       Rollback
		wantErr    string
	}{
		{
			name:       "previous revision",
			toRevision: 0,
			want: Rollback{
				Revision: 2, ReplicaSet: "web-2", Template: template("v2", ""),
				Annotations: map[string]string{
					RevisionAnnotation: "3", LastAppliedConfigAnnotation: "{}",
					ChangeCauseAnnotation: "set image v2", "team": "checkout",
				},
				Message: "rolled back",
			},
		},
		{
			name:       "specific revision",
			toRevision: 1,
			want: Rollback{
				Revision: 1, ReplicaSet: "web-1", Template: template("v1", ""),
				Annotations: map[string]string{RevisionAnnotation: "3", LastAppliedConfigAnnotation: "{}"},
				Message:     "rolled back",
			},
		},
		{
			name:       "current revision already matches",
			toRevision: 3,
			want:       Rollback{Revision: 3, ReplicaSet: "web-3", AlreadyMatches: true, Message: "skipped rollback (current template already matches revision 3)"},
		},
		{
			name: "previous already matches: kubectl prints the revision given, 0",
			mutate: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
				d.Spec.Template = template("v2", "")
				return rss
			},
			toRevision: 0,
			want:       Rollback{Revision: 2, ReplicaSet: "web-2", AlreadyMatches: true, Message: "skipped rollback (current template already matches revision 0)"},
		},
		{
			name:       "missing revision",
			toRevision: 7,
			wantErr:    "unable to find specified revision 7 in history",
		},
		{
			name:       "negative revision",
			toRevision: -1,
			wantErr:    "unable to find specified revision -1 in history",
		},
		{
			name: "no previous revision",
			mutate: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
				return rss[:1]
			},
			wantErr: `no rollout history found for deployment "web"`,
		},
		{
			name: "paused",
			mutate: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
				d.Spec.Paused = true
				return rss
			},
			toRevision: 1,
			wantErr:    "you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again",
		},
		{
			name: "paused and missing revision: the revision error comes first",
			mutate: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
				d.Spec.Paused = true
				return rss
			},
			toRevision: 9,
			wantErr:    "unable to find specified revision 9 in history",
		},
		{
			name: "ReplicaSets of other owners are ignored",
			mutate: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
				rss[2].OwnerReferences[0].UID = "other"
				return rss
			},
			toRevision: 2,
			wantErr:    "unable to find specified revision 2 in history",
		},
		{
			name: "unparsable revisions are skipped",
			mutate: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
				rss[2].Annotations[RevisionAnnotation] = "two"
				return rss
			},
			toRevision: 0,
			want: Rollback{
				Revision: 1, ReplicaSet: "web-1", Template: template("v1", ""),
				Annotations: map[string]string{RevisionAnnotation: "3", LastAppliedConfigAnnotation: "{}"},
				Message:     "rolled back",
			},
		},
		{
			name: "duplicate highest revision counts as previous",
			mutate: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
				rss[2].Annotations[RevisionAnnotation] = "3"
				return rss
			},
			toRevision: 0,
			// kubectl order: old RSs by creation (web-1, web-2), then the
			// new one (web-3); web-2 is latest first, web-3 ties and
			// becomes previous.
			want: Rollback{Revision: 3, ReplicaSet: "web-3", AlreadyMatches: true, Message: "skipped rollback (current template already matches revision 0)"},
		},
		{
			name: "duplicate target revision: first in kubectl order",
			mutate: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
				rss[0].Annotations[RevisionAnnotation] = "1" // the new RS, web-3
				return rss
			},
			toRevision: 1,
			want: Rollback{
				Revision: 1, ReplicaSet: "web-1", Template: template("v1", ""),
				Annotations: map[string]string{RevisionAnnotation: "3", LastAppliedConfigAnnotation: "{}"},
				Message:     "rolled back",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, rss := fixture()
			if tt.mutate != nil {
				rss = tt.mutate(d, rss)
			}
			dBefore := d.DeepCopy()
			before := make([]*appsv1.ReplicaSet, len(rss))
			for i, rs := range rss {
				before[i] = rs.DeepCopy()
			}
			got, err := RollbackTarget(d, rss, tt.toRevision)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("RollbackTarget (-want +got):\n%s", diff)
			}
			if !reflect.DeepEqual(d, dBefore) || !reflect.DeepEqual(rss, before) {
				t.Errorf("inputs mutated")
			}
		})
	}
	if _, err := RollbackTarget(nil, nil, 0); err == nil {
		t.Errorf("nil Deployment: no error")
	}
}

func TestRollbackApply(t *testing.T) {
	d, rss := fixture()
	r, err := RollbackTarget(d, rss, 1)
	if err != nil {
		t.Fatal(err)
	}
	dBefore := d.DeepCopy()
	out := r.Apply(d)
	if !reflect.DeepEqual(d, dBefore) {
		t.Fatalf("Apply mutated d")
	}
	if out.Spec.Template.Spec.Containers[0].Image != "v1" {
		t.Errorf("template not applied: %v", out.Spec.Template.Spec.Containers[0].Image)
	}
	if _, ok := out.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey]; ok {
		t.Errorf("hash label kept")
	}
	if diff := cmp.Diff(r.Annotations, out.Annotations); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
	out.Annotations["x"] = "y"
	if _, leaked := r.Annotations["x"]; leaked {
		t.Errorf("Apply shares the annotation map")
	}
	// A rollback to the result is now a no-op for the same revision.
	again, err := RollbackTarget(out, rss, 1)
	if err != nil || !again.AlreadyMatches {
		t.Errorf("second rollback = %+v, %v", again, err)
	}
	skipped := Rollback{AlreadyMatches: true}
	if got := skipped.Apply(d); !reflect.DeepEqual(got, d) || got == d {
		t.Errorf("skipped Apply should return an equal copy")
	}
	if (Rollback{}).Apply(nil) != nil {
		t.Errorf("Apply(nil) != nil")
	}
}

func TestTemplateWithoutHashKeepsNilLabels(t *testing.T) {
	got := templateWithoutHash(&corev1.PodTemplateSpec{})
	if got.Labels != nil {
		t.Errorf("nil labels became %#v", got.Labels)
	}
}
