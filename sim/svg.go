package sim

import (
	"fmt"
	"html"
	"strings"
	"time"
)

var svgPalette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

// SVG draws the trace as a step chart: the current replicas of every
// ReplicaSet and the available pods of all Deployments over time.
func SVG(r *Result) []byte {
	const H, left, top, bottom, plotW = 420, 60, 40, 40, 620
	frames := r.Trace.Frames
	var names []string
	seen := map[string]bool{}
	var maxY int32 = 1
	end := r.Summary.End
	for _, f := range frames {
		var avail int32
		for _, d := range f.Deployments {
			avail += d.Available
			for _, rs := range d.ReplicaSets {
				if !seen[rs.Name] {
					seen[rs.Name] = true
					names = append(names, rs.Name)
				}
				maxY = max(maxY, rs.Current, rs.Desired)
			}
			maxY = max(maxY, d.Spec)
		}
		maxY = max(maxY, avail)
		end = max(end, f.At)
	}
	if end <= 0 {
		end = time.Second
	}
	// Room on the right for the longest legend label (about 7 px a
	// character at font-size 12).
	longest := len("available pods")
	for _, n := range names {
		longest = max(longest, len(n)+len(" (current)"))
	}
	right := max(220, 36+7*longest+10)
	W := left + plotW + right
	x := func(t time.Duration) float64 { return left + float64(t)/float64(end)*float64(W-left-right) }
	y := func(v int32) float64 { return float64(H-bottom) - float64(v)/float64(maxY)*float64(H-top-bottom) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14">%s (seed %d)</text>`+"\n", left, html.EscapeString(r.Scenario), r.Seed)
	// axes and grid
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", left, H-bottom, W-right, H-bottom)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", left, top, left, H-bottom)
	stepY := max(1, maxY/5)
	for v := int32(0); v <= maxY; v += stepY {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%d</text>`+"\n", left, y(v), W-right, y(v), left-6, y(v)+4, v)
	}
	for i := 0; i <= 5; i++ {
		t := end * time.Duration(i) / 5
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x(t), H-bottom+16, t.Round(time.Second))
	}
	series := func(name, color, dash string, val func(f *Frame) (int32, bool)) {
		var pts []string
		var last int32
		have := false
		for i := range frames {
			v, ok := val(&frames[i])
			if !ok {
				v = 0
			}
			if have {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(frames[i].At), y(last)))
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(frames[i].At), y(v)))
			last, have = v, true
		}
		if have {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(end), y(last)))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"><title>%s</title></polyline>`+"\n", color, dash, strings.Join(pts, " "), html.EscapeString(name))
	}
	legend := func(i int, name, color, dash string) {
		ly := top + 10 + 18*i
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/><text x="%d" y="%d">%s</text>`+"\n", W-right+10, ly, W-right+30, ly, color, dash, W-right+36, ly+4, html.EscapeString(name))
	}
	for i, n := range names {
		color := svgPalette[i%len(svgPalette)]
		series(n, color, "", func(f *Frame) (int32, bool) {
			for _, d := range f.Deployments {
				for _, rs := range d.ReplicaSets {
					if rs.Name == n {
						return rs.Current, true
					}
				}
			}
			return 0, false
		})
		legend(i, n+" (current)", color, "")
	}
	dash := ` stroke-dasharray="6 3"`
	series("available", "black", dash, func(f *Frame) (int32, bool) {
		var a int32
		for _, d := range f.Deployments {
			a += d.Available
		}
		return a, true
	})
	legend(len(names), "available pods", "black", dash)
	b.WriteString("</svg>\n")
	return []byte(b.String())
}
