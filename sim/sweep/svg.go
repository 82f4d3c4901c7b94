package sweep

import (
	"fmt"
	"html"
	"strings"
	"time"
)

// SVG draws a sweep's rows as a comparison chart, a row per
// combination, named with what its percentages resolve to ([Row].Resolved):
// the spread of its time to complete over the seeds (a bar from the
// fastest to the slowest completed run, a tick at the median (p50), a dot
// at the mean), how many of its runs completed, its worst peak of running
// pods (terminating ones not counted: what maxSurge bounds) and its worst
// minimum of available pods, so that speed, spread and safety
// are read together. Rows without a completed run (or with an error) say
// so instead of a bar.
func SVG(scenario string, rows []Row) []byte {
	const rowH, top, left, barW, valueW = 30, 78, 16, 360, 230
	label := len("combination")
	var longest time.Duration
	shortest := time.Duration(-1)
	for _, r := range rows {
		label = max(label, len(rowLabel(r)))
		longest = max(longest, r.TimeToComplete, r.TimeToCompleteP50, r.TimeToCompleteMax)
		if r.Err == "" && r.Completed > 0 && (shortest < 0 || r.TimeToCompleteMin < shortest) {
			shortest = r.TimeToCompleteMin
		}
	}
	if longest <= 0 {
		longest = time.Second
	}
	// The axis starts at 0, or, when every run took long and the spread
	// would be a sliver, at a round time below the fastest.
	var origin time.Duration
	if shortest > longest*2/5 {
		origin = shortest - (longest-shortest)/2
		step := tickStep(longest - origin)
		origin = max(0, origin/step*step)
	}
	labelW := 7 * label // about 7 px a character at font-size 12
	x0 := left + labelW + 16
	xDone := x0 + barW + valueW             // completed/total
	xPeak, xMin := xDone+110, xDone+110+150 // worst peak pods, worst min available
	W := xMin + 90
	H := top + rowH*len(rows) + 56
	x := func(d time.Duration) float64 { return float64(x0) + float64(d-origin)/float64(longest-origin)*barW }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14">%s: sweep</text>`+"\n", left, html.EscapeString(scenario))
	fmt.Fprintf(&b, `<text x="%d" y="44">time to complete over the seeds</text>`+"\n", x0)
	fmt.Fprintf(&b, `<text x="%d" y="44" text-anchor="middle">completed</text><text x="%d" y="44" text-anchor="middle">peak running (worst)</text><text x="%d" y="44" text-anchor="middle">min available (worst)</text>`+"\n", xDone, xPeak, xMin)
	// the key: what the marks of a row are
	kx, ky := x0, 62
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="30" height="8" fill="#a6c3e0"/><text x="%d" y="%d" font-size="10">min–max</text>`+"\n", kx, ky-7, kx+34, ky)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black" stroke-width="2"/><text x="%d" y="%d" font-size="10">p50</text>`+"\n", kx+90, ky-10, kx+90, ky+2, kx+95, ky)
	fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="3.5" fill="white" stroke="#1f4e79" stroke-width="1.5"/><text x="%d" y="%d" font-size="10">mean</text>`+"\n", kx+130, ky-3, kx+137, ky)
	for i, r := range rows {
		y := top + rowH*i
		cy := y + 12
		fmt.Fprintf(&b, `<text x="%d" y="%d" data-row="%d">%s</text>`+"\n", left, cy+4, i, html.EscapeString(rowLabel(r)))
		switch {
		case r.Err != "":
			fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#c0392b">error: %s</text>`+"\n", x0, cy+4, html.EscapeString(shorten(r.Err, 60)))
			continue
		case r.Completed == 0:
			fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#c0392b">no run completed</text>`+"\n", x0, cy+4)
		default:
			lo, hi := x(r.TimeToCompleteMin), x(r.TimeToCompleteMax)
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="12" fill="#a6c3e0" data-spread="%s %s"><title>fastest %s, slowest %s over %d completed runs</title></rect>`+"\n",
				lo, cy-6, max(hi-lo, 1), r.TimeToCompleteMin, r.TimeToCompleteMax, r.TimeToCompleteMin.Round(time.Millisecond), r.TimeToCompleteMax.Round(time.Millisecond), r.Completed)
			p := x(r.TimeToCompleteP50)
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="black" stroke-width="2" data-p50="%s"><title>p50 %s</title></line>`+"\n",
				p, cy-9, p, cy+9, r.TimeToCompleteP50, r.TimeToCompleteP50.Round(time.Millisecond))
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%d" r="3.5" fill="white" stroke="#1f4e79" stroke-width="1.5" data-mean="%s"><title>mean %s</title></circle>`+"\n",
				x(r.TimeToComplete), cy, r.TimeToComplete, r.TimeToComplete.Round(time.Millisecond))
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="10">p50 %s (%s–%s)</text>`+"\n", hi+8, cy+4,
				r.TimeToCompleteP50.Round(100*time.Millisecond), r.TimeToCompleteMin.Round(100*time.Millisecond), r.TimeToCompleteMax.Round(100*time.Millisecond))
		}
		color := "black"
		if r.Completed < r.Runs {
			color = "#c0392b"
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" fill="%s" data-completed="%d/%d">%d/%d</text>`+"\n", xDone, cy+4, color, r.Completed, r.Runs, r.Completed, r.Runs)
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%d</text><text x="%d" y="%d" text-anchor="middle">%d</text>`+"\n", xPeak, cy+4, r.PeakRunning, xMin, cy+4, r.MinAvailable)
	}
	// the time axis of the bars
	ay := top + rowH*len(rows) + 4
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", x0, ay, x0+barW, ay)
	step := tickStep(longest - origin)
	for d := origin; d <= longest; d += step {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="black"/><text x="%.1f" y="%d" text-anchor="middle" font-size="10">%s</text>`+"\n",
			x(d), ay, x(d), ay+4, x(d), ay+16, d)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="10">time after the first step</text>`+"\n", x0, ay+32)
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// tickStep is the first round duration that cuts span into at most 6
// pieces.
func tickStep(span time.Duration) time.Duration {
	for _, s := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second,
		5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute,
		10 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour} {
		if span/s <= 6 {
			return s
		}
	}
	return span / 6
}

// rowLabel names a row on the chart: with what its percentages resolve
// to, when it has one.
func rowLabel(r Row) string {
	if r.Resolved != "" {
		return r.Resolved
	}
	return r.Params
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
