package metric

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mtune/mtune/internal/fastnum"
	"github.com/mtune/mtune/internal/spec"
)

// Options are the settings --metric's metrics take from a command's
// other scoring flags (score's --order, --tokenize, --lowercase; the
// n-best commands' --scores-label): defaults of the options of the same
// key that a metric declares (Registry), which a spec may repeat but not
// contradict ("bleu:tokenize=none" with --tokenize 13a is refused).
type Options struct {
	// Order is BLEU's n-gram order (0: DefaultOrder).
	Order int
	// Tokenize names BLEU's tokenizer (NewTokenizer; "" is "none").
	Tokenize string
	// Lowercase lower-cases BLEU's and chrF's text.
	Lowercase bool
	// ExternalLabel names external scores ("COMET"); "" is "external".
	ExternalLabel string
}

// settings are o's fields as the registry's keys, those left at zero out.
func (o Options) settings() []spec.Setting {
	var out []spec.Setting
	if o.Order != 0 {
		out = append(out, spec.Setting{Key: "order", Value: strconv.Itoa(o.Order)})
	}
	if o.Tokenize != "" {
		out = append(out, spec.Setting{Key: "tokenize", Value: o.Tokenize})
	}
	if o.Lowercase {
		out = append(out, spec.Setting{Key: "lowercase", Value: "true"})
	}
	if o.ExternalLabel != "" {
		out = append(out, spec.Setting{Key: "label", Value: o.ExternalLabel})
	}
	return out
}

// Registry holds the metrics Parse knows, each with its options: the one
// declaration the flags' help, Parse and the docs' table of options
// (docs/commands.md, checked by a test) come from.
var Registry = &spec.Registry[Metric]{Kind: "metric"}

type bleuOptions struct {
	Order     int    `spec:"order" help:"maximum n-gram order, 1 to 6"`
	Tokenize  string `spec:"tokenize" help:"tokenizer of hypotheses and references: none (split on spaces, as multi-bleu.perl), 13a (sacreBLEU's and mteval-v13a's), char"`
	Lowercase bool   `spec:"lowercase" help:"lower-case first (multi-bleu.perl -lc, sacreBLEU -lc)"`
}

type chrfOptions struct {
	Lowercase  bool `spec:"lowercase" help:"lower-case first (sacreBLEU -lc)"`
	Whitespace bool `spec:"whitespace" help:"keep white space in character n-grams (sacreBLEU --chrf-whitespace)"`
	Eps        bool `spec:"eps" help:"ε-smoothing of chrF++.py, Moses and NLTK (sacreBLEU --chrf-eps-smoothing)"`
	Beta       int  `spec:"beta" help:"recall weighs β times as much as precision (sacreBLEU --chrf-beta)"`
	CharOrder  int  `spec:"char-order" help:"highest character n-gram order (sacreBLEU --chrf-char-order)"`
	WordOrder  int  `spec:"word-order" help:"highest word n-gram order (sacreBLEU --chrf-word-order)"`
}

type terSpecOptions struct {
	Case       bool `spec:"case" help:"case-sensitive (sacreBLEU --ter-case-sensitive); false lower-cases"`
	Normalized bool `spec:"normalized" help:"tokenise punctuation as tercom -N (sacreBLEU --ter-normalized)"`
	NoPunct    bool `spec:"no-punct" help:"delete punctuation (sacreBLEU --ter-no-punct)"`
	Asian      bool `spec:"asian" help:"extend normalized and no-punct to Asian scripts (sacreBLEU --ter-asian-support)"`
}

type externalOptions struct {
	Label string `spec:"label" help:"the name external scores print under (COMET); none: external"`
}

func newChrF(o chrfOptions) (Metric, error) {
	c := ChrF{CharOrder: o.CharOrder, WordOrder: o.WordOrder, Beta: o.Beta, Lowercase: o.Lowercase, Whitespace: o.Whitespace, EpsSmoothing: o.Eps}
	if c.Beta < 0 {
		return nil, fmt.Errorf("metric: chrF's β %d is negative", c.Beta)
	}
	return c, c.check()
}

