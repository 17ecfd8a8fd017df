package tune

import (
	"cmp"
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
	"time"
)

// Metrics is one line of metrics.jsonl: the outcome of one epoch.
type Metrics struct {
	// Epoch is 1-based.
	Epoch int `json:"epoch"`
	// Replica is the 0-based replica of a run of several (--replicas;
	// ReplicaSeed): absent for replica 0, and so on every line of a run of
	// one.
	Replica int `json:"replica,omitempty"`
	// TuneBLEU is the BLEU (0–100) of the tuning set. In ipm and stale
	// mode it is ProgressiveBLEU, the 1-bests as the epoch's learning
	// decoded them (TuneDecoded is then true), unless --eval-tune decoded
	// the tuning set once more with the epoch's merged weights (1-best)
	// for it; in batch mode it is the BLEU of the pool's 1-bests under the
	// new weights. DevBLEU is the BLEU of the dev set decoded with the
	// epoch's weights (absent without one).
	TuneBLEU float64  `json:"tune_bleu"`
	DevBLEU  *float64 `json:"dev_bleu,omitempty"`
	// TuneDecoded reports that TuneBLEU is ProgressiveBLEU, not a
	// decoding of its own (ipm and stale mode without --eval-tune).
	TuneDecoded bool `json:"tune_decoded,omitempty"`
	// ProgressiveBLEU is the BLEU of the 1-best hypotheses as decoded
	// during the epoch, with the weights current then (batch mode: the
	// previous epoch's weights).
	ProgressiveBLEU float64 `json:"progressive_bleu"`
	// Alpha is the line search's α (mix linesearch only).
	Alpha *float64 `json:"alpha,omitempty"`
	// NonZero counts the non-zero merged weights.
	NonZero int `json:"nonzero"`
	// Updates sums the shards' learner updates of the epoch.
	Updates int `json:"updates"`
	// Pool is batch mode's pool size: distinct hypotheses of every epoch
	// so far.
	Pool int `json:"pool,omitempty"`
	// MERTRounds is the number of launches batch MERT's passes took (one
	// a round, besides the epoch's decoding launch).
	MERTRounds int     `json:"mert_rounds,omitempty"`
	Sentences  int     `json:"sentences"`
	Seconds    float64 `json:"seconds"`
	// Staleness is stale mode's staleness distribution over every
	// shard's updates (absent in other modes).
	Staleness *Staleness `json:"staleness,omitempty"`
	// Counters and Distributions are the Beam metrics the epoch's
	// pipeline reported (namespace "mtune", summed over steps and
	// workers; package transforms names them), absent when the runner
	// reported none. With several replicas, which share the launch, they
	// are on replica 0's line only, summed over every replica.
	Counters      map[string]int64        `json:"counters,omitempty"`
	Distributions map[string]Distribution `json:"distributions,omitempty"`
}

// Distribution is a Beam distribution metric: the count, sum, least and
// greatest of the values reported.
type Distribution struct {
	Count int64 `json:"count"`
	Sum   int64 `json:"sum"`
	Min   int64 `json:"min"`
	Max   int64 `json:"max"`
}

// Merge returns d and e as one distribution.
func (d Distribution) Merge(e Distribution) Distribution {
	switch {
	case e.Count == 0:
		return d
	case d.Count == 0:
		return e
	}
	return Distribution{Count: d.Count + e.Count, Sum: d.Sum + e.Sum, Min: min(d.Min, e.Min), Max: max(d.Max, e.Max)}
}

// Staleness is the staleness distribution of an epoch's updates in stale
// mode: the staleness of an update is the number of updates applied
// between reading the weights its gradient was computed at and applying it.
type Staleness struct {
	// Histogram maps a staleness ("0", "1", …) to its count of updates.
	Histogram  map[string]int `json:"histogram"`
	Max        int            `json:"max"`
	Mean       float64        `json:"mean"`
	Recomputes int            `json:"recomputes"`
}

// Manifest is manifest.json.
type Manifest struct {
	CommandLine []string      `json:"command_line"`
	Version     string        `json:"version"`
	Inputs      []InputFile   `json:"inputs"`
	Seed        uint64        `json:"seed"`
	Init        string        `json:"init,omitempty"`
	Options     ManifestFlags `json:"options"`
	Start       time.Time     `json:"start"`
	End         *time.Time    `json:"end,omitempty"`
	// Status is "running", "done" or "failed".
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// ReplicaSeeds are the seeds of the replicas of a run of several
	// (--replicas; ReplicaSeed, the first is Seed), absent for a run of
	// one.
	ReplicaSeeds []uint64 `json:"replica_seeds,omitempty"`
}

// ManifestFlags records the options that shape the result; --resume
// refuses to continue a run whose flags (other than Epochs) differ.
type ManifestFlags struct {
	Mode, Mix, Algo string
	// MixWeights is "uniform" when the shards' average weighs them alike
	// ("" is by updates, the default).
	MixWeights string `json:",omitempty"`
	// Search is the search algorithm set by --search-algorithm ("" is the
	// moses.ini's).
	Search string `json:",omitempty"`
	// Decoder is the external decoder's command line (--decoder; "" is
	// the in-process decoder).
	Decoder               string `json:",omitempty"`
	Shards, Epochs, NBest int
	MiniBatch             int
	// Replicas is the number of independent runs (--replicas) when more
	// than one (0 is one).
	Replicas int `json:",omitempty"`
	// Sparse lists the sparse templates, comma-separated ("" = none).
	Sparse string `json:",omitempty"`
	// KeepScale is batch mode's (false elsewhere).
	KeepScale bool `json:",omitempty"`
	// EvalTune (ipm and stale mode) decodes the tuning set once more
	// each epoch for its tune BLEU, which chooses the best epoch
	// without a dev set.
	EvalTune bool `json:",omitempty"`
	// Threads and MaxStaleness are stale mode's (0 elsewhere).
	Threads      int `json:",omitempty"`
	MaxStaleness int `json:",omitempty"`
	// The learner's settings; nil L1/L2 mean the learner's default.
	Loss  string   `json:",omitempty"`
	L1    *float64 `json:",omitempty"`
	L2    *float64 `json:",omitempty"`
	Noise float64  `json:",omitempty"`
	// NoiseType is "gaussian" for Gaussian noising ("" is dropout, the
	// default); NoiseUnlabeled the unlabelled pairs a list of its
	// regulariser.
	NoiseType      string `json:",omitempty"`
	NoiseUnlabeled int    `json:",omitempty"`
	// The batch learners' search: MERT's restarts, random directions and
	// restart range, kb-MIRA's C and decay (zero: the defaults).
	Restarts, RandomDirections int         `json:",omitempty"`
	RestartRange               *[2]float64 `json:",omitempty"`
	MIRAC, MIRADecay           float64     `json:",omitempty"`
	Rate                       float64     `json:",omitempty"`
}

