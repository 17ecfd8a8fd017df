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
	// MinGain is the least dev BLEU gain (candidate - promoted, BLEU
	// points) that promotes; 0 means any gain.
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

// Validate checks the options.
func (g GateOptions) Validate() error {
	g = g.withDefaults()
	switch {
	case math.IsNaN(g.MinGain) || math.IsInf(g.MinGain, 0):
		return fmt.Errorf("registry: minimum gain %v is not a number", g.MinGain)
	case !(g.MaxP > 0 && g.MaxP <= 1):
		return fmt.Errorf("registry: maximum p-value %v is not in (0, 1]", g.MaxP)
	case g.Samples < 1 || g.Samples > metric.MaxPairedSamples:
		return fmt.Errorf("registry: %d bootstrap samples: must be from 1 to %d", g.Samples, metric.MaxPairedSamples)
	}
	return nil
}

// Decision is the gate's verdict on a candidate: R/runs/ID/gate.json.
type Decision struct {
	// Promote is the verdict: the candidate's gain is at least MinGain and
	// its p-value below MaxP.
	Promote bool `json:"promote"`
	// Weights is the candidate's weights file; PromotedRun the run whose
	// weights it was compared with ("" for the model's own weights).
	Weights     string `json:"weights"`
	PromotedRun string `json:"promoted_run,omitempty"`
	// CandidateBLEU and PromotedBLEU are the dev BLEU of both (0-100),
	// Gain their difference and CI its 95% bootstrap interval; PValue is
	// the paired bootstrap's p-value of "the candidate is not better".
	CandidateBLEU float64    `json:"candidate_bleu"`
	PromotedBLEU  float64    `json:"promoted_bleu"`
	Gain          float64    `json:"gain"`
	CI            [2]float64 `json:"ci"`
	PValue        float64    `json:"p_value"`
	// Sentences is the dev set's size.
	Sentences int `json:"sentences"`
	// GateSettings are the options used.
	GateSettings
}

// GateMetric is the metric the gate compares: corpus BLEU of the dev set.
const GateMetric = "bleu"

// GateSettings are the settings a gate decided with, as gate.json and the
// history line of its night record them.
type GateSettings struct {
	// Metric is GateMetric ("" in a gate.json written before it was
	// recorded: BLEU too).
	Metric  string  `json:"metric,omitempty"`
	MinGain float64 `json:"min_gain"`
	MaxP    float64 `json:"max_p"`
	Samples int     `json:"samples"`
	Seed    uint64  `json:"seed"`
}

// String says when the gate promotes, e.g. "bleu gain ≥ 0.00, p < 0.05,
// 1000 samples".
func (g GateSettings) String() string {
	return fmt.Sprintf("%s gain ≥ %.2f, p < %g, %d samples", cmp.Or(g.Metric, GateMetric), g.MinGain, g.MaxP, g.Samples)
}

// Decide compares the candidate's per-sentence dev statistics cand with
// the promoted weights' base (the same sentences, in the same order) by
// paired bootstrap resampling (Koehn 2004; metric.PairedBootstrap) and
// returns the verdict, with the weights fields left for the caller.
func (g GateOptions) Decide(ctx context.Context, base, cand []metric.Stats) (Decision, error) {
	if err := g.Validate(); err != nil {
		return Decision{}, err
	}
	g = g.withDefaults()
	if len(base) == 0 {
		return Decision{}, errors.New("registry: the gate has no dev sentence")
	}
	res, err := metric.PairedBootstrap(ctx, base, cand, g.Samples, g.Seed)
	if err != nil {
		return Decision{}, fmt.Errorf("registry: gate: %w", err)
	}
	// metric's BLEU is a fraction; the registry's, as every report of
	// mtune's, is in points.
	d := Decision{
		CandidateBLEU: 100 * res.CandBLEU, PromotedBLEU: 100 * res.BaseBLEU, Gain: 100 * res.Gain,
		CI: [2]float64{100 * res.Low, 100 * res.High}, PValue: res.P,
		Sentences:    len(base),
		GateSettings: GateSettings{Metric: GateMetric, MinGain: g.MinGain, MaxP: g.MaxP, Samples: g.Samples, Seed: g.Seed},
	}
	d.Promote = d.Gain >= g.MinGain && d.PValue < g.MaxP
	return d, nil
}
