// Package chart draws line charts as inline SVG for the self-contained
// HTML reports of mtune (rundir.Report, registry.WriteReport): no
// scripts, fonts or images from elsewhere.
//
// New lays a chart out (scales, round tick values, one polyline and its
// dots per series); Define adds to an html/template set the template
// "chart", which draws a Chart, and "chart-css", the style rules the
// drawing needs (CSS), to be included inside the page's <style> element:
//
//	t := template.Must(chart.Define(template.New("page")))
//	template.Must(t.Parse(`<style>{{template "chart-css"}}</style>
//	{{template "chart" .BLEU}}`))
//
// Series are coloured by their Class: "s0" (blue) and "s1" (red).
package chart

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Series is one line of a chart: the points (X[i], Y[i]) in order. X and
// Y have the same length.
type Series struct {
	// Name labels the line in the legend and in the dots' tooltips.
	Name string
	// Class is the CSS class of the line: "s0" or "s1" (see CSS).
	Class string
	// X and Y are the points' coordinates.
	X, Y []float64
}

// Chart is a laid-out line chart, ready for the "chart" template. Its
// coordinates are pixels of the SVG (y grows downwards).
type Chart struct {
	// Title is the SVG's title; XLabel and YLabel name the axes.
	Title, XLabel, YLabel string
	// Width and Height are the SVG's size.
	Width, Height int
	// Left, Top, Right and Bottom bound the plot area.
	Left, Top, Right, Bottom float64
	// XTicks are at whole numbers (from 1), YTicks at round values.
	XTicks, YTicks []Tick
	// Lines holds one Line per series, in order.
	Lines []Line
}

// Tick is a labelled mark on an axis.
type Tick struct {
	// Pos is the pixel coordinate along the axis.
	Pos float64
	// Label is the value it marks.
	Label string
}

// Line is a series as drawn.
type Line struct {
	// Name and Class are the series'.
	Name, Class string
	// Points is the polyline's points attribute, "x,y x,y …".
	Points string
	// Dots marks each point, with a tooltip.
	Dots []Dot
	// LegendY is the line's y in the legend.
	LegendY float64
}

// Dot is a point of a line, with its tooltip.
type Dot struct {
	// X and Y are its pixel coordinates.
	X, Y float64
	// Title is its tooltip: "series, xlabel x: y".
	Title string
}

// LegendTextX is the x of a legend's text right of the plot, and
// LegendCharWidth an upper bound of the width of a character of it (12px
// sans-serif: about 0.6 em at most but for W and M): the legend's room is
// what its longest name needs, at least 150 pixels.
const (
	LegendTextX     = 42
	LegendCharWidth = 7.5
)

// New lays out a chart of width × height pixels of the series ss (the
// legend on the right). The x axis spans the series' x values, with ticks
// at whole numbers from 1 (epochs, nights); the y axis spans round values
// around their y values. A chart without points has empty lines and axes
// from 0 to 1.
func New(title, xlabel, ylabel string, width, height int, ss []Series) Chart {
	// The legend, right of the plot, takes what its longest name needs.
	legend := 150.0
	for _, s := range ss {
		legend = max(legend, LegendTextX+LegendCharWidth*float64(utf8.RuneCountInString(s.Name))+8)
	}
	c := Chart{Title: title, XLabel: xlabel, YLabel: ylabel, Width: width, Height: height,
		Left: 64, Top: 16, Right: float64(width) - legend, Bottom: float64(height) - 48}
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for i := range s.X {
			xmin, xmax = min(xmin, s.X[i]), max(xmax, s.X[i])
			ymin, ymax = min(ymin, s.Y[i]), max(ymax, s.Y[i])
		}
	}
	if xmin > xmax { // no points
		xmin, xmax, ymin, ymax = 0, 1, 0, 1
	}
	firstTick := 1.0 // epochs and nights count from 1, but for an epoch 0
	if xmin == 0 {
		firstTick = 0
	}
	if xmin == xmax {
		xmin, xmax = xmin-1, xmax+1
	}
	yt := niceTicks(ymin, ymax)
	ylo, yhi := yt[0], yt[len(yt)-1]
	if !(yhi > ylo) || math.IsInf(ylo, 0) || math.IsInf(yhi, 0) {
		// Degenerate or overflowing ticks: span the values themselves.
		ylo, yhi = ymin, ymax
		if !(yhi > ylo) {
			d := math.Max(math.Abs(ylo)*0.05, 0.5)
			ylo, yhi = ylo-d, yhi+d
		}
		var in []float64
		for _, v := range yt {
			if v >= ylo && v <= yhi {
				in = append(in, v)
			}
		}
		if yt = in; len(yt) < 2 {
			yt = []float64{ylo, yhi}
		}
	}
	px := func(x float64) float64 { return c.Left + frac(x, xmin, xmax)*(c.Right-c.Left) }
	py := func(y float64) float64 { return c.Bottom - frac(y, ylo, yhi)*(c.Bottom-c.Top) }
	for _, v := range yt {
		c.YTicks = append(c.YTicks, Tick{Pos: round2(py(v)), Label: formatTick(v)})
	}
	for _, v := range intTicks(xmin, xmax, firstTick) {
		c.XTicks = append(c.XTicks, Tick{Pos: round2(px(v)), Label: formatTick(v)})
	}
	for k, s := range ss {
		l := Line{Name: s.Name, Class: s.Class, LegendY: c.Top + 8 + 20*float64(k)}
		pts := make([]string, len(s.X))
		for i := range s.X {
			x, y := round2(px(s.X[i])), round2(py(s.Y[i]))
			pts[i] = strconv.FormatFloat(x, 'f', -1, 64) + "," + strconv.FormatFloat(y, 'f', -1, 64)
			l.Dots = append(l.Dots, Dot{X: x, Y: y, Title: fmt.Sprintf("%s, %s %g: %g", s.Name, xlabel, s.X[i], s.Y[i])})
		}
		l.Points = strings.Join(pts, " ")
		c.Lines = append(c.Lines, l)
	}
	return c
}

