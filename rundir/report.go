package rundir

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mtune/mtune/metric"
	"html/template"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/chart"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/io/weights"
)

// ReportName is the file Report.Write writes into the run folder.
const ReportName = "report.html"

// reportTopSparse is the number of sparse features the report lists.
const reportTopSparse = 20

// Report draws a run folder's report.html. As a recorder of the epoch
// loop (tune.Driver) it redraws the page after every epoch, so that a run
// stopped early still has one for the epochs it finished.
type Report struct {
	// Dir is the run folder.
	Dir Layout
	// MiniBatchOf returns the mini-batch size the learner algo uses when
	// a run gives none (0 for a batch learner), for the report to spell
	// it out; nil shows it as "the learner's default" with no number.
	MiniBatchOf func(algo string) int
	// Metric is the run's metric (nil: BLEU), which scores the starting
	// weights' dev statistics (init/dev-stats.json).
	Metric metric.Metric
}

// Write reads the run folder of a run (local or gs://): manifest.json,
// metrics.jsonl and best/weights.json (or, without it, the weights.json of
// the best epoch), and writes report.html atomically: a self-contained
// HTML page (no scripts, fonts or images from elsewhere) with the learning
// curves of tune and dev BLEU and the non-zero weights per epoch as inline
// SVG charts, a table of the metrics, a summary of the best weights (dense
// groups, the 20 sparse features of largest |weight|) and the manifest's
// command line, inputs and status. A missing or malformed manifest.json
// or metrics.jsonl is an error naming the file (but a failed run may have
// no metrics.jsonl); missing best weights are noted in the page.
func (r Report) Write(ctx context.Context) error {
	data, err := r.build(ctx)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := reportTemplate.Execute(&b, data); err != nil {
		return fmt.Errorf("rundir: report: %w", err)
	}
	if err := storage.WriteFile(ctx, r.Dir.Report(), b.Bytes()); err != nil {
		return fmt.Errorf("rundir: report: %w", err)
	}
	return nil
}

// Init does nothing: the report is first drawn once an epoch is complete
// (Record), or when the run ends (Finish).
func (r Report) Init(ctx context.Context, epochs int, done []Metrics) error { return nil }

// Record redraws the report once an epoch is complete.
func (r Report) Record(ctx context.Context, ms, got []Metrics) error { return r.Write(ctx) }

