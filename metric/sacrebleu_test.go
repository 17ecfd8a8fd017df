package metric

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
)

// sacreVectors is data/bleu/sacrebleu-unit-vectors.json: sacreBLEU's own unit
// tests, transcribed.
type sacreVectors struct {
	CorpusBLEU []struct {
		Hyps     []string          `json:"hyps"`
		Refs     [][]string        `json:"refs"`
		Kwargs   map[string]string `json:"kwargs"`
		Expected float64           `json:"expected"`
	} `json:"corpus_bleu"`
	MaxOrder []struct {
		Order    int    `json:"max_ngram_order"`
		Expected string `json:"expected_str"`
	} `json:"corpus_bleu_max_ngram_order"`
	MaxOrderInputs struct {
		Hyps []string   `json:"hyps"`
		Refs [][]string `json:"refs"`
	} `json:"corpus_bleu_max_ngram_order_inputs"`
	Raw []struct {
		Sys         []string   `json:"sys"`
		Refs        [][]string `json:"refs"`
		SmoothValue *float64   `json:"smooth_value"`
		Expected    float64    `json:"expected"`
	} `json:"raw_corpus_bleu_fraction"`
	Statistics []struct {
		Sys      []string   `json:"sys"`
		Refs     [][]string `json:"refs"`
		Tokenize string     `json:"tokenize"`
		Counts   []float64  `json:"expected_counts"`
		Totals   []float64  `json:"expected_totals"`
	} `json:"statistics"`
	FromStats []struct {
		Correct     []float64 `json:"correct"`
		Total       []float64 `json:"total"`
		SysLen      float64   `json:"sys_len"`
		RefLen      float64   `json:"ref_len"`
		Method      string    `json:"smooth_method"`
		SmoothValue *float64  `json:"smooth_value"`
		Expected    float64   `json:"expected"`
	} `json:"compute_bleu_from_stats_fraction"`
	Sentence struct {
		Hyp   string `json:"hyp"`
		Ref   string `json:"ref"`
		Cases []struct {
			Method      string   `json:"smooth_method"`
			SmoothValue *float64 `json:"smooth_value"`
			Lowercase   bool     `json:"lowercase"`
			Tokenize    string   `json:"tokenize"`
			Expected    float64  `json:"expected"`
		} `json:"cases"`
	} `json:"sentence_bleu"`
	SentenceZero struct {
		Hyp      string  `json:"hyp"`
		Ref      string  `json:"ref"`
		Tokenize string  `json:"tokenize"`
		Expected float64 `json:"expected_all"`
		Methods  [][]any `json:"smooth_methods"`
	} `json:"sentence_bleu_zero"`
}

