package registry

// The registry's files name the metric of their scores (DESIGN.md §9, §11).
//
// A night is gated on one metric (retrain --metric; GateOptions.Metric),
// and every score a registry file holds is of a metric it names, in that
// metric's points as sacreBLEU prints them (0–100 for BLEU, chrF and TER;
// TER as TER, lower being better), under field names that name no metric:
//
//	runs/ID/gate.json  "metric", "candidate_score", "promoted_score"
//	history.jsonl      "metric", "candidate_score", "promoted_score" (and the gate's "metric" in "gate")
//	promoted.json      "metric", "dev_score"
//
// "metric" is the metric's name, metric.Metric.Name: "BLEU", "chrF2",
// "chrF2++", "TER", "0.5·BLEU+0.5·−TER". Gains ("gain", "ci",
// "min_gain") are oriented so that a positive gain favours the
// candidate: for TER the promoted weights' score minus the candidate's.
//
// Earlier versions gated on BLEU only and wrote "candidate_bleu",
// "promoted_bleu" and "dev_bleu", with no "metric" (or with "metric":
// "bleu" in the gate's settings). A file written for a night gated on
// BLEU still holds those fields, with the same values as the *_score ones,
// so that what reads them (scripts/bench-nightly.sh, a user's) keeps
// working; a file of a night gated on another metric has no *_bleu field,
// so that nothing takes its chrF for BLEU. Reading, a file with *_bleu
// fields and no *_score ones (an earlier version's) is a BLEU night's, and
// a recorded "metric" of "" or a --metric spec ("bleu") is read as the
// metric's name ("BLEU"). The format has no version number: a reader of
// this version reads every file an earlier one wrote, and an earlier
// reader reads a BLEU night's files as it always did.

import (
	"encoding/json"

	"github.com/mtune/mtune/metric"
)

// bleuName is BLEU's name, as the registry's files record it.
var bleuName = metric.DefaultBLEU().Name()

// metricName returns the name of the metric a registry file records as
// recorded, as this version names it: "" (a file written before the
// metric was recorded, when every night was gated on BLEU) is BLEU; a
// --metric spec (the gate's "bleu" of earlier files) is its metric's name
// (metric.Parse, the one place a spec is read); a name is itself.
func metricName(recorded string) string {
	if recorded == "" {
		return bleuName
	}
	if m, err := metric.Parse(recorded, metric.Options{}); err == nil {
		return m.Name()
	}
	return recorded
}

// sameMetric reports whether two recorded metrics are the same.
func sameMetric(a, b string) bool { return metricName(a) == metricName(b) }

// bleuFields are the fields by which earlier versions recorded a BLEU
// night's scores.
type bleuFields struct {
	CandidateBLEU *float64 `json:"candidate_bleu,omitempty"`
	PromotedBLEU  *float64 `json:"promoted_bleu,omitempty"`
}

// bleuCopy returns the scores cand and prom of metric name as bleuFields:
// themselves on a BLEU night, none on another metric's.
func bleuCopy(name string, cand, prom *float64) bleuFields {
	if !sameMetric(name, bleuName) {
		return bleuFields{}
	}
	return bleuFields{CandidateBLEU: cand, PromotedBLEU: prom}
}

// upgrade fills the scores cand and prom of a file read, and its metric
// *name, from an earlier version's BLEU fields when the file has no
// scores of its own; it returns whether it did.
func (b bleuFields) upgrade(name *string, cand, prom **float64) bool {
	if *cand != nil || *prom != nil || (b.CandidateBLEU == nil && b.PromotedBLEU == nil) {
		return false
	}
	*cand, *prom, *name = b.CandidateBLEU, b.PromotedBLEU, bleuName
	return true
}

func f64(x float64) *float64 { return &x }

// decisionJSON is Decision without its methods, as gate.json holds it.
type decisionJSON Decision

// MarshalJSON writes d as gate.json holds it: its fields, and on a BLEU
// night the scores as candidate_bleu and promoted_bleu too.
func (d Decision) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		decisionJSON
		bleuFields
	}{decisionJSON(d), bleuCopy(d.Metric, f64(d.CandidateScore), f64(d.PromotedScore))})
}

// UnmarshalJSON reads a gate.json of this version or an earlier one.
func (d *Decision) UnmarshalJSON(data []byte) error {
	var f struct {
		decisionJSON
		bleuFields
		// The scores, pointers to tell absent from 0.
		CandidateScore *float64 `json:"candidate_score"`
		PromotedScore  *float64 `json:"promoted_score"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	*d = Decision(f.decisionJSON)
	f.bleuFields.upgrade(&d.Metric, &f.CandidateScore, &f.PromotedScore)
	if f.CandidateScore != nil {
		d.CandidateScore = *f.CandidateScore
	}
	if f.PromotedScore != nil {
		d.PromotedScore = *f.PromotedScore
	}
	d.Metric = metricName(d.Metric)
	return nil
}

// entryJSON is Entry without its methods, as history.jsonl holds it.
type entryJSON Entry

// MarshalJSON writes e as a line of history.jsonl holds it: its fields,
// and on a BLEU night (or a rollback to one) the scores as candidate_bleu
// and promoted_bleu too.
func (e Entry) MarshalJSON() ([]byte, error) {
	var b bleuFields
	if e.Metric != "" {
		b = bleuCopy(e.Metric, e.CandidateScore, e.PromotedScore)
	}
	return json.Marshal(struct {
		entryJSON
		bleuFields
	}{entryJSON(e), b})
}

// UnmarshalJSON reads a line of history.jsonl of this version or an
// earlier one.
func (e *Entry) UnmarshalJSON(data []byte) error {
	var f struct {
		entryJSON
		bleuFields
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	*e = Entry(f.entryJSON)
	if f.bleuFields.upgrade(&e.Metric, &e.CandidateScore, &e.PromotedScore) && e.Gain == nil && e.CandidateScore != nil && e.PromotedScore != nil {
		e.Gain = f64(*e.CandidateScore - *e.PromotedScore)
	}
	if e.Gate != nil {
		e.Gate.Metric = metricName(e.Gate.Metric)
	}
	if e.Metric != "" {
		e.Metric = metricName(e.Metric)
	}
	return nil
}

// pointerJSON is Pointer without its methods, as promoted.json holds it.
type pointerJSON Pointer

// MarshalJSON writes p as promoted.json holds it: its fields, and when
// the weights were promoted on BLEU their score as dev_bleu too.
func (p Pointer) MarshalJSON() ([]byte, error) {
	var bleu *float64
	if sameMetric(p.Metric, bleuName) {
		bleu = f64(p.DevScore)
	}
	return json.Marshal(struct {
		pointerJSON
		DevBLEU *float64 `json:"dev_bleu,omitempty"`
	}{pointerJSON(p), bleu})
}

// UnmarshalJSON reads a promoted.json of this version or an earlier one.
func (p *Pointer) UnmarshalJSON(data []byte) error {
	var f struct {
		pointerJSON
		DevScore *float64 `json:"dev_score"`
		DevBLEU  *float64 `json:"dev_bleu"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	*p = Pointer(f.pointerJSON)
	switch {
	case f.DevScore != nil:
		p.DevScore = *f.DevScore
	case f.DevBLEU != nil:
		p.DevScore, p.Metric = *f.DevBLEU, bleuName
	}
	p.Metric = metricName(p.Metric)
	return nil
}
