package sim

import (
	"fmt"
	"html"
	"strings"
	"time"
)

var svgPalette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

// SVG draws the trace as a step chart that tells the rollout's story: each
// ReplicaSet's desired size (a colored line, labelled by revision), the
// available pods of all Deployments (a grey area under them), a vertical
// marker at every scenario step and at every condition change that matters
// (progress deadline exceeded, minimum availability lost or regained,
// paused, resumed), with round tick values, axis titles, and a time axis
// that ends shortly after the last change rather than at the time limit.
func SVG(r *Result) []byte {
	const H, left, top, bottom, plotW = 500, 64, 108, 62, 640
	frames := r.Trace.Frames

	// The ReplicaSets in order of appearance, their revisions, and the
	// largest count drawn.
	type series struct{ name, rev string }
	var sets []series
	index := map[string]int{}
	var maxY int32 = 1
	var lastChange time.Duration
	prev := ""
	for _, f := range frames {
		var sig strings.Builder
		var avail int32
		for _, d := range f.Deployments {
			avail += d.Available
			for _, rs := range d.ReplicaSets {
				i, ok := index[rs.Name]
				if !ok {
					i = len(sets)
					index[rs.Name] = i
					sets = append(sets, series{name: rs.Name})
				}
				if rs.Revision != "" {
					sets[i].rev = rs.Revision
				}
				maxY = max(maxY, rs.Desired, rs.Current)
				fmt.Fprintf(&sig, "%s:%d/%d/%d ", rs.Name, rs.Desired, rs.Current, rs.Available)
			}
			maxY = max(maxY, d.Spec)
		}
		maxY = max(maxY, avail)
		fmt.Fprintf(&sig, "a%d", avail)
		if s := sig.String(); s != prev {
			prev, lastChange = s, f.At
		}
	}
	markers := svgMarkers(frames, len(frames) > 0 && len(frames[0].Deployments) > 1)
	for _, m := range markers {
		lastChange = max(lastChange, m.at)
	}
	// The story ends with the last change; a margin shows that nothing
	// moved afterwards. The time limit of a run that converged early would
	// squeeze the rollout into the left edge.
	end := max(lastChange+max(lastChange/10, 5*time.Second), time.Second)

	longest := len("available pods (all)")
	for _, s := range sets {
		longest = max(longest, len(svgLabel(s.name, s.rev)))
	}
	right := 36 + 7*longest + 16
	W := left + plotW + right
	x := func(t time.Duration) float64 { return left + float64(min(t, end))/float64(end)*plotW }
	yTop := maxY + maxY/10 + 1
	y := func(v int32) float64 { return float64(H-bottom) - float64(v)/float64(yTop)*float64(H-top-bottom) }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14">%s (seed %d)</text>`+"\n", left, html.EscapeString(r.Scenario), r.Seed)

	// Grid, ticks and axis titles.
	yStep := niceStep(int64(yTop), 6, []int64{1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000})
	for v := int64(0); v <= int64(yTop); v += yStep {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e4e4e4"/><text x="%d" y="%.1f" text-anchor="end">%d</text>`+"\n",
			left, y(int32(v)), left+plotW, y(int32(v)), left-6, y(int32(v))+4, v)
	}
	tStep := time.Duration(niceStep(int64(end/time.Second), 8, []int64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 21600, 43200, 86400})) * time.Second
	for t := time.Duration(0); t <= end; t += tStep {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="black"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n",
			x(t), H-bottom, x(t), H-bottom+4, x(t), H-bottom+18, t)
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", left, H-bottom, left+plotW, H-bottom)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", left, top, left, H-bottom)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">time since the start of the scenario</text>`+"\n", left+plotW/2, H-bottom+40)
	fmt.Fprintf(&b, `<text transform="translate(18 %d) rotate(-90)" text-anchor="middle">pods</text>`+"\n", (top+H-bottom)/2)

	// Available pods: an area under the ReplicaSet lines, so no line hides
	// under it.
	var area []string
	area = append(area, fmt.Sprintf("%.1f,%.1f", x(0), y(0)))
	var last int32
	for _, f := range frames {
		if f.At > end {
			break
		}
		var a int32
		for _, d := range f.Deployments {
			a += d.Available
		}
		area = append(area, fmt.Sprintf("%.1f,%.1f", x(f.At), y(last)), fmt.Sprintf("%.1f,%.1f", x(f.At), y(a)))
		last = a
	}
	area = append(area, fmt.Sprintf("%.1f,%.1f", x(end), y(last)), fmt.Sprintf("%.1f,%.1f", x(end), y(0)))
	fmt.Fprintf(&b, `<polygon fill="#d9d9d9" stroke="none" points="%s"><title>available pods (all Deployments)</title></polygon>`+"\n", strings.Join(area, " "))

	// Markers: steps and condition changes.
	// Labels go on the first of five rows where they do not overlap the
	// label before them (about 6 px a character at font-size 10).
	var rowEnd [svgMarkerRows]float64
	for _, m := range markers {
		mx := x(m.at)
		row := 0
		for row < svgMarkerRows && rowEnd[row] > mx {
			row++
		}
		if row == svgMarkerRows { // every row is taken here: the one free first
			row = 0
			for i := range rowEnd {
				if rowEnd[i] < rowEnd[row] {
					row = i
				}
			}
		}
		rowEnd[row] = mx + 2 + 6*float64(len([]rune(m.label))) + 6
		ly := top - 62 + 12*row
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-dasharray="3 3"/><text x="%.1f" y="%d" fill="%s" font-size="10">%s</text>`+"\n",
			mx, ly+2, mx, H-bottom, m.color, mx+2, ly, m.color, html.EscapeString(m.label))
	}

	// Each ReplicaSet's desired size.
	for i, s := range sets {
		color := svgPalette[i%len(svgPalette)]
		var pts []string
		var last int32
		have := false
		for _, f := range frames {
			if f.At > end {
				break
			}
			v := int32(0)
			for _, d := range f.Deployments {
				for _, rs := range d.ReplicaSets {
					if rs.Name == s.name {
						v = rs.Desired
					}
				}
			}
			if have {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(f.At), y(last)))
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(f.At), y(v)))
			last, have = v, true
		}
		if have {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(end), y(last)))
		}
		label := svgLabel(s.name, s.rev)
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2.5" points="%s"><title>%s</title></polyline>`+"\n", color, strings.Join(pts, " "), html.EscapeString(label))
		ly := top + 10 + 18*i
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2.5"/><text x="%d" y="%d">%s</text>`+"\n",
			left+plotW+12, ly, left+plotW+32, ly, color, left+plotW+38, ly+4, html.EscapeString(label))
	}
	ly := top + 10 + 18*len(sets)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="20" height="10" fill="#d9d9d9"/><text x="%d" y="%d">available pods (all)</text>`+"\n",
		left+plotW+12, ly-5, left+plotW+38, ly+4)
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// svgLabel names a ReplicaSet in the legend: its revision first.
func svgLabel(name, rev string) string {
	if rev == "" {
		return name + " (desired)"
	}
	return "rev " + rev + ": " + name + " (desired)"
}

// svgMarkerRows is how many rows of marker labels the chart has.
const svgMarkerRows = 5

type svgMarker struct {
	at           time.Duration
	label, color string
}

// svgMarkers lists the scenario's steps and the condition changes worth a
// marker, in time order.
func svgMarkers(frames []Frame, named bool) []svgMarker {
	var out []svgMarker
	who := func(d string) string {
		if named {
			return d + ": "
		}
		return ""
	}
	cond := map[string]string{} // deployment/type → status reason
	for _, f := range frames {
		for _, n := range f.Notes {
			if rest, ok := strings.CutPrefix(n, "step "); ok {
				label := rest
				if len(label) > 28 {
					label = label[:27] + "…"
				}
				out = append(out, svgMarker{f.At, label, "#555"})
			}
		}
		for _, d := range f.Deployments {
			for _, c := range d.Conditions {
				key := d.Name + "/" + c.Type
				now := c.Status + " " + c.Reason
				was, seen := cond[key]
				cond[key] = now
				if !seen && c.Status == "True" || was == now {
					continue
				}
				switch {
				case c.Type == "Progressing" && c.Reason == "ProgressDeadlineExceeded":
					out = append(out, svgMarker{f.At, who(d.Name) + "deadline exceeded", "#c0392b"})
				case c.Type == "Progressing" && c.Reason == "DeploymentPaused":
					out = append(out, svgMarker{f.At, who(d.Name) + "paused", "#8e44ad"})
				case c.Type == "Progressing" && c.Reason == "DeploymentResumed":
					out = append(out, svgMarker{f.At, who(d.Name) + "resumed", "#8e44ad"})
				case c.Type == "Available" && c.Status == "False" && seen:
					out = append(out, svgMarker{f.At, who(d.Name) + "below minimum availability", "#d35400"})
				case c.Type == "Available" && c.Status == "True" && seen:
					out = append(out, svgMarker{f.At, who(d.Name) + "minimum availability", "#27ae60"})
				}
			}
		}
	}
	return out
}

// niceStep is the first of steps (round values, ascending) that cuts span
// into at most n pieces; beyond the list, powers of ten times the last.
func niceStep(span, n int64, steps []int64) int64 {
	for _, s := range steps {
		if span/s <= n {
			return s
		}
	}
	s := steps[len(steps)-1]
	for span/s > n {
		s *= 10
	}
	return s
}
