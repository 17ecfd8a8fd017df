package metric

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mtune/mtune/internal/fastnum"
)

// Options are the settings --metric's metrics take from the other scoring
// flags: BLEU's order, tokenizer and lower-casing, chrF's lower-casing,
// TER's case sensitivity, and the label of external scores.
type Options struct {
	// Order is BLEU's n-gram order (0: DefaultOrder).
	Order int
	// Tokenize names BLEU's tokenizer (NewTokenizer; "" is "none").
	Tokenize string
	// Lowercase lower-cases BLEU's and chrF's text (TER is
	// case-insensitive unless CaseSensitive).
	Lowercase bool
	// CaseSensitive makes TER case-sensitive (sacreBLEU's --ter-case-sensitive).
	CaseSensitive bool
	// ExternalLabel names external scores ("COMET"); "" is "external".
	ExternalLabel string
}

// makers are the metrics Parse knows, by name.
var makers = map[string]func(Options) (Metric, error){
	"bleu": func(o Options) (Metric, error) { return NewBLEU(o.Order, o.Tokenize, o.Lowercase) },
	"chrf": func(o Options) (Metric, error) {
		c := NewChrF(false)
		c.Lowercase = o.Lowercase
		return c, nil
	},
	"chrf++": func(o Options) (Metric, error) {
		c := NewChrF(true)
		c.Lowercase = o.Lowercase
		return c, nil
	},
	"ter":      func(o Options) (Metric, error) { return TER{CaseSensitive: o.CaseSensitive}, nil },
	"external": func(o Options) (Metric, error) { return External{Label: o.ExternalLabel}, nil },
}

// MetricNames lists the names Parse knows, sorted.
func MetricNames() []string {
	var names []string
	for n := range makers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Parse returns the metric spec names, the value of --metric: one name
// ("bleu", "chrf", "chrf++", "ter", "external"), or a weighted sum of
// them, "NAME:WEIGHT,NAME:WEIGHT…" ("bleu:0.5,ter:0.5": Weighted), with
// the settings o. Names are case-insensitive.
func Parse(spec string, o Options) (Metric, error) {
	parts := strings.Split(spec, ",")
	var ms []Metric
	var ws []float64
	weighted := len(parts) > 1
	for _, p := range parts {
		name, w, hasW := strings.Cut(strings.TrimSpace(p), ":")
		name = strings.ToLower(strings.TrimSpace(name))
		make, ok := makers[name]
		if !ok {
			return nil, fmt.Errorf("metric %q: unknown %q: want one of %s, or NAME:WEIGHT,… for a weighted sum", spec, name, strings.Join(MetricNames(), ", "))
		}
		x := 1.0
		if hasW {
			weighted = true
			var err error
			if x, err = parseWeight(strings.TrimSpace(w)); err != nil {
				return nil, fmt.Errorf("metric %q: weight %q of %s: %w", spec, w, name, err)
			}
		}
		m, err := make(o)
		if err != nil {
			return nil, fmt.Errorf("metric %q: %w", spec, err)
		}
		ms, ws = append(ms, m), append(ws, x)
	}
	if !weighted {
		return ms[0], nil
	}
	return NewWeighted(ms, ws)
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