// frac returns where v lies in [lo, hi] (lo < hi), 0 at lo and 1 at hi,
// finite even when hi - lo overflows.
func frac(v, lo, hi float64) float64 {
	if math.IsInf(hi-lo, 0) {
		return (v/2 - lo/2) / (hi/2 - lo/2)
	}
	return (v - lo) / (hi - lo)
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// niceTicks returns evenly spaced round values (steps of 1, 2 or 5 times a
// power of ten) covering [lo, hi], about five of them.
func niceTicks(lo, hi float64) []float64 {
	if math.IsInf(hi-lo, 0) || math.IsNaN(hi-lo) {
		return []float64{lo, hi}
	}
	if lo == hi {
		d := math.Max(math.Abs(lo)*0.05, 0.5)
		lo, hi = lo-d, hi+d
	}
	raw := (hi - lo) / 5
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * p
	for _, m := range []float64{1, 2, 5} {
		if m*p >= raw {
			step = m * p
			break
		}
	}
	start := math.Floor(lo/step) * step
	end := math.Ceil(hi/step) * step
	var out []float64
	for i := 0; i < 100; i++ {
		v := start + float64(i)*step
		if v > end+step/2 {
			break
		}
		out = append(out, math.Round(v/step)*step)
	}
	if len(out) < 2 || out[0] == out[len(out)-1] {
		return []float64{lo, hi}
	}
	return out
}

// intTicks returns the whole numbers from first (1, or 0 for an epoch 0)
// in [lo, hi] (epochs, nights),
// at most about ten of them.
func intTicks(lo, hi, first float64) []float64 {
	step := math.Max(1, niceStep((hi-lo)/10))
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		if v >= first {
			out = append(out, v)
		}
	}
	return out
}

// niceStep rounds raw up to 1, 2 or 5 times a power of ten (1 if raw is
// not positive).
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

