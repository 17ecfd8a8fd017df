// Package transforms holds the Beam DoFns, CombineFns and small composites
// of mtune's tuning pipeline (DESIGN.md §1): shard the tuning set, decode,
// learn per shard with the decoder in the loop, merge the shards' weights
// by averaging or line search, and sum the metric's statistics. Each step is also a
// plain call (ShardOf, LearnShard, DecodeSentences, MixWeights; mixing is
// package tune's: AverageSums, LineSearchList, LineSearch) that runs and is
// tested without Beam.
//
// # Elements
//
// Elements cross process boundaries, so they hold exported fields only and
// no feature ids that outlive a process: a feature.Index is private to one.
//
//	tune.Sentence     {ID, Src, Refs}                             the tuning set
//	weights.ByName    {Names, Vals}                               weight of Names[i] is Vals[i]
//	tune.NBest        {Sent, Names, Hyps []tune.WireHyp}          a scored n-best list; a
//	tune.WireHyp      {Target, Features, Stats, Score, HasScore}  hypothesis' feature ids index Names
//	tune.ShardState   {Shard, Names, State}                       learner.MarshalBinary, ids index Names
//	tune.ShardResult  {Shard, Epoch, Weights, State, Updates, TotalUpdates, Sentences, Stats}
//	mix.Lines         {Envelopes, Prev, Avg}                      a list's share of line-search mixing
//
// For example, the weights LM0_0 = 0.5 and tm_2 = −0.2 are
//
//	weights.ByName{Names: []string{"LM0_0", "tm_2"}, Vals: []float64{0.5, -0.2}}
//
// and an n-best list of sentence 7 whose hypotheses have LM0_0 = −41.3 and
// {LM0_0 = −40, pp_we~nous = 1} is
//
//	tune.NBest{Sent: 7, Names: []string{"LM0_0", "pp_we~nous"}, Hyps: []tune.WireHyp{
//		{Features: feature.Vector{IDs: []int32{0}, Vals: []float64{-41.3}}, …},
//		{Features: feature.Vector{IDs: []int32{0, 1}, Vals: []float64{-40, 1}}, …}}}
//
// Weights enter a pipeline as a file read when the pipeline runs
// (ReadWeights), never embedded in the job graph, and leave it as files
// (WriteTrio, WriteShardStates, WriteMixReport) the driver reads back
// (tune.ReadEpoch; the files' formats are io/weights' and tune's);
// batch mode's pool is written by parts, Moses n-best and statistics files
// (WritePool), and its optimizer step reads them back (BatchLearn, MERTRound,
// PoolStats). The
// long steps (Learn, Decode) get them joined by key, one copy
// per shard or batch, not as a side input: prism busy-loops while a stage
// that reads a side input runs (see replicate). The tuning set is read on a
// worker too (ReadSentences).
//
// # Transforms
//
//	Shard(s, PCollection<tune.Sentence>, S, seed)              → PCollection<KV<int, tune.Sentence>>
//	Learn(s, *LearnFn, sentences, weights, states)             → PCollection<tune.ShardResult>, PCollection<tune.NBest>
//	Decode(s, *DecodeFn, PCollection<tune.Sentence>, weights)  → PCollection<tune.NBest> (batches of DecodeFn.BatchSize sentences)
//	Average(s, PCollection<tune.ShardResult>, weighted)        → PCollection<weights.ByName> (one)
//	Mixer.Mix(s, MixInput): AverageMixer, LineSearchMixer     → PCollection<weights.ByName>, PCollection<tune.MixReport> (one each)
//	SumStats(s, PCollection<metric.Stats>)                     → PCollection<metric.Stats> (one)
//	OneBest(s, PCollection<tune.NBest>, weights)               → PCollection<metric.Stats> (one)
//	DecodedStats(s, PCollection<tune.NBest>)                   → PCollection<metric.Stats> (one): the 1-bests as decoded
//	ReadSentences(s, src, refs, n)                             → PCollection<tune.Sentence>
//	ReadWeights(s, path) / WriteTrio(s, weights, dir, dense): the epoch's trio, written once
//	WriteShardStates(s, results, dir) / ReadShardStates(s, paths)
//	WriteStats(s, stats, path) / WriteMixReport(s, report, path): a singleton as JSON
//	WritePool(s, PCollection<tune.NBest>, *WritePoolFn)        → PCollection<tune.PartResult>: the pool's parts, written (PRO: sampled)
//	BatchLearn(s, PCollection<tune.PartResult>, *BatchLearnFn): the pool's summary; the optimizer on one worker (tune.BatchLearn)
//	MERTRound(s, PCollection<int>, *MERTShareFn, path): one round of MERT's passes over the parts
//	PoolStats(s, PCollection<int>, dir, weights)                → PCollection<metric.Stats> (one): the pool's 1-bests
//
// # Metrics and logs
//
// The learning and decoding DoFns add the tune.Work their tune call
// returns — sentences and hypotheses decoded, updates, decoding and update
// time, staleness — to Beam metrics in MetricsNamespace (their names are
// listed there), which reach the pipeline's result and, by ReadMetrics, the
// epoch's metrics.jsonl line; they log each shard's start and end and each
// decoding batch with Beam's log package, which a worker sends to the
// runner.
//
// # Decoders
//
// The transforms reach the decoder through the tune.Decoder interface. A
// decoder registers its factory by name (tune.RegisterDecoder, into
// tune.Decoders, a spec.Registry) in an init function of its own file; the
// real ones do so in tune, so that every program that links this package,
// workers included, has them: tune.MosesDecoderName (tune/moses.go) and
// tune.ExternalDecoderName (tune/external.go). The DoFns name one in their
// Decoder field with a configuration string, and load it once per worker
// process in Setup (OpenDecoder, which logs to Beam's log).
// Package testsupport/decodertest registers "nbest-pool", a fake that
// re-ranks fixed n-best lists.
//
// # Rules
//
// Every DoFn, CombineFn, function, emitter, iterator and element type is
// registered in init; no DoFn is a closure; configuration lives in exported
// fields (Beam serialises DoFns as JSON), and unexported fields hold only
// state built at run time (Setup, StartBundle). These are the pitfalls of
// Beam Go 2.77 on prism (DESIGN.md §7).
package transforms
