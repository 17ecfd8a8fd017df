// Package tune owns what a tuning run means, apart from how it is run
// (DESIGN.md §8): the run folder of DESIGN.md §6, its paths (Layout) and
// its files (Manifest, Metrics, report.html by WriteReport; an epoch's
// shard results and staleness reports, read back with the rest of its
// pipeline's output by ReadEpoch and finished by FinishEpoch), the choice of
// the best epoch (BestEpoch, Best), and the lease that keeps two processes
// from writing one folder at once (Lease, RunDir). It imports no Beam: the
// pipelines and the commands call it.
//
// It also holds the real decoders' side of a run: the choice of decoder
// as the launching machine checks it (DecoderSetup), the adapters the
// workers open (OpenMoses, OpenExternal: transforms registers them) and
// the retraining gate's dev scoring (DevScorer).
package tune
