package transforms

import (
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/internal/spec"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/tune"
)

// A Mixer merges the shards of an ipm or stale epoch into the epoch's
// weights (--mix). A mixer is its file, with its Beam-free domain in tune/
// or learner/mix, and one RegisterMixer line; ParseMixer is where a --mix
// value becomes one.
type Mixer interface {
	// Name is the mixer's --mix value.
	Name() string
	// UsesLists reports whether Mix reads the epoch's n-best lists; the
	// shards drop them for a mixer that does not.
	UsesLists() bool
	// Mix adds the mixing to s. It returns the mixed weights, a
	// singleton PCollection<weights.ByName>, and how it mixed, a singleton
	// PCollection<tune.MixReport>.
	Mix(s beam.Scope, in MixInput) (mixed, report beam.PCollection)
}

// MixInput is what a Mixer mixes.
type MixInput struct {
	// Results are the shards' PCollection<tune.ShardResult>; Lists the
	// epoch's PCollection<tune.NBest> (empty unless UsesLists); Prev the
	// singleton PCollection<weights.ByName> every shard started from.
	Results, Lists, Prev beam.PCollection
	// Weights is how the shards' average weighs them.
	Weights tune.MixWeights
	// Metric is the run's metric, a spec (tune.DecodeOptions.Metric; ""
	// is BLEU): what a mixer that searches maximises.
	Metric string
	// ListDir is the folder where a mixer that reads the lists keeps
	// them until the shards' average exists (rundir.EpochLayout.Lists).
	ListDir string
}

// Mixers holds the values of --mix, in the registry idiom of every named
// choice (internal/spec): its names, summaries and help come from here.
var Mixers = &spec.Registry[Mixer]{Kind: "mix"}

// RegisterMixer makes m a value of --mix, described by summary; a name
// registered twice panics.
func RegisterMixer(m Mixer, summary string) {
	spec.Register(Mixers, m.Name(), summary, struct{}{}, func(struct{}) (Mixer, error) { return m, nil })
}

// ParseMixer returns the mixer named name (a --mix value; Mixers).
func ParseMixer(name string) (Mixer, error) {
	m, _, err := Mixers.Parse(name)
	if err != nil {
		return nil, fmt.Errorf("transforms: %w", err)
	}
	return m, nil
}

func init() {
	RegisterMixer(AverageMixer{}, "the shards' mean (iterative parameter mixing, McDonald et al. 2010)")
}

// AverageMixer mixes by the shards' mean (Average), the zero Options'
// mixer.
type AverageMixer struct{}

// Name returns "average".
func (AverageMixer) Name() string { return "average" }

// UsesLists returns false.
func (AverageMixer) UsesLists() bool { return false }

// Mix returns the shards' Average and a report naming the mixer.
func (m AverageMixer) Mix(s beam.Scope, in MixInput) (mixed, report beam.PCollection) {
	mixed = Average(s, in.Results, in.Weights == tune.ByUpdates)
	return mixed, beam.ParDo(s, &mixReportFn{Mixer: m.Name()}, mixed)
}

// mixReportFn reports a mixer that has nothing to report but its name.
type mixReportFn struct{ Mixer string }

func (f *mixReportFn) ProcessElement(_ weights.ByName) tune.MixReport {
	return tune.MixReport{Mixer: f.Mixer}
}

// Average mixes the shards' weights by their mean (iterative parameter
// mixing, McDonald et al. 2010; tune.AverageSums, mix.Average): uniform,
// or weighted by each shard's Updates this epoch when weighted is set
// (uniform if no shard made an update). It takes a PCollection<tune.ShardResult>
// and returns a singleton PCollection<weights.ByName> over the union of the
// shards' feature names (a feature a shard lacks counts as zero there).
func Average(s beam.Scope, results beam.PCollection, weighted bool) beam.PCollection {
	s = s.Scope("transforms.Average")
	return beam.Combine(s, &AverageFn{Weighted: weighted}, results)
}

// AverageFn is the CombineFn of Average: PCollection<tune.ShardResult> to
// weights.ByName, accumulating tune.AverageSums.
type AverageFn struct {
	// Weighted weights each shard by its updates; false means uniform.
	Weighted bool
}

// CreateAccumulator returns empty sums.
func (f *AverageFn) CreateAccumulator() tune.AverageSums { return tune.AverageSums{} }

// AddInput adds a shard's weights.
func (f *AverageFn) AddInput(a tune.AverageSums, r tune.ShardResult) (tune.AverageSums, error) {
	if err := a.Add(r.Shard, r.Weights.Names, r.Weights.Vals, r.Updates); err != nil {
		return a, fmt.Errorf("transforms: shard %d: %w", r.Shard, err)
	}
	return a, nil
}

// MergeAccumulators adds b's shards to a's (the mean sums them in shard
// order, whatever the order of the merges).
func (f *AverageFn) MergeAccumulators(a, b tune.AverageSums) (tune.AverageSums, error) {
	err := a.Merge(b)
	return a, err
}

// ExtractOutput returns the mean.
func (f *AverageFn) ExtractOutput(a tune.AverageSums) (weights.ByName, error) {
	names, vals, err := a.Mean(f.Weighted)
	return weights.ByName{Names: names, Vals: vals}, err
}
