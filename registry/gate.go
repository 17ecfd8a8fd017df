package registry

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/mtune/mtune/metric"
)

// GateOptions say when a candidate replaces the promoted weights.
type GateOptions struct {
	// Metric is what the gate compares the candidate and the promoted
	// weights by on the dev set (retrain --metric: metric.Parse); nil
	// means BLEU. Night.Score gives each dev sentence's statistics under
	// it. External scores, which score given n-best lists only, are
	// refused.
	Metric metric.Metric
	// MinGain is the least dev gain of the candidate over the promoted
	// weights, in points of the metric and oriented so that a positive
	// gain is better (for TER the promoted weights' TER minus the
	// candidate's), that promotes; 0 means any gain.
	MinGain float64
	// MaxP is the largest p-value of paired bootstrap resampling that
	// promotes; 0 means 0.05.
	MaxP float64
	// Samples is the number of bootstrap resamples; 0 means 1,000.
	Samples int
	// Seed seeds the resampling.
	Seed uint64
}

func (g GateOptions) withDefaults() GateOptions {
	g.MaxP, g.Samples = cmp.Or(g.MaxP, 0.05), cmp.Or(g.Samples, 1000)
	return g
}

// MetricName is the name of the gate's metric ("BLEU", "chrF2", "TER";
// metric.Metric.Name), as gate.json, the history and the report record it.
func (g GateOptions) MetricName() string {
	if g.Metric == nil {
		return bleuName
	}
	return g.Metric.Name()
}

// Validate checks the options.
func (g GateOptions) Validate() error {
	g = g.withDefaults()
	_, fromFile := g.Metric.(metric.FileScored)
	switch {
	case math.IsNaN(g.MinGain) || math.IsInf(g.MinGain, 0):
		return fmt.Errorf("registry: minimum gain %v is not a number", g.MinGain)
	case !(g.MaxP > 0 && g.MaxP <= 1):
		return fmt.Errorf("registry: maximum p-value %v is not in (0, 1]", g.MaxP)
	case g.Samples < 1 || g.Samples > metric.MaxPairedSamples:
		return fmt.Errorf("registry: %d bootstrap samples: must be from 1 to %d", g.Samples, metric.MaxPairedSamples)
	case fromFile:
		return fmt.Errorf("registry: the gate cannot compare by %s: scores computed elsewhere score given n-best lists, not the dev set's new translations", g.Metric.Name())
	}
	return nil
}

// Decision is the gate's verdict on a candidate: R/runs/ID/gate.json
// (format.go).
type Decision struct {
	// Promote is the verdict: the candidate's gain is at least MinGain and
	// its p-value below MaxP.
	Promote bool `json:"promote"`
	// Weights is the candidate's weights file; PromotedRun the run whose
	// weights it was compared with ("" for the model's own weights).
	Weights     string `json:"weights"`
	PromotedRun string `json:"promoted_run,omitempty"`
	// CandidateScore and PromotedScore are the dev scores of both under
	// the gate's metric (GateSettings.Metric), in its points (TER as TER,
	// lower being better); a BLEU night's gate.json holds them as
	// candidate_bleu and promoted_bleu too. Gain is the candidate's gain,
	// oriented so that positive is better (TER: promoted − candidate), and
	// CI its 95% bootstrap interval; PValue is the paired bootstrap's
	// p-value of "the candidate is not better".
	CandidateScore float64    `json:"candidate_score"`
	PromotedScore  float64    `json:"promoted_score"`
	Gain           float64    `json:"gain"`
	CI             [2]float64 `json:"ci"`
	PValue         float64    `json:"p_value"`
	// Sentences is the dev set's size.
	Sentences int `json:"sentences"`
	// GateSettings are the options used.
	GateSettings
}

// GateSettings are the settings a gate decided with, as gate.json and the
// history line of its night record them.
type GateSettings struct {
	// Metric is the name of the gate's metric (GateOptions.MetricName:
	// "BLEU", "chrF2", "TER"). Files of earlier versions, all gated on
	// BLEU, record "bleu" or nothing: read as "BLEU" (format.go).
	Metric  string  `json:"metric"`
	MinGain float64 `json:"min_gain"`
	MaxP    float64 `json:"max_p"`
	Samples int     `json:"samples"`
	Seed    uint64  `json:"seed"`
}

// String says when the gate promotes, e.g. "chrF2 gain ≥ 0.00, p < 0.05,
// 1000 samples".
func (g GateSettings) String() string {
	return fmt.Sprintf("%s gain ≥ %.2f, p < %g, %d samples", metricName(g.Metric), g.MinGain, g.MaxP, g.Samples)
}

// Decide compares the candidate's per-sentence dev statistics cand with
// the promoted weights' base (the same sentences, in the same order, both
// under g.Metric) by paired bootstrap resampling (Koehn 2004;
// metric.PairedBootstrap) and returns the verdict, with the weights fields
// left for the caller.
func (g GateOptions) Decide(ctx context.Context, base, cand []metric.Stats) (Decision, error) {
	if err := g.Validate(); err != nil {
		return Decision{}, err
	}
	g = g.withDefaults()
	if len(base) == 0 {
		return Decision{}, errors.New("registry: the gate has no dev sentence")
	}
	res, err := metric.PairedBootstrap(ctx, g.Metric, base, cand, g.Samples, g.Seed)
	if err != nil {
		return Decision{}, fmt.Errorf("registry: gate: %w", err)
	}
	// The bootstrap's BLEU is a fraction; the registry's, as every report
	// of mtune's, is in points (res.Scale).
	x := res.Scale
	d := Decision{
		CandidateScore: x * res.Cand, PromotedScore: x * res.Base, Gain: x * res.Gain,
		CI: [2]float64{x * res.Low, x * res.High}, PValue: res.P,
		Sentences:    len(base),
		GateSettings: GateSettings{Metric: g.MetricName(), MinGain: g.MinGain, MaxP: g.MaxP, Samples: g.Samples, Seed: g.Seed},
	}
	d.Promote = d.Gain >= g.MinGain && d.PValue < g.MaxP
	return d, nil
}
