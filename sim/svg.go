package sim

import (
	"cmp"
	"fmt"
	"html"
	"slices"
	"strings"
	"time"
)

var svgPalette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

// The colors of the lines that are not a ReplicaSet's.
const (
	svgCeilingColor = "#c0392b"
	svgFloorColor   = "#1e8449"
	svgAreaColor    = "#e3e3e3"
	svgStepColor    = "#555"
)

// SVG draws the trace as a step chart that tells the rollout's story:
// for each ReplicaSet (a color, named in the legend by the revision it had
// when it was created) its desired size (solid), its available pods
// (dashed) and its terminating pods (dotted, when it had some); for each
// Deployment the ceiling replicas + maxSurge and the floor minAvailable
// (replicas − maxUnavailable), which move with scaling; the available
// pods of all Deployments (a grey area); a numbered marker at every step
// of the scenario, listed in full under the chart (the internal ones, a
// stop when converged and a when: being waited for, are not drawn), and
// a marker at every condition change that matters (progress deadline
// exceeded, minimum availability lost or regained, paused, resumed).
// Ticks are round, axes titled, and the time axis ends shortly after the
// last change rather than at the time limit.
func SVG(r *Result) []byte {
	c := newChart(&r.Trace)
	return c.draw(r.Scenario, r.Seed)
}

// Layout of the run chart, in pixels.
const (
	svgPlotW, svgPlotH = 640, 330
	svgLeft            = 64
	svgMarkerRows      = 5 // rows of condition and step labels above the plot
	svgTop             = 40 + 12*svgMarkerRows
	svgAxisH           = 56 // the time axis and its title under the plot
	svgStepLineH       = 15
	svgStepChars       = 100 // a step's text is wrapped at this many characters
	svgNameW           = 70  // the Deployments' names at the right end of their ceilings and floors
)

