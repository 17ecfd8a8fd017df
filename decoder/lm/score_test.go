package lm

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/testsupport/shared"
)

type vectorCase struct {
	Name  string
	Start string
	Steps []struct {
		Word   string
		Length int
		Prob   float64
	}
}

func (s *vectorCase) UnmarshalJSON(b []byte) error {
	var raw struct {
		Name  string
		Start string
		Steps [][3]json.RawMessage
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	s.Name, s.Start = raw.Name, raw.Start
	s.Steps = s.Steps[:0]
	for _, st := range raw.Steps {
		var x struct {
			Word   string
			Length int
			Prob   float64
		}
		if err := json.Unmarshal(st[0], &x.Word); err != nil {
			return err
		}
		if err := json.Unmarshal(st[1], &x.Length); err != nil {
			return err
		}
		if err := json.Unmarshal(st[2], &x.Prob); err != nil {
			return err
		}
		s.Steps = append(s.Steps, x)
	}
	return nil
}

func loadVectors(t *testing.T) []vectorCase {
	var v struct{ Cases []vectorCase }
	if err := json.Unmarshal([]byte(readShared(t, "lm", "model_test_vectors.json")), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) == 0 {
		t.Fatal("no cases")
	}
	return v.Cases
}

// KenLM's ngram_length counts the blanks it fills in for the missing
// "higher looking" etc.; we count listed n-grams only (same probability).
var blankLength = map[string]bool{"Blanks-3": true, "Blanks-4": true, "Blanks-5": true}

// TestVectors reproduces KenLM's model_test.cc values on test.arpa.
func TestVectors(t *testing.T) {
	m := loadString(t, readShared(t, "lm", "test.arpa"))
	var worst float64
	steps := 0
	for _, c := range loadVectors(t) {
		t.Run(c.Name, func(t *testing.T) {
			st := m.NullContext()
			if c.Start == BeginWord {
				st = m.BeginSentence()
			}
			for i, s := range c.Steps {
				var p float32
				var length int
				p, length, st = m.FullScore(st, m.Index(s.Word))
				d := math.Abs(float64(p) - s.Prob)
				worst = max(worst, d)
				steps++
				if d > 1e-4 {
					t.Errorf("step %d %q: log10 p = %.7f, KenLM %.7f", i, s.Word, p, s.Prob)
				}
				if length != s.Length && !(blankLength[c.Name] && length < s.Length) {
					t.Errorf("step %d %q: n-gram length %d, KenLM %d", i, s.Word, length, s.Length)
				}
			}
		})
	}
	t.Logf("%d steps, largest difference from KenLM %.2g", steps, worst)
}

// TestNoUnk checks KenLM's behaviour for a model without <unk>: log10
// p(<unk>) = -100 with no back-off, every other value as with <unk>.
func TestNoUnk(t *testing.T) {
	withUnk := loadString(t, readShared(t, "lm", "test.arpa"))
	m := loadString(t, readShared(t, "lm", "test_nounk.arpa"))
	if m.HasUnknown() || !withUnk.HasUnknown() {
		t.Fatalf("HasUnknown: %v, %v", m.HasUnknown(), withUnk.HasUnknown())
	}
	if got := m.Index("not_found"); got != Unknown {
		t.Fatalf("Index(not_found) = %d", got)
	}
	// KenLM's NoUnkCheck: FullScoreForgotState(<unk>, <unk>) = -100.
	_, st := m.Score(m.NullContext(), Unknown)
	if p, _ := m.Score(st, Unknown); p != -100 {
		t.Errorf("p(<unk> | <unk>) = %g, want -100", p)
	}
	_, boBOS, _ := m.NGram(m.BOS())
	if p, _ := m.Score(m.BeginSentence(), m.Index("this_is_not_found")); math.Abs(float64(p)-(-100+float64(boBOS))) > 1e-4 {
		t.Errorf("p(<unk> | <s>) = %g, want -100 + %g", p, boBOS)
	}
	if _, _, ok := m.NGram(Unknown); ok {
		t.Error("NGram(<unk>) found in a model without <unk>")
	}
	for _, c := range loadVectors(t) {
		oov := false
		for _, s := range c.Steps {
			oov = oov || withUnk.Index(s.Word) == Unknown
		}
		if oov {
			continue
		}
		st := m.NullContext()
		if c.Start == BeginWord {
			st = m.BeginSentence()
		}
		for i, s := range c.Steps {
			var p float32
			p, st = m.Score(st, m.Index(s.Word))
			if math.Abs(float64(p)-s.Prob) > 1e-4 {
				t.Errorf("%s step %d: %g, want %g", c.Name, i, p, s.Prob)
			}
		}
	}
}

// vocabWords returns the words of m but <s>, plus an unknown word.
func vocabWords(m *Model) []string {
	var ws []string
	for id := 1; id < m.Vocab().Len(); id++ {
		if WordID(id) != m.BOS() {
			ws = append(ws, m.Vocab().Word(WordID(id)))
		}
	}
	return append(ws, "zzz_not_in_vocab")
}

// checkAgainstRef scores random sentences with m and the naive scorer.
func checkAgainstRef(t *testing.T, m *Model, ref *refModel, words []string, sentences, maxLen int, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var worst float64
	for range sentences {
		n := 1 + rng.IntN(maxLen)
		hist := []string{BeginWord}
		st := m.BeginSentence()
		for i := 0; i <= n; i++ {
			w := EndWord
			if i < n {
				w = words[rng.IntN(len(words))]
			}
			var p float32
			p, st = m.Score(st, m.Index(w))
			want := ref.prob(hist, w)
			worst = max(worst, math.Abs(float64(p)-want))
			if math.Abs(float64(p)-want) > 1e-4 {
				t.Fatalf("p(%s | %s) = %g, reference %g", w, strings.Join(hist, " "), p, want)
			}
			hist = append(hist, w)
		}
	}
	t.Logf("%d random sentences: largest difference from the reference scorer %.2g", sentences, worst)
}

func TestAgainstReference(t *testing.T) {
	for _, name := range []string{"test.arpa", "test_nounk.arpa", "toy0.arpa", "toy1.arpa"} {
		t.Run(name, func(t *testing.T) {
			text := readShared(t, "lm", name)
			m := loadString(t, text)
			checkAgainstRef(t, m, parseRef(t, text), vocabWords(m), 2000, 12, 7)
		})
	}
}

// TestStateEquivalence checks the minimisation: histories that end in
// equal States give every continuation the same score, computed by the
// naive scorer from the full histories.
func TestStateEquivalence(t *testing.T) {
	for _, name := range []string{"test.arpa", "toy0.arpa", "toy1.arpa", "europarl"} {
		t.Run(name, func(t *testing.T) {
			var m *Model
			var ref *refModel
			if name == "europarl" {
				m, ref = europarlLM(t), europarlRef(t)
			} else {
				text := readShared(t, "lm", name)
				m, ref = loadString(t, text), parseRef(t, text)
			}
			checkStates(t, m, ref, 4000)
		})
	}
}

// checkStates makes histories ending in random listed n-grams (so that long
// states occur), groups them by state and compares continuations.
func checkStates(t *testing.T, m *Model, ref *refModel, histories int) {
	a := m.ARPA()
	words := vocabWords(m)
	rng := rand.New(rand.NewPCG(3, 4))
	randomWords := func(n int) []string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[rng.IntN(len(words))]
		}
		return ws
	}
	// A small pool of listed n-grams, so that histories share their ends.
	var pool [][]string
	for range 100 {
		g := &a.Orders[rng.IntN(m.Order())]
		if g.Len() == 0 {
			continue
		}
		n := len(g.Words) / g.Len()
		i := rng.IntN(g.Len())
		var ws []string
		for _, w := range g.Words[i*n : (i+1)*n] {
			if a.Words[w] != BeginWord {
				ws = append(ws, a.Words[w])
			}
		}
		pool = append(pool, ws)
	}
	byState := map[State][][]string{}
	seen := map[string]bool{}
	for range histories {
		hist := []string{BeginWord}
		st := m.BeginSentence()
		if rng.IntN(4) == 0 {
			hist, st = nil, m.NullContext()
		}
		tail := randomWords(rng.IntN(4))
		if rng.IntN(4) > 0 {
			tail = append(tail, pool[rng.IntN(len(pool))]...)
		}
		if key := strings.Join(hist, " ") + "|" + strings.Join(tail, " "); seen[key] {
			continue
		} else {
			seen[key] = true
		}
		for _, w := range tail {
			_, st = m.Score(st, m.Index(w))
			hist = append(hist, w)
		}
		if st.Len() > m.Order()-1 {
			t.Fatalf("state of length %d", st.Len())
		}
		byState[st] = append(byState[st], hist)
	}
	pairs, lengths := 0, map[int]int{}
	for st, hs := range byState {
		lengths[st.Len()]++
		for i := 1; i < len(hs) && i < 6; i++ {
			pairs++
			for range 4 {
				cont := randomWords(1 + rng.IntN(5))
				x, y := continuation(ref, hs[0], cont), continuation(ref, hs[i], cont)
				if x != y {
					t.Fatalf("state %v: %q and %q score %q as %g and %g", m.Words(st), hs[0], hs[i], cont, x, y)
				}
				got, _ := m.ScoreWords(st, m.IDs(nil, cont))
				if math.Abs(got-x) > 1e-4 {
					t.Fatalf("from state %v: %g, reference %g", m.Words(st), got, x)
				}
			}
		}
	}
	t.Logf("%d states (by length %v), %d pairs of histories with equal states", len(byState), lengths, pairs)
}

