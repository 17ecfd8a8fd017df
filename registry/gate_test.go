package registry

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/run"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/testsupport/htmltest"
	"github.com/mtune/mtune/testsupport/storagetest"
	"golang.org/x/net/html"
)

// textStats are the statistics under m of 80 dev translations by weights
// of quality q: references of 8 to 24 words, each word kept with a
// probability that grows with q (sentence-level noise that does not
// depend on it aside), else replaced. A better q is better under every
// metric, TER's fewer edits included.
func textStats(t *testing.T, m metric.Metric, q float64) []metric.Stats {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	vocab := strings.Fields("the a cat dog sat ran on under mat house big small red it is was and of to in")
	out := make([]metric.Stats, 80)
	for i := range out {
		ref := make([]string, 8+rng.IntN(17))
		for j := range ref {
			ref[j] = vocab[rng.IntN(len(vocab))]
		}
		p := q + 0.2*(rng.Float64()-0.5)
		hyp := make([]string, len(ref))
		for j, w := range ref {
			if rng.Float64() < p {
				hyp[j] = w
			} else {
				hyp[j] = "xx"
			}
		}
		seg, err := m.Segment([]string{strings.Join(ref, " ")})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = seg.Stats(strings.Join(hyp, " "))
	}
	return out
}

func parse(t *testing.T, spec string) metric.Metric {
	t.Helper()
	m, err := metric.Parse(spec, metric.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDecideMetrics: the gate under BLEU, chrF and TER: scores in the
// metric's points, the gain oriented (a lower TER is a gain), --min-gain
// in the metric's points, BLEU given or by default alike.
func TestDecideMetrics(t *testing.T) {
	ctx := context.Background()
	for _, spec := range []string{"bleu", "chrf", "chrf++", "ter", "bleu:0.5,ter:0.5"} {
		t.Run(spec, func(t *testing.T) {
			m := parse(t, spec)
			base, cand := textStats(t, m, 0.55), textStats(t, m, 0.65)
			g := GateOptions{Metric: m, Seed: 3}
			d, err := g.Decide(ctx, base, cand)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %.2f → %.2f, gain %+.2f [%.2f, %.2f], p %.4g", d.Metric, d.PromotedScore, d.CandidateScore, d.Gain, d.CI[0], d.CI[1], d.PValue)
			if d.Metric != m.Name() || d.GateSettings.String() != m.Name()+" gain ≥ 0.00, p < 0.05, 1000 samples" {
				t.Errorf("metric %q, settings %q", d.Metric, d.GateSettings)
			}
			if want := m.Score(metric.Sum(cand)); d.CandidateScore != want && !(isObjectiver(m) && d.CandidateScore == 100*metric.Objective(m)(metric.Sum(cand))) {
				t.Errorf("candidate score %v, the metric's %v", d.CandidateScore, want)
			}
			// The orientation: TER falls, the others rise, and the gain
			// is positive all the same.
			if better := d.CandidateScore < d.PromotedScore; better == m.HigherIsBetter() || !(d.Gain > 0) || !d.Promote || d.CI[0] > d.Gain || d.CI[1] < d.Gain {
				t.Errorf("decision %+v: want the better candidate promoted", d)
			}
			if !m.HigherIsBetter() && d.Gain != d.PromotedScore-d.CandidateScore {
				t.Errorf("TER gain %v, want promoted − candidate %v", d.Gain, d.PromotedScore-d.CandidateScore)
			}
			// The same systems the other way round: a negative gain, kept.
			back, err := g.Decide(ctx, cand, base)
			if err != nil {
				t.Fatal(err)
			}
			if back.Promote || back.Gain != -d.Gain || back.PValue < 0.95 {
				t.Errorf("worse candidate: %+v", back)
			}
			// --min-gain is in the metric's points.
			for _, tc := range []struct {
				min     float64
				promote bool
			}{{d.Gain - 0.01, true}, {d.Gain + 0.01, false}} {
				g.MinGain = tc.min
				got, err := g.Decide(ctx, base, cand)
				if err != nil || got.Promote != tc.promote {
					t.Errorf("min gain %.2f (gain %.2f): promote %v (%v), want %v", tc.min, d.Gain, got.Promote, err, tc.promote)
				}
			}
		})
	}
	// BLEU given is BLEU by default.
	base, cand := textStats(t, metric.DefaultBLEU(), 0.55), textStats(t, metric.DefaultBLEU(), 0.65)
	a, errA := GateOptions{Seed: 3}.Decide(ctx, base, cand)
	b, errB := GateOptions{Seed: 3, Metric: metric.DefaultBLEU()}.Decide(ctx, base, cand)
	if errA != nil || errB != nil || a != b || a.Metric != "BLEU" {
		t.Errorf("BLEU by default %+v (%v), given %+v (%v)", a, errA, b, errB)
	}
}

// TestDecideRefuses: statistics that are not the gate's metric's, and a
// metric the gate cannot compare by.
func TestDecideRefuses(t *testing.T) {
	ctx := context.Background()
	bleu := textStats(t, metric.DefaultBLEU(), 0.5)
	if _, err := (GateOptions{Metric: parse(t, "chrf")}).Decide(ctx, bleu, bleu); !errors.Is(err, metric.ErrStats) || !strings.Contains(err.Error(), "chrF2") {
		t.Errorf("BLEU statistics under a chrF gate: %v", err)
	}
	ter := textStats(t, parse(t, "ter"), 0.5)
	if _, err := (GateOptions{}).Decide(ctx, ter, ter); !errors.Is(err, metric.ErrStats) {
		t.Errorf("TER statistics under a BLEU gate: %v", err)
	}
	if err := (GateOptions{Metric: parse(t, "external")}).Validate(); err == nil || !strings.Contains(err.Error(), "scores computed elsewhere") {
		t.Errorf("external gate: %v", err)
	}
}

// metricNight is w's night id gated on the metric spec (metric.Parse),
// whose Score gives the statistics of textStats under it, logging to log.
func (w *world) metricNight(r Registry, id, spec string, log *strings.Builder) Night {
	w.t.Helper()
	gm := parse(w.t, spec)
	n := w.night(r, id)
	n.Gate.Metric, n.Log = gm, log
	n.Score = func(ctx context.Context, path string) ([]metric.Stats, error) {
		q, err := w.qualityOf(ctx, path)
		if err != nil {
			return nil, err
		}
		return textStats(w.t, gm, q), nil
	}
	return n
}

// TestNightsAcrossMetrics plays nights gated on BLEU, then chrF, then TER
// on one registry: each gate scores the weights in use again under its own
// metric, and the records name the metric of every score: gate.json,
// history, promoted.json, status, history table, report (a chart per
// metric), rollback; a gate.json decided by another metric than the
// resumed call's is decided again.
func TestNightsAcrossMetrics(t *testing.T) {
	for name, r := range registries(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			w := &world{t: t, quality: 0.5, model: 0.2}
			var log strings.Builder
			out1, err := w.metricNight(r, "n1", "bleu", &log).Run(ctx)
			if err != nil || out1.Entry.Decision != Promoted || out1.Entry.Metric != "BLEU" {
				t.Fatalf("night 1: %+v, %v", out1.Entry, err)
			}

			// Night 2 on chrF: n1's weights scored under chrF, not its BLEU.
			w.quality = 0.7
			out2, err := w.metricNight(r, "n2", "chrf", &log).Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			chrf := parse(t, "chrf")
			e2 := out2.Entry
			if e2.Decision != Promoted || e2.Metric != "chrF2" || e2.Gate.Metric != "chrF2" || e2.PromotedRun != "n1" ||
				*e2.PromotedScore != chrf.Score(metric.Sum(textStats(t, chrf, 0.5))) || *e2.CandidateScore != chrf.Score(metric.Sum(textStats(t, chrf, 0.7))) {
				t.Fatalf("night 2: %+v", e2)
			}
			if !strings.Contains(log.String(), "night n2: the weights in use were promoted by BLEU") {
				t.Errorf("night 2 does not say the weights in use were promoted by another metric:\n%s", log.String())
			}
			d, _, err := r.readGate(ctx, "n2")
			if err != nil || d.Metric != "chrF2" || d.CandidateScore != *e2.CandidateScore || d.PromotedScore != *e2.PromotedScore {
				t.Errorf("gate.json of night 2: %+v, %v", d, err)
			}
			if raw := string(readBytes(t, r.Gate("n2"))); strings.Contains(raw, "_bleu") || !strings.Contains(raw, `"metric":"chrF2"`) {
				t.Errorf("gate.json of a chrF night: %s", raw)
			}
			p := storagetest.Read(t, r.ReadPointer)
			if p.Run != "n2" || p.Metric != "chrF2" || p.DevScore != *e2.CandidateScore {
				t.Errorf("promoted.json after night 2: %+v", p)
			}
			if raw := string(readBytes(t, r.Promoted())); strings.Contains(raw, "dev_bleu") {
				t.Errorf("promoted.json of chrF-promoted weights: %s", raw)
			}

			// Night 3 on TER, worse than night 2's: kept, its gain
			// negative though its TER is higher.
			w.quality = 0.6
			out3, err := w.metricNight(r, "n3", "ter", &log).Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			e3 := out3.Entry
			if e3.Decision != Kept || e3.Metric != "TER" || !(*e3.CandidateScore > *e3.PromotedScore) || !(*e3.Gain < 0) || *e3.Gain != *e3.PromotedScore-*e3.CandidateScore {
				t.Fatalf("night 3: %+v", e3)
			}
			if want := "kept (dev TER "; !strings.HasPrefix(e3.Summary(), want) || !strings.Contains(e3.Summary(), "promotes if TER gain ≥ 0.00") {
				t.Errorf("night 3 summary %q", e3.Summary())
			}

			var text strings.Builder
			if err := r.WriteStatus(ctx, &text); err != nil || !strings.Contains(text.String(), fmt.Sprintf("dev chrF2: %.2f\n", *e2.CandidateScore)) {
				t.Errorf("status %q (%v), want night 2's chrF2", text.String(), err)
			}
			text.Reset()
			if err := r.WriteHistory(ctx, &text); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{out1.Entry.Scores(), e2.Scores(), e3.Scores(), "chrF2 gain ≥ 0.00", "TER gain ≥ 0.00",
				fmt.Sprintf("%+.2f ", *e3.Gain)} {
				if !strings.Contains(text.String(), want) {
					t.Errorf("history table lacks %q:\n%s", want, text.String())
				}
			}

			// The report: one chart per metric, none mixing two.
			doc, err := html.Parse(strings.NewReader(string(readBytes(t, r.Report()))))
			if err != nil {
				t.Fatal(err)
			}
			svgs := htmltest.Elements(doc, "svg")
			if len(svgs) != 3 {
				t.Fatalf("%d charts, want one per metric (3)", len(svgs))
			}
			for i, tc := range []struct {
				name       string
				prom, cand int
			}{{"dev BLEU", 1, 1}, {"dev chrF2", 2, 1}, {"dev TER", 1, 1}} {
				ss := htmltest.Series(t, svgs[i])
				if !strings.Contains(htmltest.Text(svgs[i]), tc.name) || len(ss["promoted"]) != tc.prom || len(ss["candidate"]) != tc.cand {
					t.Errorf("chart %d: %q, promoted %v, candidate %v; want %s with %d and %d points", i, htmltest.Text(svgs[i]), ss["promoted"], ss["candidate"], tc.name, tc.prom, tc.cand)
				}
			}

			var metrics []string
			for _, row := range htmltest.Rows(t, doc, "history") {
				metrics = append(metrics, row[3]+" "+row[6])
			}
			if got, want := strings.Join(metrics, ", "), fmt.Sprintf("BLEU %+.2f, chrF2 %+.2f, TER %+.2f", *out1.Entry.Gain, *e2.Gain, *e3.Gain); got != want {
				t.Errorf("report's history: metric and gain %q, want %q", got, want)
			}

			// Rollback to n1: its BLEU, named so.
			rb, err := r.Rollback(ctx, "n1", rundir.LeaseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rb.Metric != "BLEU" || *rb.CandidateScore != *out1.Entry.CandidateScore || rb.Scores() != "BLEU "+strings.TrimPrefix(rb.Scores(), "BLEU ") {
				t.Errorf("rollback line %+v", rb)
			}
			if p := storagetest.Read(t, r.ReadPointer); p.Metric != "BLEU" || p.DevScore != *out1.Entry.CandidateScore {
				t.Errorf("promoted.json after the rollback: %+v", p)
			}

			// A gate.json decided by BLEU, resumed by a chrF call: decided again.
			w.quality = 0.65
			dir, err := rundir.Open(ctx, r.Run("n4").Root, rundir.OpenOptions{Resume: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := run.Run(ctx, run.Problem{Init: r.Run("n1").Best().JSON()}, run.Settings{Out: dir.Root, Dir: dir, Resume: true}, w.method()); err != nil {
				t.Fatal(err)
			}
			dir.Close(ctx)
			old := Decision{Weights: r.Run("n4").Best().JSON(), PromotedRun: "n1", CandidateScore: 1, PromotedScore: 2, Gain: -1, PValue: 1, GateSettings: GateSettings{Metric: "BLEU", MaxP: 0.05, Samples: 1000}}
			if err := r.writeGate(ctx, "n4", old); err != nil {
				t.Fatal(err)
			}
			log.Reset()
			out4, err := w.metricNight(r, "n4", "chrf", &log).Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(log.String(), "its gate compared by BLEU, this call's by chrF2: deciding again") || out4.Entry.Metric != "chrF2" || out4.Entry.Decision != Promoted {
				t.Errorf("resumed night 4: %+v\n%s", out4.Entry, log.String())
			}
		})
	}
}

// isObjectiver reports whether m compares by an objective of its own
// (metric.Objectiver: BLEU, which the paired tests score as a fraction).
func isObjectiver(m metric.Metric) bool {
	_, ok := m.(metric.Objectiver)
	return ok
}