func (c *chart) draw(scenario string, seed uint64) []byte {
	end := max(c.lastChange+max(c.lastChange/10, 5*time.Second), time.Second)
	for _, m := range c.markers {
		end = max(end, m.at+max(m.at/20, time.Second))
	}
	// legend width: about 7 px a character at font-size 12
	longest := len("floor: minAvailable = replicas - maxUnavailable")
	for _, s := range c.sets {
		longest = max(longest, len(s.label(c.named)))
	}
	legendW := 40 + 7*longest + 16
	if c.named {
		legendW += svgNameW // the ceiling and floor labels
	}
	stepLines := c.stepLines()
	W := svgLeft + svgPlotW + legendW
	plotBottom := svgTop + svgPlotH
	H := plotBottom + svgAxisH + svgStepLineH*len(stepLines) + 16
	x := func(t time.Duration) float64 {
		return svgLeft + float64(min(t, end))/float64(end)*svgPlotW
	}
	yTop := c.maxY + c.maxY/10 + 1
	y := func(v int32) float64 { return float64(plotBottom) - float64(v)/float64(yTop)*svgPlotH }
	polyline := func(pts []svgPoint) string {
		var b strings.Builder
		for i, p := range pts {
			if p.at > end {
				break
			}
			if i > 0 {
				fmt.Fprintf(&b, " %.1f,%.1f", x(p.at), y(pts[i-1].v))
			}
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%.1f,%.1f", x(p.at), y(p.v))
		}
		if n := len(pts); n > 0 {
			fmt.Fprintf(&b, " %.1f,%.1f", x(end), y(pts[n-1].v))
		}
		return b.String()
	}

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14">%s (seed %d)</text>`+"\n", svgLeft, html.EscapeString(scenario), seed)

	// Grid, ticks and axis titles.
	yStep := niceStep(int64(yTop), 6, []int64{1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000})
	for v := int64(0); v <= int64(yTop); v += yStep {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e4e4e4"/><text x="%d" y="%.1f" text-anchor="end">%d</text>`+"\n",
			svgLeft, y(int32(v)), svgLeft+svgPlotW, y(int32(v)), svgLeft-6, y(int32(v))+4, v)
	}
	tStep := time.Duration(niceStep(int64(end/time.Second), 8, []int64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 21600, 43200, 86400})) * time.Second
	for t := time.Duration(0); t <= end; t += tStep {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="black"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n",
			x(t), plotBottom, x(t), plotBottom+4, x(t), plotBottom+18, t)
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", svgLeft, plotBottom, svgLeft+svgPlotW, plotBottom)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", svgLeft, svgTop, svgLeft, plotBottom)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">time since the start of the scenario</text>`+"\n", svgLeft+svgPlotW/2, plotBottom+38)
	fmt.Fprintf(&b, `<text transform="translate(18 %d) rotate(-90)" text-anchor="middle">pods</text>`+"\n", (svgTop+plotBottom)/2)

	// Available pods of all Deployments: an area under the lines.
	if len(c.avail) > 0 {
		pts := polyline(c.avail)
		fmt.Fprintf(&b, `<polygon fill="%s" stroke="none" data-series="available all" points="%.1f,%.1f %s %.1f,%.1f"><title>available pods (all Deployments)</title></polygon>`+"\n",
			svgAreaColor, x(0), y(0), pts, x(end), y(0))
	}

	// Markers: steps (numbered) and condition changes, their labels on
	// the first row where they do not overlap the label before them
	// (about 6 px a character at font-size 10).
	var rowEnd [svgMarkerRows]float64
	for _, m := range c.markers {
		mx := x(m.at)
		label := m.label
		if m.step > 0 {
			label = fmt.Sprintf("step %d", m.step)
		}
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
		rowEnd[row] = mx + 2 + 6*float64(len([]rune(label))) + 6
		ly := svgTop - 12*svgMarkerRows + 8 + 12*row
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-dasharray="3 3"/><text x="%.1f" y="%d" fill="%s" font-size="10" data-marker="%s">%s</text>`+"\n",
			mx, ly+2, mx, plotBottom, m.color, mx+2, ly, m.color, html.EscapeString(m.label), html.EscapeString(label))
	}

	// Each ReplicaSet's lines.
	for i, s := range c.sets {
		color := svgPalette[i%len(svgPalette)]
		label := html.EscapeString(s.label(c.named))
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2.5" data-series="desired %s" points="%s"><title>%s: desired</title></polyline>`+"\n",
			color, html.EscapeString(s.key), polyline(s.desired), label)
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" stroke-dasharray="5 3" data-series="available %s" points="%s"><title>%s: available</title></polyline>`+"\n",
			color, html.EscapeString(s.key), polyline(s.available), label)
		if s.maxTerminating > 0 {
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" stroke-dasharray="1.5 2.5" data-series="terminating %s" points="%s"><title>%s: terminating</title></polyline>`+"\n",
				color, html.EscapeString(s.key), polyline(s.terminating), label)
		}
	}

	// Each Deployment's ceiling and floor, over the ReplicaSets' lines
	// (which they often meet); with several Deployments, their names at
	// the lines' right ends, moved apart so that none covers another.
	var names []svgLabel
	for _, d := range c.deps {
		for _, l := range []struct {
			kind, color, dash string
			pts               []svgPoint
		}{{"ceiling", svgCeilingColor, "7 3", d.ceiling}, {"floor", svgFloorColor, "7 3", d.floor}} {
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" stroke-dasharray="%s" data-series="%s %s" points="%s"><title>%s %s</title></polyline>`+"\n",
				l.color, l.dash, l.kind, html.EscapeString(d.key), polyline(l.pts), html.EscapeString(d.name), l.kind)
			if c.named && len(l.pts) > 0 {
				names = append(names, svgLabel{y(l.pts[len(l.pts)-1].v) + 3, l.color, d.name})
			}
		}
	}
	for _, l := range spreadLabels(names, 11) {
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" fill="%s" font-size="10">%s</text>`+"\n", svgLeft+svgPlotW+4, l.y, l.color, html.EscapeString(l.text))
	}
	// Legend: a ReplicaSet a line, then what the lines are.
	lx := svgLeft + svgPlotW + 12
	ly := svgTop + 10
	if c.named {
		lx += svgNameW // room for the ceiling and floor labels
	}
	for i, s := range c.sets {
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2.5"/><text x="%d" y="%d">%s</text>`+"\n",
			lx, ly, lx+22, ly, svgPalette[i%len(svgPalette)], lx+28, ly+4, html.EscapeString(s.label(c.named)))
		ly += 18
	}
	ly += 8
	for _, k := range []struct{ dash, width, color, text string }{
		{"", "2.5", "#666", "desired size (replicas)"},
		{"5 3", "1.5", "#666", "available pods"},
		{"1.5 2.5", "1.5", "#666", "terminating pods"},
		{"7 3", "1.5", svgCeilingColor, "ceiling: replicas + maxSurge"},
		{"7 3", "1.5", svgFloorColor, "floor: minAvailable = replicas - maxUnavailable"},
	} {
		dash := ""
		if k.dash != "" {
			dash = fmt.Sprintf(` stroke-dasharray="%s"`, k.dash)
		}
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="%s"%s/><text x="%d" y="%d">%s</text>`+"\n",
			lx, ly, lx+22, ly, k.color, k.width, dash, lx+28, ly+4, k.text)
		ly += 18
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="22" height="10" fill="%s"/><text x="%d" y="%d">available pods (all)</text>`+"\n",
		lx, ly-5, svgAreaColor, lx+28, ly+4)

	// The steps in full, wrapped, under the time axis.
	sy := plotBottom + svgAxisH + 8
	for _, l := range stepLines {
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="%s" xml:space="preserve">%s</text>`+"\n", svgLeft, sy, svgStepColor, html.EscapeString(l))
		sy += svgStepLineH
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// svgLabel is a label at the right of the plot.
type svgLabel struct {
	y           float64
	color, text string
}

// spreadLabels moves labels down, in order of height, so that each is at
// least gap below the one above it.
func spreadLabels(ls []svgLabel, gap float64) []svgLabel {
	slices.SortStableFunc(ls, func(a, b svgLabel) int { return cmp.Compare(a.y, b.y) })
	for i := 1; i < len(ls); i++ {
		ls[i].y = max(ls[i].y, ls[i-1].y+gap)
	}
	return ls
}

// stepLines are the chart's list of steps: "step 1, t=30s: set image …",
// each wrapped at svgStepChars characters, the continuation indented.
func (c *chart) stepLines() []string {
	var out []string
	for _, m := range c.markers {
		if m.step == 0 {
			continue
		}
		head := fmt.Sprintf("step %d, %s: ", m.step, offset(m.at))
		out = append(out, wrapWords(head+m.label, svgStepChars, strings.Repeat(" ", len(head)))...)
	}
	return out
}

// wrapWords cuts s at spaces into lines of at most width characters (a
// longer word stays whole), the lines after the first starting with
// indent.
func wrapWords(s string, width int, indent string) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case len([]rune(line))+1+len([]rune(w)) <= width:
			line += " " + w
		default:
			out = append(out, line)
			line = indent + w
		}
	}
	if line != "" {
		out = append(out, line)
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