func continuation(ref *refModel, hist, cont []string) float64 {
	h := append([]string(nil), hist...)
	var sum float64
	for _, w := range cont {
		sum += ref.prob(h, w)
		h = append(h, w)
	}
	return sum
}

// TestStateWords checks that a state names its words.
func TestStateWords(t *testing.T) {
	m := loadString(t, readShared(t, "lm", "test.arpa"))
	st := m.BeginSentence()
	for _, w := range strings.Fields("looking on a little") {
		_, st = m.Score(st, m.Index(w))
	}
	var got []string
	for _, id := range m.Words(st) {
		got = append(got, m.Vocab().Word(id))
	}
	// "<s> looking on a little" is a 5-gram: the state keeps the 4 words.
	if strings.Join(got, " ") != "looking on a little" {
		t.Errorf("state words %q", got)
	}
	// "little more" has back-off but "a little more loin"... after "the"
	// (a unigram without extension beyond) the state is just "the".
	_, st = m.Score(st, m.Index("the"))
	if ws := m.Words(st); len(ws) != 1 || m.Vocab().Word(ws[0]) != "the" {
		t.Errorf("after 'the': %v", ws)
	}
	_, st = m.Score(st, m.Index("foo"))
	if st.Len() != 1 {
		t.Errorf("after 'foo' (back-off 0, context of 'foo bar'): length %d", st.Len())
	}
	_, st = m.Score(m.NullContext(), m.Index("baz"))
	if st != m.NullContext() {
		t.Errorf("after 'baz' (back-off 0, nobody's context): %v, want the null context", m.Words(st))
	}
}

