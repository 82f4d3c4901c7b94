package sweep

import (
	"fmt"
	"html"
	"strings"
	"time"
)

// SVG draws a sweep's rows as a small comparison chart: for each
// combination a bar of the mean time to complete with a tick at the
// median, and, beside it, the worst peak pods and the worst minimum of
// available pods, so that speed and safety are read together. Rows without
// a completed run (or with an error) say so instead of a bar.
func SVG(scenario string, rows []Row) []byte {
	const rowH, top, left, barW = 26, 56, 16, 360
	label := len("combination")
	var longest time.Duration
	for _, r := range rows {
		label = max(label, len(r.Params))
		longest = max(longest, r.TimeToComplete, r.TimeToCompleteP50)
	}
	if longest <= 0 {
		longest = time.Second
	}
	labelW := 15 * label / 2 // about 7.5 px a character at font-size 12
	x0 := left + labelW + 16
	const valueW = 56 // room after the longest bar for its value
	W := x0 + barW + valueW + 300
	H := top + rowH*len(rows) + 40
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14">%s: sweep</text>`+"\n", left, html.EscapeString(scenario))
	fmt.Fprintf(&b, `<text x="%d" y="44">time to complete (bar: mean, tick: p50)</text><text x="%d" y="44" text-anchor="middle">peak pods (worst)</text><text x="%d" y="44" text-anchor="middle">min available (worst)</text>`+"\n", x0, x0+barW+valueW+60, x0+barW+valueW+210)
	for i, r := range rows {
		y := top + rowH*i
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", left, y+16, html.EscapeString(r.Params))
		switch {
		case r.Err != "":
			fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#c0392b">error: %s</text>`+"\n", x0, y+16, html.EscapeString(shorten(r.Err, 60)))
			continue
		case r.Completed == 0:
			fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#c0392b">did not complete (%d runs)</text>`+"\n", x0, y+16, r.Runs)
		default:
			w := float64(r.TimeToComplete) / float64(longest) * barW
			p := float64(r.TimeToCompleteP50) / float64(longest) * barW // both ≤ barW
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="16" fill="#4e79a7"><title>mean %s over %d completed runs</title></rect>`+"\n", x0, y+4, w, r.TimeToComplete.Round(time.Millisecond), r.Completed)
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="black" stroke-width="2"><title>p50 %s</title></line>`+"\n", float64(x0)+p, y+1, float64(x0)+p, y+23, r.TimeToCompleteP50.Round(time.Millisecond))
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="10">%s</text>`+"\n", float64(x0)+w+4, y+16, r.TimeToComplete.Round(100*time.Millisecond))
			if r.Completed < r.Runs {
				fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="10" fill="#c0392b">%d/%d completed</text>`+"\n", x0+barW-70, y+16, r.Completed, r.Runs)
			}
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%d</text><text x="%d" y="%d" text-anchor="middle">%d</text>`+"\n", x0+barW+valueW+60, y+16, r.PeakPods, x0+barW+valueW+210, y+16, r.MinAvailable)
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
