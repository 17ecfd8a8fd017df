package lm

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/testsupport/shared"
)

// refModel is an independent, deliberately naive back-off scorer for the
// tests: n-grams in a map keyed by their text, p(w|h) by the textbook
// recursion over the full history.
type refModel struct {
	order int
	ng    map[string][2]float64 // prob, back-off
}

func parseRef(t testing.TB, text string) *refModel {
	t.Helper()
	r := &refModel{ng: make(map[string][2]float64)}
	n := 0
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line == `\data\` || line == `\end\`:
			continue
		case strings.HasPrefix(line, "ngram "):
			r.order++
			continue
		case strings.HasPrefix(line, `\`):
			n, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(line, `\`), "-grams:"))
			continue
		}
		f := strings.Fields(line)
		p, err := strconv.ParseFloat(f[0], 32)
		if err != nil {
			t.Fatalf("ref: %q: %v", line, err)
		}
		var bo float64
		if len(f) == n+2 {
			if bo, err = strconv.ParseFloat(f[n+1], 32); err != nil {
				t.Fatalf("ref: %q: %v", line, err)
			}
		}
		r.ng[strings.Join(f[1:n+1], " ")] = [2]float64{float64(float32(p)), float64(float32(bo))}
	}
	return r
}

// word maps an out-of-vocabulary word to <unk>.
func (r *refModel) word(w string) string {
	if _, ok := r.ng[w]; ok {
		return w
	}
	return UnknownWord
}

// prob returns log10 p(w | hist), hist being all the words before w.
func (r *refModel) prob(hist []string, w string) float64 {
	w = r.word(w)
	ctx := make([]string, 0, r.order)
	for _, h := range hist[max(0, len(hist)-(r.order-1)):] {
		ctx = append(ctx, r.word(h))
	}
	var acc float64
	for {
		if e, ok := r.ng[strings.Join(append(append([]string(nil), ctx...), w), " ")]; ok {
			return e[0] + acc
		}
		if len(ctx) == 0 {
			return DefaultUnknownLogProb + acc // only <unk> can be missing
		}
		if e, ok := r.ng[strings.Join(ctx, " ")]; ok {
			acc += e[1]
		}
		ctx = ctx[1:]
	}
}

func readShared(t testing.TB, rel ...string) string {
	t.Helper()
	b, err := os.ReadFile(shared.Path(t, rel...))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func loadString(t testing.TB, text string) *Model {
	t.Helper()
	m, err := Read(context.Background(), strings.NewReader(text), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var europarl struct {
	once sync.Once
	m    *Model
	err  error
}

// europarlLM loads Moses' 5-gram model of europarl-fr-en-8k once.
func europarlLM(t testing.TB) *Model {
	t.Helper()
	p := shared.Path(t, "moses-models", "europarl-fr-en-8k", "lm.en.5.arpa.gz")
	europarl.once.Do(func() {
		europarl.m, europarl.err = Load(context.Background(), p, nil)
	})
	if europarl.err != nil {
		t.Fatal(europarl.err)
	}
	return europarl.m
}

var europarlText struct {
	once sync.Once
	ref  *refModel
}

// europarlRef parses the 8k model's text into the naive scorer once.
func europarlRef(t testing.TB) *refModel {
	t.Helper()
	p := shared.Path(t, "moses-models", "europarl-fr-en-8k", "lm.en.5.arpa.gz")
	europarlText.once.Do(func() {
		b, err := storage.ReadFile(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		europarlText.ref = parseRef(t, string(b))
	})
	if europarlText.ref == nil {
		t.Fatal("reference model not loaded")
	}
	return europarlText.ref
}
