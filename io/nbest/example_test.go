package nbest_test

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
)

func ExampleReader() {
	in := `0 ||| we are here .  ||| LM0= -41.3 TranslationModel0= -1.5 -2 0 WordPenalty0= -4 pp_we~nous= 1 ||| -14.6
0 ||| we are there .  ||| LM0= -43 TranslationModel0= -2 -2.5 0 WordPenalty0= -4 ||| -16.1
1 ||| thank you .  ||| LM0= -12.5 TranslationModel0= -0.5 -1 -1 WordPenalty0= -3 ||| -5.2
`
	idx := feature.NewIndex()
	r := nbest.NewReader(strings.NewReader(in), "example", idx)
	for {
		id, hyps, err := r.ReadSentence()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		best := hyps[0]
		fmt.Printf("sentence %d: %d hypotheses, best %q (%g):", id, len(hyps), best.Target, best.Score)
		for k, fid := range best.Features.IDs {
			fmt.Printf(" %s=%g", idx.Name(fid), best.Features.Vals[k])
		}
		fmt.Println()
	}
	fmt.Println(r.Groups())
	// Output:
	// sentence 0: 2 hypotheses, best "we are here ." (-14.6): LM0_0=-41.3 TranslationModel0_0=-1.5 TranslationModel0_1=-2 WordPenalty0_0=-4 pp_we~nous=1
	// sentence 1: 1 hypotheses, best "thank you ." (-5.2): LM0_0=-12.5 TranslationModel0_0=-0.5 TranslationModel0_1=-1 TranslationModel0_2=-1 WordPenalty0_0=-3
	// [{LM0 1} {TranslationModel0 3} {WordPenalty0 1}]
}

func ExampleWriter() {
	idx := feature.NewIndex()
	h := nbest.Hypothesis{
		Sentence: 4,
		Target:   "thank you .",
		Features: feature.Vector{
			IDs:  []feature.ID{idx.ID("LM0_0"), idx.ID("tm_1"), idx.ID("pp_merci~thank")},
			Vals: []float64{-12.5, -1, 1},
		},
		Score: -5.2, HasScore: true,
	}
	for _, style := range []nbest.Style{nbest.Moses, nbest.Old, nbest.Cdec} {
		w := nbest.NewWriter(os.Stdout, idx)
		w.Style = style
		w.Groups = []feature.Group{{Label: "LM0", Len: 1}, {Label: "tm", Len: 2}}
		if err := w.Write(h); err != nil {
			fmt.Println(err)
		}
		w.Flush()
	}
	// Output:
	// 4 ||| thank you . ||| LM0= -12.5 tm= 0 -1 pp_merci~thank= 1 ||| -5.2
	// 4 ||| thank you . ||| LM0: -12.5 tm: 0 -1 pp_merci~thank: 1 ||| -5.2
	// 4 ||| thank you . ||| LM0_0=-12.5 tm_1=-1 pp_merci~thank=1 ||| -5.2
}

func ExamplePool() {
	idx := feature.NewIndex()
	lm := idx.ID("LM0_0")
	pool := nbest.NewPool()
	for _, iteration := range [][]nbest.Hypothesis{
		{{Target: "a b", Features: feature.Vector{IDs: []feature.ID{lm}, Vals: []float64{-3}}},
			{Target: "a c", Features: feature.Vector{IDs: []feature.ID{lm}, Vals: []float64{-4}}}},
		{{Target: "a c", Features: feature.Vector{IDs: []feature.ID{lm}, Vals: []float64{-4}}},
			{Target: "a d", Features: feature.Vector{IDs: []feature.ID{lm}, Vals: []float64{-4}}}},
	} {
		for _, h := range iteration {
			k, added := pool.Add(0, h)
			fmt.Println(h.Target, k, added)
		}
	}
	fmt.Println(pool.Len())
	// Output:
	// a b 0 true
	// a c 1 true
	// a c 1 false
	// a d 2 true
	// 3
}
