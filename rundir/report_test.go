package rundir

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/chart"
	"github.com/mtune/mtune/internal/option"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/testsupport/gcstest"
	"github.com/mtune/mtune/testsupport/htmltest"
	"github.com/mtune/mtune/testsupport/storagetest"
)

const scriptName = `<script>alert("x")</script>&amp;`

func f64(x float64) *float64 { return &x }

// writeReport draws the report of the run folder dir as a run does
// (tune.NewReport): with the learners' default mini-batch sizes.
func writeReport(ctx context.Context, dir string) error {
	return Report{Dir: Layout{Root: dir}, MiniBatchOf: algo.Config{}.MiniBatchOf}.Write(ctx)
}

// reportFixture describes a fake output folder.
type reportFixture struct {
	metrics     []Metrics
	noMetrics   bool
	rawMetrics  string // replaces metrics.jsonl when non-empty
	noManifest  bool
	noWeights   bool
	bestOnly    bool // weights only in best/, none in epochs/
	sparseCount int
}

func fixtureMetrics(dev bool) []Metrics {
	ms := []Metrics{
		{Epoch: 1, TuneScore: 20.5, ProgressiveScore: 15.25, NonZero: 14, Updates: 100, Sentences: 300, Seconds: 1.5},
		{Epoch: 2, TuneScore: 24.75, ProgressiveScore: 19.5, NonZero: 40, Updates: 200, Sentences: 300, Seconds: 2.25},
		{Epoch: 3, TuneScore: 23.1, ProgressiveScore: 21, NonZero: 33, Updates: 300, Sentences: 300, Seconds: 3.5},
	}
	if dev {
		ms[0].DevScore = f64(18.5)
		ms[2].DevScore = f64(26.0)
		ms[0].Alpha = f64(0.75)
	}
	return ms
}

// sparseValue is the weight of sparse feature i: |w| grows with i, signs
// alternate, so the 20 largest are the last 20.
func fixtureSparseValue(i int) float64 {
	v := float64(i+1) / 8
	if i%2 == 1 {
		v = -v
	}
	return v
}

func fixtureSparseName(i int) string {
	if i == 0 {
		return "pp_" + scriptName // the largest |w| when sparseCount == 1
	}
	return fmt.Sprintf("wt_f%03d", i)
}

