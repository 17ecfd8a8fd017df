// Package rundir owns a tuning run's output folder (DESIGN.md §6, §8),
// local or gs://, apart from what the run computes: every path of it
// (Layout, EpochLayout, BestLayout), opening it with --resume or
// --overwrite (Open, Clear) under the lease that keeps two processes from
// writing it at once (Lease), its files — manifest.json with the inputs'
// checksums (Manifest, Checksum, SameRun, Finish), metrics.jsonl
// (Metrics, WriteMetrics, ReadMetrics), an epoch's complete marker
// (WriteComplete, CompleteEpochs), report.html (Report) and run.log, the
// runner's messages (RunLog) — and the choice of the best epoch and
// replica they record (BestEpoch, BestReplica). It imports neither Beam
// nor the epoch's domain (package tune, the learners, the decoder): tune,
// the pipelines, the registry and the commands call it. The folder of a
// command that writes its output in one go (build, tune-nbest) is an
// Output (OpenOutput): the same lease, manifest and --overwrite.
package rundir