// TestPhraseScore checks Moses' split of a sentence into phrases: the
// isolated n-gram scores plus the first words rescored in context plus
// </s> give the sentence score.
func TestPhraseScore(t *testing.T) {
	text := readShared(t, "lm", "test.arpa")
	m := loadString(t, text)
	ref := parseRef(t, text)
	words := vocabWords(m)
	rng := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		sent := make([]WordID, 1+rng.IntN(15))
		for i := range sent {
			sent[i] = m.Index(words[rng.IntN(len(words))])
		}
		st := m.BeginSentence()
		var total float64
		for i := 0; i < len(sent); {
			phrase := sent[i:min(len(sent), i+1+rng.IntN(7))]
			est, ngram := m.PhraseScore(phrase)
			// The estimate is the first words from the null context.
			k := min(m.Order()-1, len(phrase))
			var hist []string
			var want float64
			for _, w := range phrase[:k] {
				want += ref.prob(hist, m.Vocab().Word(w))
				hist = append(hist, m.Vocab().Word(w))
			}
			if math.Abs(float64(est)-want) > 1e-4 {
				t.Fatalf("estimate %g, reference %g", est, want)
			}
			total += float64(ngram)
			for _, w := range phrase[:k] {
				var p float32
				p, st = m.Score(st, w)
				total += float64(p)
			}
			// The state after the phrase is the state after its last words.
			if len(phrase) > k {
				_, st = m.ScoreWords(m.NullContext(), phrase[max(0, len(phrase)-(m.Order()-1)):])
			}
			i += len(phrase)
		}
		total += float64(m.EndSentence(st))
		if want := m.SentenceScore(sent); math.Abs(total-want) > 1e-4 {
			t.Fatalf("phrases give %g, sentence %g", total, want)
		}
	}
}

