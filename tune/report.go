package tune

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/io/weights"
)

// ReportName is the file WriteReport writes into the output folder.
const ReportName = "report.html"

// reportTopSparse is the number of sparse features the report lists.
const reportTopSparse = 20

// WriteReport reads the output folder out of a run (local or gs://):
// manifest.json, metrics.jsonl and best/weights.json (or, without it, the
// weights.json of the best epoch), and writes out/report.html atomically: a
// self-contained HTML page (no scripts, fonts or images from elsewhere) with
// the learning curves of tune and dev BLEU and the non-zero weights per
// epoch as inline SVG charts, a table of the metrics, a summary of the best
// weights (dense groups, the 20 sparse features of largest |weight|) and
// the manifest's command line, inputs and status. A missing or malformed
// manifest.json or metrics.jsonl is an error naming the file (but a failed
// run may have no metrics.jsonl); missing best weights are noted in the
// page.
func WriteReport(ctx context.Context, out string) error {
	data, err := buildReport(ctx, out)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := reportTemplate.Execute(&b, data); err != nil {
		return fmt.Errorf("tune: report: %w", err)
	}
	if err := storage.WriteFile(ctx, Layout{Root: out}.Report(), b.Bytes()); err != nil {
		return fmt.Errorf("tune: report: %w", err)
	}
	return nil
}

// ReadMetrics reads metrics.jsonl at path: one Metrics a line, epochs 1,
// 2, … in order; blank lines are skipped.
func ReadMetrics(ctx context.Context, path string) ([]Metrics, error) {
	data, err := storage.ReadFile(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("tune: report: %w", err)
	}
	return parseMetrics(path, data)
}

// parseMetrics parses the content of metrics.jsonl; path names it in errors.
func parseMetrics(path string, data []byte) ([]Metrics, error) {
	var ms []Metrics
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m Metrics
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("tune: report: %s:%d: %w", path, i+1, err)
		}
		if m.Epoch != len(ms)+1 {
			return nil, fmt.Errorf("tune: report: %s:%d: epoch %d, want %d", path, i+1, m.Epoch, len(ms)+1)
		}
		ms = append(ms, m)
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("tune: report: %s: no epochs", path)
	}
	return ms, nil
}

type reportData struct {
	Out       string
	Manifest  Manifest
	Epochs    []Metrics
	HasDev    bool
	HasAlpha  bool
	HasPool   bool
	Best      int
	BLEUChart chart
	NZChart   chart
	Weights   *weightSummary
	WeightErr string
}

type weightSummary struct {
	Path          string
	DenseNonZero  int
	DenseTotal    int
	SparseNonZero int
	Groups        []denseGroup
	TopSparse     []weights.Entry
}

type denseGroup struct {
	Label  string
	Values []float64
}

func buildReport(ctx context.Context, out string) (*reportData, error) {
	d := &reportData{Out: out}
	l := Layout{Root: out}
	mpath := l.Manifest()
	data, err := storage.ReadFile(ctx, mpath)
	if err != nil {
		return nil, fmt.Errorf("tune: report: %w", err)
	}
	if err := json.Unmarshal(data, &d.Manifest); err != nil {
		return nil, fmt.Errorf("tune: report: %s: %w", mpath, err)
	}
	// A run that failed before its first epoch has no metrics.jsonl: its
	// report says so, and why.
	if d.Epochs, err = ReadMetrics(ctx, l.Metrics()); err != nil &&
		!(errors.Is(err, fs.ErrNotExist) && d.Manifest.Status == "failed") {
		return nil, err
	}
	for _, m := range d.Epochs {
		d.HasDev = d.HasDev || m.DevBLEU != nil
		d.HasAlpha = d.HasAlpha || m.Alpha != nil
		d.HasPool = d.HasPool || m.Pool != 0
	}
	d.Best = BestEpoch(d.Epochs)

	tuneBLEU := series{Name: "tune BLEU", Class: "s0"}
	dev := series{Name: "dev BLEU", Class: "s1"}
	nz := series{Name: "non-zero weights", Class: "s0"}
	for _, m := range d.Epochs {
		x := float64(m.Epoch)
		tuneBLEU.X, tuneBLEU.Y = append(tuneBLEU.X, x), append(tuneBLEU.Y, m.TuneBLEU)
		if m.DevBLEU != nil {
			dev.X, dev.Y = append(dev.X, x), append(dev.Y, *m.DevBLEU)
		}
		nz.X, nz.Y = append(nz.X, x), append(nz.Y, float64(m.NonZero))
	}
	bleu := []series{tuneBLEU}
	if len(dev.X) > 0 {
		bleu = append(bleu, dev)
	}
	d.BLEUChart = makeChart("BLEU per epoch", "epoch", "BLEU", 640, 320, bleu)
	d.NZChart = makeChart("Non-zero weights per epoch", "epoch", "non-zero weights", 640, 240, []series{nz})

	wpath := l.Best().JSON()
	ok, err := storage.Exists(ctx, wpath)
	if err == nil && !ok {
		wpath = l.Epoch(d.Best).JSON()
		ok, err = storage.Exists(ctx, wpath)
	}
	if err != nil {
		return nil, fmt.Errorf("tune: report: %w", err)
	}
	if !ok {
		d.WeightErr = "No best weights: " + wpath + " is missing."
		return d, nil
	}
	s, err := weights.Read(ctx, wpath, nil)
	if err != nil {
		return nil, fmt.Errorf("tune: report: %w", err)
	}
	d.Weights = summarize(s, wpath)
	return d, nil
}

