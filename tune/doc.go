// Package tune owns what a tuning run's epoch means, apart from how it is
// run (DESIGN.md §8): a shard's session (LearnShard), stale gradients
// (StaleLearnShard), mixing (Mix), decoding and scoring, batch mode's pool
// and optimizer step, the files an epoch's pipeline hands the driver
// (ReadEpoch), and the epoch loop (Driver) with its recorders
// (Printer; NewReport for package rundir's report). The run folder itself
// — its paths, lease, manifest, metrics and report — is package rundir's.
// It imports no Beam: the pipelines and the commands call it.
//
// It also holds the real decoders' side of a run: the choice of decoder
// as the launching machine checks it (DecoderSetup), the adapters the
// workers open (OpenMoses, OpenExternal: transforms registers them) and
// the retraining gate's dev scoring (DevScorer).
package tune
