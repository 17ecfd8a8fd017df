package rundir

import (
	"fmt"
	"regexp"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/io/weights"
)

// Layout names every path of a run folder (DESIGN.md §6), local or gs://.
// It only joins names: it reads and writes nothing, and needs no lease, so
// a report or a test can use it on a folder nobody holds. A RunDir embeds
// it.
//
//	manifest.json                  Manifest
//	metrics.jsonl                  Metrics
//	report.html                    Report
//	run.log                        Log
//	lease                          LeaseFile
//	init/weights.json              Init
//	init/model.json                ModelCheck
//	init/dev-stats.json            InitDevStats
//	demo-model/                    DemoModel
//	best/{weights,weights.sparse,weights.json}, best/epoch.json    Best
//	epochs/NNN/…                   Epoch(n), see EpochLayout
//	replicas/RRR/{epochs,best}/    Replica(r, n): with --replicas n > 1, replica r's
//	                               epochs and best epoch (best/ above is the best replica's)
type Layout struct {
	// Root is the folder.
	Root string
}

// runFile matches, by its slash-separated path relative to a run folder,
// every file a run of mtune writes there (the Layout's): what a run
// records as its own as it writes (Record), never a name of the user's
// such as best/DEPLOYED.txt. A replica's folder (replicas/RRR/) holds
// epochs and best/ as the run folder does; a registry's night adds
// gate.json and start.json; demo-model/ is the demo system tune builds.
var runFile = regexp.MustCompile(`^(?:` +
	`manifest\.json|metrics\.jsonl|report\.html|run\.log|gate\.json|start\.json` +
	`|init/(?:weights|weights\.sparse|weights\.json|model\.json|dev-stats\.json)` +
	`|demo-model/.+` +
	`|(?:replicas/[0-9]{3}/)?(?:best/(?:weights|weights\.sparse|weights\.json|epoch\.json)` +
	`|epochs/[0-9]{3,}/(?:weights|weights\.sparse|weights\.json|complete|state/[^/]+|pool/[^/]+|work/.+))` +
	`)$`)

// Owns reports whether rel, a slash-separated path relative to a run
// folder, names a file a run of mtune writes there (one of the Layout's),
// not one of the user's: what a run records as its own (Record), and so
// what --overwrite may remove if its bytes are still those recorded.
func (Layout) Owns(rel string) bool { return runFile.MatchString(rel) }

// Manifest is manifest.json: command line, inputs and checksums, status.
func (l Layout) Manifest() string { return storage.Join(l.Root, "manifest.json") }

// Metrics is metrics.jsonl: one line per epoch.
func (l Layout) Metrics() string { return storage.Join(l.Root, "metrics.jsonl") }

// Report is report.html (Report.Write).
func (l Layout) Report() string { return storage.Join(l.Root, ReportName) }

// Log is run.log: what the runner printed of a failed pipeline, in full.
func (l Layout) Log() string { return storage.Join(l.Root, "run.log") }

// LeaseFile is the folder's lease (LeaseName).
func (l Layout) LeaseFile() string { return storage.Join(l.Root, LeaseName) }

// Init is init/weights.json: the weights the run started from.
func (l Layout) Init() string { return l.InitTrio().JSON() }

// InitTrio is init/ as the folder of a weights trio: tune-nbest writes
// its starting weights there whole (tune only init/weights.json).
func (l Layout) InitTrio() Trio { return Trio{storage.Join(l.Root, "init")} }

// InitDevStats is init/dev-stats.json: the BLEU statistics of the dev set
// decoded with the starting weights (epoch 0 of the report), written by
// the first epoch's launch.
func (l Layout) InitDevStats() string { return storage.Join(l.Root, "init", "dev-stats.json") }

// ModelCheck is init/model.json: the model as a worker loaded it before
// the first epoch (package tune's ModelCheck).
func (l Layout) ModelCheck() string { return storage.Join(l.Root, "init", "model.json") }

// DemoModel is demo-model/: the demo system `mtune tune` builds when given
// no model.
func (l Layout) DemoModel() string { return storage.Join(l.Root, "demo-model") }

// Best is best/: the weights trio of the best epoch (BestEpoch) and its
// metrics.
func (l Layout) Best() BestLayout { return BestLayout{Trio{storage.Join(l.Root, "best")}} }

// Epoch is epochs/NNN of 1-based epoch n.
func (l Layout) Epoch(n int) EpochLayout {
	return EpochLayout{Trio: Trio{storage.Join(l.Root, "epochs", fmt.Sprintf("%03d", n))}, N: n}
}

// Replica is the folder of 0-based replica r's epochs in a run of
// replicas replicas (--replicas): l itself when there is one, so that a run
// of one replica keeps the layout of a run without replicas; else
// replicas/RRR, which holds the replica's epochs/NNN/… and best/ (its own
// best epoch) as a run folder does. The run's manifest.json,
// metrics.jsonl, report.html, init/ and best/ (the best replica's best
// epoch) stay in l. It panics unless 0 <= r < replicas.
func (l Layout) Replica(r, replicas int) Layout {
	if r < 0 || r >= max(1, replicas) {
		panic(fmt.Sprintf("rundir: replica %d of %d", r, replicas))
	}
	if replicas <= 1 {
		return l
	}
	return Layout{Root: storage.Join(l.Root, "replicas", fmt.Sprintf("%03d", r))}
}

// Trio names the files of the weights trio io/weights.WriteTrio writes into
// Dir.
type Trio struct {
	// Dir is the folder.
	Dir string
}

