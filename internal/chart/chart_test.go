package chart

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"html/template"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNiceTicks(t *testing.T) {
	tests := []struct {
		name   string
		lo, hi float64
	}{
		{"bleu", 18.5, 26},
		{"equal", 25, 25},
		{"zero", 0, 0},
		{"counts", 14, 40},
		{"tiny", 1e-9, 3e-9},
		{"negative", -3.5, -0.25},
		{"huge", -1e308, 1e308},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := niceTicks(tc.lo, tc.hi)
			if len(got) < 2 || len(got) > 12 {
				t.Fatalf("%d ticks %v", len(got), got)
			}
			if got[0] > tc.lo || got[len(got)-1] < tc.hi {
				t.Errorf("ticks %v do not cover [%g, %g]", got, tc.lo, tc.hi)
			}
			for i := 1; i < len(got); i++ {
				if !(got[i] > got[i-1]) {
					t.Errorf("ticks %v not increasing", got)
				}
			}
		})
	}
}

func TestIntTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		want   string
	}{
		{1, 3, "[1 2 3]"},
		{0, 1, "[1]"},
		{0.5, 1.5, "[1]"},
		{1, 40, "[5 10 15 20 25 30 35 40]"},
		{1, 100, "[10 20 30 40 50 60 70 80 90 100]"},
		{-3, -1, "[]"},
	}
	for _, tc := range tests {
		if got := fmt.Sprint(intTicks(tc.lo, tc.hi, 1)); got != tc.want {
			t.Errorf("intTicks(%g, %g) = %s, want %s", tc.lo, tc.hi, got, tc.want)
		}
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name   string
		ss     []Series
		points []int // points per line
	}{
		{"two series", []Series{
			{Name: "a", Class: "s0", X: []float64{1, 2, 3}, Y: []float64{20.5, 24.75, 23.1}},
			{Name: "b", Class: "s1", X: []float64{1, 3}, Y: []float64{18.5, 26}},
		}, []int{3, 2}},
		{"one point", []Series{{Name: "a", Class: "s0", X: []float64{1}, Y: []float64{25}}}, []int{1}},
		{"no points", []Series{{Name: "a", Class: "s0"}}, []int{0}},
		{"no series", nil, nil},
		{"flat zero", []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{0, 0}}}, []int{2}},
		{"huge", []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{-1e308, 1e308}}}, []int{2}},
		{"huge x", []Series{{Name: "a", X: []float64{-1e308, 1e308}, Y: []float64{1, 2}}}, []int{2}},
		{"near the largest float", []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1.7e308, 1.75e308}}}, []int{2}},
		{"huge and flat", []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1e300, 1e300}}}, []int{2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := New("T", "x", "y", 640, 320, tc.ss)
			if len(c.Lines) != len(tc.points) {
				t.Fatalf("%d lines, want %d", len(c.Lines), len(tc.points))
			}
			for k, l := range c.Lines {
				pts := strings.Fields(l.Points)
				if len(pts) != tc.points[k] || len(l.Dots) != tc.points[k] {
					t.Errorf("line %d: %d points, %d dots, want %d", k, len(pts), len(l.Dots), tc.points[k])
				}
				for _, d := range l.Dots {
					if math.IsNaN(d.X) || math.IsNaN(d.Y) || d.X < c.Left || d.X > c.Right || d.Y < c.Top-0.01 || d.Y > c.Bottom+0.01 {
						t.Errorf("dot %v outside the plot area [%g, %g]×[%g, %g]", d, c.Left, c.Right, c.Top, c.Bottom)
					}
				}
			}
			if len(c.YTicks) < 2 {
				t.Errorf("y ticks %v", c.YTicks)
			}
			for _, tk := range append(c.YTicks, c.XTicks...) {
				if math.IsNaN(tk.Pos) || math.IsInf(tk.Pos, 0) {
					t.Errorf("tick %v not finite", tk)
				}
			}
		})
	}
	c := New("T", "night", "BLEU", 640, 320, []Series{{Name: "dev", X: []float64{1, 2}, Y: []float64{20, 30}}})
	if d := c.Lines[0].Dots; d[0].Title != "dev, night 1: 20" || !(d[0].Y > d[1].Y) || !(d[0].X < d[1].X) {
		t.Errorf("dots %+v", d)
	}
}

