package registry

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"strconv"
	"time"

	"github.com/mtune/mtune/internal/chart"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/rundir"
)

// WriteReport reads R/promoted.json and R/history.jsonl and writes
// R/report.html atomically (storage.WriteFile): a self-contained HTML page
// (no scripts, fonts or images from elsewhere) with
//
//   - the promoted weights: run, since when, weights file, dev score
//     under the metric of the gate that promoted them;
//   - a chart per metric the nights were gated on (in the order of their
//     first night) of its dev score night after night, x being the
//     night's number (a rollback is no night): the promoted weights'
//     after each night (a kept night leaves it as it was) and each night's
//     candidate's; a rollback steps the promoted line to the rolled-back
//     run's at the night before it. The weights in use have a score under
//     a metric only once a night gated on it has measured them: a night
//     that promotes by chrF2 ends the BLEU chart's promoted line until a
//     night gated on BLEU scores the new weights. No chart mixes two
//     metrics' scores;
//   - the history as a table, one row per line, its class the decision:
//     night number, run (linked to its own report, runs/ID/report.html),
//     decision, metric, candidate and promoted dev score, gain (oriented:
//     for TER promoted − candidate) and its 95% interval, p-value, the
//     gate's settings (metric, least gain, largest p-value, bootstrap
//     samples), the run compared with, start, end, error or note.
//
// Failed nights have no score: they are in the table, not in the charts.
// A registry where nothing has run yet gets a page saying so. A malformed
// promoted.json or history line is an error naming the file (and line).
func WriteReport(ctx context.Context, r Registry) error {
	ptr, _, err := r.ReadPointer(ctx)
	if err != nil {
		return fmt.Errorf("%w (not redrawing %s)", err, r.Report())
	}
	hist, _, err := r.ReadHistory(ctx)
	if err != nil {
		return fmt.Errorf("%w (not redrawing %s)", err, r.Report())
	}
	var b bytes.Buffer
	if err := reportTemplate.Execute(&b, buildReport(r, ptr, hist)); err != nil {
		return fmt.Errorf("registry: drawing %s: %w", r.Report(), err)
	}
	if err := storage.WriteFile(ctx, r.Report(), b.Bytes()); err != nil {
		return fmt.Errorf("registry: writing %s: %w", r.Report(), err)
	}
	return nil
}

// reportData is what reportTemplate draws.
type reportData struct {
	Root     string
	Pointer  *Pointer
	Link     string // the promoted run's report, relative to R; "" if none
	Rows     []reportRow
	Count    map[string]int
	HasChart bool
	Charts   []chart.Chart // one per metric
}

// reportRow is a history line as the table shows it.
type reportRow struct {
	N int // 1-based night number, the chart's x; 0 for a rollback
	Entry
	Link string // the run's report, relative to R; "" if its id is not plain
	// Against is what the gate compared the candidate with ("" if it did
	// not: a failed night, a rollback).
	Against string
}

// Series classes (chart.CSS colours): the promoted weights in blue, the
// candidates in red.
const (
	promotedClass  = "s0"
	candidateClass = "s1"
)

// metricChart is the chart of one metric's dev scores.
type metricChart struct {
	name       string
	prom, cand chart.Series
	cur        *float64 // the weights in use's score under the metric, if known
}

func buildReport(r Registry, ptr *Pointer, hist []Entry) *reportData {
	d := &reportData{Root: r.Root, Pointer: ptr, Count: map[string]int{}}
	if ptr != nil {
		d.Link = runLink(ptr.Run)
	}
	var charts []*metricChart
	chartOf := func(name string) *metricChart {
		for _, c := range charts {
			if sameMetric(c.name, name) {
				return c
			}
		}
		c := &metricChart{name: name, prom: chart.Series{Name: "promoted", Class: promotedClass},
			cand: chart.Series{Name: "candidate", Class: candidateClass}}
		charts = append(charts, c)
		return c
	}
	night := 0
	for _, e := range hist {
		if e.Decision != Rollback {
			night++
		}
		row := reportRow{Entry: e, Link: runLink(e.Run)}
		if e.Decision != Rollback {
			row.N = night
		}
		if e.Decision == Promoted || e.Decision == Kept {
			row.Against = describeRun(e.PromotedRun)
		}
		d.Rows = append(d.Rows, row)
		d.Count[e.Decision]++

		x := float64(night)
		var c *metricChart
		switch e.Decision {
		case Promoted, Rollback:
			if e.CandidateScore == nil {
				break
			}
			// Other weights are in use: known under this metric only.
			for _, o := range charts {
				o.cur = nil
			}
			c = chartOf(metricName(e.Metric))
			c.cur = e.CandidateScore
		case Kept:
			if c = chartOf(metricName(e.Metric)); c.cur == nil {
				// Not measured under the metric before: the weights in
				// use are those the gate measured.
				c.cur = e.PromotedScore
			}
		default: // failed, or a decision this version does not know
			continue
		}
		if e.Decision != Rollback && e.CandidateScore != nil {
			c.cand.X, c.cand.Y = append(c.cand.X, x), append(c.cand.Y, *e.CandidateScore)
		}
		if e.Decision == Rollback && night == 0 {
			continue // before any night: nowhere to draw it
		}
		for _, o := range charts {
			if o.cur != nil {
				o.prom.X, o.prom.Y = append(o.prom.X, x), append(o.prom.Y, *o.cur)
			}
		}
	}
	for _, c := range charts {
		if len(c.prom.X)+len(c.cand.X) > 0 {
			d.Charts = append(d.Charts, chart.New("Dev "+c.name+" night after night", "night", "dev "+c.name, 720, 320, []chart.Series{c.prom, c.cand}))
		}
	}
	d.HasChart = len(d.Charts) > 0
	return d
}

