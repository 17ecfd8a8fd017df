package build

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/mtune/mtune/io/storage"
)

// DemoOptions configure Demo. The zero value is the default demo.
type DemoOptions struct {
	// Seed seeds the generator; the same seed gives the same corpus.
	Seed uint64
	// Train, Tune and Test are the numbers of sentence pairs of each part;
	// zero means 3000, 300 and 300.
	Train, Tune, Test int
}

// DemoPair is a sentence pair of the demo language with its word
// alignment ("i-j": source token i, target token j, 0-based).
type DemoPair struct {
	Src, Tgt, Align string
}

// DemoCorpus is a generated bitext: a training part to build a model from
// and a tuning and a test part, whose source sentences never occur in the
// training part.
type DemoCorpus struct {
	Train, Tune, Test []DemoPair
	// Lexicon describes the invented language pair (see Demo).
	Lexicon DemoLexicon
}

// DemoLexicon lists the words of the demo language pair by role.
type DemoLexicon struct {
	// Ambiguous maps each ambiguous source word to its translations, the
	// most frequent first: the definite and indefinite determiners (the
	// target's agrees with the gender of the noun, which follows it in
	// the target but may be several words away in the source) and the
	// verbs with a translation for animate and one for inanimate objects.
	Ambiguous map[string][]string
	// Unaligned lists the source function words with no translation (the
	// object marker).
	Unaligned []string
	// MultiWord maps source expressions to target expressions of a
	// different number of words (idioms).
	MultiWord map[string]string
}

// demo grammar sizes.
const (
	demoNouns      = 54
	demoAdjs       = 120
	demoVerbs      = 14
	demoAmbigVerbs = 5 // the most frequent verbs
	demoPostps     = 4
)

type demoNoun struct {
	src, tgt string
	fem      bool
	animate  bool
}

type demoVerb struct {
	src            string
	tgtAnim, tgtIn string // equal unless ambiguous
}

type demoWords struct{ src, tgt string }

type demoLang struct {
	nouns   []demoNoun
	adjs    []demoWords
	verbs   []demoVerb
	postps  []demoWords
	idioms  []demoWords // multi-word on at least one side
	nounW   []float64   // Zipf-like choice weights
	adjW    []float64
	verbW   []float64
	objMark string
}

// Demo generates a small synthetic language pair with a known word
// alignment, designed as a tuning problem for a phrase-based system:
//
//   - Word order: the source is SOV with an object marker after the
//     object and adjectives before the noun ("ka ADJ N  ka ADJ ADJ N mo V
//     ."); the target is SVO with adjectives after the noun ("DET N ADJ  V
//     DET N ADJ ADJ ."). The verb jumps over the object (3–5 words) and the
//     noun over its adjectives, so the decoder must reorder, which the
//     distortion and reordering weights have to allow; an optional
//     postpositional phrase becomes prepositional.
//   - Ambiguity only the language model resolves: the determiners "ka"
//     (definite) and "mi" (indefinite) have a masculine translation (about
//     3/4 of the noun occurrences) and a feminine one. In the target the
//     determiner is next to its noun; in the source one or two adjectives
//     separate them in 90% of the noun phrases, and adjective combinations
//     vary so much (120 adjectives) that the phrase table rarely holds the
//     whole span: its most probable translation is the masculine one,
//     wrong for every feminine noun, and the language model can only tell
//     once the decoder has moved the noun next to the determiner.
//     Likewise the five most frequent verbs have a translation for
//     inanimate objects (about 3/4) and another for animate ones, decided
//     by the object that follows the verb in the target only.
//   - Function words: the object marker "mo" is unaligned; multi-word
//     idioms (adverbials) translate one word into two and two into one.
//
// Words are invented (syllable strings), drawn with Zipf-like
// frequencies. Tune and test source sentences never occur in the
// training part.
func Demo(o DemoOptions) *DemoCorpus {
	if o.Train <= 0 {
		o.Train = 3000
	}
	if o.Tune <= 0 {
		o.Tune = 300
	}
	if o.Test <= 0 {
		o.Test = 300
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x6d74756e65))
	lang := newDemoLang(rng)
	c := &DemoCorpus{Lexicon: lang.lexicon()}
	seen := make(map[string]bool)
	for len(c.Train) < o.Train {
		p := lang.sentence(rng)
		seen[p.Src] = true
		c.Train = append(c.Train, p)
	}
	for _, part := range []*[]DemoPair{&c.Tune, &c.Test} {
		n := o.Tune
		if part == &c.Test {
			n = o.Test
		}
		for tries := 0; len(*part) < n; tries++ {
			p := lang.sentence(rng)
			if seen[p.Src] && tries < 100*n {
				continue // (a tiny language could run out of new sentences)
			}
			seen[p.Src] = true
			*part = append(*part, p)
		}
	}
	return c
}