func TestDefine(t *testing.T) {
	tmpl, err := Define(template.New("page"))
	if err != nil {
		t.Fatal(err)
	}
	tmpl = template.Must(tmpl.Parse(`<html><head><style>
{{template "chart-css"}}</style></head><body>{{template "chart" .}}</body></html>`))
	c := New(`<b>"T"</b>`, "x&y", "y", 640, 320, []Series{
		{Name: "<script>", Class: "s0", X: []float64{1, 2}, Y: []float64{1, 2}},
	})
	var b bytes.Buffer
	if err := tmpl.Execute(&b, c); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !strings.Contains(page, "<style>\n"+PageCSS+CSS+"</style>") {
		t.Errorf("page lacks the CSS verbatim:\n%s", page)
	}
	if strings.Contains(page, "<script>") || strings.Contains(page, "<b>") || !strings.Contains(page, "&lt;script&gt;") {
		t.Errorf("names not escaped:\n%s", page)
	}
	svg := page[strings.Index(page, "<svg") : strings.Index(page, "</svg>")+len("</svg>")]
	d := xml.NewDecoder(strings.NewReader(svg))
	polylines := 0
	for {
		tok, err := d.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Errorf("svg is not well-formed XML: %v", err)
			}
			break
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "polyline" {
			polylines++
		}
	}
	if polylines != 1 {
		t.Errorf("%d polylines, want 1", polylines)
	}

	// A set already executed cannot take the templates.
	if _, err := Define(tmpl); err == nil || !strings.Contains(err.Error(), "chart: template chart") {
		t.Errorf("Define after Execute: %v, want an error naming the template", err)
	}
	// Another set with other delimiters still gets working templates.
	other, err := Define(template.New("x").Delims("[[", "]]"))
	if err != nil {
		t.Fatal(err)
	}
	template.Must(other.Parse(`[[template "chart" .]]`))
	b.Reset()
	if err := other.Execute(&b, c); err != nil || !strings.Contains(b.String(), "<polyline") {
		t.Errorf("with other delimiters: %v\n%s", err, b.String())
	}
}

// TestLegendFits: the legend's names fit in the chart, however long (the
// report's "tune BLEU (decoded)" was clipped by a fixed margin); an epoch
// 0 gets its tick.
func TestLegendFits(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ss    []Series
		ticks string // the x ticks' labels
	}{
		{"short", []Series{{Name: "dev BLEU", X: []float64{1, 2}, Y: []float64{1, 2}}}, "1 2"},
		{"decoded", []Series{{Name: "tune BLEU (decoded)", X: []float64{1, 2}, Y: []float64{1, 2}}, {Name: "dev BLEU", X: []float64{0, 1, 2}, Y: []float64{0, 1, 2}}}, "0 1 2"},
		{"long", []Series{{Name: "tune BLEU (decoded) of replica 12, mean", X: []float64{1, 2, 3}, Y: []float64{1, 2, 3}}}, "1 2 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New("T", "epoch", "BLEU", 640, 320, tc.ss)
			for _, l := range c.Lines {
				if end := c.Right + LegendTextX + LegendCharWidth*float64(utf8.RuneCountInString(l.Name)); end > float64(c.Width) {
					t.Errorf("legend %q ends at x %g, the chart at %d", l.Name, end, c.Width)
				}
			}
			if c.Right-c.Left < 100 {
				t.Errorf("plot %g pixels wide", c.Right-c.Left)
			}
			var labels []string
			for _, tk := range c.XTicks {
				labels = append(labels, tk.Label)
			}
			if got := strings.Join(labels, " "); got != tc.ticks {
				t.Errorf("x ticks %q, want %q", got, tc.ticks)
			}
		})
	}
}
