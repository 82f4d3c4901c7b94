package revision

import (
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
)

var sinkMap map[string]string
var sinkBool bool

func BenchmarkNewReplicaSetAnnotations(b *testing.B) {
	d := deploymentWith(map[string]string{
		RevisionAnnotation: "7", ChangeCauseAnnotation: "set image", LastAppliedConfigAnnotation: strings.Repeat("x", 2000),
		"team": "payments", "owner": "sre",
	}, 10)
	parts := make([]string, 400)
	for i := range parts {
		parts[i] = strconv.Itoa(1000 + i)
	}
	cases := []struct {
		name   string
		rs     map[string]string
		exists bool
	}{
		{"create", nil, false},
		{"steady", map[string]string{RevisionAnnotation: "1401", ChangeCauseAnnotation: "set image", "team": "payments", "owner": "sre"}, true},
		{"raise-revision", map[string]string{RevisionAnnotation: "8", ChangeCauseAnnotation: "set image", "team": "payments", "owner": "sre"}, true},
		{"rollback-full-history", map[string]string{RevisionAnnotation: "1400", RevisionHistoryAnnotation: strings.Join(parts, ",")}, true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			rs := rsWith("rs", "", 0)
			rs.Annotations = c.rs
			b.ReportAllocs()
			for b.Loop() {
				sinkMap, sinkBool = NewReplicaSetAnnotations(d, rs, "1401", c.exists, 3)
			}
		})
	}
}

func BenchmarkByRevision(b *testing.B) {
	rss := make([]*appsv1.ReplicaSet, 50)
	for i := range rss {
		rss[i] = rsWith("rs"+strconv.Itoa(i), strconv.Itoa((i*37)%50), i)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = ByRevision(rss)
	}
}

func BenchmarkRollbackTarget(b *testing.B) {
	d, rss := fixture()
	b.ReportAllocs()
	for b.Loop() {
		_, _ = RollbackTarget(d, rss, 0)
	}
}
