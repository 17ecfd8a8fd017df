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
//   - the promoted weights: run, since when, weights file, dev BLEU;
//   - a chart of dev BLEU night after night, x being the night's number
//     (a rollback is no night): the promoted weights' after each night (a
//     kept night leaves it as it was) and each night's candidate's; a
//     rollback steps the promoted line to the rolled-back run's at the
//     night before it;
//   - the history as a table, one row per line, its class the decision:
//     night number, run (linked to its own report, runs/ID/report.html),
//     decision, candidate and promoted dev BLEU, gain and its 95%
//     interval, p-value, the gate's settings (metric, least gain, largest
//     p-value, bootstrap samples), the run compared with, start, end,
//     error or note.
//
// Failed nights have no BLEU: they are in the table, not in the chart. A
// registry where nothing has run yet gets a page saying so. A malformed
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
	Chart    chart.Chart
}

// reportRow is a history line as the table shows it.
type reportRow struct {
	N int // 1-based night number, the chart's x; 0 for a rollback
	Entry
	Link string // the run's report, relative to R; "" if its id is not plain
	Gain *float64
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

func buildReport(r Registry, ptr *Pointer, hist []Entry) *reportData {
	d := &reportData{Root: r.Root, Pointer: ptr, Count: map[string]int{}}
	if ptr != nil {
		d.Link = runLink(ptr.Run)
	}
	prom := chart.Series{Name: "promoted", Class: promotedClass}
	cand := chart.Series{Name: "candidate", Class: candidateClass}
	var cur *float64 // the promoted weights' dev BLEU so far
	night := 0
	for _, e := range hist {
		if e.Decision != Rollback {
			night++
		}
		row := reportRow{Entry: e, Link: runLink(e.Run)}
		if e.Decision != Rollback {
			row.N = night
		}
		if e.CandidateBLEU != nil && e.PromotedBLEU != nil {
			g := *e.CandidateBLEU - *e.PromotedBLEU
			row.Gain = &g
		}
		if e.Decision == Promoted || e.Decision == Kept {
			row.Against = describeRun(e.PromotedRun)
		}
		d.Rows = append(d.Rows, row)
		d.Count[e.Decision]++

		x := float64(night)
		switch e.Decision {
		case Promoted, Rollback:
			if e.CandidateBLEU != nil {
				cur = e.CandidateBLEU
			}
		case Kept:
			if cur == nil {
				// Nothing promoted yet in the history: the weights in
				// use are those the gate measured.
				cur = e.PromotedBLEU
			}
		default: // failed, or a decision this version does not know
			continue
		}
		if e.Decision != Rollback && e.CandidateBLEU != nil {
			cand.X, cand.Y = append(cand.X, x), append(cand.Y, *e.CandidateBLEU)
		}
		if e.Decision == Rollback && night == 0 {
			continue // before any night: nowhere to draw it
		}
		if cur != nil {
			prom.X, prom.Y = append(prom.X, x), append(prom.Y, *cur)
		}
	}
	d.HasChart = len(prom.X)+len(cand.X) > 0
	d.Chart = chart.New("Dev BLEU night after night", "night", "dev BLEU", 720, 320, []chart.Series{prom, cand})
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
	"bleu": func(x *float64) string {
		if x == nil {
			return "–"
		}
		return fixed2(*x)
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
<tr><th class="l">dev BLEU</th><td class="l">{{fixed .DevBLEU}}</td></tr>
</table>
{{else}}<p id="promoted">Nothing is promoted: the model's own weights are in use.</p>
{{end}}
{{if .Rows}}<h2>Dev BLEU night after night</h2>
{{if .HasChart}}{{template "chart" .Chart}}
<p>The promoted weights' dev BLEU after each night (unchanged by a kept night; a rollback steps it, at the night before, to the run put back) and each night's candidate's; failed nights have none.</p>
{{else}}<p>No night has reached its gate yet: no dev BLEU to draw.</p>
{{end}}
<h2>History</h2>
<table id="history">
<tr><th>#</th><th class="l">run</th><th class="l">decision</th><th>candidate</th><th>promoted</th><th>gain</th><th>95% interval</th><th>p</th><th class="l">gate</th><th class="l">compared with</th><th class="l">start</th><th class="l">end</th><th class="l">error / note</th></tr>
{{range .Rows}}<tr class="decision-{{.Decision}}"><td>{{night .N}}</td><td class="l">{{if .Link}}<a href="{{.Link}}">{{.Run}}</a>{{else}}{{.Run}}{{end}}</td><td class="l decision">{{.Decision}}</td><td>{{bleu .CandidateBLEU}}</td><td>{{bleu .PromotedBLEU}}</td><td>{{gain .Gain}}</td><td>{{ci .CI}}</td><td>{{pvalue .PValue}}</td><td class="l">{{gate .Gate}}</td><td class="l">{{or .Against "–"}}</td><td class="l">{{time .Start}}</td><td class="l">{{time .End}}</td><td class="l">{{.Error}}{{if and .Error .Note}}; {{end}}{{.Note}}</td></tr>
{{end}}</table>
{{else}}<h2>History</h2>
<p id="history">Nothing has run yet: the history is empty.</p>
{{end}}</body>
</html>
`