func formatTick(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// Template is the name of the template, added by Define, that draws a
// Chart as an <svg> element.
const Template = "chart"

// CSSTemplate is the name of the template, added by Define, that writes
// PageCSS and CSS; include it inside the page's <style> element.
const CSSTemplate = "chart-css"

// HeadTemplate is the name of the template, added by Define, that starts
// a report page: the doctype, <html>, <head> with the title (its data, a
// string) and an open <style> element holding CSSTemplate's rules. The
// page goes on with its own rules, then "</style></head>".
const HeadTemplate = "page-head"

const headTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.}}</title>
<style>
{{template "chart-css"}}`

// PageCSS holds the style rules mtune's report pages share: body, tables,
// code. The CSS template writes it before CSS. It ends in a newline.
const PageCSS = `body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
th { background: #f0f0f0; }
td.l, th.l { text-align: left; }
code { background: #f4f4f4; padding: 0.1em 0.3em; word-break: break-all; }
`

// CSS holds the style rules of the charts' SVG: text, axes, grid and the
// colours of the series classes s0 and s1. It ends in a newline.
const CSS = `svg { display: block; margin: 0.5em 0 1.5em; }
svg text { font-size: 12px; font-family: sans-serif; fill: #222; }
svg .axis { stroke: #222; stroke-width: 1; }
svg .grid { stroke: #e4e4e4; stroke-width: 1; }
svg polyline { fill: none; stroke-width: 2; }
svg .s0 { stroke: #1f77b4; fill: #1f77b4; }
svg .s1 { stroke: #d62728; fill: #d62728; }
svg polyline.s0, svg polyline.s1 { fill: none; }
`

// svgTemplate draws a Chart; its functions are funcs.
const svgTemplate = `<svg xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="{{.Title}}">
<title>{{.Title}}</title>
{{- $c := .}}
{{range .YTicks}}<line class="grid" x1="{{$c.Left}}" x2="{{$c.Right}}" y1="{{.Pos}}" y2="{{.Pos}}"/><line class="axis" x1="{{chartSub $c.Left 5}}" x2="{{$c.Left}}" y1="{{.Pos}}" y2="{{.Pos}}"/><text x="{{chartSub $c.Left 8}}" y="{{chartAdd .Pos 4}}" text-anchor="end">{{.Label}}</text>
{{end}}{{range .XTicks}}<line class="axis" x1="{{.Pos}}" x2="{{.Pos}}" y1="{{$c.Bottom}}" y2="{{chartAdd $c.Bottom 5}}"/><text x="{{.Pos}}" y="{{chartAdd $c.Bottom 18}}" text-anchor="middle">{{.Label}}</text>
{{end}}<line class="axis" x1="{{$c.Left}}" x2="{{$c.Right}}" y1="{{$c.Bottom}}" y2="{{$c.Bottom}}"/>
<line class="axis" x1="{{$c.Left}}" x2="{{$c.Left}}" y1="{{$c.Top}}" y2="{{$c.Bottom}}"/>
<text x="{{chartMid $c.Left $c.Right}}" y="{{chartAdd $c.Bottom 38}}" text-anchor="middle">{{.XLabel}}</text>
<text transform="translate(14 {{chartMid $c.Top $c.Bottom}}) rotate(-90)" text-anchor="middle">{{.YLabel}}</text>
{{range .Lines}}<g class="series" data-name="{{.Name}}"><polyline class="{{.Class}}" points="{{.Points}}"/>
{{$l := .}}{{range .Dots}}<circle class="{{$l.Class}}" cx="{{.X}}" cy="{{.Y}}" r="3"><title>{{.Title}}</title></circle>{{end}}</g>
<g class="legend"><line class="{{.Class}}" x1="{{chartAdd $c.Right 16}}" x2="{{chartAdd $c.Right 36}}" y1="{{.LegendY}}" y2="{{.LegendY}}" stroke-width="2"/><text x="{{chartAdd $c.Right 42}}" y="{{chartAdd .LegendY 4}}">{{.Name}}</text></g>
{{end}}</svg>`

// funcs are the functions of svgTemplate, named so as not to clash with
// the page's own.
var funcs = template.FuncMap{
	"chartAdd": func(a, b float64) float64 { return a + b },
	"chartSub": func(a, b float64) float64 { return a - b },
	"chartMid": func(a, b float64) float64 { return (a + b) / 2 },
}

// Define adds to t's set the templates Template ("chart", whose data is a
// Chart), CSSTemplate ("chart-css") and HeadTemplate ("page-head"), and the functions chartAdd,
// chartSub and chartMid they use. Call it before t is executed; it returns
// t.
func Define(t *template.Template) (*template.Template, error) {
	t = t.Funcs(funcs)
	if _, err := t.New(Template).Delims("{{", "}}").Parse(svgTemplate); err != nil {
		return nil, fmt.Errorf("chart: template %s: %w", Template, err)
	}
	if _, err := t.New(CSSTemplate).Delims("{{", "}}").Parse(PageCSS + CSS); err != nil {
		return nil, fmt.Errorf("chart: template %s: %w", CSSTemplate, err)
	}
	if _, err := t.New(HeadTemplate).Delims("{{", "}}").Parse(headTemplate); err != nil {
		return nil, fmt.Errorf("chart: template %s: %w", HeadTemplate, err)
	}
	return t, nil
}

// ParsePoints parses the points attribute of a chart's polyline ("x,y x,y
// …", as Chart's Lines hold it) back into coordinates.
func ParsePoints(points string) ([][2]float64, error) {
	var out [][2]float64
	for _, f := range strings.Fields(points) {
		xs, ys, ok := strings.Cut(f, ",")
		x, err1 := strconv.ParseFloat(xs, 64)
		y, err2 := strconv.ParseFloat(ys, 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("chart: bad point %q", f)
		}
		out = append(out, [2]float64{x, y})
	}
	return out, nil
}