// wordMaker invents distinct words from a syllable inventory.
type wordMaker struct {
	cons, vows string
	used       map[string]bool
}

func (w *wordMaker) make(rng *rand.Rand, syl int) string {
	for {
		var b strings.Builder
		for range syl {
			b.WriteByte(w.cons[rng.IntN(len(w.cons))])
			b.WriteByte(w.vows[rng.IntN(len(w.vows))])
		}
		if s := b.String(); !w.used[s] {
			w.used[s] = true
			return s
		}
	}
}

// zipf returns the weights 1/(rank+1)^s.
func zipf(n int, s float64) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = math.Pow(float64(i+1), -s)
	}
	return w
}

func pick(rng *rand.Rand, w []float64) int {
	sum := 0.0
	for _, x := range w {
		sum += x
	}
	r := rng.Float64() * sum
	for i, x := range w {
		if r < x {
			return i
		}
		r -= x
	}
	return len(w) - 1
}

// Fixed function words.
const (
	demoDefSrc, demoIndefSrc = "ka", "mi"
	demoDefM, demoDefF       = "ve", "vi"
	demoIndefM, demoIndefF   = "ze", "zi"
	demoObjMark              = "mo"
)

func newDemoLang(rng *rand.Rand) *demoLang {
	src := &wordMaker{cons: "ktmnrsbdgl", vows: "aou", used: map[string]bool{}}
	tgt := &wordMaker{cons: "pfvzhjwcy", vows: "eiy", used: map[string]bool{}}
	for _, w := range []string{demoDefSrc, demoIndefSrc, demoObjMark} {
		src.used[w] = true
	}
	for _, w := range []string{demoDefM, demoDefF, demoIndefM, demoIndefF} {
		tgt.used[w] = true
	}
	l := &demoLang{objMark: demoObjMark}
	// Every third noun in the frequency ranking is feminine and every
	// fourth animate, so about 3/4 of the noun occurrences are masculine
	// and 3/4 inanimate.
	for i := range demoNouns {
		l.nouns = append(l.nouns, demoNoun{
			src: src.make(rng, 2+rng.IntN(2)), tgt: tgt.make(rng, 2+rng.IntN(2)),
			fem: i%3 == 2, animate: i%4 == 1,
		})
	}
	for range demoAdjs {
		l.adjs = append(l.adjs, demoWords{src.make(rng, 2+rng.IntN(2)), tgt.make(rng, 2+rng.IntN(2))})
	}
	for i := range demoVerbs {
		v := demoVerb{src: src.make(rng, 2), tgtIn: tgt.make(rng, 2)}
		v.tgtAnim = v.tgtIn
		if i < demoAmbigVerbs {
			v.tgtAnim = tgt.make(rng, 2)
		}
		l.verbs = append(l.verbs, v)
	}
	for range demoPostps {
		l.postps = append(l.postps, demoWords{src.make(rng, 1), tgt.make(rng, 1)})
	}
	// Idioms: one source word into two target words, and two into one.
	for range 3 {
		l.idioms = append(l.idioms, demoWords{src.make(rng, 3), tgt.make(rng, 2) + " " + tgt.make(rng, 2)})
	}
	for range 3 {
		l.idioms = append(l.idioms, demoWords{src.make(rng, 2) + " " + src.make(rng, 1), tgt.make(rng, 3)})
	}
	l.nounW, l.verbW = zipf(len(l.nouns), 1), zipf(len(l.verbs), 1)
	l.adjW = zipf(len(l.adjs), 0.5) // flatter: adjective combinations vary
	return l
}

