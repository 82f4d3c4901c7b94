package revision

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

func TestConstants(t *testing.T) {
	if RollbackToAnnotation != "deprecated.deployment.rollback.to" {
		t.Errorf("RollbackToAnnotation = %q", RollbackToAnnotation)
	}
	if LastAppliedConfigAnnotation != "kubectl.kubernetes.io/last-applied-configuration" {
		t.Errorf("LastAppliedConfigAnnotation = %q", LastAppliedConfigAnnotation)
	}
}

func TestRevision(t *testing.T) {
	var nilRS *appsv1.ReplicaSet
	d := deploymentWith(map[string]string{RevisionAnnotation: "x1"}, 1)
	tests := []struct {
		name    string
		obj     metav1.Object
		want    int64
		wantErr string
	}{
		{name: "missing is 0", obj: rsWith("a", "", 0), want: 0},
		{name: "parsed", obj: rsWith("a", "7", 0), want: 7},
		{name: "leading plus and zeros parse like ParseInt", obj: rsWith("a", "+007", 0), want: 7},
		{name: "negative parses", obj: rsWith("a", "-3", 0), want: -3},
		{name: "max int64", obj: rsWith("a", strconv.FormatInt(math.MaxInt64, 10), 0), want: math.MaxInt64},
		{name: "empty value is an error", obj: &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "a", Annotations: map[string]string{RevisionAnnotation: ""}}},
			wantErr: `ReplicaSet "a": metadata.annotations["deployment.kubernetes.io/revision"]: invalid value "": strconv.ParseInt: parsing "": invalid syntax`},
		{name: "garbage", obj: rsWith("a", "abc", 0),
			wantErr: `ReplicaSet "ns/a": metadata.annotations["deployment.kubernetes.io/revision"]: invalid value "abc": strconv.ParseInt: parsing "abc": invalid syntax`},
		{name: "garbage on a deployment", obj: d,
			wantErr: `Deployment "ns/web": metadata.annotations["deployment.kubernetes.io/revision"]: invalid value "x1"`},
		{name: "overflow", obj: rsWith("a", "99999999999999999999", 0), wantErr: "value out of range"},
		{name: "nil", obj: nil, wantErr: "nil object"},
		{name: "typed nil", obj: nilRS, wantErr: "nil object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Revision(tt.obj)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Revision() error = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Revision() = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
	_, err := Revision(rsWith("a", "abc", 0))
	var numErr *strconv.NumError
	if !errors.As(err, &numErr) {
		t.Errorf("Revision error does not wrap *strconv.NumError: %v", err)
	}
}

func rssWithRevisions(revs ...string) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for i, r := range revs {
		if r == "nil" {
			out = append(out, nil)
			continue
		}
		out = append(out, rsWith(fmt.Sprintf("rs%d", i), r, i))
	}
	return out
}

func TestMaxAndLastRevision(t *testing.T) {
	tests := []struct {
		name      string
		revs      []string
		wantMax   int64
		wantLast  int64
		wantNextS string
	}{
		{name: "none", revs: nil, wantMax: 0, wantLast: 0, wantNextS: "1"},
		{name: "one", revs: []string{"3"}, wantMax: 3, wantLast: 0, wantNextS: "4"},
		{name: "two", revs: []string{"1", "2"}, wantMax: 2, wantLast: 1, wantNextS: "3"},
		{name: "unordered", revs: []string{"4", "9", "2", "7"}, wantMax: 9, wantLast: 7, wantNextS: "10"},
		{name: "max first", revs: []string{"9", "4", "7"}, wantMax: 9, wantLast: 7, wantNextS: "10"},
		{name: "duplicate max counts as last", revs: []string{"3", "3"}, wantMax: 3, wantLast: 3, wantNextS: "4"},
		{name: "duplicate max after lower", revs: []string{"1", "3", "3"}, wantMax: 3, wantLast: 3, wantNextS: "4"},
		{name: "unparsable skipped", revs: []string{"2", "abc", "5"}, wantMax: 5, wantLast: 2, wantNextS: "6"},
		{name: "missing is revision 0", revs: []string{"", "2"}, wantMax: 2, wantLast: 0, wantNextS: "3"},
		{name: "nil entries skipped", revs: []string{"nil", "2", "nil", "6"}, wantMax: 6, wantLast: 2, wantNextS: "7"},
		{name: "negatives never beat 0", revs: []string{"-5", "-1"}, wantMax: 0, wantLast: 0, wantNextS: "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rss := rssWithRevisions(tt.revs...)
			if got := MaxRevision(rss); got != tt.wantMax {
				t.Errorf("MaxRevision() = %d, want %d", got, tt.wantMax)
			}
			if got := LastRevision(rss); got != tt.wantLast {
				t.Errorf("LastRevision() = %d, want %d", got, tt.wantLast)
			}
			if got := Next(rss); got != tt.wantNextS {
				t.Errorf("Next() = %q, want %q", got, tt.wantNextS)
			}
		})
	}
}

