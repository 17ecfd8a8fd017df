package lm_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/mtune/mtune/decoder/lm"
)

func Example() {
	const arpa = `\data\
ngram 1=4
ngram 2=2

\1-grams:
-1.0	<unk>	0
-99	<s>	-0.30103
-0.7	</s>
-0.6	a	-0.2

\2-grams:
-0.2	<s> a
-0.1	a </s>

\end\
`
	m, err := lm.Read(context.Background(), strings.NewReader(arpa), "example.arpa", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	st := m.BeginSentence()
	for _, w := range []string{"a", "b", "</s>"} {
		var p float32
		p, st = m.Score(st, m.Index(w)) // "b" is not in the vocabulary: <unk>
		fmt.Printf("log10 p(%s) = %.5f, state keeps %d word(s)\n", w, p, st.Len())
	}
	ids := m.IDs(nil, []string{"a", "b"})
	fmt.Printf("sentence %.5f, Moses LM0= %.4f\n", m.SentenceScore(ids), m.MosesScore(ids))
	// Output:
	// log10 p(a) = -0.20000, state keeps 1 word(s)
	// log10 p(b) = -1.20000, state keeps 0 word(s)
	// log10 p(</s>) = -0.70000, state keeps 0 word(s)
	// sentence -2.10000, Moses LM0= -4.8354
}