func (l *demoLang) lexicon() DemoLexicon {
	lex := DemoLexicon{Ambiguous: map[string][]string{}, Unaligned: []string{l.objMark}, MultiWord: map[string]string{}}
	lex.Ambiguous[demoDefSrc] = []string{demoDefM, demoDefF}
	lex.Ambiguous[demoIndefSrc] = []string{demoIndefM, demoIndefF}
	for _, v := range l.verbs {
		if v.tgtAnim != v.tgtIn {
			lex.Ambiguous[v.src] = []string{v.tgtIn, v.tgtAnim}
		}
	}
	for _, id := range l.idioms {
		lex.MultiWord[id.src] = id.tgt
	}
	return lex
}

// np is a noun phrase: its source and target parts, in the order each
// language says them.
type np struct {
	det, n, adjs []demoWords // det and n have one element
	animate      bool
}

func (l *demoLang) nounPhrase(rng *rand.Rand) np {
	n := l.nouns[pick(rng, l.nounW)]
	def := rng.IntN(3) > 0
	var det demoWords
	switch {
	case def && n.fem:
		det = demoWords{demoDefSrc, demoDefF}
	case def:
		det = demoWords{demoDefSrc, demoDefM}
	case n.fem:
		det = demoWords{demoIndefSrc, demoIndefF}
	default:
		det = demoWords{demoIndefSrc, demoIndefM}
	}
	p := np{det: []demoWords{det}, n: []demoWords{{n.src, n.tgt}}, animate: n.animate}
	// 0 (10%), 1 (45%) or 2 (45%) adjectives.
	for k := []int{0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}[rng.IntN(20)]; k > 0; k-- {
		p.adjs = append(p.adjs, l.adjs[pick(rng, l.adjW)])
	}
	return p
}

// sentence generates one sentence pair:
//
//	source: SUBJ OBJ mo VERB [NP POSTP] [ADV] .
//	target: SUBJ VERB OBJ [PREP NP] [ADV] .
func (l *demoLang) sentence(rng *rand.Rand) DemoPair {
	subj, obj := l.nounPhrase(rng), l.nounPhrase(rng)
	v := l.verbs[pick(rng, l.verbW)]
	vt := v.tgtIn
	if obj.animate {
		vt = v.tgtAnim
	}
	var pp *np
	var post demoWords
	if rng.IntN(3) == 0 {
		p := l.nounPhrase(rng)
		pp, post = &p, l.postps[rng.IntN(len(l.postps))]
	}
	var adv *demoWords
	if rng.IntN(4) == 0 {
		adv = &l.idioms[rng.IntN(len(l.idioms))]
	}

	// Lay out the source, remembering where each word lands.
	var srcToks []string
	put := func(s string) int {
		at := len(srcToks)
		srcToks = append(srcToks, strings.Fields(s)...)
		return at
	}
	npSrc := func(p np) (det, n int, adjs []int) {
		det = put(p.det[0].src)
		for _, a := range p.adjs {
			adjs = append(adjs, put(a.src))
		}
		n = put(p.n[0].src)
		return
	}
	sd, sn, sa := npSrc(subj)
	od, on, oa := npSrc(obj)
	put(l.objMark) // unaligned
	vAt := put(v.src)
	var pd, pn, postAt int
	var pa []int
	if pp != nil {
		pd, pn, pa = npSrc(*pp)
		postAt = put(post.src)
	}
	advAt := 0
	if adv != nil {
		advAt = put(adv.src)
	}
	dotAt := put(".")

	// The target, left to right, aligned to the source positions.
	var tgtToks, align []string
	emit := func(t string, srcAt int, srcLen int) {
		for _, w := range strings.Fields(t) {
			j := len(tgtToks)
			tgtToks = append(tgtToks, w)
			for i := srcAt; i < srcAt+srcLen; i++ {
				align = append(align, strconv.Itoa(i)+"-"+strconv.Itoa(j))
			}
		}
	}
	npTgt := func(p np, det, n int, adjs []int) {
		emit(p.det[0].tgt, det, 1)
		emit(p.n[0].tgt, n, 1)
		for k, a := range p.adjs {
			emit(a.tgt, adjs[k], 1)
		}
	}
	npTgt(subj, sd, sn, sa)
	emit(vt, vAt, 1)
	npTgt(obj, od, on, oa)
	if pp != nil {
		emit(post.tgt, postAt, 1)
		npTgt(*pp, pd, pn, pa)
	}
	if adv != nil {
		emit(adv.tgt, advAt, len(strings.Fields(adv.src)))
	}
	emit(".", dotAt, 1)
	// Sort the points by source position, as aligners write them.
	sortAlign(align)
	return DemoPair{Src: strings.Join(srcToks, " "), Tgt: strings.Join(tgtToks, " "), Align: strings.Join(align, " ")}
}

