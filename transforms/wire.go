package transforms

import (
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/tune"
)

// The element types of the pipelines are package tune's (the epoch's
// domain) and io/weights' ByName; these names keep the transforms'
// signatures short.
type (
	// Sentence is a PCollection<Sentence> element: one tuning sentence.
	Sentence = tune.Sentence
	// WireWeights are weights by feature name (weights.ByName).
	WireWeights = weights.ByName
	// NBest is a scored n-best list with its feature names.
	NBest = tune.NBest
	// WireHyp is a hypothesis of an NBest.
	WireHyp = tune.WireHyp
	// ShardState is a shard's saved learner state.
	ShardState = tune.ShardState
	// ShardResult is a shard's epoch.
	ShardResult = tune.ShardResult
	// Decoder is the decoder interface the DoFns use.
	Decoder = tune.Decoder
	// DecodeOptions control decoding and scoring.
	DecodeOptions = tune.DecodeOptions
	// LearnOptions configure a shard's online learning.
	LearnOptions = tune.LearnOptions
	// StaleOptions configure stale-gradient learning.
	StaleOptions = tune.StaleOptions
	// StaleStats is stale mode's staleness record.
	StaleStats = tune.StaleStats
	// StaleReport is a shard's StaleStats for an epoch.
	StaleReport = tune.StaleReport
)

// NewWireWeights returns w over idx by name (weights.NewByName).
var NewWireWeights = weights.NewByName
