package inputlimit

import (
	"strings"
	"testing"
)

func TestExpanded(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		extra      int64 // expected Expanded - len
	}{
		{"no aliases", "a: 1\nb: [x, y]\n", 0},
		{"scalar", "a: &x hello\nb: *x\n", 5 - 2},
		{"scalar key", "&x key: v\nk2: *x\n", 3 - 2},
		{"quoted", "a: &x 'it''s'\nb: *x\n", 7 - 2},
		{"block mapping", "base: &b\n  image: web\n  replicas: 3\nuse: *b\n", 1 + 13 + 14 - 2},
		{"compact sequence", "list: &l\n- one\n- two\nother: *l\n", 1 + 6 + 6 - 2},
		{"sequence entry", "- &e\n  k: v\n- *e\n", 1 + 7 - 2},
		{"block scalar", "s: &s |\n  line\n\n  *x\nt: *s\n", 2 + 7 + 1 + 5 - 2},
		{"flow", "a: &a [\"x\",\"x\"]\nb: &b [*a,*a]\nc: &c [*b,*b]\n", 2*(9-2) + 2*(7+2*(9-2)-2)},
		{"flow over lines", "a: &a [1,\n  2]\nb: *a\n", 8 - 2},
		{"in flow", "a: [&a x, *a, *a]\n", 2 * (1 - 2 + 1)},
		{"not aliases", "x: &x 123456789\ncmd: echo a*b & c *x\nq: \"*x\"\n# *x\ns: |\n  *x\nu: 'it''s *x'\nv: \"a\\\" *x\"\n", 0},
		{"quoted over lines", "x: &x 123456789\nq: 'a\n  *x'\nr: *x\n", 9 - 2},
		{"undefined", "a: *nothing\n", 0},
		{"per document", "a: &x 123456789\n---\nb: *x\n", 0},
		{"redefined", "a: &x 1\nb: &x 12345\nc: *x\n", 5 - 2},
		{"own node (refused by decoders): the node so far", "a: &x\n  b: *x\n", 6 - 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := Expanded([]byte(tc.yaml)), int64(len(tc.yaml))+tc.extra; got != want {
				t.Errorf("Expanded = %d, want %d (len %d + %d)", got, want, len(tc.yaml), tc.extra)
			}
		})
	}
}

// laughs is the billion laughs: levels of anchors, each a list of ten
// aliases of the one before.
func laughs(levels int) string {
	var b strings.Builder
	b.WriteString("l0: &l0 \"lol\"\n")
	for i := 1; i <= levels; i++ {
		b.WriteString("l" + itoa(i) + ": &l" + itoa(i) + " [")
		for k := range 10 {
			if k > 0 {
				b.WriteString(",")
			}
			b.WriteString("*l" + itoa(i-1))
		}
		b.WriteString("]\n")
	}
	return b.String()
}

func itoa(i int) string { return string(rune('0' + i)) }

func TestLaughs(t *testing.T) {
	doc := laughs(9)
	n := Expanded([]byte(doc))
	if n < 1e9 {
		t.Errorf("billion laughs: %d bytes (of %d), want more than 10^9", n, len(doc))
	}
	err := Check([]byte(doc), "lol.yaml", Scenario)
	if want := "lol.yaml: its YAML aliases expand it to "; err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "above the limit of 2 MiB for a scenario (sim.MaxScenarioBytes)") {
		t.Errorf("Check: %v", err)
	}
}

func FuzzExpanded(f *testing.F) {
	f.Add(laughs(3))
	f.Add("a: &x [1, {b: *x}]\n- &y |\n  *y\n'*x': \"*y\\\"\"\n")
	f.Fuzz(func(t *testing.T, s string) {
		if n := Expanded([]byte(s)); n < int64(len(s)) {
			t.Errorf("Expanded %d < len %d", n, len(s))
		}
	})
}
