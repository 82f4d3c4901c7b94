package sim

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// chartOf runs a bundled scenario and returns its chart's data and SVG.
func chartOf(t *testing.T, name string) (*chart, string) {
	t.Helper()
	sc, err := LoadScenario(scenarioDir + "/" + name + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return newChart(&res.Trace), string(SVG(res))
}

// levels are the values of a series drawn in svg, in order, read back
// from its points' heights (c gives the scale).
func levels(t *testing.T, c *chart, svg, series string) []int32 {
	t.Helper()
	m := regexp.MustCompile(`data-series="` + regexp.QuoteMeta(series) + `" points="([^"]*)"`).FindStringSubmatch(svg)
	if m == nil {
		t.Fatalf("no series %q", series)
	}
	yTop := c.maxY + c.maxY/10 + 1
	var out []int32
	pts := strings.Fields(m[1])
	if series == "available all" {
		pts = pts[1 : len(pts)-1] // the area's corners on the axis
	}
	for _, p := range pts {
		_, ys, _ := strings.Cut(p, ",")
		y, err := strconv.ParseFloat(ys, 64)
		if err != nil {
			t.Fatal(err)
		}
		v := int32((float64(svgTop+svgPlotH)-y)/svgPlotH*float64(yTop) + 0.5)
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out
}

// The chart tells the story of the docs' nginx rollout: each ReplicaSet's
// desired size, available and terminating pods, the ceiling replicas +
// maxSurge (3 + 1) and the floor minAvailable (3 - 0), the step in full,
// the stop when converged not drawn.
func TestSVGRollingUpdate(t *testing.T) {
	c, svg := chartOf(t, "nginx-rolling-update")
	for _, want := range []string{
		"time since the start of the scenario", ">pods<",
		">rev 1: nginx-deployment-54fd4d6d4c<", ">rev 2: nginx-deployment-76df5b8bb8<",
		">ceiling: replicas + maxSurge<", ">floor: minAvailable = replicas - maxUnavailable<",
		">available pods (all)<", ">terminating pods<",
		">step 1, t=30s: set image nginx-deployment nginx=nginx:1.16.1<", "minimum availability",
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	if strings.Contains(svg, "converged") || strings.Contains(svg, "step 2") {
		t.Error("the stop when converged is drawn")
	}
	old, cur := "desired default/nginx-deployment-54fd4d6d4c", "default/nginx-deployment-76df5b8bb8"
	for series, want := range map[string][]int32{
		old:                {3, 2, 1, 0},
		"desired " + cur:   {1, 2, 3},
		"available " + cur: {0, 1, 2, 3},
		"terminating " + "default/nginx-deployment-54fd4d6d4c": {0, 1, 0, 1, 0, 1, 0},
		"ceiling default/nginx-deployment":                     {4},
		"floor default/nginx-deployment":                       {3},
		"available all":                                        {0, 1, 2, 3},
	} {
		if got := levels(t, c, svg, series); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", series, got, want)
		}
	}
}

// A ReplicaSet is named by the revision it had when it was created (the
// undo gives the first one revision 3), its pods that never became
// available are drawn at 0, and the deadline and the undo are marked.
func TestSVGUndoLegend(t *testing.T) {
	c, svg := chartOf(t, "crashloop-deadline-undo")
	for _, want := range []string{">rev 1: web-5669f7dd7f<", ">rev 2: web-796c944956<", "deadline exceeded",
		">step 2, t=3m0s: rollout undo web: rolled back to revision 1 (web-5669f7dd7f)<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	if strings.Contains(svg, "rev 3") {
		t.Error("the legend names a ReplicaSet by its last revision")
	}
	if got := levels(t, c, svg, "available default/web-796c944956"); !slices.Equal(got, []int32{0}) {
		t.Errorf("the crash-looping ReplicaSet's available pods: %v, want 0 throughout", got)
	}
	var ticks []string
	for _, m := range regexp.MustCompile(`text-anchor="middle">([0-9hms.]+)</text>`).FindAllStringSubmatch(svg, -1) {
		ticks = append(ticks, m[1])
	}
	if got := strings.Join(ticks, " "); got != "0s 30s 1m0s 1m30s 2m0s 2m30s 3m0s" {
		t.Errorf("time ticks %q, want round ones up to shortly after the undo converged", got)
	}
}

// The ceiling and the floor move with scaling: the docs' proportional
// scaling example scales 10 to 15 mid-rollout (maxSurge 3, maxUnavailable
// 2: ceiling 13 -> 18, floor 8 -> 13), and the available pods stay below
// the new floor, as "below minimum availability" says.
func TestSVGScaling(t *testing.T) {
	c, svg := chartOf(t, "proportional-scaling")
	if got := levels(t, c, svg, "ceiling default/nginx-deployment"); !slices.Equal(got, []int32{13, 18}) {
		t.Errorf("ceiling %v, want 13 then 18", got)
	}
	if got := levels(t, c, svg, "floor default/nginx-deployment"); !slices.Equal(got, []int32{8, 13}) {
		t.Errorf("floor %v, want 8 then 13", got)
	}
	if got := levels(t, c, svg, "available all"); got[len(got)-1] >= 13 {
		t.Errorf("available %v: ends at the floor", got)
	}
	if !strings.Contains(svg, "below minimum availability") {
		t.Error("no marker of the minimum availability lost")
	}
}

// A step's whole text is shown, wrapped at spaces, never cut; the
// bookkeeping of a when: (waits until, met) is not drawn, its action is.
func TestSVGStepLabels(t *testing.T) {
	long := "step 1: apply deployment web (replicas 4, RollingUpdate maxSurge 25% (1) maxUnavailable 25% (1), web=registry.example.com/team/web:2026-11-27-abcdef0123456789, sidecar=registry.example.com/team/sidecar:1.2.3)"
	tr := Trace{Frames: []Frame{
		{At: 0, Notes: []string{"create deployment web"}},
		{At: 30 * time.Second, Notes: []string{long, "step 2: waits until new replica set reaches available 2"}},
		{At: 40 * time.Second, Notes: []string{"step 2: met: new replica set reaches available 2 (2, web-1)", "step 2: delete pod web-1-abcde", "step 3: stop when converged"}},
	}}
	c := newChart(&tr)
	lines := c.stepLines()
	joined := strings.Join(lines, "\n")
	text := strings.Join(strings.Fields(joined), " ")
	if want := "step 1, t=30s: " + strings.TrimPrefix(long, "step 1: "); !strings.Contains(text, want) {
		t.Errorf("step 1 not whole:\n%s", joined)
	}
	for _, l := range lines {
		if len([]rune(l)) > svgStepChars+len("step 1, t=30s: ") {
			t.Errorf("line not wrapped: %q", l)
		}
	}
	if len(lines) < 3 || !strings.HasPrefix(lines[1], strings.Repeat(" ", len("step 1, t=30s: "))) {
		t.Errorf("wrapped lines: %q", lines)
	}
	var steps []string
	for _, m := range c.markers {
		steps = append(steps, fmt.Sprintf("%d@%s", m.step, m.at))
	}
	if got := strings.Join(steps, " "); got != "1@30s 2@40s" {
		t.Errorf("markers %s, want step 1 at 30s and step 2 (its action) at 40s", got)
	}
}