type reportData struct {
	Out        string
	Manifest   Manifest
	Epochs     []Metrics
	HasDev     bool
	HasAlpha   bool
	HasPool    bool
	Best       int
	ScoreChart chart.Chart
	NZChart    chart.Chart
	Weights    *weightSummary
	WeightErr  string
	// Metric names the metric of the epochs' figures ("BLEU", "chrF2":
	// Metrics.MetricName).
	Metric string
	// TuneLabel names the tune BLEU: "tune BLEU", or "tune BLEU
	// (decoded)" when every epoch's is its progressive BLEU (the metric's
	// name for another).
	TuneLabel string
	// Runs of several replicas (--replicas): their number and seeds, the
	// replica of the best epoch, the score's name (dev BLEU, else the
	// tune BLEU), each epoch's mean ± sd and each replica's best epoch.
	Replicas     int
	ReplicaHeads []string
	BestReplica  int
	ScoreName    string
	ReplicaRows  []ReplicaEpoch
	ReplicaBests []Metrics
	BestMean     float64
	BestSD       float64
	// StartDev is the dev BLEU of the starting weights (epoch 0:
	// init/dev-stats.json), nil when the run has none; StartSpan the
	// columns of the metrics table it leaves blank.
	StartDev  *float64
	StartSpan int
	// Settings are the run's options as used (ManifestFlags.Settings,
	// the epochs and the mini-batch size the learner used).
	Settings []Setting
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

func (r Report) build(ctx context.Context) (*reportData, error) {
	d := &reportData{Out: r.Dir.Root}
	l := r.Dir
	mpath := l.Manifest()
	data, err := storage.ReadFile(ctx, mpath)
	if err != nil {
		return nil, fmt.Errorf("rundir: report: %w", err)
	}
	if err := json.Unmarshal(data, &d.Manifest); err != nil {
		return nil, fmt.Errorf("rundir: report: %s: %w", mpath, err)
	}
	// A run that failed before its first epoch has no metrics.jsonl: its
	// report says so, and why.
	d.Replicas = max(1, d.Manifest.Options.Replicas)
	if d.Epochs, err = ReadReplicaMetrics(ctx, l.Metrics(), d.Replicas); err != nil &&
		!(errors.Is(err, fs.ErrNotExist) && d.Manifest.Status == "failed") {
		return nil, err
	}
	for _, m := range d.Epochs {
		d.HasDev = d.HasDev || m.DevScore != nil
		d.HasAlpha = d.HasAlpha || m.Alpha != nil
		d.HasPool = d.HasPool || m.Pool != 0
	}
	d.BestReplica, d.Best = BestReplica(d.Epochs)
	// best/epoch.json says which epoch best/ holds: tune-nbest's may be
	// epoch 0, the starting weights, which no line of metrics.jsonl has.
	var held Metrics
	if err := ReadJSON(ctx, l.Best().Epoch(), &held); err == nil {
		d.BestReplica, d.Best = held.Replica, held.Epoch
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("rundir: report: %w", err)
	}
	if b, err := ReadScore(ctx, l.InitDevStats(), r.Metric); err == nil {
		d.StartDev = &b
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("rundir: report: %w", err)
	}
	d.StartSpan = 5 + btoi(d.HasAlpha) + btoi(d.HasPool)
	d.Settings = r.settingsAsUsed(d.Manifest.Options)
	d.Metric = "BLEU"
	if len(d.Epochs) > 0 {
		d.Metric = d.Epochs[0].MetricName()
	}
	d.TuneLabel = "tune " + d.Metric
	if len(d.Epochs) > 0 && !slices.ContainsFunc(d.Epochs, func(m Metrics) bool { return !m.TuneDecoded }) {
		d.TuneLabel = "tune " + d.Metric + " (decoded)"
	}
	if d.Replicas > 1 {
		d.replicaCharts()
	} else {
		d.charts()
	}

	bestDir := l.Replica(d.BestReplica, d.Replicas)
	wpath := l.Best().JSON()
	ok, err := storage.Exists(ctx, wpath)
	if err == nil && !ok {
		wpath = bestDir.Epoch(d.Best).JSON()
		ok, err = storage.Exists(ctx, wpath)
	}
	if err != nil {
		return nil, fmt.Errorf("rundir: report: %w", err)
	}
	if !ok {
		d.WeightErr = "No best weights: " + wpath + " is missing."
		return d, nil
	}
	s, err := weights.Read(ctx, wpath, nil)
	if err != nil {
		return nil, fmt.Errorf("rundir: report: %w", err)
	}
	d.Weights = summarize(s, wpath)
	return d, nil
}

// settingsAsUsed is f.Settings with the epochs first and the mini-batch
// size the learner used (its default when f has none, by MiniBatchOf).
func (r Report) settingsAsUsed(f ManifestFlags) []Setting {
	out := []Setting{{"epochs", strconv.Itoa(f.Epochs)}}
	for _, s := range f.Settings() {
		if s.Flag == "minibatch" && f.MiniBatch == 0 {
			switch n := r.miniBatchOf(f.Algo); {
			case f.Mode == "batch" || n == 0:
				s.Value = "none (a batch learner)"
			case n < 0:
				s.Value = "the learner's default"
			default:
				s.Value = strconv.Itoa(n) + " (the learner's default)"
			}
		}
		out = append(out, s)
	}
	return out
}

// miniBatchOf is MiniBatchOf(algo), or -1 without MiniBatchOf.
func (r Report) miniBatchOf(algo string) int {
	if r.MiniBatchOf == nil {
		return -1
	}
	return r.MiniBatchOf(algo)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// charts draws the learning curves of a run of one replica: tune and dev
// scores, and the non-zero weights, per epoch; the dev curve starts at epoch
// 0, the starting weights, when the run has their dev score.
func (d *reportData) charts() {
	tuneScore := chart.Series{Name: d.TuneLabel, Class: "s0"}
	dev := chart.Series{Name: "dev " + d.Metric, Class: "s1"}
	nz := chart.Series{Name: "non-zero weights", Class: "s0"}
	if d.StartDev != nil && len(d.Epochs) > 0 {
		dev.X, dev.Y = []float64{0}, []float64{*d.StartDev}
	}
	for _, m := range d.Epochs {
		x := float64(m.Epoch)
		tuneScore.X, tuneScore.Y = append(tuneScore.X, x), append(tuneScore.Y, m.TuneScore)
		if m.DevScore != nil {
			dev.X, dev.Y = append(dev.X, x), append(dev.Y, *m.DevScore)
		}
		nz.X, nz.Y = append(nz.X, x), append(nz.Y, float64(m.NonZero))
	}
	scores := []chart.Series{tuneScore}
	if len(dev.X) > 0 {
		scores = append(scores, dev)
	}
	d.ScoreChart = chart.New(d.Metric+" per epoch", "epoch", d.Metric, 640, 320, scores)
	d.NZChart = chart.New("Non-zero weights per epoch", "epoch", "non-zero weights", 640, 240, []chart.Series{nz})
}

// replicaCharts draws the curves of a run of several replicas, and the
// tables of their mean ± sd: each replica's score (dev BLEU, else tune
// BLEU) per epoch and their mean, each replica's non-zero weights; each
// epoch's mean ± sd over the replicas; each replica's best epoch and the
// mean ± sd of their scores, the figure MultEval reports of a system.
func (d *reportData) replicaCharts() {
	for r := range d.Replicas {
		head := fmt.Sprintf("replica %d", r)
		if r < len(d.Manifest.ReplicaSeeds) {
			head += fmt.Sprintf(" (seed %d)", d.Manifest.ReplicaSeeds[r])
		}
		d.ReplicaHeads = append(d.ReplicaHeads, head)
	}
	d.ScoreName = "dev BLEU"
	if !d.HasDev {
		d.ScoreName = d.TuneLabel
	}
	score := make([]chart.Series, d.Replicas)
	nz := make([]chart.Series, d.Replicas)
	for r := range score {
		name := fmt.Sprintf("replica %d", r)
		score[r], nz[r] = chart.Series{Name: name, Class: replicaClass(r)}, chart.Series{Name: name, Class: replicaClass(r)}
	}
	for _, m := range d.Epochs {
		x := float64(m.Epoch)
		s, z := &score[m.Replica], &nz[m.Replica]
		s.X, s.Y = append(s.X, x), append(s.Y, m.Value())
		z.X, z.Y = append(z.X, x), append(z.Y, float64(m.NonZero))
	}
	mean := chart.Series{Name: "mean", Class: "mean"}
	if d.StartDev != nil && d.HasDev { // every replica starts there
		mean.X, mean.Y = []float64{0}, []float64{*d.StartDev}
	}
	d.ReplicaRows = SummarizeReplicas(d.Epochs)
	for _, e := range d.ReplicaRows {
		mean.X, mean.Y = append(mean.X, float64(e.Epoch)), append(mean.Y, e.Score)
	}
	d.ScoreChart = chart.New(d.ScoreName+" per epoch, each replica", "epoch", d.Metric, 640, 320, append(score, mean))
	d.NZChart = chart.New("Non-zero weights per epoch, each replica", "epoch", "non-zero weights", 640, 240, nz)
	var bests []float64
	for r := range d.Replicas {
		ms := OfReplica(d.Epochs, r)
		if n := BestEpoch(ms); n > 0 {
			d.ReplicaBests = append(d.ReplicaBests, ms[n-1])
			bests = append(bests, ms[n-1].Value())
		}
	}
	d.BestMean, d.BestSD = MeanSD(bests)
}

// replicaClass is the CSS class of replica r's curves: the chart's s0 and
// s1, then the report's own r2 … r9 (reportHTML), round again after r9.
func replicaClass(r int) string {
	switch r %= 10; r {
	case 0, 1:
		return fmt.Sprintf("s%d", r)
	default:
		return fmt.Sprintf("r%d", r)
	}
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

// ShellJoin joins args into a POSIX shell command line, quoting those that
// need it.
func ShellJoin(args []string) string {
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

func formatNum(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// reportTemplate draws reportData; it includes the chart templates.
var reportTemplate = template.Must(template.Must(chart.Define(template.New("report").Funcs(template.FuncMap{
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
	"shell": ShellJoin,
	"add":   func(a, b float64) float64 { return a + b },
	"float": func(i int) float64 { return float64(i) },
	"time":  formatTime,
	"pm": func(mean, sd float64) string {
		return strconv.FormatFloat(mean, 'f', 2, 64) + " ± " + strconv.FormatFloat(sd, 'f', 2, 64)
	},
	"bestcell": func(d *reportData, m Metrics) bool { return m.Epoch == d.Best && m.Replica == d.BestReplica },
}))).Parse(reportHTML))

const reportHTML = `{{template "page-head" (printf "mtune report: %s" .Out)}}tr.best td { background: #fff6d5; }
svg .r2 { stroke: #2ca02c; fill: #2ca02c; } svg .r3 { stroke: #9467bd; fill: #9467bd; } svg .r4 { stroke: #8c564b; fill: #8c564b; }
svg .r5 { stroke: #e377c2; fill: #e377c2; } svg .r6 { stroke: #7f7f7f; fill: #7f7f7f; } svg .r7 { stroke: #bcbd22; fill: #bcbd22; }
svg .r8 { stroke: #17becf; fill: #17becf; } svg .r9 { stroke: #ff7f0e; fill: #ff7f0e; } svg .mean { stroke: #000; fill: #000; stroke-dasharray: 4 3; }
svg polyline.r2, svg polyline.r3, svg polyline.r4, svg polyline.r5, svg polyline.r6, svg polyline.r7, svg polyline.r8, svg polyline.r9, svg polyline.mean { fill: none; }
.status-done { color: #2a7d2a; } .status-failed { color: #b22; } .status-running { color: #b8860b; }
</style>
</head>
<body>
<h1>mtune report</h1>
{{- if gt .Replicas 1}}
<p>Output folder <code>{{.Out}}</code>, status <b class="status-{{.Manifest.Status}}">{{.Manifest.Status}}</b>,
{{len .ReplicaRows}} epoch(s) of {{.Replicas}} replicas, best: replica {{.BestReplica}}, epoch {{.Best}}.</p>

<h2>Replicas</h2>
<p>{{.Replicas}} independent runs of the same tuning with different seeds (Clark et al. 2011: report the mean ± sd over replicas, as MultEval does); replica r's files are in <code>replicas/r/</code>, best/ holds the best replica's best epoch by {{.ScoreName}}.{{if and .ReplicaRows (not .HasDev)}} There is no dev set: the replicas are ranked by their tune BLEU, a figure on the data they were tuned on, which says how well each fits the tuning set, not how well it translates unseen text.{{end}}</p>
{{if .ReplicaRows}}<table id="replicas">
<tr><th>epoch</th>{{range .ReplicaHeads}}<th>{{.}}</th>{{end}}<th>mean ± sd</th></tr>
{{- $d := .}}
{{range .ReplicaRows}}{{$e := .Epoch}}<tr><td>{{.Epoch}}</td>{{range $r, $x := .Scores}}<td{{if and (eq $e $d.Best) (eq $r $d.BestReplica)}} class="best"{{end}}>{{fixed $x}}</td>{{end}}<td>{{pm .Score .ScoreSD}}</td></tr>
{{end}}</table>
<p id="replica-best">Each replica's best epoch by {{.ScoreName}}: {{range $i, $m := .ReplicaBests}}{{if $i}}, {{end}}replica {{$m.Replica}} epoch {{$m.Epoch}} ({{fixed $m.Score}}){{end}}; mean ± sd <b>{{pm .BestMean .BestSD}}</b>.</p>{{end}}

<h2>Learning curves</h2>
{{template "chart" .ScoreChart}}
{{if not .HasDev}}<p>No dev set: no dev {{.Metric}} is recorded.</p>{{end}}
{{template "chart" .NZChart}}
{{- else}}
<p>Output folder <code>{{.Out}}</code>, status <b class="status-{{.Manifest.Status}}">{{.Manifest.Status}}</b>,
{{len .Epochs}} epoch(s), best epoch {{.Best}}.</p>

<h2>Learning curves</h2>
{{template "chart" .ScoreChart}}
{{if not .HasDev}}<p>No dev set: no dev {{.Metric}} is recorded.</p>{{end}}
{{template "chart" .NZChart}}
{{- end}}

<h2>Metrics per epoch</h2>
<table id="metrics">
<tr>{{if gt .Replicas 1}}<th>replica</th>{{end}}<th>epoch</th><th>{{.TuneLabel}}</th>{{if .HasDev}}<th>dev {{.Metric}}</th>{{end}}<th>progressive {{.Metric}}</th>{{if .HasAlpha}}<th>α</th>{{end}}<th>non-zero</th><th>updates</th>{{if .HasPool}}<th>pool</th>{{end}}<th>sentences</th><th>seconds</th></tr>
{{- $d := .}}
{{with .StartDev}}<tr id="epoch0">{{if gt $d.Replicas 1}}<td>all</td>{{end}}<td>0</td><td>–</td>{{if $d.HasDev}}<td>{{fixed .}}</td>{{end}}<td class="l" colspan="{{$d.StartSpan}}">the starting weights (init/weights.json), before any learning</td></tr>
{{end}}{{range .Epochs}}<tr{{if bestcell $d .}} class="best"{{end}}>{{if gt $d.Replicas 1}}<td>{{.Replica}}</td>{{end}}<td>{{.Epoch}}</td><td>{{fixed .TuneScore}}</td>{{if $d.HasDev}}<td>{{optnum .DevScore}}</td>{{end}}<td>{{fixed .ProgressiveScore}}</td>{{if $d.HasAlpha}}<td>{{optnum .Alpha}}</td>{{end}}<td>{{.NonZero}}</td><td>{{.Updates}}</td>{{if $d.HasPool}}<td>{{.Pool}}</td>{{end}}<td>{{.Sentences}}</td><td>{{fixed .Seconds}}</td></tr>
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
</table>
<h3>Options</h3>
<table id="options">
<tr><th class="l">flag</th><th class="l">value</th></tr>
{{range $.Settings}}<tr><td class="l">--{{.Flag}}</td><td class="l">{{.Value}}</td></tr>
{{end}}</table>
<h3>Inputs</h3>
<table id="inputs">
<tr><th class="l">role</th><th class="l">path</th><th class="l">sha256</th></tr>
{{range .Inputs}}<tr><td class="l">{{.Role}}</td><td class="l"><code>{{.Path}}</code></td><td class="l"><code>{{.SHA256}}</code></td></tr>
{{end}}</table>
{{end}}
</body>
</html>
`