func writeFixture(t *testing.T, dir string, fx reportFixture) {
	t.Helper()
	ctx := context.Background()
	put := func(rel, data string) {
		t.Helper()
		if err := storage.WriteFile(ctx, storage.Join(dir, rel), []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	if !fx.noManifest {
		end := time.Date(2026, 11, 22, 13, 0, 0, 0, time.UTC)
		man := Manifest{
			CommandLine: []string{"mtune", "tune", "--config", "model/moses.ini", "--out", dir, "--note", scriptName, "--dev", "my dir/it's"},
			Version:     "v0.1.0-test",
			Inputs: []InputFile{
				{Role: "config", Path: "model/moses.ini", SHA256: "ab12cd"},
				{Role: "src", Path: "tune.fr", SHA256: "ef34ab"},
			},
			Seed:    42,
			Options: ManifestFlags{Mode: "ipm", Mix: "linesearch", Algo: "adagrad", Epochs: 3, NBest: 100, MiniBatch: 8},
			Start:   time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC),
			End:     &end,
			Status:  "done",
		}
		b, err := json.Marshal(man)
		if err != nil {
			t.Fatal(err)
		}
		put("manifest.json", string(b))
	}
	switch {
	case fx.rawMetrics != "":
		put("metrics.jsonl", fx.rawMetrics)
	case !fx.noMetrics:
		var b bytes.Buffer
		for _, m := range fx.metrics {
			line, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		put("metrics.jsonl", b.String())
	}
	if fx.noWeights {
		return
	}
	for n := 1; n <= len(fx.metrics); n++ {
		s := weights.NewSet(nil)
		s.Groups = append(s.Groups, fixtureGroups...)
		s.SetValue("LM0_0", 0.5*float64(n))
		s.SetValue("TranslationModel0_0", 0.25)
		s.SetValue("TranslationModel0_1", 0) // a dense zero
		s.SetValue("TranslationModel0_2", -0.125)
		s.SetValue("Distortion0_0", -0.3)
		for i := 0; i < fx.sparseCount; i++ {
			s.SetValue(fixtureSparseName(i), fixtureSparseValue(i))
		}
		var b bytes.Buffer
		if err := weights.WriteJSON(&b, s); err != nil {
			t.Fatal(err)
		}
		if !fx.bestOnly {
			put(storage.Join("epochs", fmt.Sprintf("%03d", n), "weights.json"), b.String())
		}
		if n == BestEpoch(fx.metrics) {
			put(storage.Join("best", "weights.json"), b.String())
		}
	}
}

var fixtureGroups = []feature.Group{{Label: "LM0", Len: 1}, {Label: "TranslationModel0", Len: 3}, {Label: "Distortion0", Len: 1}}

func TestWriteReport(t *testing.T) {
	tests := []struct {
		name    string
		fx      reportFixture
		wantErr []string // substrings of the error; "OUT" stands for the folder
		check   func(t *testing.T, page string, doc *html.Node)
	}{
		{
			name: "dev set with a missing dev BLEU",
			fx:   reportFixture{metrics: fixtureMetrics(true), sparseCount: 25},
			check: func(t *testing.T, page string, doc *html.Node) {
				svgs := htmltest.Elements(doc, "svg")
				if len(svgs) != 2 {
					t.Fatalf("%d svg elements, want 2", len(svgs))
				}
				ss := htmltest.Series(t, svgs[0])
				checkCurve(t, ss["tune BLEU"], []float64{20.5, 24.75, 23.1})
				checkCurve(t, ss["dev BLEU"], []float64{18.5, 26.0})
				// dev points sit at the x of epochs 1 and 3.
				tune, dev := ss["tune BLEU"], ss["dev BLEU"]
				if len(tune) == 3 && len(dev) == 2 && (dev[0][0] != tune[0][0] || dev[1][0] != tune[2][0]) {
					t.Errorf("dev x %v, want tune's epochs 1 and 3 %v", dev, tune)
				}
				if nz := htmltest.Series(t, svgs[1]); len(nz) != 1 {
					t.Errorf("non-zero chart has %d series, want 1", len(nz))
				} else {
					checkCurve(t, nz["non-zero weights"], []float64{14, 40, 33})
				}
				legend := htmltest.Text(svgs[0])
				for _, w := range []string{"tune BLEU", "dev BLEU", "epoch", "BLEU"} {
					if !strings.Contains(legend, w) {
						t.Errorf("BLEU chart lacks the text %q", w)
					}
				}
				checkTicks(t, svgs[0], 18.5, 26)
				want := [][]string{
					{"1", "20.50", "18.50", "15.25", "0.75", "14", "100", "300", "1.50"},
					{"2", "24.75", "–", "19.50", "–", "40", "200", "300", "2.25"},
					{"3", "23.10", "26.00", "21.00", "–", "33", "300", "300", "3.50"},
				}
				htmltest.CheckRows(t, htmltest.Rows(t, doc, "metrics"), want)
				// Best epoch (dev 26.0) is 3 and is marked.
				trs := htmltest.Elements(htmltest.ByID(t, doc, "metrics"), "tr")
				if htmltest.Attr(trs[3], "class") != "best" {
					t.Errorf("epoch 3's row class %q, want best", htmltest.Attr(trs[3], "class"))
				}
				htmltest.CheckRows(t, htmltest.Rows(t, doc, "dense"), [][]string{
					{"LM0", "1.5"}, {"TranslationModel0", "0.25 0 -0.125"}, {"Distortion0", "-0.3"},
				})
				var wantSparse [][]string
				for i := 24; i >= 5; i-- {
					wantSparse = append(wantSparse, []string{strconv.Itoa(25 - i), fixtureSparseName(i), strconv.FormatFloat(fixtureSparseValue(i), 'g', 6, 64)})
				}
				htmltest.CheckRows(t, htmltest.Rows(t, doc, "sparse"), wantSparse)
				if !strings.Contains(page, "4 of 5 dense weights and 25 sparse weights are non-zero") {
					t.Error("page lacks the non-zero counts 4 of 5 dense, 25 sparse")
				}
				man := htmltest.Text(htmltest.ByID(t, doc, "manifest")) + htmltest.Text(htmltest.ByID(t, doc, "options"))
				for _, w := range []string{"mtune tune --config model/moses.ini", "'" + scriptName + "'", `--dev 'my dir/it'\''s'`, "v0.1.0-test", "done", "2026-11-22T12:00:00Z", "2026-11-22T13:00:00Z", "42", "linesearch", "adagrad"} {
					if !strings.Contains(man, w) {
						t.Errorf("manifest table lacks %q", w)
					}
				}
				htmltest.CheckRows(t, htmltest.Rows(t, doc, "inputs"), [][]string{{"config", "model/moses.ini", "ab12cd"}, {"src", "tune.fr", "ef34ab"}})
			},
		},
		{
			name: "tune BLEU as decoded",
			fx: reportFixture{metrics: func() []Metrics {
				ms := fixtureMetrics(true)
				for i := range ms {
					ms[i].TuneScore, ms[i].TuneDecoded = ms[i].ProgressiveScore, true
				}
				return ms
			}()},
			check: func(t *testing.T, page string, doc *html.Node) {
				ss := htmltest.Series(t, htmltest.Elements(doc, "svg")[0])
				checkCurve(t, ss["tune BLEU (decoded)"], []float64{15.25, 19.5, 21})
				if th := htmltest.Text(htmltest.Elements(htmltest.ByID(t, doc, "metrics"), "th")[1]); th != "tune BLEU (decoded)" {
					t.Errorf("metrics table's tune column is %q, want tune BLEU (decoded)", th)
				}
			},
		},
		{
			name: "no dev set, script in the top sparse feature",
			fx:   reportFixture{metrics: fixtureMetrics(false), sparseCount: 1, bestOnly: true},
			check: func(t *testing.T, page string, doc *html.Node) {
				ss := htmltest.Series(t, htmltest.Elements(doc, "svg")[0])
				if len(ss) != 1 {
					t.Errorf("series %v, want tune BLEU only", ss)
				}
				checkCurve(t, ss["tune BLEU"], []float64{20.5, 24.75, 23.1})
				if strings.Contains(htmltest.Text(htmltest.Elements(doc, "svg")[0]), "dev BLEU") {
					t.Error("dev BLEU drawn without a dev set")
				}
				for _, r := range htmltest.Rows(t, doc, "metrics") {
					if len(r) != 7 {
						t.Errorf("metrics row %q has %d cells, want 7 (no dev, no α)", r, len(r))
					}
				}
				htmltest.CheckRows(t, htmltest.Rows(t, doc, "sparse"), [][]string{{"1", fixtureSparseName(0), "0.125"}})
				if strings.Contains(page, "<script") {
					t.Error("page contains an unescaped <script")
				}
				if !strings.Contains(page, "&lt;script&gt;") {
					t.Error("page lacks the escaped &lt;script&gt;")
				}
				if !strings.Contains(page, "best/weights.json") {
					t.Error("weights not read from best/weights.json")
				}
			},
		},
		{
			name: "no weights files",
			fx:   reportFixture{metrics: fixtureMetrics(false), noWeights: true},
			check: func(t *testing.T, page string, doc *html.Node) {
				if !strings.Contains(page, "No best weights") || !strings.Contains(page, filepath.Join("epochs", "002", "weights.json")) {
					t.Error("page does not say that epoch 2's weights are missing")
				}
			},
		},
		{
			name:    "missing metrics.jsonl",
			fx:      reportFixture{noMetrics: true},
			wantErr: []string{filepath.Join("OUT", "metrics.jsonl")},
		},
		{
			name:    "missing manifest.json",
			fx:      reportFixture{metrics: fixtureMetrics(false), noManifest: true},
			wantErr: []string{filepath.Join("OUT", "manifest.json")},
		},
		{
			name:    "malformed metrics line",
			fx:      reportFixture{rawMetrics: "{\"epoch\":1}\n{\"epoch\":2,\"tune_bleu\":\"x\"}\n"},
			wantErr: []string{filepath.Join("OUT", "metrics.jsonl") + ":2:"},
		},
		{
			name:    "epochs out of order",
			fx:      reportFixture{rawMetrics: "{\"epoch\":1}\n\n{\"epoch\":3}\n"},
			wantErr: []string{"metrics.jsonl:3: epoch 3, want 2"},
		},
		{
			name:    "empty metrics",
			fx:      reportFixture{rawMetrics: "\n"},
			wantErr: []string{"metrics.jsonl: no epochs"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFixture(t, dir, tc.fx)
			err := writeReport(context.Background(), dir)
			if tc.wantErr != nil {
				if err == nil {
					t.Fatal("no error")
				}
				for _, w := range tc.wantErr {
					w = strings.ReplaceAll(w, "OUT", dir)
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				if _, serr := os.Stat(filepath.Join(dir, ReportName)); serr == nil {
					t.Error("report.html written despite the error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, ReportName))
			if err != nil {
				t.Fatal(err)
			}
			page := string(b)
			htmltest.CheckSelfContained(t, page, "")
			doc, err := html.Parse(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, page, doc)
		})
	}
}

// TestWriteReportStartAndOptions: the report shows epoch 0, the dev BLEU
// of the starting weights (init/dev-stats.json), in the metrics table and
// as the dev curve's first point, and every option of the manifest as
// used (the learner's default mini-batch size spelt out).
func TestWriteReportStartAndOptions(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeFixture(t, dir, reportFixture{metrics: fixtureMetrics(true)})
	var man Manifest
	if err := ReadJSON(ctx, Layout{Root: dir}.Manifest(), &man); err != nil {
		t.Fatal(err)
	}
	man.Options.Sparse, man.Options.Search, man.Options.MiniBatch = "pt,lo", "cube", 0
	man.Options.Method = option.Record(&testShardOptions{EvalTune: true})
	if err := WriteJSON(ctx, Layout{Root: dir}.Manifest(), man); err != nil {
		t.Fatal(err)
	}
	start := metric.NewBLEUStats(4, []float64{8, 4, 2, 1}, []float64{10, 9, 8, 7}, 10)
	if err := WriteJSON(ctx, Layout{Root: dir}.InitDevStats(), start); err != nil {
		t.Fatal(err)
	}
	if err := writeReport(ctx, dir); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, ReportName))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	startBLEU := strconv.FormatFloat(100*metric.BLEUStats(start).BLEU(), 'f', 2, 64)
	rows := htmltest.Rows(t, doc, "metrics")
	if len(rows) < 2 || strings.Join(rows[0][:3], " ") != "0 – "+startBLEU || !strings.Contains(rows[0][3], "starting weights") {
		t.Errorf("metrics rows %q: want epoch 0 first, dev BLEU %s", rows, startBLEU)
	}
	ss := htmltest.Series(t, htmltest.Elements(doc, "svg")[0])
	checkCurve(t, ss["dev BLEU"], []float64{100 * metric.BLEUStats(start).BLEU(), 18.5, 26.0})
	opts := map[string]string{}
	for _, r := range htmltest.Rows(t, doc, "options") {
		if len(r) == 2 {
			opts[r[0]] = r[1]
		}
	}
	for flag, want := range map[string]string{"--epochs": "3", "--sparse": "pt,lo", "--search-algorithm": "cube",
		"--minibatch": "20 (the learner's default)", "--eval-tune": "true", "--mix": "linesearch", "--nbest": "100", "--l1": "the default"} {
		if opts[flag] != want {
			t.Errorf("option %s %q, want %q (options %q)", flag, opts[flag], want, opts)
		}
	}
}

// checkCurve checks that pts has one point per value, x increasing, and
// y ordered opposite to the values (SVG y grows downwards), inside the
// chart.
func checkCurve(t *testing.T, pts [][2]float64, vals []float64) {
	t.Helper()
	if len(pts) != len(vals) {
		t.Fatalf("%d points %v, want %d", len(pts), pts, len(vals))
	}
	for i := 1; i < len(pts); i++ {
		if !(pts[i][0] > pts[i-1][0]) {
			t.Errorf("x not increasing: %v", pts)
		}
	}
	for i := range pts {
		for j := range pts {
			if vals[i] > vals[j] && !(pts[i][1] < pts[j][1]) {
				t.Errorf("value %g above %g but y %g not above %g", vals[i], vals[j], pts[i][1], pts[j][1])
			}
		}
		if pts[i][0] < 0 || pts[i][0] > 640 || pts[i][1] < 0 || pts[i][1] > 320 {
			t.Errorf("point %v outside the chart", pts[i])
		}
	}
	// Linear in the value: equal value gaps give equal pixel gaps.
	if len(vals) >= 3 {
		k := (pts[1][1] - pts[0][1]) / (vals[1] - vals[0])
		if got := pts[0][1] + k*(vals[2]-vals[0]); math.Abs(got-pts[2][1]) > 0.05 {
			t.Errorf("y of the third point %g, linear scale gives %g", pts[2][1], got)
		}
	}
}

// checkTicks checks the y axis has numeric tick labels covering [lo, hi].
func checkTicks(t *testing.T, svg *html.Node, lo, hi float64) {
	t.Helper()
	var ys []float64
	for _, tx := range htmltest.Elements(svg, "text") {
		if htmltest.Attr(tx, "text-anchor") != "end" {
			continue
		}
		v, err := strconv.ParseFloat(htmltest.Text(tx), 64)
		if err != nil {
			t.Errorf("y tick label %q: %v", htmltest.Text(tx), err)
			continue
		}
		ys = append(ys, v)
	}
	if len(ys) < 3 || ys[0] > lo || ys[len(ys)-1] < hi {
		t.Errorf("y ticks %v do not cover [%g, %g] with at least 3 ticks", ys, lo, hi)
	}
}

// TestWriteReportGCS runs WriteReport on a folder in an in-process GCS
// emulator.
func TestWriteReportGCS(t *testing.T) {
	c, _ := gcstest.Fake(t, "mtune-test")
	storagetest.UseGCS(t, c)

	ctx := context.Background()
	dir := "gs://mtune-test/run"
	writeFixture(t, dir, reportFixture{metrics: fixtureMetrics(true), sparseCount: 3})
	if err := writeReport(ctx, dir); err != nil {
		t.Fatal(err)
	}
	b, err := storage.ReadFile(ctx, storage.Join(dir, ReportName))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	checkCurve(t, htmltest.Series(t, htmltest.Elements(doc, "svg")[0])["dev BLEU"], []float64{18.5, 26.0})
	if !strings.Contains(string(b), "gs://mtune-test/run/best/weights.json") {
		t.Error("report does not name gs://mtune-test/run/best/weights.json")
	}
	err = writeReport(ctx, "gs://mtune-test/none")
	if err == nil || !strings.Contains(err.Error(), "gs://mtune-test/none/manifest.json") {
		t.Errorf("error %v does not name gs://mtune-test/none/manifest.json", err)
	}
}

func FuzzParseMetrics(f *testing.F) {
	f.Add([]byte(`{"epoch":1,"tune_bleu":88.26,"dev_bleu":89.6,"progressive_bleu":61.74,"alpha":2.9,"nonzero":15,"updates":16,"sentences":300,"seconds":1.7}` + "\n"))
	f.Add([]byte("{\"epoch\":1,\"tune_bleu\":1e308}\n{\"epoch\":2,\"tune_bleu\":-1e308}\n"))
	f.Add([]byte("{\"epoch\":1}\n{\"epoch\":2,\"dev_bleu\":null}\n"))
	f.Add([]byte("{\"epoch\":1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ms, err := parseMetrics("metrics.jsonl", data)
		if err != nil {
			return
		}
		if len(ms) == 0 {
			t.Fatal("no epochs and no error")
		}
		for i, m := range ms {
			if m.Epoch != i+1 {
				t.Fatalf("epoch %d at %d", m.Epoch, i)
			}
		}
		var s chart.Series
		for _, m := range ms {
			s.X, s.Y = append(s.X, float64(m.Epoch)), append(s.Y, m.TuneScore)
		}
		c := chart.New("t", "x", "y", 640, 320, []chart.Series{s})
		if len(c.Lines) != 1 || len(c.Lines[0].Dots) != len(ms) {
			t.Fatalf("chart has %d lines", len(c.Lines))
		}
	})
}

// TestWriteReportMetricAndEpochZero: the report names the metric of the
// epochs' figures (tune-nbest --metric), and the best epoch best/ holds,
// epoch 0 when tune-nbest kept the starting weights.
func TestWriteReportMetricAndEpochZero(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ms := fixtureMetrics(false)
	for i := range ms {
		ms[i].Metric, ms[i].LowerIsBetter = "TER", true
	}
	writeFixture(t, dir, reportFixture{metrics: ms})
	if err := WriteJSON(ctx, Layout{Root: dir}.Best().Epoch(), Metrics{Epoch: 0, TuneScore: 19, Metric: "TER", LowerIsBetter: true}); err != nil {
		t.Fatal(err)
	}
	if err := writeReport(ctx, dir); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, ReportName))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"best epoch 0.", "<th>tune TER</th>", "<th>progressive TER</th>", "TER per epoch"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(string(page), "tune BLEU") {
		t.Error("report says tune BLEU for TER figures")
	}
}