func TestSkipCopy(t *testing.T) {
	for _, k := range []string{
		"kubectl.kubernetes.io/last-applied-configuration",
		"deployment.kubernetes.io/revision",
		"deployment.kubernetes.io/revision-history",
		"deployment.kubernetes.io/desired-replicas",
		"deployment.kubernetes.io/max-replicas",
		"deprecated.deployment.rollback.to",
	} {
		if !SkipCopy(k) {
			t.Errorf("SkipCopy(%q) = false", k)
		}
	}
	for _, k := range []string{"kubernetes.io/change-cause", "app", "", "deployment.kubernetes.io/other"} {
		if SkipCopy(k) {
			t.Errorf("SkipCopy(%q) = true", k)
		}
	}
}

func TestNewReplicaSetAnnotations(t *testing.T) {
	long := strings.Repeat("9", 20) // not an int64, used as a history entry
	_ = long
	// history of n entries "1000".."(1000+n-1)"; each 4 chars + comma.
	history := func(from, to int) string {
		var parts []string
		for i := from; i <= to; i++ {
			parts = append(parts, strconv.Itoa(i))
		}
		return strings.Join(parts, ",")
	}
	full := history(1000, 1399) // 400 entries: 400*5-1 = 1999 chars
	if len(full) != 1999 {
		t.Fatalf("fixture length %d", len(full))
	}
	tests := []struct {
		name        string
		d           map[string]string
		replicas    *int32
		rs          map[string]string
		newRevision string
		exists      bool
		maxSurge    int32
		want        map[string]string
		wantChanged bool
	}{
		{
			name:        "new RS: copies, revision, replicas",
			d:           map[string]string{"team": "a", ChangeCauseAnnotation: "bump", RevisionAnnotation: "4", LastAppliedConfigAnnotation: "{}", RollbackToAnnotation: "1", RevisionHistoryAnnotation: "1", DesiredReplicasAnnotation: "9", MaxReplicasAnnotation: "9"},
			replicas:    i32(3),
			rs:          nil,
			newRevision: "5", exists: false, maxSurge: 1,
			want:        map[string]string{"team": "a", ChangeCauseAnnotation: "bump", RevisionAnnotation: "5", DesiredReplicasAnnotation: "3", MaxReplicasAnnotation: "4"},
			wantChanged: true,
		},
		{
			name:        "existing RS up to date: no change",
			d:           map[string]string{"team": "a"},
			rs:          map[string]string{"team": "a", RevisionAnnotation: "5", DesiredReplicasAnnotation: "1", MaxReplicasAnnotation: "2"},
			newRevision: "5", exists: true,
			want:        map[string]string{"team": "a", RevisionAnnotation: "5", DesiredReplicasAnnotation: "1", MaxReplicasAnnotation: "2"},
			wantChanged: false,
		},
		{
			name:        "existing RS: replica annotations untouched when exists",
			d:           nil,
			replicas:    i32(10),
			rs:          map[string]string{RevisionAnnotation: "5", DesiredReplicasAnnotation: "1"},
			newRevision: "5", exists: true, maxSurge: 3,
			want:        map[string]string{RevisionAnnotation: "5", DesiredReplicasAnnotation: "1"},
			wantChanged: false,
		},
		{
			name:        "copied annotation with a new value is a change",
			d:           map[string]string{"team": "b"},
			rs:          map[string]string{"team": "a", RevisionAnnotation: "5"},
			newRevision: "5", exists: true,
			want:        map[string]string{"team": "b", RevisionAnnotation: "5"},
			wantChanged: true,
		},
		{
			name:        "empty value missing on the RS is copied (v1.37 compares presence)",
			d:           map[string]string{"flag": ""},
			rs:          map[string]string{RevisionAnnotation: "5"},
			newRevision: "5", exists: true,
			want:        map[string]string{"flag": "", RevisionAnnotation: "5"},
			wantChanged: true,
		},
		{
			name:        "RS annotations not on the Deployment are kept",
			d:           map[string]string{"a": "1"},
			rs:          map[string]string{"mine": "x", RevisionAnnotation: "5"},
			newRevision: "5", exists: true,
			want:        map[string]string{"a": "1", "mine": "x", RevisionAnnotation: "5"},
			wantChanged: true,
		},
		{
			name:        "higher RS revision is not lowered",
			rs:          map[string]string{RevisionAnnotation: "8"},
			newRevision: "5", exists: true,
			want:        map[string]string{RevisionAnnotation: "8"},
			wantChanged: false,
		},
		{
			name:        "revisions compare as numbers, not strings",
			rs:          map[string]string{RevisionAnnotation: "9"},
			newRevision: "10", exists: true,
			want:        map[string]string{RevisionAnnotation: "10", RevisionHistoryAnnotation: "9"},
			wantChanged: true,
		},
		{
			name:        "rollback: old revision starts the history",
			rs:          map[string]string{RevisionAnnotation: "2"},
			newRevision: "6", exists: true,
			want:        map[string]string{RevisionAnnotation: "6", RevisionHistoryAnnotation: "2"},
			wantChanged: true,
		},
		{
			name:        "rollback: old revision appended to the history",
			rs:          map[string]string{RevisionAnnotation: "4", RevisionHistoryAnnotation: "1,2"},
			newRevision: "7", exists: true,
			want:        map[string]string{RevisionAnnotation: "7", RevisionHistoryAnnotation: "1,2,4"},
			wantChanged: true,
		},
		{
			name:        "empty revision value counts as 0 and starts an empty history entry",
			rs:          map[string]string{RevisionAnnotation: ""},
			newRevision: "3", exists: true,
			want:        map[string]string{RevisionAnnotation: "3", RevisionHistoryAnnotation: ""},
			wantChanged: true,
		},
		{
			name:        "no revision annotation: no history",
			rs:          map[string]string{"x": "y"},
			newRevision: "3", exists: true,
			want:        map[string]string{"x": "y", RevisionAnnotation: "3"},
			wantChanged: true,
		},
		{
			name:        "history at the limit drops its oldest entry",
			rs:          map[string]string{RevisionAnnotation: "1400", RevisionHistoryAnnotation: full},
			newRevision: "1401", exists: true,
			want:        map[string]string{RevisionAnnotation: "1401", RevisionHistoryAnnotation: history(1001, 1400)},
			wantChanged: true,
		},
		{
			name:        "history that fits is not trimmed",
			rs:          map[string]string{RevisionAnnotation: "1", RevisionHistoryAnnotation: history(1000, 1398)},
			newRevision: "2", exists: true,
			want:        map[string]string{RevisionAnnotation: "2", RevisionHistoryAnnotation: history(1000, 1398) + ",1"},
			wantChanged: true,
		},
		{
			name:        "history over the limit is trimmed back under it",
			rs:          map[string]string{RevisionAnnotation: "1500", RevisionHistoryAnnotation: history(1000, 1499)},
			newRevision: "1501", exists: true,
			want:        map[string]string{RevisionAnnotation: "1501", RevisionHistoryAnnotation: history(1101, 1500)},
			wantChanged: true,
		},
		{
			name:        "history whose first entry is empty is replaced",
			rs:          map[string]string{RevisionAnnotation: "4", RevisionHistoryAnnotation: ",1,2"},
			newRevision: "5", exists: true,
			want:        map[string]string{RevisionAnnotation: "5", RevisionHistoryAnnotation: "4"},
			wantChanged: true,
		},
		{
			name:        "garbage RS revision: Deployment annotations copied, nothing else, false",
			d:           map[string]string{"team": "a"},
			rs:          map[string]string{RevisionAnnotation: "x"},
			newRevision: "5", exists: false, replicas: i32(2),
			want:        map[string]string{"team": "a", RevisionAnnotation: "x"},
			wantChanged: false,
		},
		{
			name:        "garbage new revision: false",
			rs:          map[string]string{RevisionAnnotation: "1"},
			newRevision: "next", exists: false, replicas: i32(2),
			want:        map[string]string{RevisionAnnotation: "1"},
			wantChanged: false,
		},
		{
			name:        "nil spec.replicas counts as 0",
			newRevision: "1", exists: false, maxSurge: 2,
			want:        map[string]string{RevisionAnnotation: "1", DesiredReplicasAnnotation: "0", MaxReplicasAnnotation: "2"},
			wantChanged: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := deploymentWith(tt.d, 0)
			d.Spec.Replicas = tt.replicas
			rs := rsWith("rs", "", 0)
			rs.Annotations = tt.rs
			dBefore, rsBefore := d.DeepCopy(), rs.DeepCopy()
			got, changed := NewReplicaSetAnnotations(d, rs, tt.newRevision, tt.exists, tt.maxSurge)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
			if changed != tt.wantChanged {
				t.Errorf("changed = %v, want %v", changed, tt.wantChanged)
			}
			if !reflect.DeepEqual(d, dBefore) || !reflect.DeepEqual(rs, rsBefore) {
				t.Errorf("inputs mutated")
			}
			// Unchanged annotations of an existing ReplicaSet come back
			// uncopied (documented); any other result is a new map.
			if len(rs.Annotations) > 0 && (changed || !tt.exists) {
				got["probe"] = "x"
				if _, leaked := rs.Annotations["probe"]; leaked {
					t.Errorf("result shares its map with rs")
				}
			}
		})
	}
}

