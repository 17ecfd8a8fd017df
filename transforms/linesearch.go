package transforms

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner/mix"
	"github.com/mtune/mtune/tune"
)

func init() { RegisterMixer(LineSearchMixer{}) }

// LineSearchMixer mixes by line search along the shards' Average
// (LineSearchMix), mtune tune's default.
type LineSearchMixer struct{}

// Name returns "linesearch".
func (LineSearchMixer) Name() string { return "linesearch" }

// UsesLists returns true: the search re-ranks the epoch's lists.
func (LineSearchMixer) UsesLists() bool { return true }

// Mix returns the line search's mix and its outcome.
func (m LineSearchMixer) Mix(s beam.Scope, in MixInput) (mixed, report beam.PCollection) {
	avg := Average(s, in.Results, in.Weights == tune.ByUpdates)
	mixed, result := LineSearchMix(s, in.Lists, in.Prev, avg, in.Metric)
	return mixed, beam.ParDo(s, lineSearchReport, result)
}

// lineSearchReport is a line search's tune.MixReport.
func lineSearchReport(r LineSearchResult) tune.MixReport {
	return tune.MixReport{Mixer: LineSearchMixer{}.Name(), LineSearch: &r}
}

// LineSearchResult is the outcome of line-search mixing.
type LineSearchResult = tune.LineSearchResult

// LineSearchMix mixes by line search (Watanabe 2012, §4.2; tune.LineSearch,
// mix.LineSearch): w = (1 − α)·prev + α·avg with the α that maximises
// the corpus score under metric (a spec, DecodeOptions.Metric; "" is
// BLEU) of the epoch's n-best lists re-ranked with w. lists is the
// PCollection<tune.NBest> of the epoch's n-best lists; prev (the weights every
// shard started the epoch from) and avg (their average, see Average) are
// singleton PCollection<weights.ByName>. It returns the mixed weights, a
// singleton PCollection<weights.ByName>, and the search's outcome, a singleton
// PCollection<LineSearchResult>. Each list's share (mix.Lines) is computed
// on the workers by ListLinesFn and merged by LineSearchFn.
func LineSearchMix(s beam.Scope, lists, prev, avg beam.PCollection, metric string) (mixed, result beam.PCollection) {
	s = s.Scope("transforms.LineSearchMix")
	shares := beam.ParDo(s, &ListLinesFn{}, lists, beam.SideInput{Input: prev}, beam.SideInput{Input: avg})
	result = beam.Combine(s, &LineSearchFn{Metric: metric}, shares)
	mixed = beam.ParDo(s, mixFn, beam.Impulse(s), beam.SideInput{Input: result},
		beam.SideInput{Input: prev}, beam.SideInput{Input: avg})
	return mixed, result
}

// ListLinesFn computes each list's share of line-search mixing
// (tune.LineSearchList) along the line from prev to avg (the side inputs,
// singleton weights.ByName): PCollection<tune.NBest> to PCollection<mix.Lines>.
type ListLinesFn struct {
	line tune.MixLine // the bundle's side inputs
}

// StartBundle maps the bundle's side inputs to the line.
func (f *ListLinesFn) StartBundle(prev, avg weights.ByName) (err error) {
	f.line, err = tune.NewMixLine(prev, avg)
	return err
}

// ProcessElement computes one list's share.
func (f *ListLinesFn) ProcessElement(n tune.NBest, _, _ weights.ByName) (mix.Lines, error) {
	return f.line.Share(n)
}

// LineSearchFn is the CombineFn of line-search mixing: it merges the
// lists' shares, PCollection<mix.Lines>, and chooses α (tune.LineSearch)
// for the corpus score of Metric (a spec; "" is BLEU), a
// LineSearchResult.
type LineSearchFn struct{ Metric string }

// CreateAccumulator returns an empty share.
func (f *LineSearchFn) CreateAccumulator() mix.Lines { return mix.Lines{} }

// AddInput merges a list's share.
func (f *LineSearchFn) AddInput(a, b mix.Lines) (mix.Lines, error) { return f.MergeAccumulators(a, b) }

// MergeAccumulators merges b into a.
func (f *LineSearchFn) MergeAccumulators(a, b mix.Lines) (mix.Lines, error) {
	err := a.Merge(b)
	return a, err
}

// ExtractOutput chooses α.
func (f *LineSearchFn) ExtractOutput(a mix.Lines) (LineSearchResult, error) {
	return tune.LineSearch(a, f.Metric)
}

// mixFn applies a line search's α (tune.MixLine.At).
func mixFn(_ []byte, r LineSearchResult, prev, avg weights.ByName) (weights.ByName, error) {
	line, err := tune.NewMixLine(prev, avg)
	if err != nil {
		return weights.ByName{}, err
	}
	return line.At(r.Alpha), nil
}
