// Package pipelines holds mtune's tuning pipelines on Apache Beam, the
// methods of package run that launch them (DESIGN.md §1, §6, §13): Run
// tunes a moses.ini's weights for a number of epochs, each epoch one
// pipeline launch, by run.Run, which writes the run's output folder;
// Options.Method is the same method for a caller that runs it itself (a
// night of retraining, registry.Night).
//
// # Modes
//
// ipm (iterative parameter mixing): the tuning set is dealt out to Shards
// shards (transforms.Shard, seeded by the run's seed and the epoch); each
// shard's online learner (adagrad, sgd, mira, oro) decodes its mini-batches
// with the real decoder and updates (transforms.Learn); the shards are
// mixed by Options.Mix, a transforms.Mixer: AverageMixer averages their
// weights, weighted by their updates (transforms.Average), and
// LineSearchMixer chooses the mix (1−α)·prev + α·average by an exact line
// search over the epoch's n-best lists (transforms.LineSearchMix).
// The same launch decodes the dev set, 1-best, with the mixed weights: its
// BLEU is the epoch's dev_score. The epoch's tune_score is the progressive
// BLEU of the shards' own decoding (tune_decoded), so that an epoch decodes
// each tuning sentence once, unless EvalTune decodes the tuning set once
// more as the dev set is; the weights are the same either way.
//
// batch: the launch decodes the tuning set with the previous weights into
// n-best lists, which the workers pool by parts of 256 sentences with the
// distinct hypotheses of every epoch so far (tune.MergePoolPart); a batch
// optimizer (mert, pro, kbmira, mr, svm) then runs on the pool without the
// driver holding any of it: MERT's passes as rounds of launches over the
// parts (tune.MERTRun), PRO on pairs sampled by part, the others on one
// worker that reads the parts. Its tune_score is the BLEU of the pool
// re-ranked by the new weights (no second decoding); with a dev set, a second, short launch decodes it with the
// epoch's new weights (they exist only after the optimizer step), and the
// best epoch is the one with the best dev BLEU (Moses' --return-best-dev).
// The optimizer's weights are
// scaled to an L1 norm of 1 (Moses' mert convention) unless KeepScale is
// set: the decoder's beam pruning depends on their scale.
//
// stale: ipm with Green et al.'s (2013) Algorithm 2 inside each shard's
// worker (transforms.Learn with LearnFn.Stale, tune.RunStale): Threads goroutines
// each take the next mini-batch, read the shard learner's current weights
// and update count, decode the mini-batch with them and compute the
// gradient (learner.Online.Gradient, seeded by tune.StaleSeed of the
// epoch seed, shard and mini-batch); one applier applies each gradient as
// it finishes. An update's staleness is the number of updates applied
// between the weights read and its application; with MaxStaleness K a
// staler gradient is recomputed on the same n-best lists (not decoded
// again) at the then current weights and applied with staleness 0 (a
// "recompute"). The shards are then mixed as in ipm, in the same launch.
// With Threads > 1 the order of application depends on timing, so a stale
// run is not bit-reproducible (nor is --resume bit-identical); with
// Threads = 1 it is deterministic and, for a learner whose gradient
// ignores the seed (oro), equal to ipm. Each epoch's metrics line holds
// the staleness distribution of all shards' updates.
//
// # Decoder
//
// Package transforms registers the real decoder (package decoder) as
// "moses" (tune.MosesDecoderName, tune.OpenMoses); its configuration
// string is the moses.ini path, or with Options.Sparse the JSON of a
// tune.MosesConfig that also names the sparse templates to switch on
// (tune.DecoderSetup checks the options and makes the string).
// transforms.OpenDecoder loads it once per
// worker process and configuration; Run loads it before the first epoch,
// so a missing or truncated model file stops the run early (and a worker in
// the launching process, as on prism's loopback, reuses that model).
//
// It also registers, as "external" (tune.ExternalDecoderName), a
// Moses-compatible decoder that the workers run as a subprocess (package
// decoder/external), configured by the JSON of a tune.ExternalConfig; a run
// uses it when Options.DecoderCommand is set: one run of the command for
// each mini-batch, and for each worker's share of a decoding of the tuning
// or dev set (Options.DecodeBatches of them; tune.BatchDecoder).
//
// # Output
//
// The run folder's paths are rundir.Layout's methods, the weights trio is
// written by io/weights.WriteTrio, and the best epoch is rundir.BestEpoch:
//
//	OUT/manifest.json               command line, version, inputs with sha256, seed, options, start/end, status
//	OUT/init/weights.json           the starting weights (--init, or the moses.ini's)
//	OUT/epochs/NNN/weights          [weight] header, then Moses "Name= v …" lines of the dense features
//	OUT/epochs/NNN/weights.sparse   the other non-zero weights, "name value" (empty when there are none)
//	OUT/epochs/NNN/weights.json     every weight (io/weights JSON): the next epoch's input
//	OUT/epochs/NNN/state/           learner states (ipm: shard-KKK.json; batch: learner.bin)
//	OUT/epochs/NNN/pool/            batch mode: the pool after the epoch by parts of 256 sentences, part-PPPPP.nbest.gz (Moses n-best) and part-PPPPP.scores.gz (Moses SCORESTAT)
//	OUT/epochs/NNN/work/            what the pipeline hands the driver: the mixed weights, the metric's summed statistics (dev-stats.json, tune-stats.json with EvalTune; batch: decoded-stats.json, pool.json, batch.json), line-search result, stale mode's stale-KKKKK.json
//	OUT/epochs/NNN/complete         written last: the epoch's metrics line
//	OUT/metrics.jsonl               one Metrics line per epoch
//	OUT/best/weights{,.sparse,.json} and epoch.json: the epoch with the best dev BLEU (tune BLEU without a dev set), the earlier on ties
//	OUT/report.html                 learning curves and the best weights (rundir.Report)
//
// A line of metrics.jsonl (the demo's first epoch, with --eval-tune; without
// it "tune_score" is 61.74, "tune_decoded" true and there are no tune_*
// counters), with the Beam metrics the pipeline reported
// (transforms.MetricsNamespace):
//
//	{"epoch":1,"tune_score":88.26,"dev_score":89.6,"metric":"BLEU","progressive_score":61.74,"alpha":5.22,"nonzero":15,"updates":16,"sentences":300,"seconds":3.08,
//	 "counters":{"dev_decode_ms":2544,"dev_hypotheses":300,"dev_sentences":300,"learn_decode_ms":880,"learn_hypotheses":29973,
//	   "learn_sentences":300,"learn_update_ms":29,"learn_updates":16,"tune_decode_ms":2459,"tune_hypotheses":300,"tune_sentences":300},
//	 "distributions":{"dev_batch_ms":{"count":5,"sum":1364,"min":232,"max":291},"learn_shard_ms":{"count":2,"sum":1010,"min":493,"max":517},
//	   "tune_batch_ms":{"count":5,"sum":1327,"min":176,"max":299}}}
//
// and in stale mode, with "staleness" added (histogram: staleness → updates):
//
//	{"epoch":1,…,"staleness":{"histogram":{"0":3,"1":12,"2":1},"max":2,"mean":0.875,"recomputes":0}}
//
// Every file is written atomically (storage.WriteFile). An epoch is
// complete once its "complete" file exists; with Resume, Run keeps the
// complete epochs and continues after the last one. An epoch reads only the
// previous epoch's files and its seeds derive from the run's seed and the
// epoch number, so a resumed run's weights equal an uninterrupted run's
// bit for bit.
package pipelines