func TestNewReplicaSetAnnotationsNilInputs(t *testing.T) {
	got, changed := NewReplicaSetAnnotations(nil, nil, "1", true, 0)
	if !changed || !reflect.DeepEqual(got, map[string]string{RevisionAnnotation: "1"}) {
		t.Errorf("got %v, %v", got, changed)
	}
}

// Upstream's TestAnnotationUtils: revisions 11..20 set on the same RS with a
// 5-character history limit keep the history at the last two revisions.
func TestRevisionHistoryGrowsAndIsCapped(t *testing.T) {
	d := deploymentWith(map[string]string{RevisionAnnotation: "1"}, 1)
	rs := rsWith("rs", "", 0)
	for i := 10; i < 20; i++ {
		next := strconv.Itoa(i + 1)
		annotations, changed := newReplicaSetAnnotations(d, rs, next, true, 0, 5)
		if !changed {
			t.Fatalf("revision %s: not changed", next)
		}
		rs = rs.DeepCopy()
		rs.Annotations = annotations
		if got := rs.Annotations[RevisionAnnotation]; got != next {
			t.Errorf("revision = %s, want %s", got, next)
		}
		if i >= 12 {
			if got, want := rs.Annotations[RevisionHistoryAnnotation], fmt.Sprintf("%d,%d", i-1, i); got != want {
				t.Errorf("after revision %s history = %q, want %q", next, got, want)
			}
		}
	}
	if _, ok := rs.Annotations[RevisionAnnotation+"x"]; ok {
		t.Fatal("unexpected key")
	}
	if _, copied := rs.Annotations[RevisionAnnotation]; !copied {
		t.Fatal("no revision")
	}
}

