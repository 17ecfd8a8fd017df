package transforms

import (
	"context"
	"errors"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner/mix"
	"github.com/mtune/mtune/tune"
)

func init() {
	RegisterMixer(LineSearchMixer{}, "an exact line search on the epoch's n-best lists along the shards' average (Watanabe 2012, §4.2)")
}

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
	mixed, result := LineSearchMix(s, in.Lists, in.Prev, avg, in.Metric, in.ListDir)
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
// PCollection<LineSearchResult>. The lists wait for avg in list files in
// the folder dir (SpillListsFn, in the shards' own stage), not in the
// runner's memory; each list's share (mix.Lines) is computed on the
// workers by ListLinesFn, which reads them back, and merged by
// LineSearchFn.
func LineSearchMix(s beam.Scope, lists, prev, avg beam.PCollection, metric, dir string) (mixed, result beam.PCollection) {
	s = s.Scope("transforms.LineSearchMix")
	files := beam.ParDo(s, &SpillListsFn{Dir: dir}, lists)
	shares := beam.ParDo(s, &ListLinesFn{}, files, beam.SideInput{Input: prev}, beam.SideInput{Input: avg})
	result = beam.Combine(s, &LineSearchFn{Metric: metric}, shares)
	mixed = beam.ParDo(s, mixFn, beam.Impulse(s), beam.SideInput{Input: result},
		beam.SideInput{Input: prev}, beam.SideInput{Input: avg})
	return mixed, result
}

// SpillListsFn writes the n-best lists of a bundle to a list file of the
// folder Dir (tune.ListFile) and, once the file is complete, emits its
// path: PCollection<tune.NBest> to PCollection<string>. It has no side
// input, so it runs in the stage that decodes the lists, and the lists are
// written as they come.
type SpillListsFn struct {
	Dir  string
	file *tune.ListFile
}

// ProcessElement writes one list.
func (f *SpillListsFn) ProcessElement(ctx context.Context, n tune.NBest, _ func(string)) error {
	if f.file == nil {
		if f.Dir == "" {
			return errors.New("transforms: line search: no folder for the epoch's list files (MixInput.ListDir)")
		}
		file, err := tune.CreateListFile(ctx, f.Dir)
		if err != nil {
			return err
		}
		f.file = file
	}
	if err := f.file.Add(n); err != nil {
		f.file.Abort()
		f.file = nil
		return err
	}
	return nil
}

// FinishBundle completes the bundle's file and emits its path.
func (f *SpillListsFn) FinishBundle(_ context.Context, emit func(string)) error {
	file := f.file
	f.file = nil
	if file == nil {
		return nil
	}
	if err := file.Close(); err != nil {
		return err
	}
	emit(file.Path())
	return nil
}

// ListLinesFn computes each list's share of line-search mixing
// (tune.LineSearchList) along the line from prev to avg (the side inputs,
// singleton weights.ByName) for the lists of a list file:
// PCollection<string> (SpillListsFn's paths) to PCollection<mix.Lines>.
//
// Each file maps the side inputs afresh: a line's index grows by the
// features of the lists it shares out, so a line kept across files would
// grow to every feature the worker has seen, and an instance keeps no
// state that a runner reusing it could make stale.
type ListLinesFn struct{}

// ProcessElement computes the share of each list of the file path.
func (f *ListLinesFn) ProcessElement(ctx context.Context, path string, prev, avg weights.ByName, emit func(mix.Lines)) error {
	line, err := tune.NewMixLine(prev, avg)
	if err != nil {
		return err
	}
	return tune.ReadListFile(ctx, path, func(n tune.NBest) error {
		share, err := line.Share(n)
		if err != nil {
			return err
		}
		emit(share)
		return nil
	})
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
