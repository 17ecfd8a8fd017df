package metric

import (
	"fmt"
	"strconv"
	"strings"
)

// BLEU is corpus BLEU (Papineni et al. 2002) as a Metric: statistics in
// Moses' layout (Stats: matches and n-grams of each order, then the
// reference length, 2·Order+1 numbers), the unsmoothed corpus score of
// multi-bleu.perl and Moses' mert (BLEUStats.BLEU), and Lin & Och's BLEU+1 at
// the sentence level (BLEUPlusOne). Build one with NewBLEU.
type BLEU struct {
	order     int
	tokenize  string
	lowercase bool
	tok       Tokenizer // nil: split on white space only
}

// NewBLEU returns BLEU of the given order (0 means DefaultOrder) over
// text tokenised by the tokenizer named tokenize (NewTokenizer: "none",
// "13a", "char"), lower-cased first with lowercase.
func NewBLEU(order int, tokenize string, lowercase bool) (BLEU, error) {
	if order == 0 {
		order = DefaultOrder
	}
	if order < 1 || order > MaxOrder {
		return BLEU{}, fmt.Errorf("metric: BLEU order %d is not in 1..%d", order, MaxOrder)
	}
	b := BLEU{order: order, tokenize: tokenize, lowercase: lowercase}
	if b.tokenize == "" {
		b.tokenize = "none"
	}
	if b.tokenize != "none" || lowercase {
		tok, err := NewTokenizer(b.tokenize, lowercase)
		if err != nil {
			return BLEU{}, err
		}
		b.tok = tok
	}
	return b, nil
}

// DefaultBLEU is BLEU-4 of text split on white space, as
// multi-bleu.perl and Moses' mert score it: mtune's default metric.
func DefaultBLEU() BLEU { return BLEU{order: DefaultOrder, tokenize: "none"} }

// Order is the n-gram order.
func (b BLEU) Order() int { return b.order }

// Tokenizer is the tokenizer applied to hypotheses and references, nil
// when the text is only split on white space.
func (b BLEU) Tokenizer() Tokenizer { return b.tok }

// Name is "BLEU".
func (BLEU) Name() string { return "BLEU" }

// Signature is sacreBLEU's BLEU signature for these settings: no
// smoothing (the corpus score of multi-bleu.perl and Moses), tok "none"
// for white-space splitting.
func (b BLEU) Signature(nrefs int) string {
	kase := "mixed"
	if b.lowercase {
		kase = "lc"
	}
	s := fmt.Sprintf("nrefs:%s|case:%s|eff:no|tok:%s|smooth:none|version:%s", nrefsField(nrefs), kase, b.tokenize, SacreBLEUVersion)
	if b.order != DefaultOrder {
		s = strings.Replace(s, "|eff:no", fmt.Sprintf("|order:%d|eff:no", b.order), 1)
	}
	return s
}

// Len is 2·Order+1.
func (b BLEU) Len() int { return 2*b.order + 1 }

// HigherIsBetter is true.
func (BLEU) HigherIsBetter() bool { return true }

// Segment prepares refs (NewReferenceText, after the tokenizer).
func (b BLEU) Segment(refs []string) (Segment, error) {
	if b.tok != nil {
		t := make([]string, len(refs))
		for i, r := range refs {
			t[i] = b.tok(r)
		}
		refs = t
	}
	r, err := NewReferenceText(b.order, refs...)
	if err != nil {
		return nil, err
	}
	return bleuSegment{ref: r, tok: b.tok}, nil
}

type bleuSegment struct {
	ref *Reference
	tok Tokenizer
}

func (g bleuSegment) Stats(hyp string) Stats {
	if g.tok != nil {
		hyp = g.tok(hyp)
	}
	return g.ref.StatsString(hyp)
}

// Score is 100·BLEUStats.BLEU.
func (BLEU) Score(s Stats) float64 { return 100 * BLEUStats(s).BLEU() }

// SentenceScore is 100·BLEUPlusOne(s, LinOch).
func (BLEU) SentenceScore(s Stats) float64 { return 100 * BLEUPlusOne(s, LinOch) }

// Check is BLEUStats.Validate of the order.
func (b BLEU) Check(s Stats) error {
	if s.N != b.Len() {
		return fmt.Errorf("%w: %d numbers, BLEU-%d has %d", ErrStats, s.N, b.order, b.Len())
	}
	return BLEUStats(s).Validate()
}

// nrefsField is sacreBLEU's nrefs value: the count, or "var" when it
// varies (nrefs < 1).
func nrefsField(nrefs int) string {
	if nrefs < 1 {
		return "var"
	}
	return strconv.Itoa(nrefs)
}

// yesNo is sacreBLEU's spelling of a boolean in a signature.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Objective is BLEUStats.BLEU, a fraction: Moses' mert's objective.
func (BLEU) Objective(s Stats) float64 { return BLEUStats(s).BLEU() }

// SentenceObjective is BLEUPlusOne(s, LinOch), a fraction.
func (BLEU) SentenceObjective(s Stats) float64 { return BLEUPlusOne(s, LinOch) }

// LogObjective is BLEUStats.LogBLEU.
func (BLEU) LogObjective(s Stats) float64 { return BLEUStats(s).LogBLEU() }

// PlusOne is BLEUPlusOne(s, v).
func (BLEU) PlusOne(s Stats, v PlusOneVariant) float64 { return BLEUPlusOne(s, v) }

// Background is kbmira's initial pseudo-corpus of BLEU's order
// (NewBackground).
func (b BLEU) Background() *Background { return NewBackground(b.order) }

// ScoreLine is multi-bleu.perl's line (MultiBLEU).
func (BLEU) ScoreLine(s Stats) string { return MultiBLEU(s) }

// bleuReport is `mtune score --json`'s object for BLEU: BLEUScore's fields,
// as before other metrics, with the name and signature.
type bleuReport struct {
	BLEUScore
	Name      string `json:"name"`
	Signature string `json:"signature"`
}

// Report is the unsmoothed corpus BLEU of s and its parts
// (BLEUStats.Score) with the name and signature.
func (b BLEU) Report(s Stats, signature string) any {
	return bleuReport{BLEUScore: BLEUStats(s).Score(), Name: b.Name(), Signature: signature}
}

// recordUnnamed marks BLEU as the metric records leave unnamed
// (RecordName).
func (BLEU) recordUnnamed() {}

var (
	_ Metric       = BLEU{}
	_ Objectiver   = BLEU{}
	_ Smoother     = BLEU{}
	_ Backgrounder = BLEU{}
	_ ScorePrinter = BLEU{}
	_ Reporter     = BLEU{}
	_ unnamed      = BLEU{}
)