func TestAppendHistory(t *testing.T) {
	tests := []struct {
		history, old string
		limit        int
		want         string
		wantOK       bool
	}{
		{"", "3", 5, "3", true},
		{"1", "2", 5, "1,2", true},
		{"1,2", "3", 5, "1,2,3", true},
		{"1,2,3", "4", 5, "2,3,4", true},
		{"11,12", "13", 5, "12,13", true},
		{"1", "123456", 5, "1", false},      // cannot fit even alone
		{"1", "12345", 5, "12345", true},    // fits once everything is dropped
		{"", "1234567", 5, "1234567", true}, // empty history: no length check, like upstream
		{"1,2", "3", 0, "1,2", false},
		{"1,2,", "3", 2, ",3", true}, // a trailing empty entry is kept, like upstream's split
		{"1,2,", "3", 20, "1,2,,3", true},
		{"1,,2", "3", 5, ",2,3", true},
		{"1", "2", 3, "1,2", true},
	}
	for _, tt := range tests {
		got, ok := appendHistory(tt.history, tt.old, tt.limit)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("appendHistory(%q, %q, %d) = %q, %v; want %q, %v", tt.history, tt.old, tt.limit, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestReplicasAnnotations(t *testing.T) {
	tests := []struct {
		name        string
		in          map[string]string
		desired     int32
		max         int32
		want        map[string]string
		wantChanged bool
	}{
		// Upstream's TestAnnotationUtils "SetReplicasAnnotations" and
		// TestReplicasAnnotationsNeedUpdate cases (desired 10, max 20).
		{name: "sets both", in: map[string]string{"a": "b"}, desired: 10, max: 11,
			want: map[string]string{"a": "b", DesiredReplicasAnnotation: "10", MaxReplicasAnnotation: "11"}, wantChanged: true},
		{name: "nil annotations", in: nil, desired: 10, max: 20,
			want: map[string]string{DesiredReplicasAnnotation: "10", MaxReplicasAnnotation: "20"}, wantChanged: true},
		{name: "desired differs", in: map[string]string{DesiredReplicasAnnotation: "8", MaxReplicasAnnotation: "20"}, desired: 10, max: 20,
			want: map[string]string{DesiredReplicasAnnotation: "10", MaxReplicasAnnotation: "20"}, wantChanged: true},
		{name: "max differs", in: map[string]string{DesiredReplicasAnnotation: "10", MaxReplicasAnnotation: "16"}, desired: 10, max: 20,
			want: map[string]string{DesiredReplicasAnnotation: "10", MaxReplicasAnnotation: "20"}, wantChanged: true},
		{name: "no update needed", in: map[string]string{DesiredReplicasAnnotation: "10", MaxReplicasAnnotation: "20"}, desired: 10, max: 20,
			want: map[string]string{DesiredReplicasAnnotation: "10", MaxReplicasAnnotation: "20"}, wantChanged: false},
		{name: "string compare: 010 is not 10", in: map[string]string{DesiredReplicasAnnotation: "010", MaxReplicasAnnotation: "20"}, desired: 10, max: 20,
			want: map[string]string{DesiredReplicasAnnotation: "10", MaxReplicasAnnotation: "20"}, wantChanged: true},
		{name: "negative values written as they are", in: nil, desired: -1, max: -2,
			want: map[string]string{DesiredReplicasAnnotation: "-1", MaxReplicasAnnotation: "-2"}, wantChanged: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before map[string]string
			if tt.in != nil {
				before = copyMap(tt.in)
			}
			got, changed := ReplicasAnnotations(tt.in, tt.desired, tt.max)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if changed != tt.wantChanged {
				t.Errorf("changed = %v, want %v", changed, tt.wantChanged)
			}
			if tt.in != nil && !reflect.DeepEqual(before, tt.in) {
				t.Errorf("input mutated")
			}
		})
	}
}

func TestWithRevision(t *testing.T) {
	tests := []struct {
		in          map[string]string
		rev         string
		want        map[string]string
		wantChanged bool
	}{
		{nil, "3", map[string]string{RevisionAnnotation: "3"}, true},
		{map[string]string{RevisionAnnotation: "3"}, "3", map[string]string{RevisionAnnotation: "3"}, false},
		{map[string]string{RevisionAnnotation: "2", "a": "b"}, "3", map[string]string{RevisionAnnotation: "3", "a": "b"}, true},
		{nil, "", map[string]string{}, false},
	}
	for i, tt := range tests {
		got, changed := WithRevision(tt.in, tt.rev)
		if !reflect.DeepEqual(got, tt.want) || changed != tt.wantChanged {
			t.Errorf("case %d: got %v, %v; want %v, %v", i, got, changed, tt.want, tt.wantChanged)
		}
	}
}

func TestDesiredAndMaxReplicas(t *testing.T) {
	tests := []struct {
		name   string
		value  *string
		want   int32
		wantOK bool
	}{
		// Upstream's TestGetNonNegativeInt32FromAnnotation cases.
		{name: "missing", value: nil},
		{name: "invalid", value: ptr("invalid")},
		{name: "negative", value: ptr("-1")},
		{name: "zero", value: ptr("0"), want: 0, wantOK: true},
		{name: "valid", value: ptr("13"), want: 13, wantOK: true},
		{name: "max int32", value: ptr(strconv.Itoa(math.MaxInt32)), want: math.MaxInt32, wantOK: true},
		{name: "max int32 + 1", value: ptr(strconv.FormatUint(uint64(math.MaxInt32)+1, 10))},
		{name: "max uint32 + 1", value: ptr(strconv.FormatUint(uint64(math.MaxUint32)+1, 10))},
		// More.
		{name: "plus sign", value: ptr("+1")},
		{name: "empty", value: ptr("")},
		{name: "spaces", value: ptr(" 1")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, key := range []string{DesiredReplicasAnnotation, MaxReplicasAnnotation} {
				rs := rsWith("rs", "", 0)
				rs.Annotations = map[string]string{"other": "5"}
				if tt.value != nil {
					rs.Annotations[key] = *tt.value
				}
				read := DesiredReplicas
				if key == MaxReplicasAnnotation {
					read = MaxReplicas
				}
				got, ok := read(rs)
				if got != tt.want || ok != tt.wantOK {
					t.Errorf("%s: got %d, %v; want %d, %v", key, got, ok, tt.want, tt.wantOK)
				}
			}
		})
	}
	if _, ok := DesiredReplicas(nil); ok {
		t.Errorf("DesiredReplicas(nil) ok")
	}
	if _, ok := MaxReplicas(nil); ok {
		t.Errorf("MaxReplicas(nil) ok")
	}
}

func ptr(s string) *string { return &s }

func TestAnnotationsForRollback(t *testing.T) {
	d := deploymentWith(map[string]string{
		RevisionAnnotation:          "5",
		RevisionHistoryAnnotation:   "1",
		LastAppliedConfigAnnotation: "{}",
		RollbackToAnnotation:        "2",
		DesiredReplicasAnnotation:   "3",
		MaxReplicasAnnotation:       "4",
		"team":                      "current",
		"only-on-deployment":        "dropped",
	}, 3)
	rs := rsWith("rs", "2", 0)
	rs.Annotations = map[string]string{
		RevisionAnnotation:        "2",
		RevisionHistoryAnnotation: "0",
		DesiredReplicasAnnotation: "9",
		MaxReplicasAnnotation:     "9",
		"team":                    "old",
		ChangeCauseAnnotation:     "v1",
	}
	dBefore, rsBefore := d.DeepCopy(), rs.DeepCopy()
	got := AnnotationsForRollback(d, rs)
	want := map[string]string{
		RevisionAnnotation:          "5",
		RevisionHistoryAnnotation:   "1",
		LastAppliedConfigAnnotation: "{}",
		RollbackToAnnotation:        "2",
		DesiredReplicasAnnotation:   "3",
		MaxReplicasAnnotation:       "4",
		"team":                      "old",
		ChangeCauseAnnotation:       "v1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !reflect.DeepEqual(d, dBefore) || !reflect.DeepEqual(rs, rsBefore) {
		t.Errorf("inputs mutated")
	}
	if got := AnnotationsForRollback(nil, nil); got == nil || len(got) != 0 {
		t.Errorf("AnnotationsForRollback(nil, nil) = %#v, want empty map", got)
	}
}

func TestByRevision(t *testing.T) {
	a := rsWith("a", "3", 5)
	b := rsWith("b", "1", 9)
	c := rsWith("c", "2", 1)
	tieOld := rsWith("z-old", "4", 1)
	tieNew := rsWith("a-new", "4", 2)
	sameTimeA := rsWith("m", "5", 3)
	sameTimeB := rsWith("n", "5", 3)
	sameNameX := rsWith("s", "6", 3)
	sameNameY := rsWith("s", "6", 3)
	sameNameX.UID, sameNameY.UID = "y", "x"
	bad1 := rsWith("bad1", "oops", 7)
	bad2 := rsWith("bad2", "x", 2)
	missing := rsWith("missing", "", 8)

	in := []*appsv1.ReplicaSet{a, nil, b, sameTimeB, tieNew, bad1, sameNameX, c, missing, tieOld, bad2, sameTimeA, sameNameY}
	inBefore := append([]*appsv1.ReplicaSet(nil), in...)
	got := ByRevision(in)
	want := []*appsv1.ReplicaSet{bad2, bad1, missing, b, c, a, tieOld, tieNew, sameTimeA, sameTimeB, sameNameY, sameNameX, nil}
	if len(got) != len(want) {
		t.Fatalf("len = %d, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("position %d: got %s, want %s", i, nameOf(got[i]), nameOf(want[i]))
		}
	}
	for i := range in {
		if in[i] != inBefore[i] {
			t.Fatalf("input slice reordered")
		}
	}
	if out := ByRevision(nil); len(out) != 0 {
		t.Errorf("ByRevision(nil) = %v", out)
	}
}

func nameOf(rs *appsv1.ReplicaSet) string {
	if rs == nil {
		return "<nil>"
	}
	return rs.Name + "/" + string(rs.UID)
}

// referenceAppendHistory is upstream's algorithm written plainly (split,
// drop from the front, join), to check the optimised appendHistory.
func referenceAppendHistory(history, old string, limit int) (string, bool) {
	entries := strings.Split(history, ",")
	if len(entries[0]) == 0 {
		return old, true
	}
	total := len(history) + len(old) + 1
	start := 0
	for total > limit && start < len(entries) {
		total -= len(entries[start]) + 1
		start++
	}
	if total > limit {
		return history, false
	}
	return strings.Join(append(entries[start:len(entries):len(entries)], old), ","), true
}

func TestPropertyAppendHistoryMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		history := rapid.StringOf(rapid.SampledFrom([]rune("0123456789,"))).Draw(t, "history")
		old := rapid.StringOf(rapid.SampledFrom([]rune("0123456789"))).Draw(t, "old")
		limit := rapid.IntRange(0, 40).Draw(t, "limit")
		got, ok := appendHistory(history, old, limit)
		want, wantOK := referenceAppendHistory(history, old, limit)
		if got != want || ok != wantOK {
			t.Fatalf("appendHistory(%q, %q, %d) = %q, %v; reference %q, %v", history, old, limit, got, ok, want, wantOK)
		}
	})
}