func summarize(s *weights.Set, path string) *weightSummary {
	w := &weightSummary{Path: path}
	for _, g := range s.Groups {
		dg := denseGroup{Label: g.Label}
		for i := 0; i < g.Len; i++ {
			x := s.Value(feature.DenseName(g.Label, i))
			dg.Values = append(dg.Values, x)
			w.DenseTotal++
			if x != 0 {
				w.DenseNonZero++
			}
		}
		w.Groups = append(w.Groups, dg)
	}
	sp := s.Sparse()
	w.SparseNonZero = len(sp)
	slices.SortStableFunc(sp, func(a, b weights.Entry) int {
		return cmp.Compare(math.Abs(b.Value), math.Abs(a.Value))
	})
	w.TopSparse = sp[:min(len(sp), reportTopSparse)]
	return w
}

// Charts.

type series struct {
	Name, Class string
	X, Y        []float64
}

type chart struct {
	Title, XLabel, YLabel string
	Width, Height         int
	// Plot area.
	Left, Top, Right, Bottom float64
	XTicks, YTicks           []tick
	Lines                    []line
}

type tick struct {
	Pos   float64 // pixel coordinate along the axis
	Label string
}

type line struct {
	Name, Class string
	Points      string // the polyline's points attribute
	Dots        []dot
	LegendY     float64
}

type dot struct {
	X, Y  float64
	Title string
}

func makeChart(title, xlabel, ylabel string, width, height int, ss []series) chart {
	c := chart{Title: title, XLabel: xlabel, YLabel: ylabel, Width: width, Height: height,
		Left: 64, Top: 16, Right: float64(width) - 150, Bottom: float64(height) - 48}
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
	if xmin == xmax {
		xmin, xmax = xmin-1, xmax+1
	}
	yt := niceTicks(ymin, ymax)
	ylo, yhi := yt[0], yt[len(yt)-1]
	if !(yhi > ylo) || math.IsInf(yhi-ylo, 0) {
		ylo, yhi = ymin, ymin+1 // degenerate range: draw something finite
	}
	px := func(x float64) float64 { return c.Left + (x-xmin)/(xmax-xmin)*(c.Right-c.Left) }
	py := func(y float64) float64 { return c.Bottom - (y-ylo)/(yhi-ylo)*(c.Bottom-c.Top) }
	for _, v := range yt {
		c.YTicks = append(c.YTicks, tick{Pos: round2(py(v)), Label: formatTick(v)})
	}
	for _, v := range epochTicks(xmin, xmax) {
		c.XTicks = append(c.XTicks, tick{Pos: round2(px(v)), Label: formatTick(v)})
	}
	for k, s := range ss {
		l := line{Name: s.Name, Class: s.Class, LegendY: c.Top + 8 + 20*float64(k)}
		pts := make([]string, len(s.X))
		for i := range s.X {
			x, y := round2(px(s.X[i])), round2(py(s.Y[i]))
			pts[i] = strconv.FormatFloat(x, 'f', -1, 64) + "," + strconv.FormatFloat(y, 'f', -1, 64)
			l.Dots = append(l.Dots, dot{X: x, Y: y, Title: fmt.Sprintf("%s, %s %g: %g", s.Name, xlabel, s.X[i], s.Y[i])})
		}
		l.Points = strings.Join(pts, " ")
		c.Lines = append(c.Lines, l)
	}
	return c
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

// epochTicks returns the integer epochs in [lo, hi], at most about ten of
// them.
func epochTicks(lo, hi float64) []float64 {
	step := math.Max(1, niceStep((hi-lo)/10))
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		if v >= 1 {
			out = append(out, v)
		}
	}
	return out
}

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