func loadSacreVectors(t *testing.T) sacreVectors {
	t.Helper()
	raw, err := os.ReadFile(shared.Path(t, "bleu", "sacrebleu-unit-vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v sacreVectors
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// smoothing maps sacreBLEU's (smooth_method, smooth_value) to a Smoothing:
// None is the method's default, which is Value 0; an explicit 0 for floor or
// add-k smooths nothing, which is SmoothNone.
func smoothing(t *testing.T, method string, value *float64, effective bool) Smoothing {
	t.Helper()
	m, err := ParseSmoothMethod(method)
	if err != nil {
		t.Fatal(err)
	}
	sm := Smoothing{Method: m, EffectiveOrder: effective}
	if value != nil {
		if *value == 0 {
			sm.Method = SmoothNone
		}
		sm.Value = *value
	}
	return sm
}

// sacreStats sums the statistics of hyps against reference streams refs
// (refs[k][i] is the k-th reference of segment i), as sacreBLEU does.
func sacreStats(t *testing.T, order int, tok Tokenizer, hyps []string, refs [][]string) Stats {
	t.Helper()
	var sum Stats
	for i, h := range hyps {
		var segRefs []string
		for _, stream := range refs {
			segRefs = append(segRefs, tok(stream[i]))
		}
		ref, err := NewReferenceText(order, segRefs...)
		if err != nil {
			t.Fatal(err)
		}
		sum.Add(ref.StatsString(tok(h)))
	}
	return sum
}

func tokenizer(t *testing.T, name string, lowercase bool) Tokenizer {
	t.Helper()
	tok, err := NewTokenizer(name, lowercase)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestSacreBLEU runs every case of sacreBLEU's unit tests except those of its
// "intl" tokenizer, with the tolerances sacreBLEU's tests use.
func TestSacreBLEU(t *testing.T) {
	v := loadSacreVectors(t)
	const corpusEps, sentenceEps = 1e-8, 1e-3
	cases := 0

	for i, c := range v.CorpusBLEU {
		tokName, method := "13a", "exp" // corpus_bleu's defaults
		if k, ok := c.Kwargs["tokenize"]; ok {
			tokName = k
		}
		if k, ok := c.Kwargs["smooth_method"]; ok {
			method = k
		}
		name := fmt.Sprintf("corpus_%d_%s_%s", i, tokName, method)
		if tokName == "intl" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			s := sacreStats(t, 4, tokenizer(t, tokName, false), c.Hyps, c.Refs)
			got := 100 * smoothing(t, method, nil, false).BLEU(s)
			if math.Abs(got-c.Expected) > corpusEps {
				t.Errorf("BLEU %.10f, want %.10f (stats %v)", got, c.Expected, s)
			}
		})
		cases++
	}

	for _, c := range v.MaxOrder {
		t.Run(fmt.Sprintf("max_order_%d", c.Order), func(t *testing.T) {
			in := v.MaxOrderInputs
			s := sacreStats(t, c.Order, Tokenize13a, in.Hyps, in.Refs)
			got := fmt.Sprintf("%.2f", 100*Smoothing{Method: SmoothExp}.BLEU(s))
			if got != c.Expected {
				t.Errorf("BLEU %s, want %s (stats %v)", got, c.Expected, s)
			}
		})
		cases++
	}

	// raw_corpus_bleu: tokenize none, floor smoothing, effective order.
	for i, c := range v.Raw {
		t.Run(fmt.Sprintf("raw_%d", i), func(t *testing.T) {
			s := sacreStats(t, 4, tokenizer(t, "none", false), c.Sys, c.Refs)
			got := smoothing(t, "floor", c.SmoothValue, true).BLEU(s)
			if math.Abs(got-c.Expected) > corpusEps {
				t.Errorf("BLEU %.12f, want %.12f (stats %v)", got, c.Expected, s)
			}
		})
		cases++
	}

	for i, c := range v.Statistics {
		t.Run(fmt.Sprintf("statistics_%d", i), func(t *testing.T) {
			s := sacreStats(t, 4, tokenizer(t, c.Tokenize, false), c.Sys, c.Refs)
			sc := BLEUStats(s).Score()
			if fmt.Sprint(sc.Matches) != fmt.Sprint(c.Counts) || fmt.Sprint(sc.Totals) != fmt.Sprint(c.Totals) {
				t.Errorf("matches %v totals %v, want %v %v", sc.Matches, sc.Totals, c.Counts, c.Totals)
			}
		})
		cases++
	}

	for i, c := range v.FromStats {
		t.Run(fmt.Sprintf("from_stats_%d", i), func(t *testing.T) {
			got := smoothing(t, c.Method, c.SmoothValue, false).Compute(c.Correct, c.Total, c.SysLen, c.RefLen)
			if math.Abs(got-c.Expected) > corpusEps || (c.Expected == 0 && got != 0) {
				t.Errorf("BLEU %.12f, want %.12f", got, c.Expected)
			}
		})
		cases++
	}

	sent := v.Sentence
	for i, c := range sent.Cases {
		if c.Tokenize == "intl" {
			continue
		}
		t.Run(fmt.Sprintf("sentence_%d_%s_%s_lc=%v", i, c.Method, c.Tokenize, c.Lowercase), func(t *testing.T) {
			tok := tokenizer(t, c.Tokenize, c.Lowercase)
			s := sacreStats(t, 4, tok, []string{sent.Hyp}, [][]string{{sent.Ref}})
			got := 100 * smoothing(t, c.Method, c.SmoothValue, true).BLEU(s)
			if math.Abs(got-c.Expected) > sentenceEps {
				t.Errorf("BLEU %.5f, want %.5f (stats %v)", got, c.Expected, s)
			}
		})
		cases++
	}

	z := v.SentenceZero
	for i, m := range z.Methods {
		t.Run(fmt.Sprintf("sentence_zero_%d_%v", i, m), func(t *testing.T) {
			var value *float64
			if x, ok := m[1].(float64); ok {
				value = &x
			}
			s := sacreStats(t, 4, tokenizer(t, z.Tokenize, false), []string{z.Hyp}, [][]string{{z.Ref}})
			if got := 100 * smoothing(t, m[0].(string), value, true).BLEU(s); math.Abs(got-z.Expected) > sentenceEps {
				t.Errorf("BLEU %.5f, want %.5f", got, z.Expected)
			}
		})
		cases++
	}
	if cases != 44 {
		t.Errorf("ran %d cases, want 44 (every non-intl vector)", cases)
	}
}