// Setting is one option of a run as its manifest records it: the flag's
// name and its value, defaults spelt out ("the moses.ini's", "none").
type Setting struct {
	Flag, Value string
}

// Settings lists every option of the run f records but Epochs, in the
// order of mtune help tune's groups of flags: what --resume compares
// (Diff) and the report shows.
func (f ManifestFlags) Settings() []Setting {
	show := func(p *float64) string {
		if p == nil {
			return "the default"
		}
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	quote := func(s string) string {
		if s == "" {
			return "none"
		}
		return s
	}
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return []Setting{
		{"mode", f.Mode}, {"mix", f.Mix}, {"algo", f.Algo},
		{"mix-weights", cmp.Or(f.MixWeights, "updates")},
		{"search-algorithm", cmp.Or(f.Search, "the moses.ini's")},
		{"decoder", cmp.Or(f.Decoder, "in process")},
		{"shards", strconv.Itoa(f.Shards)}, {"replicas", strconv.Itoa(max(1, f.Replicas))}, {"nbest", strconv.Itoa(f.NBest)},
		{"minibatch", strconv.Itoa(f.MiniBatch)}, {"sparse", quote(f.Sparse)},
		{"keep-scale", strconv.FormatBool(f.KeepScale)},
		{"eval-tune", strconv.FormatBool(f.EvalTune)},
		{"threads", strconv.Itoa(f.Threads)}, {"max-staleness", strconv.Itoa(f.MaxStaleness)},
		{"loss", quote(f.Loss)}, {"l1", show(f.L1)}, {"l2", show(f.L2)},
		{"noise", num(f.Noise)},
		{"noise-type", cmp.Or(f.NoiseType, "dropout")},
		{"noise-unlabeled", strconv.Itoa(f.NoiseUnlabeled)},
		{"restarts", strconv.Itoa(f.Restarts)},
		{"random-directions", strconv.Itoa(f.RandomDirections)},
		{"restart-range", showRange(f.RestartRange)},
		{"mira-c", num(f.MIRAC)},
		{"mira-decay", num(f.MIRADecay)},
		{"rate", num(f.Rate)},
	}
}

// Diff lists the options that differ between the run's f and g (Epochs
// aside), each as "--flag: VALUE in the run, VALUE now".
func (f ManifestFlags) Diff(g ManifestFlags) []string {
	a, b := f.Settings(), g.Settings()
	var out []string
	for i := range a {
		if a[i].Value != b[i].Value {
			out = append(out, fmt.Sprintf("--%s: %s in the run, %s now", a[i].Flag, a[i].Value, b[i].Value))
		}
	}
	return out
}

// Version is mtune's version as a manifest records it: the module's
// version and, where the binary was built from a checkout, its commit.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		v := bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				v += " " + s.Value
			}
		}
		return v
	}
	return "unknown"
}

// InputFile is an input path and the sha256 of its content.
type InputFile struct {
	Role   string `json:"role"`
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Score is the figure by which epoch m is ranked: its dev BLEU, or its
// tune BLEU without a dev set (in ipm and stale mode the progressive BLEU
// unless --eval-tune decoded the tuning set again).
func (m Metrics) Score() float64 {
	if m.DevBLEU != nil {
		return *m.DevBLEU
	}
	return m.TuneBLEU
}

// BestEpoch returns the 1-based epoch of ms with the best Score, the
// earlier on ties; 0 for none. best/ holds its weights.
func BestEpoch(ms []Metrics) int {
	var b Best
	for _, m := range ms {
		b.Add(m.Epoch, m.Score())
	}
	return b.Epoch
}

// Best keeps the best of a run of epochs by score: the rule both
// `mtune tune` (BestEpoch) and `mtune tune-nbest` choose their weights by.
// A later epoch replaces the best only with a strictly higher score, so
// the earlier wins ties; a NaN score never wins. The zero Best holds none.
type Best struct {
	// Epoch and Score are those of the best epoch so far (Epoch 0 and
	// Score 0 while there is none, unless epoch 0 was added).
	Epoch int
	Score float64
	ok    bool
}

// Add offers epoch with score and reports whether it is the new best.
func (b *Best) Add(epoch int, score float64) bool {
	cur := math.Inf(-1)
	if b.ok {
		cur = b.Score
	}
	if !(score > cur) {
		return false
	}
	b.Epoch, b.Score, b.ok = epoch, score, true
	return true
}

// showRange formats a restart range for Diff.
func showRange(r *[2]float64) string {
	if r == nil {
		return "the default"
	}
	return strconv.FormatFloat(r[0], 'g', -1, 64) + "," + strconv.FormatFloat(r[1], 'g', -1, 64)
}