// runLink is the relative link from R/report.html to run id's own report,
// or "" if id is not a plain name (a hand-edited history).
func runLink(id string) string {
	if CheckRunID(id) != nil {
		return ""
	}
	return "runs/" + id + "/" + rundir.ReportName
}

func fixed2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

// reportTemplate draws reportData; it includes the chart templates.
var reportTemplate = template.Must(template.Must(chart.Define(template.New("registry").Funcs(template.FuncMap{
	"score": func(x *float64) string {
		if x == nil {
			return "–"
		}
		return fixed2(*x)
	},
	"metric": func(name string) string {
		if name == "" {
			return "–"
		}
		return metricName(name)
	},
	"fixed": fixed2,
	"gain": func(x *float64) string {
		if x == nil {
			return "–"
		}
		return fmt.Sprintf("%+.2f", *x)
	},
	"ci": func(ci *[2]float64) string {
		if ci == nil {
			return "–"
		}
		return "[" + fixed2(ci[0]) + ", " + fixed2(ci[1]) + "]"
	},
	"gate": func(g *GateSettings) string {
		if g == nil {
			return "–"
		}
		return g.String()
	},
	"night": func(n int) string {
		if n == 0 {
			return "–"
		}
		return strconv.Itoa(n)
	},
	"pvalue": func(p *float64) string {
		if p == nil {
			return "–"
		}
		return strconv.FormatFloat(*p, 'g', 4, 64)
	},
	"time": func(t time.Time) string {
		if t.IsZero() {
			return "–"
		}
		return t.UTC().Format(time.RFC3339)
	},
}))).Parse(reportHTML))

const reportHTML = `{{template "page-head" (printf "mtune registry: %s" .Root)}}.decision { font-weight: bold; }
tr.decision-promoted td { background: #e6f4e6; } tr.decision-promoted .decision { color: #2a7d2a; }
tr.decision-kept .decision { color: #555; }
tr.decision-failed td { background: #fbe9e9; } tr.decision-failed .decision { color: #b22; }
tr.decision-rollback td { background: #fff6d5; } tr.decision-rollback .decision { color: #b8860b; }
</style>
</head>
<body>
<h1>mtune registry</h1>
<p>Registry <code>{{.Root}}</code>{{if .Rows}}: {{len .Rows}} line(s) of history, {{index .Count "promoted"}} promoted, {{index .Count "kept"}} kept, {{index .Count "failed"}} failed, {{index .Count "rollback"}} rollback(s){{end}}.</p>

<h2>Promoted weights</h2>
{{with .Pointer}}<table id="promoted">
<tr><th class="l">run</th><td class="l">{{if $.Link}}<a href="{{$.Link}}">{{.Run}}</a>{{else}}{{.Run}}{{end}}</td></tr>
<tr><th class="l">since</th><td class="l">{{time .Since}}</td></tr>
<tr><th class="l">weights</th><td class="l"><code>{{.Weights}}</code></td></tr>
<tr><th class="l">dev {{metric .Metric}}</th><td class="l">{{fixed .DevScore}}</td></tr>
</table>
{{else}}<p id="promoted">Nothing is promoted: the model's own weights are in use.</p>
{{end}}
{{if .Rows}}<h2>Dev scores night after night</h2>
{{if .HasChart}}{{range .Charts}}{{template "chart" .}}
{{end}}<p>A chart per metric the nights were gated on: the promoted weights' dev score after each night (unchanged by a kept night; a rollback steps it, at the night before, to the run put back; unknown under a metric from the night weights promoted by another metric are in use until a night gated on it scores them) and each night's candidate's; failed nights have none.</p>
{{else}}<p>No night has reached its gate yet: no dev score to draw.</p>
{{end}}
<h2>History</h2>
<table id="history">
<tr><th>#</th><th class="l">run</th><th class="l">decision</th><th class="l">metric</th><th>candidate</th><th>promoted</th><th>gain</th><th>95% interval</th><th>p</th><th class="l">gate</th><th class="l">compared with</th><th class="l">start</th><th class="l">end</th><th class="l">error / note</th></tr>
{{range .Rows}}<tr class="decision-{{.Decision}}"><td>{{night .N}}</td><td class="l">{{if .Link}}<a href="{{.Link}}">{{.Run}}</a>{{else}}{{.Run}}{{end}}</td><td class="l decision">{{.Decision}}</td><td class="l">{{metric .Metric}}</td><td>{{score .CandidateScore}}</td><td>{{score .PromotedScore}}</td><td>{{gain .Gain}}</td><td>{{ci .CI}}</td><td>{{pvalue .PValue}}</td><td class="l">{{gate .Gate}}</td><td class="l">{{or .Against "–"}}</td><td class="l">{{time .Start}}</td><td class="l">{{time .End}}</td><td class="l">{{.Error}}{{if and .Error .Note}}; {{end}}{{.Note}}</td></tr>
{{end}}</table>
{{else}}<h2>History</h2>
<p id="history">Nothing has run yet: the history is empty.</p>
{{end}}</body>
</html>
`