func TestReplicasAnnotationsNeedUpdateAgrees(t *testing.T) {
	for _, ann := range []map[string]string{
		nil, {}, {DesiredReplicasAnnotation: "3"}, {DesiredReplicasAnnotation: "3", MaxReplicasAnnotation: "4"},
		{DesiredReplicasAnnotation: "03", MaxReplicasAnnotation: "4"}, {DesiredReplicasAnnotation: "3", MaxReplicasAnnotation: ""},
		{DesiredReplicasAnnotation: "-1", MaxReplicasAnnotation: "-1"},
	} {
		for _, dm := range [][2]int32{{3, 4}, {-1, -1}, {0, 0}, {2147483647, 2147483647}} {
			_, want := ReplicasAnnotations(ann, dm[0], dm[1])
			if got := ReplicasAnnotationsNeedUpdate(ann, dm[0], dm[1]); got != want {
				t.Errorf("%v %v: NeedUpdate = %v, ReplicasAnnotations changed = %v", ann, dm, got, want)
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() {
		ReplicasAnnotationsNeedUpdate(map[string]string{DesiredReplicasAnnotation: "123", MaxReplicasAnnotation: "456"}, 123, 456)
	}); n > 1 { // the map literal itself
		t.Errorf("%v allocations", n)
	}
}