// sortAlign sorts "i-j" points by i, then j.
func sortAlign(a []string) {
	key := func(s string) (int, int) {
		x, y, _ := strings.Cut(s, "-")
		i, _ := strconv.Atoi(x)
		j, _ := strconv.Atoi(y)
		return i, j
	}
	for k := 1; k < len(a); k++ {
		for l := k; l > 0; l-- {
			i1, j1 := key(a[l-1])
			i2, j2 := key(a[l])
			if i1 < i2 || i1 == i2 && j1 <= j2 {
				break
			}
			a[l-1], a[l] = a[l], a[l-1]
		}
	}
}

// DemoFiles are the paths Write writes.
type DemoFiles struct {
	TrainSrc, TrainTgt, TrainAlign string
	TuneSrc, TuneRef               string
	TestSrc, TestRef               string
}

// Write writes the corpus to dir (local or gs://): train.src,
// train.tgt, train.align, tune.src, tune.ref, test.src and test.ref, one
// sentence a line.
func (c *DemoCorpus) Write(ctx context.Context, dir string) (DemoFiles, error) {
	f := DemoFiles{
		TrainSrc: storage.Join(dir, "train.src"), TrainTgt: storage.Join(dir, "train.tgt"), TrainAlign: storage.Join(dir, "train.align"),
		TuneSrc: storage.Join(dir, "tune.src"), TuneRef: storage.Join(dir, "tune.ref"),
		TestSrc: storage.Join(dir, "test.src"), TestRef: storage.Join(dir, "test.ref"),
	}
	col := func(ps []DemoPair, field func(DemoPair) string) []byte {
		var b strings.Builder
		for _, p := range ps {
			b.WriteString(field(p))
			b.WriteByte('\n')
		}
		return []byte(b.String())
	}
	src := func(p DemoPair) string { return p.Src }
	tgt := func(p DemoPair) string { return p.Tgt }
	al := func(p DemoPair) string { return p.Align }
	for _, w := range []struct {
		path string
		data []byte
	}{
		{f.TrainSrc, col(c.Train, src)}, {f.TrainTgt, col(c.Train, tgt)}, {f.TrainAlign, col(c.Train, al)},
		{f.TuneSrc, col(c.Tune, src)}, {f.TuneRef, col(c.Tune, tgt)},
		{f.TestSrc, col(c.Test, src)}, {f.TestRef, col(c.Test, tgt)},
	} {
		if err := storage.WriteFile(ctx, w.path, w.data); err != nil {
			return f, fmt.Errorf("build: demo: %w", err)
		}
	}
	return f, nil
}

// BuildOptions returns the Options that build a model from the training
// part written as f into out.
func (f DemoFiles) BuildOptions(out string) Options {
	return Options{Src: f.TrainSrc, Tgt: f.TrainTgt, Align: f.TrainAlign, Out: out}
}