func init() {
	spec.Register(Registry, "bleu", "corpus BLEU", bleuOptions{Order: DefaultOrder, Tokenize: "none"}, func(o bleuOptions) (Metric, error) {
		return NewBLEU(o.Order, o.Tokenize, o.Lowercase)
	})
	chrf, chrfpp := NewChrF(false), NewChrF(true)
	spec.Register(Registry, "chrf", "chrF2 as sacreBLEU", chrfOptions{Beta: chrf.Beta, CharOrder: chrf.CharOrder, WordOrder: chrf.WordOrder}, newChrF)
	spec.Register(Registry, "chrf++", "chrF2++ as sacreBLEU", chrfOptions{Beta: chrfpp.Beta, CharOrder: chrfpp.CharOrder, WordOrder: chrfpp.WordOrder}, newChrF)
	spec.Register(Registry, "ter", "TER as sacreBLEU and tercom", terSpecOptions{}, func(o terSpecOptions) (Metric, error) {
		return TER{CaseSensitive: o.Case, Normalized: o.Normalized, NoPunct: o.NoPunct, AsianSupport: o.Asian}, nil
	})
	spec.Register(Registry, "external", "scores computed elsewhere, read from score files", externalOptions{}, func(o externalOptions) (Metric, error) {
		return External{Label: o.Label}, nil
	})
}

// MetricNames lists the names Parse knows, sorted.
func MetricNames() []string { return Registry.Names() }

// Parse returns the metric spec names, the value of --metric: one metric,
// its name and options ("bleu", "ter:case=true", "bleu:tokenize=13a";
// Registry), or a weighted sum of them, "NAME[:KEY=VALUE…]:WEIGHT,…"
// ("bleu:0.5,ter:0.5": Weighted), with o's settings as the defaults of
// the options of their keys. Names and keys are case-insensitive.
func Parse(spec string, o Options) (Metric, error) {
	m, _, err := parse(spec, o)
	return m, err
}

// Canonical returns the canonical form of spec under o (Parse): each part
// as its name and the options not at their default, with its weight in a
// weighted sum: what a run's wire and records carry, so that two specs of
// one metric ("TER:case=false", "ter") are one string.
func Canonical(spec string, o Options) (string, error) {
	_, c, err := parse(spec, o)
	return c, err
}

// ParseSpec is Parse and Canonical in one parse: the metric spec names
// under o and its canonical form.
func ParseSpec(spec string, o Options) (Metric, string, error) { return parse(spec, o) }

func parse(s string, o Options) (Metric, string, error) {
	parts := strings.Split(s, ",")
	var ms []Metric
	var ws []float64
	var canon []string
	weighted := len(parts) > 1
	for _, p := range parts {
		// A part's segments are its name, key=value options and at most
		// one weight, a segment without "=".
		segs := strings.Split(strings.TrimSpace(p), ":")
		x, hasW := 1.0, false
		keep := segs[:1]
		for _, seg := range segs[1:] {
			if strings.Contains(seg, "=") {
				keep = append(keep, seg)
				continue
			}
			if hasW {
				return nil, "", fmt.Errorf("metric %q: %s has two weights", s, segs[0])
			}
			var err error
			if x, err = parseWeight(strings.TrimSpace(seg)); err != nil {
				return nil, "", fmt.Errorf("metric %q: weight %q of %s: %w", s, seg, strings.TrimSpace(segs[0]), err)
			}
			hasW, weighted = true, true
		}
		m, c, err := Registry.Parse(strings.Join(keep, ":"), o.settings()...)
		if err != nil {
			if !weighted && !slices.Contains(MetricNames(), strings.ToLower(strings.TrimSpace(segs[0]))) {
				return nil, "", fmt.Errorf("%w, or NAME:WEIGHT,… for a weighted sum", err)
			}
			return nil, "", err
		}
		ms, ws, canon = append(ms, m), append(ws, x), append(canon, c.String()+":"+strconv.FormatFloat(x, 'g', -1, 64))
		if !weighted {
			canon[len(canon)-1] = c.String()
		}
	}
	if !weighted {
		return ms[0], canon[0], nil
	}
	w, err := NewWeighted(ms, ws)
	if err != nil {
		return nil, "", err
	}
	return w, strings.Join(canon, ","), nil
}

// parseWeight parses a weight of a weighted sum: a positive decimal
// number, digits with at most one point and an optional exponent
// ("0.5", "2", "1e-1"); a sign, underscores ("1_0"), hexadecimal, "inf"
// and "nan", which strconv.ParseFloat takes, are refused.
func parseWeight(w string) (float64, error) {
	errBad := errors.New("want a positive number, in decimal such as 0.5")
	if w == "" || w[0] == '+' || w[0] == '-' {
		return 0, errBad
	}
	x, ok := fastnum.ParseFloat64([]byte(w))
	if !ok || !(x > 0) {
		return 0, errBad
	}
	return x, nil
}
