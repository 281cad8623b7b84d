package bench

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"slices"
)

// Chart geometry, in SVG user units (pixels).
const (
	chartPanelWidth  = 420
	chartPanelHeight = 260
	chartMarginLeft  = 60
	chartMarginRight = 20
	chartMarginTop   = 40
	chartMarginBot   = 50
	chartTicks       = 5
)

// chartColours are the series colours, by mode.
var chartColours = map[string]string{ModeEndToEnd: "#1f77b4", ModeInProcess: "#d62728"}

// chartPanel is one plot: a figure of each run against its sessions.
type chartPanel struct {
	title  string
	target float64 // drawn as a dashed line; 0 for none
	value  func(DensityRun) float64
}

// Chart draws the density runs as an SVG image with no dependency: CPU ms
// per session-second and RSS MB per session against sessions (a log
// scale), one series per mode, each target as a dashed line.
func Chart(d Density) []byte {
	panels := []chartPanel{
		{"CPU ms per session-second", TargetCPUMSPerSessionS, func(r DensityRun) float64 { return r.CPUMSPerSessionS }},
		{"RSS MB per session", TargetRSSMBPerSession, func(r DensityRun) float64 { return r.RSSMBPerSession }},
	}
	panelW := chartMarginLeft + chartPanelWidth + chartMarginRight
	height := chartMarginTop + chartPanelHeight + chartMarginBot + 30
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		panelW*len(panels), height, panelW*len(panels), height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")

	minS, maxS := math.Inf(1), math.Inf(-1)
	for _, r := range d.Runs {
		minS = min(minS, float64(max(r.Sessions, 1)))
		maxS = max(maxS, float64(max(r.Sessions, 1)))
	}
	if len(d.Runs) == 0 {
		minS, maxS = 1, 10
	}
	if maxS <= minS {
		maxS = minS * 2
	}
	modes := modesOf(d)
	for i, p := range panels {
		x0 := float64(i*panelW + chartMarginLeft)
		y0 := float64(chartMarginTop)
		w, h := float64(chartPanelWidth), float64(chartPanelHeight)
		maxY := p.target
		for _, r := range d.Runs {
			maxY = max(maxY, p.value(r))
		}
		maxY = niceCeil(maxY * 1.1)
		x := func(s int) float64 {
			return x0 + w*(math.Log(float64(max(s, 1)))-math.Log(minS))/(math.Log(maxS)-math.Log(minS))
		}
		y := func(v float64) float64 { return y0 + h - h*max(v, 0)/maxY }

		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="14" font-weight="bold">%s</text>`+"\n", x0, chartMarginTop-15, html.EscapeString(p.title))
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#888"/>`+"\n", x0, y0, w, h)
		for k := 0; k <= chartTicks; k++ {
			v := maxY * float64(k) / chartTicks
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/>`+"\n", x0, y(v), x0+w, y(v))
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", x0-6, y(v)+4, trimFloat(v))
		}
		for _, s := range sessionTicks(d) {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%d</text>`+"\n", x(s), y0+h+16, s)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">sessions</text>`+"\n", x0+w/2, y0+h+34)
		if p.target > 0 {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#2ca02c" stroke-dasharray="6 4"/>`+"\n", x0, y(p.target), x0+w, y(p.target))
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end" fill="#2ca02c">target %s</text>`+"\n", x0+w-4, y(p.target)-4, trimFloat(p.target))
		}
		for _, m := range modes {
			colour := chartColours[m]
			var pts []string
			for _, r := range d.Runs {
				if r.Mode == m {
					pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(r.Sessions), y(p.value(r))))
				}
			}
			fmt.Fprintf(&b, `<polyline class="%s" fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", m, colour, joinSpace(pts))
			for _, r := range d.Runs {
				if r.Mode == m {
					fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"><title>%s, %d sessions: %s</title></circle>`+"\n",
						x(r.Sessions), y(p.value(r)), colour, m, r.Sessions, trimFloat(p.value(r)))
				}
			}
		}
	}
	// The legend, under the panels.
	for j, m := range modes {
		lx := float64(chartMarginLeft + j*160)
		ly := float64(height - 12)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>`+"\n", lx, ly-4, lx+20, ly-4, chartColours[m])
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", lx+26, ly, m)
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// modesOf lists the modes of d's runs, end to end first.
func modesOf(d Density) []string {
	var out []string
	for _, m := range []string{ModeEndToEnd, ModeInProcess} {
		if slices.ContainsFunc(d.Runs, func(r DensityRun) bool { return r.Mode == m }) {
			out = append(out, m)
		}
	}
	return out
}

// sessionTicks are the distinct session counts of d's runs, ascending.
func sessionTicks(d Density) []int {
	var out []int
	for _, r := range d.Runs {
		out = append(out, r.Sessions)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// trimFloat prints v with at most two decimals and no trailing zeros.
func trimFloat(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}

func joinSpace(s []string) string {
	var b bytes.Buffer
	for i, v := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(v)
	}
	return b.String()
}