// shellJoin joins args into a POSIX shell command line, quoting those that
// need it.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) < 0 {
			q[i] = a
			continue
		}
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

func formatTime(t any) string {
	switch t := t.(type) {
	case time.Time:
		return t.Format(time.RFC3339)
	case *time.Time:
		if t != nil {
			return t.Format(time.RFC3339)
		}
	}
	return "–"
}

func formatTick(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

func formatNum(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"num": formatNum,
	"fixed": func(x float64) string {
		return strconv.FormatFloat(x, 'f', 2, 64)
	},
	"optnum": func(x *float64) string {
		if x == nil {
			return "–"
		}
		return strconv.FormatFloat(*x, 'f', 2, 64)
	},
	"shell": shellJoin,
	"sub":   func(a, b float64) float64 { return a - b },
	"add":   func(a, b float64) float64 { return a + b },
	"div2":  func(a, b float64) float64 { return (a + b) / 2 },
	"float": func(i int) float64 { return float64(i) },
	"time":  formatTime,
}).Parse(reportHTML))

const reportHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>mtune report: {{.Out}}</title>
<style>
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
th { background: #f0f0f0; }
td.l, th.l { text-align: left; }
tr.best td { background: #fff6d5; }
code { background: #f4f4f4; padding: 0.1em 0.3em; word-break: break-all; }
svg { display: block; margin: 0.5em 0 1.5em; }
svg text { font-size: 12px; font-family: sans-serif; fill: #222; }
svg .axis { stroke: #222; stroke-width: 1; }
svg .grid { stroke: #e4e4e4; stroke-width: 1; }
svg polyline { fill: none; stroke-width: 2; }
svg .s0 { stroke: #1f77b4; fill: #1f77b4; }
svg .s1 { stroke: #d62728; fill: #d62728; }
svg polyline.s0, svg polyline.s1 { fill: none; }
.status-done { color: #2a7d2a; } .status-failed { color: #b22; } .status-running { color: #b8860b; }
</style>
</head>
<body>
<h1>mtune report</h1>
<p>Output folder <code>{{.Out}}</code>, status <b class="status-{{.Manifest.Status}}">{{.Manifest.Status}}</b>,
{{len .Epochs}} epoch(s), best epoch {{.Best}}.</p>

<h2>Learning curves</h2>
{{template "chart" .BLEUChart}}
{{if not .HasDev}}<p>No dev set: dev BLEU is not recorded.</p>{{end}}
{{template "chart" .NZChart}}

<h2>Metrics per epoch</h2>
<table id="metrics">
<tr><th>epoch</th><th>tune BLEU</th>{{if .HasDev}}<th>dev BLEU</th>{{end}}<th>progressive BLEU</th>{{if .HasAlpha}}<th>α</th>{{end}}<th>non-zero</th><th>updates</th>{{if .HasPool}}<th>pool</th>{{end}}<th>sentences</th><th>seconds</th></tr>
{{- $d := .}}
{{range .Epochs}}<tr{{if eq .Epoch $d.Best}} class="best"{{end}}><td>{{.Epoch}}</td><td>{{fixed .TuneBLEU}}</td>{{if $d.HasDev}}<td>{{optnum .DevBLEU}}</td>{{end}}<td>{{fixed .ProgressiveBLEU}}</td>{{if $d.HasAlpha}}<td>{{optnum .Alpha}}</td>{{end}}<td>{{.NonZero}}</td><td>{{.Updates}}</td>{{if $d.HasPool}}<td>{{.Pool}}</td>{{end}}<td>{{.Sentences}}</td><td>{{fixed .Seconds}}</td></tr>
{{end}}</table>

<h2>Best weights</h2>
{{with .Weights}}
<p>From <code>{{.Path}}</code>: {{.DenseNonZero}} of {{.DenseTotal}} dense weights and {{.SparseNonZero}} sparse weights are non-zero.</p>
<h3>Dense weights by group</h3>
<table id="dense">
<tr><th class="l">group</th><th>values</th></tr>
{{range .Groups}}<tr><td class="l">{{.Label}}</td><td class="l">{{range $i, $v := .Values}}{{if $i}} {{end}}{{num $v}}{{end}}</td></tr>
{{end}}</table>
<h3>Largest sparse weights</h3>
{{if .TopSparse}}<table id="sparse">
<tr><th>#</th><th class="l">feature</th><th>weight</th></tr>
{{range $i, $e := .TopSparse}}<tr><td>{{add (float $i) 1}}</td><td class="l">{{$e.Name}}</td><td>{{num $e.Value}}</td></tr>
{{end}}</table>{{else}}<p>No non-zero sparse weights.</p>{{end}}
{{else}}<p>{{.WeightErr}}</p>{{end}}

<h2>Run</h2>
{{with .Manifest}}
<table id="manifest">
<tr><th class="l">command line</th><td class="l"><code>{{shell .CommandLine}}</code></td></tr>
<tr><th class="l">version</th><td class="l">{{.Version}}</td></tr>
<tr><th class="l">status</th><td class="l">{{.Status}}{{if .Error}}: {{.Error}}{{end}}</td></tr>
<tr><th class="l">start</th><td class="l">{{time .Start}}</td></tr>
<tr><th class="l">end</th><td class="l">{{time .End}}</td></tr>
<tr><th class="l">seed</th><td class="l">{{.Seed}}</td></tr>
{{if .Init}}<tr><th class="l">init</th><td class="l">{{.Init}}</td></tr>{{end}}
<tr><th class="l">options</th><td class="l">mode {{.Options.Mode}}, mix {{.Options.Mix}}, algo {{.Options.Algo}}, shards {{.Options.Shards}}, epochs {{.Options.Epochs}}, n-best {{.Options.NBest}}, mini-batch {{.Options.MiniBatch}}</td></tr>
</table>
<h3>Inputs</h3>
<table id="inputs">
<tr><th class="l">role</th><th class="l">path</th><th class="l">sha256</th></tr>
{{range .Inputs}}<tr><td class="l">{{.Role}}</td><td class="l"><code>{{.Path}}</code></td><td class="l"><code>{{.SHA256}}</code></td></tr>
{{end}}</table>
{{end}}
</body>
</html>
{{define "chart"}}<svg xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="{{.Title}}">
<title>{{.Title}}</title>
{{- $c := .}}
{{range .YTicks}}<line class="grid" x1="{{$c.Left}}" x2="{{$c.Right}}" y1="{{.Pos}}" y2="{{.Pos}}"/><line class="axis" x1="{{sub $c.Left 5}}" x2="{{$c.Left}}" y1="{{.Pos}}" y2="{{.Pos}}"/><text x="{{sub $c.Left 8}}" y="{{add .Pos 4}}" text-anchor="end">{{.Label}}</text>
{{end}}{{range .XTicks}}<line class="axis" x1="{{.Pos}}" x2="{{.Pos}}" y1="{{$c.Bottom}}" y2="{{add $c.Bottom 5}}"/><text x="{{.Pos}}" y="{{add $c.Bottom 18}}" text-anchor="middle">{{.Label}}</text>
{{end}}<line class="axis" x1="{{$c.Left}}" x2="{{$c.Right}}" y1="{{$c.Bottom}}" y2="{{$c.Bottom}}"/>
<line class="axis" x1="{{$c.Left}}" x2="{{$c.Left}}" y1="{{$c.Top}}" y2="{{$c.Bottom}}"/>
<text x="{{div2 $c.Left $c.Right}}" y="{{add $c.Bottom 38}}" text-anchor="middle">{{.XLabel}}</text>
<text transform="translate(14 {{div2 $c.Top $c.Bottom}}) rotate(-90)" text-anchor="middle">{{.YLabel}}</text>
{{range .Lines}}<g class="series" data-name="{{.Name}}"><polyline class="{{.Class}}" points="{{.Points}}"/>
{{$l := .}}{{range .Dots}}<circle class="{{$l.Class}}" cx="{{.X}}" cy="{{.Y}}" r="3"><title>{{.Title}}</title></circle>{{end}}</g>
<g class="legend"><line class="{{.Class}}" x1="{{add $c.Right 16}}" x2="{{add $c.Right 36}}" y1="{{.LegendY}}" y2="{{.LegendY}}" stroke-width="2"/><text x="{{add $c.Right 42}}" y="{{add .LegendY 4}}">{{.Name}}</text></g>
{{end}}</svg>{{end}}`