// TestMosesLM0 reproduces the LM0= values of Moses' 100-best lists for the
// first 20 test sentences of europarl-fr-en-8k.
func TestMosesLM0(t *testing.T) {
	m := europarlLM(t)
	rc, err := storage.Open(context.Background(), shared.Path(t, "moses-models", "europarl-fr-en-8k", "expected-moses-test20.nbest.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	sc := bufio.NewScanner(rc)
	sc.Buffer(nil, 1<<20)
	var n int
	var worst float64
	var ids []WordID
	for sc.Scan() {
		f := strings.Split(sc.Text(), " ||| ")
		if len(f) < 4 {
			t.Fatalf("bad n-best line %q", sc.Text())
		}
		feats := strings.Fields(f[2])
		lm := math.NaN()
		for i, x := range feats {
			if x == "LM0=" && i+1 < len(feats) {
				lm, _ = strconv.ParseFloat(feats[i+1], 64)
			}
		}
		if math.IsNaN(lm) {
			t.Fatalf("no LM0= in %q", f[2])
		}
		ids = m.IDs(ids[:0], strings.Fields(f[1]))
		got := m.MosesScore(ids)
		d := math.Abs(got - lm)
		worst = max(worst, d)
		if d > 1e-3 {
			t.Errorf("%q: LM0 %.4f, Moses %.4f", f[1], got, lm)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 1000 {
		t.Fatalf("only %d hypotheses", n)
	}
	t.Logf("%d hypotheses: largest |LM0 - Moses| = %.2g", n, worst)
}

// TestEuroparlAgainstReference compares the 8k model with the naive scorer
// on word sequences that start with one of its 5-grams.
func TestEuroparlAgainstReference(t *testing.T) {
	m := europarlLM(t)
	ref := europarlRef(t)
	a := m.ARPA()
	top := &a.Orders[4]
	rng := rand.New(rand.NewPCG(9, 9))
	words := vocabWords(m)
	var worst float64
	for range 1000 {
		i := rng.IntN(top.Len())
		var seq, hist []string
		for _, w := range top.Words[i*5 : i*5+5] {
			seq = append(seq, a.Words[w])
		}
		for range 3 {
			seq = append(seq, words[rng.IntN(len(words))])
		}
		st := m.NullContext()
		for _, w := range seq {
			var p float32
			p, st = m.Score(st, m.Index(w))
			want := ref.prob(hist, w)
			worst = max(worst, math.Abs(float64(p)-want))
			if math.Abs(float64(p)-want) > 1e-4 {
				t.Fatalf("p(%s | %q) = %g, reference %g", w, hist, p, want)
			}
			hist = append(hist, w)
		}
	}
	t.Logf("largest difference %.2g", worst)
}

// TestOpen checks the detection of models with missing suffixes, where
// scoring must look past a missing n-gram.
func TestOpen(t *testing.T) {
	cases := []struct {
		name string
		open bool
	}{
		{"test.arpa", true}, // "also would consider higher looking" without "higher looking"
		{"test_nounk.arpa", true},
		{"toy0.arpa", false},
		{"toy1.arpa", false},
	}
	for _, c := range cases {
		if m := loadString(t, readShared(t, "lm", c.name)); m.open != c.open {
			t.Errorf("%s: open = %v", c.name, m.open)
		}
	}
	if m := europarlLM(t); m.open {
		t.Error("lmplz's model is open")
	}
	m, err := NewModel(loadString(t, readShared(t, "lm", "test.arpa")).ARPA(), nil)
	if err != nil || !m.open {
		t.Errorf("NewModel: %v, open %v", err, m != nil && m.open)
	}
}

// TestScoreTo checks that ScoreTo gives Score's probability and state
// (==, as recombination compares them) whatever the State it writes to
// held before: a search passes the same two States back and forth.
func TestScoreTo(t *testing.T) {
	for _, name := range []string{"test.arpa", "test_nounk.arpa", "toy0.arpa", "toy1.arpa"} {
		t.Run(name, func(t *testing.T) {
			m := loadString(t, readShared(t, "lm", name))
			words := vocabWords(m)
			rng := rand.New(rand.NewPCG(3, 1))
			// The long state of a 5-gram history: stale slots to overwrite.
			var buf [2]State
			for _, w := range words[:min(6, len(words))] {
				_, buf[0] = m.Score(buf[0], m.Index(w))
			}
			buf[1] = buf[0]
			for range 500 {
				st := m.BeginSentence()
				for range 1 + rng.IntN(10) {
					w := m.Index(words[rng.IntN(len(words))])
					wantP, want := m.Score(st, w)
					next := &buf[rng.IntN(2)]
					if p := m.ScoreTo(next, &st, w); p != wantP || *next != want {
						t.Fatalf("ScoreTo(%v, %d) = %g, %+v; Score: %g, %+v", st, w, p, *next, wantP, want)
					}
					st = *next
				}
			}
		})
	}
}
