package cluster

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// TestNameSet: the open-addressing table answers as a map does, through
// growth and deletions that shift probe runs back (codes drawn from a
// small range so that runs collide and wrap around).
func TestNameSet(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s nameSet
		ref := map[uint32]*Pod{}
		codeGen := rapid.Uint32Range(0, rapid.Uint32Range(1, 5000).Draw(t, "range"))
		for i := range rapid.IntRange(1, 3000).Draw(t, "ops") {
			code := codeGen.Draw(t, "code")
			if p := ref[code]; p != nil {
				if s.get(code) != p {
					t.Fatalf("op %d: get(%d) lost its pod", i, code)
				}
				if rapid.Bool().Draw(t, "delete") {
					s.del(code)
					delete(ref, code)
				}
				continue
			}
			if s.get(code) != nil {
				t.Fatalf("op %d: get(%d) finds a pod never put or deleted", i, code)
			}
			p := &Pod{}
			s.put(code, p)
			ref[code] = p
		}
		if s.n != len(ref) {
			t.Fatalf("n = %d, want %d", s.n, len(ref))
		}
		for code, p := range ref {
			if s.get(code) != p {
				t.Fatalf("get(%d) at the end", code)
			}
		}
	})
}

// TestPodNames: names of generateName's shape go to their prefix's set,
// others whole; look-ups, removal and the sorted list agree.
func TestPodNames(t *testing.T) {
	for _, c := range []struct {
		name, prefix string
		ok           bool
	}{
		{"web-7d4b9c-x2bz9", "web-7d4b9c", true},
		{"web--bcdfg", "web-", true},
		{"-bcdfg", "", true},
		{"web-7d4b9c-x2bza", "", false}, // 'a' is not in the alphabet
		{"web-7d4b9c-x2bz", "", false},
		{"web_x2bz9", "", false},
		{"x2bz9", "", false},
	} {
		prefix, _, ok := splitName(c.name)
		if ok != c.ok || prefix != c.prefix {
			t.Errorf("splitName(%q) = %q, %v; want %q, %v", c.name, prefix, ok, c.prefix, c.ok)
		}
	}
	if _, code, _ := splitName("w-bcdfg"); code != 1*27*27*27+2*27*27+3*27+4 {
		t.Errorf("code of bcdfg: %d (digits 0 1 2 3 4 in base 27)", code)
	}
	ns := newPodNames()
	pods := []*Pod{{Name: "web-1-x2bz9"}, {Name: "web-1-bbbbb"}, {Name: "custom"}, {Name: "web-2-x2bz9"}}
	for _, p := range pods {
		ns.add(p)
	}
	for _, p := range pods {
		if ns.get(p.Name) != p {
			t.Errorf("get(%q)", p.Name)
		}
	}
	if ns.get("web-1-x2bz8") != nil || ns.get("nope") != nil || ns.get("web-3-x2bz9") != nil {
		t.Error("get finds a name never added")
	}
	var names []string
	for _, p := range ns.sorted() {
		names = append(names, p.Name)
	}
	if want := "[custom web-1-bbbbb web-1-x2bz9 web-2-x2bz9]"; ns.n != 4 || fmt.Sprint(names) != want {
		t.Errorf("sorted %v (n %d), want %s", names, ns.n, want)
	}
	ns.remove(pods[0])
	ns.remove(pods[2])
	if ns.get("web-1-x2bz9") != nil || ns.get("custom") != nil || ns.get("web-1-bbbbb") != pods[1] || ns.n != 2 {
		t.Error("remove")
	}
}
