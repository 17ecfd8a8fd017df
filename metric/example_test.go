package metric_test

import (
	"fmt"

	"github.com/mtune/mtune/metric"
)

// Statistics of one hypothesis against one reference, and its scores. By
// hand: 5 of 6 unigrams match ("the" is clipped to once), 3 of 5 bigrams,
// 2 of 4 trigrams and 1 of 3 4-grams; BLEU = (5/6·3/5·2/4·1/3)^¼.
func Example() {
	ref, err := metric.NewReferenceText(4, "the cat sat on a mat")
	if err != nil {
		panic(err)
	}
	s := ref.StatsString("the cat sat on the mat")
	fmt.Println(s)
	fmt.Println(metric.MultiBLEU(s))
	fmt.Printf("BLEU+1: Lin & Och %.4f, Moses %.4f\n",
		metric.BLEUPlusOne(s, metric.LinOch), metric.BLEUPlusOne(s, metric.MosesPlusOne))
	// Output:
	// 5 6 3 5 2 4 1 3 6
	// BLEU = 53.73, 83.3/60.0/50.0/33.3 (BP=1.000, ratio=1.000, hyp_len=6, ref_len=6)
	// BLEU+1: Lin & Och 0.6389, Moses 0.6435
}

// Scoring detokenised text as sacreBLEU does: 13a tokenisation and
// exponential smoothing with effective order for a sentence. By hand: the
// precisions are 3/4 and 1/3, the trigrams and 4-grams get 1/(2·2) and
// 1/(4·1), and the brevity penalty is exp(1 - 5/4).
func ExampleSmoothing() {
	tok, err := metric.NewTokenizer("13a", false)
	if err != nil {
		panic(err)
	}
	fmt.Println(tok("It wasn't surprising, was it?"))
	ref, err := metric.NewReferenceText(4, tok("It was not surprising."))
	if err != nil {
		panic(err)
	}
	s := ref.StatsString(tok("It wasn't surprising."))
	sm := metric.Smoothing{Method: metric.SmoothExp, EffectiveOrder: true}
	fmt.Printf("%v → %.4f\n", s, sm.BLEU(s))
	// Output:
	// It wasn't surprising , was it ?
	// 3 4 1 3 0 2 0 1 5 → 0.2753
}