// Moses is Dir/weights: Moses "Name0= v …" lines of the dense groups.
func (t Trio) Moses() string { return storage.Join(t.Dir, weights.TrioMoses) }

// Sparse is Dir/weights.sparse: "name value" lines of the sparse weights.
func (t Trio) Sparse() string { return storage.Join(t.Dir, weights.TrioSparse) }

// JSON is Dir/weights.json: every weight, exactly.
func (t Trio) JSON() string { return storage.Join(t.Dir, weights.TrioJSON) }

// BestLayout is the best/ folder of a run: a weights trio and epoch.json.
type BestLayout struct {
	Trio
}

// Epoch is best/epoch.json: the Metrics of the best epoch.
func (b BestLayout) Epoch() string { return storage.Join(b.Dir, "epoch.json") }

// EpochLayout is the folder epochs/NNN of one epoch:
//
//	weights, weights.sparse, weights.json   the epoch's weights (Trio), written once
//	state/shard-NNN.json                     a shard's learner state and its feature names (ipm, stale)
//	state/shard-NNN.summary.json             its counts and BLEU statistics, what the driver reads
//	state/learner.bin                        the batch learner's state (batch)
//	pool/part-PPPPP.nbest.gz, .scores.gz     batch mode's pool after the epoch, by parts (PoolPart)
//	work/…                                   what the epoch's pipeline hands the driver
//	complete                                 written last: the epoch's Metrics
type EpochLayout struct {
	Trio
	// N is the 1-based epoch.
	N int
}

// State is state/: the learner states, enough to resume.
func (e EpochLayout) State() string { return storage.Join(e.Dir, "state") }

// ShardState is state/shard-NNN.json: 0-based shard k's learner state.
func (e EpochLayout) ShardState(k int) string { return storage.Join(e.State(), ShardStateName(k)) }

// LearnerState is state/learner.bin: batch mode's learner state.
func (e EpochLayout) LearnerState() string { return storage.Join(e.State(), "learner.bin") }

// PoolPart is pool/part-PPPPP.nbest.gz and pool/part-PPPPP.scores.gz:
// part p of batch mode's pool after the epoch (a Moses n-best file and
// the statistics of its hypotheses; see PoolPart).
func (e EpochLayout) PoolPart(p int) PoolPart {
	base := storage.Join(e.Dir, "pool", fmt.Sprintf("part-%05d", p))
	return PoolPart{NBest: base + ".nbest.gz", Scores: base + ".scores.gz"}
}

// PoolPart names the files of one part of batch mode's pool after an
// epoch (EpochLayout.PoolPart): every distinct hypothesis (target and
// features, as Moses' extractor and tune-nbest de-duplicate) decoded for
// its sentences so far, as two files Moses' tools read: a Moses n-best
// list and, in the same order, the BLEU statistics of each hypothesis as a
// SCORESTAT file (what mert's extractor writes next to its features file).
type PoolPart struct {
	NBest, Scores string
}

// PoolSummary is work/pool.json: the sizes and feature names of the
// epoch's pool (package tune's PoolSummary).
func (e EpochLayout) PoolSummary() string { return storage.Join(e.Work(), "pool.json") }

// MERTRound is work/mert-round-KKK.json: the result of round k of batch
// MERT's passes (a mert.PassResult).
func (e EpochLayout) MERTRound(k int) string {
	return storage.Join(e.Work(), fmt.Sprintf("mert-round-%03d.json", k))
}

// BatchResult is work/batch.json: what batch mode's optimizer step hands
// the driver besides the weights (package tune's BatchResult).
func (e EpochLayout) BatchResult() string { return storage.Join(e.Work(), "batch.json") }

// Complete is the marker written last, holding the epoch's Metrics: an
// epoch without it is redone by --resume.
func (e EpochLayout) Complete() string { return storage.Join(e.Dir, "complete") }

// Work is work/: the files the epoch's pipeline writes for the driver.
func (e EpochLayout) Work() string { return storage.Join(e.Dir, "work") }

// Lists is work/lists/: the epoch's n-best lists while line-search mixing
// waits for the shards' average (tune.ListFile), removed once the epoch's
// launch has ended.
func (e EpochLayout) Lists() string { return storage.Join(e.Work(), "lists") }

// TuneStats is work/tune-stats.json: BLEU statistics of the tuning set
// decoded with the mixed weights.
func (e EpochLayout) TuneStats() string { return storage.Join(e.Work(), "tune-stats.json") }

// DevStats is work/dev-stats.json: the same on the dev set.
func (e EpochLayout) DevStats() string { return storage.Join(e.Work(), "dev-stats.json") }

// MixReport is work/mix.json: how the shards were mixed (the mixer's
// tune.MixReport: for line search, its α).
func (e EpochLayout) MixReport() string { return storage.Join(e.Work(), "mix.json") }

// DecodedStats is batch mode's work/decoded-stats.json: the summed BLEU
// statistics of the epoch's decoded 1-best (progressive BLEU).
func (e EpochLayout) DecodedStats() string { return storage.Join(e.Work(), "decoded-stats.json") }

// StaleReport is work/stale-NNNNN.json: shard k's staleness report (stale
// mode).
func (e EpochLayout) StaleReport(k int) string { return storage.Join(e.Work(), StaleReportName(k)) }

// ShardStateName is the name of shard k's result file in a state folder.
func ShardStateName(k int) string { return fmt.Sprintf("shard-%03d.json", k) }

// StaleReportName is the name of shard k's staleness report in a work
// folder.
func StaleReportName(k int) string { return fmt.Sprintf("stale-%05d.json", k) }
