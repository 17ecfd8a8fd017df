package decoder

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/mtune/mtune/decoder/lm"
	"github.com/mtune/mtune/decoder/model"
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/enum"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/io/weights"
)

// LoadOptions configures Load.
type LoadOptions struct {
	// Getenv looks up the variables of ${NAME} in the moses.ini; nil means
	// os.LookupEnv.
	Getenv func(name string) (string, bool)
	// Index interns the model's feature names; nil means a new Index. A
	// tuner passes the Index its weights live in.
	Index *feature.Index
	// WeightsFile is a weights file in any format io/weights detects
	// (Moses dense "Name= v …", a moses.ini, JSON, sparse "name value");
	// its weights replace those of the moses.ini's [weight] section that it
	// names. Empty means the ini's weights only.
	WeightsFile string
	// WeightOverwrite is Moses' -weight-overwrite: dense weights
	// 'Name= v … Name2= v …' (weights.ParseOverwrite) replacing those of
	// the moses.ini and of WeightsFile for the features they name, read
	// before the sparse weights files. Empty means none.
	WeightOverwrite string
	// SparseWeightsFile is a Moses sparse weights file ("name value" lines)
	// read after the ini's [weight-file] (which is always read). Empty
	// means none.
	SparseWeightsFile string
	// Sparse switches sparse feature templates on; the zero value switches
	// none on.
	Sparse Templates
	// SparseFromWeights also switches on every template that fires a
	// feature with a non-zero sparse weight (see TemplatesFor), so that
	// weights tuned with sparse features are not silently dropped;
	// Model.Templates and Model.SparseWithoutTemplate report the outcome.
	// False means Sparse alone decides.
	SparseFromWeights bool
	// Workers is the number of parsing goroutines of each file; zero means
	// runtime.GOMAXPROCS(0).
	Workers int
	// Search overrides the moses.ini's search settings for every decode,
	// as DecodeOptions.Search does for one; its zero value changes
	// nothing.
	Search SearchOptions
	// TablePaths replaces the path= of the phrase table and lexicalized
	// reordering features it names (by feature name, such as
	// "TranslationModel0") by another file of the same format, such as
	// the filtered tables of LoadFiltered. Nil, or a feature it does not
	// name, keeps the moses.ini's path.
	TablePaths map[string]string
	// AllowEmptyTables accepts a phrase table or reordering table without
	// entries (a table filtered to sentences that hold no known phrase):
	// every word is then unknown. False makes an empty table an error.
	AllowEmptyTables bool
	// LoadLM loads the language model at path; nil means lm.Load with
	// Workers. A process that loads several models of one system (each
	// filtered to other sentences) passes a function that loads each
	// language model once: a Model only reads it.
	LoadLM func(ctx context.Context, path string) (*lm.Model, error)
	// Sources, when not nil, are the only sentences the model is loaded
	// for (words separated by white space, as Decode reads them): the
	// phrase table and reordering table are read as LoadFiltered filters
	// them, keeping only the lines whose source phrase occurs in one of
	// them as a contiguous sequence of at most max-phrase-length words, in
	// memory, with no file written. A line not kept is checked for its
	// "|||" fields only, and is not parsed further nor scored with the
	// language model. Decoding any of the sentences then gives the same
	// n-best lists, features and scores as with the whole model; other
	// sentences lose the phrases they do not share with Sources. An empty
	// table is then allowed, as with AllowEmptyTables. Nil loads every
	// line.
	Sources []string
}

// Model is a phrase-based translation system loaded from a moses.ini: its
// phrase table (pruned to the table limit), lexicalized reordering scores,
// language model, feature layout and weights. A Model is read-only once
// loaded: any number of goroutines may decode with it at once.
type Model struct {
	cfg     *model.Config
	index   *feature.Index
	weights feature.Weights

	feats []featureFn
	// Positions in feats of each supported feature; -1 when absent.
	fTM, fLM, fDist, fLR, fWP, fPP, fUWP int

	lm *lm.Model
	pt *model.PhraseTable
	lr lrConfig

	tgtLM      []lm.WordID // phrase-table target word id -> LM word id
	optLogs    []float32   // LogScore of each score, NumScores per option
	optLMEst   []float32   // LM estimate of each option's target (ln)
	optLMNgram []float32   // LM n-gram score inside each option's target (ln)
	optLR      []float32   // log reordering scores, lr.n per option
	optHasLR   []uint64    // bit set: option has reordering scores

	denseOff []int // first dense value of each feature in a replay buffer
	denseLen int
	isDense  map[feature.ID]bool
	hidden   map[feature.ID]bool // dense features Moses leaves out of n-best lists
	dw       *dense              // the model's weights, for the search
	pool     sync.Pool           // *searcher

	search     SearchOptions
	maxLen     int // longest source phrase looked up
	tmpl       Templates
	noTemplate []string        // sparse weights no template fires (SparseFromWeights)
	groups     []feature.Group // n-best layout: Moses' order, tuneable only
	all        []feature.Group // every dense group, ini order
	timings    LoadStats
}

// LoadStats reports what Load did.
type LoadStats struct {
	// Options and Sources count the phrase table's pairs and source
	// phrases as read; Kept is the number of options left after the table
	// limit.
	Options, Sources, Kept int
	// Reordering is what the reordering table matched (zero without one).
	Reordering model.ReorderingStats
	// LMCounts are the language model's n-gram counts by order.
	LMCounts []int
	// Wall is the time Load took.
	Wall time.Duration
}

// featureFn is one [feature] line.
type featureFn struct {
	typ, name string
	n         int
	ids       []feature.ID
	tuneable  bool
	stateful  bool
}

// SearchOptions are the search settings. A Model takes them from its
// moses.ini, overridden by LoadOptions.Search; DecodeOptions.Search
// overrides them per call.
type SearchOptions struct {
	// StackSize is the histogram pruning limit ([stack]); zero means the
	// model's (Moses' default 200).
	StackSize int
	// BeamThreshold prunes hypotheses whose score is below the best of
	// their stack plus ln(BeamThreshold) ([beam-threshold]); zero means
	// the model's (Moses' default 1e-5), a negative value disables beam
	// pruning.
	BeamThreshold float64
	// DistortionLimit is the largest jump in source words
	// ([distortion-limit]): 0 is monotone decoding, a negative value means
	// no limit; nil means the model's.
	DistortionLimit *int
	// EarlyDistortionCost is [early-distortion-cost] (Moore and Quirk
	// 2007); nil means the model's.
	EarlyDistortionCost *bool
	// Algorithm is the search algorithm ([search-algorithm]): StackSearch
	// or CubePruning; zero (ModelAlgorithm) means the model's (Moses'
	// default StackSearch).
	Algorithm Algorithm
	// CubePruningPopLimit is the number of hypotheses cube pruning pops
	// into each stack ([cube-pruning-pop-limit]); zero means the model's
	// (Moses' default 1000). The stack search ignores it.
	CubePruningPopLimit int
	// CubePruningDiversity is [cube-pruning-diversity]: after the pop
	// limit, cube pruning pops the hypotheses of each coverage of a stack
	// until this many of them have joined the stack; zero means the
	// model's (Moses' default 0), a negative value none. The stack search
	// ignores it.
	CubePruningDiversity int
}

// Algorithm is a search algorithm, Moses' [search-algorithm].
type Algorithm int

const (
	// ModelAlgorithm is the zero Algorithm: in SearchOptions, the model's.
	ModelAlgorithm Algorithm = iota
	// StackSearch is Moses' multi-stack beam search, SearchNormal
	// ([search-algorithm] 0, Moses' default).
	StackSearch
	// CubePruning is Moses' cube pruning, SearchCubePruning
	// ([search-algorithm] 1): Huang and Chiang (2007) on the same stacks.
	CubePruning
)

// String returns the name ParseAlgorithm reads: "model", "normal" or
// "cube".
func (a Algorithm) String() string { return enum.Name(a, algorithmNames, "Algorithm") }

// algorithmNames are the names String gives the algorithms.
var algorithmNames = []string{ModelAlgorithm: "model", StackSearch: "normal", CubePruning: "cube"}

// ParseAlgorithm reads a search algorithm as a command line gives it:
// Moses' number ("0", "1") or a name ("normal" or "stack"; "cube" or
// "cube-pruning").
func ParseAlgorithm(s string) (Algorithm, error) {
	switch s {
	case "0", "normal", "stack":
		return StackSearch, nil
	case "1", "cube", "cube-pruning":
		return CubePruning, nil
	}
	return ModelAlgorithm, fmt.Errorf("decoder: unknown search algorithm %q (want 0 or normal, 1 or cube)", s)
}

// DefaultNBestSize is mtune's usual n-best list size (DESIGN.md §4); Moses
// has no default.
const DefaultNBestSize = 200

// MaxSentenceLength is the longest sentence, in words, Decode accepts.
const MaxSentenceLength = 1000

// Load reads the moses.ini at iniPath (local or gs://) and the files it
// names: the phrase table, the lexicalized reordering table and the ARPA
// language model, concurrently. It prunes each source phrase's options to
// the table limit as Moses does (see the package documentation).
func Load(ctx context.Context, iniPath string, opts LoadOptions) (*Model, error) {
	start := time.Now()
	idx := opts.Index
	if idx == nil {
		idx = feature.NewIndex()
	}
	cfg, err := model.LoadConfig(ctx, iniPath, model.ConfigOptions{Getenv: opts.Getenv, Index: idx})
	if err != nil {
		return nil, fmt.Errorf("decoder: %w", err)
	}
	m, err := newModel(cfg, idx, opts)
	if err != nil {
		return nil, err
	}
	if err := m.loadWeights(ctx, opts); err != nil {
		return nil, err
	}
	if opts.SparseFromWeights {
		var need Templates
		need, m.noTemplate = TemplatesFor(m.sparseWeightNames())
		m.tmpl = m.tmpl.Or(need)
	}
	if err := m.loadTables(ctx, opts); err != nil {
		return nil, err
	}
	m.timings.Wall = time.Since(start)
	return m, nil
}

// newModel checks the features of cfg and lays them out.
func newModel(cfg *model.Config, idx *feature.Index, opts LoadOptions) (*Model, error) {
	m := &Model{cfg: cfg, index: idx, tmpl: opts.Sparse,
		fTM: -1, fLM: -1, fDist: -1, fLR: -1, fWP: -1, fPP: -1, fUWP: -1}
	for i := range cfg.Features {
		f := &cfg.Features[i]
		fn := featureFn{typ: f.Type, name: f.Name, n: f.NumFeatures, tuneable: f.Tuneable()}
		var slot *int
		want := 1
		switch f.Type {
		case model.TypePhraseDictionaryMemory:
			slot, want = &m.fTM, f.NumFeatures
		case model.TypeKENLM:
			slot, fn.stateful = &m.fLM, true
		case model.TypeDistortion:
			slot, fn.stateful = &m.fDist, true
		case model.TypeLexicalReordering:
			slot, fn.stateful = &m.fLR, true
			rt, err := f.ReorderingType()
			if err != nil {
				return nil, fmt.Errorf("decoder: %s: %w", f.Name, err)
			}
			if rt.Collapse {
				return nil, fmt.Errorf("decoder: %w: %s: collapsed reordering scores (collapseff)", ErrUnsupported, f.Name)
			}
			want = rt.NumScores()
			m.lr = newLRConfig(rt)
			def, err := f.DefaultScores()
			if err != nil {
				return nil, fmt.Errorf("decoder: %s: %w", f.Name, err)
			}
			if def != nil {
				if len(def) != want {
					return nil, fmt.Errorf("decoder: %w: %s has %d default scores, want %d", ErrConfig, f.Name, len(def), want)
				}
				for _, p := range def {
					// Moses: TransformScore (ln), without the floor.
					m.lr.def = append(m.lr.def, float32(math.Log(float64(p))))
				}
			}
		case model.TypeWordPenalty:
			slot = &m.fWP
		case model.TypeUnknownWordPenalty:
			slot = &m.fUWP
			// Moses' UnknownWordPenalty is not tuneable unless told so.
			v, ok := f.Arg("tuneable")
			fn.tuneable = ok && (v == "true" || v == "1" || v == "yes")
		case model.TypePhrasePenalty:
			slot = &m.fPP
		default:
			return nil, fmt.Errorf("decoder: %w: feature %s of type %s", ErrUnsupported, f.Name, f.Type)
		}
		if *slot >= 0 {
			return nil, fmt.Errorf("decoder: %w: a second %s feature (%s)", ErrUnsupported, f.Type, f.Name)
		}
		if f.NumFeatures != want {
			return nil, fmt.Errorf("decoder: %w: %s has %d features, want %d", ErrConfig, f.Name, f.NumFeatures, want)
		}
		*slot = len(m.feats)
		fn.ids = make([]feature.ID, fn.n)
		for j := range fn.ids {
			fn.ids[j] = idx.ID(feature.DenseName(f.Name, j))
		}
		m.denseOff = append(m.denseOff, m.denseLen)
		m.denseLen += fn.n
		m.feats = append(m.feats, fn)
	}
	if m.fTM < 0 {
		return nil, fmt.Errorf("decoder: %w: %s has no PhraseDictionaryMemory", ErrConfig, cfg.File)
	}
	// Moses writes the stateful features first, then the stateless ones,
	// each in ini order, leaving out those that are not tuneable.
	for _, stateful := range []bool{true, false} {
		for _, f := range m.feats {
			if f.stateful == stateful && f.tuneable {
				m.groups = append(m.groups, feature.Group{Label: f.name, Len: f.n})
			}
		}
	}
	m.isDense = map[feature.ID]bool{}
	m.hidden = map[feature.ID]bool{}
	for _, f := range m.feats {
		m.all = append(m.all, feature.Group{Label: f.name, Len: f.n})
		for _, id := range f.ids {
			m.isDense[id] = true
			if !f.tuneable {
				m.hidden[id] = true
			}
		}
	}
	m.search = SearchOptions{
		StackSize:            cfg.StackSize,
		BeamThreshold:        cfg.BeamThreshold,
		DistortionLimit:      &cfg.DistortionLimit,
		EarlyDistortionCost:  &cfg.EarlyDistortionCost,
		Algorithm:            StackSearch,
		CubePruningPopLimit:  cfg.CubePruningPopLimit,
		CubePruningDiversity: cfg.CubePruningDiversity,
	}
	if cfg.SearchAlgorithm == model.SearchCubePruning {
		m.search.Algorithm = CubePruning
	}
	if m.search.StackSize <= 0 {
		m.search.StackSize = model.DefaultStackSize
	}
	if cfg.BeamThreshold <= 0 {
		m.search.BeamThreshold = -1
	}
	if m.search.CubePruningPopLimit <= 0 {
		m.search.CubePruningPopLimit = model.DefaultCubePruningPopLimit
	}
	m.search.CubePruningDiversity = max(0, m.search.CubePruningDiversity)
	var err error
	if m.search, err = m.searchOptions(opts.Search); err != nil {
		return nil, err
	}
	d, e := *m.search.DistortionLimit, *m.search.EarlyDistortionCost // not the caller's
	m.search.DistortionLimit, m.search.EarlyDistortionCost = &d, &e
	m.maxLen = cfg.MaxPhraseLength
	if m.maxLen <= 0 {
		m.maxLen = model.DefaultMaxPhraseLength
	}
	return m, nil
}

// sparseWeightNames returns the names of the features with a non-zero
// weight that are not the model's dense features, sorted.
func (m *Model) sparseWeightNames() []string {
	var out []string
	for id, x := range m.weights {
		if x != 0 && !m.isDense[feature.ID(id)] {
			out = append(out, m.index.Name(feature.ID(id)))
		}
	}
	slices.Sort(out)
	return out
}

// Templates returns the sparse feature templates the model fires.
func (m *Model) Templates() Templates { return m.tmpl }

// SparseWithoutTemplate returns, when the model was loaded with
// SparseFromWeights, the names of the features with a non-zero sparse
// weight that no template fires (so their weights have no effect), sorted.
func (m *Model) SparseWithoutTemplate() []string { return slices.Clone(m.noTemplate) }

// loadWeights takes the ini's weights and the weights files.
func (m *Model) loadWeights(ctx context.Context, opts LoadOptions) error {
	set := m.cfg.Weights
	if set == nil || set.Index != m.index {
		return fmt.Errorf("decoder: %w: moses.ini weights are not over the model's index", ErrConfig)
	}
	set = set.Clone()
	if opts.WeightsFile != "" {
		o, err := weights.Read(ctx, opts.WeightsFile, m.index)
		if err != nil {
			return fmt.Errorf("decoder: %w", err)
		}
		if err := m.mergeDense(set, o, opts.WeightsFile); err != nil {
			return err
		}
	}
	if opts.WeightOverwrite != "" {
		o, err := parseOverwrite(opts.WeightOverwrite, m.index)
		if err != nil {
			return err
		}
		if err := m.mergeDense(set, o, "-weight-overwrite"); err != nil {
			return err
		}
	}
	for _, path := range []string{m.cfg.WeightFile, opts.SparseWeightsFile} {
		if path == "" {
			continue
		}
		o, err := weights.ReadFormat(ctx, path, weights.Sparse, m.index)
		if err != nil {
			return fmt.Errorf("decoder: %w", err)
		}
		if err := set.Merge(o); err != nil {
			return fmt.Errorf("decoder: %w", err)
		}
	}
	w := set.Weights.Clone()
	for _, f := range m.feats {
		for _, id := range f.ids {
			if x := w.At(id); math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("decoder: %w: weight %s = %v", ErrConfig, m.index.Name(id), x)
			}
		}
	}
	if !w.Finite() {
		return fmt.Errorf("decoder: %w: a sparse weight is not finite", ErrConfig)
	}
	m.weights = w
	return nil
}

// parseOverwrite parses Moses' -weight-overwrite string spec
// (LoadOptions.WeightOverwrite) over idx.
func parseOverwrite(spec string, idx *feature.Index) (*weights.Set, error) {
	o, err := weights.ParseOverwrite(spec, idx)
	if err != nil {
		return nil, fmt.Errorf("decoder: -weight-overwrite %q: %w", spec, err)
	}
	return o, nil
}

// mergeDense merges the weights o, read from src, into set, once every
// group of o is checked to be a feature of the model with as many values.
func (m *Model) mergeDense(set, o *weights.Set, src string) error {
	for _, g := range o.Groups {
		fi := m.featureByName(g.Label)
		if fi < 0 {
			return fmt.Errorf("decoder: %w: %s has weights for %s, which the model does not have", ErrConfig, src, g.Label)
		}
		if m.feats[fi].n != g.Len {
			return fmt.Errorf("decoder: %w: %s has %d weights for %s, which has %d features", ErrConfig, src, g.Len, g.Label, m.feats[fi].n)
		}
	}
	if err := set.Merge(o); err != nil {
		return fmt.Errorf("decoder: %w", err)
	}
	return nil
}

func (m *Model) featureByName(name string) int {
	for i, f := range m.feats {
		if f.name == name {
			return i
		}
	}
	return -1
}

// loadTables reads the phrase table and reordering table (one after the
// other: the reordering scores attach to the phrase table's options)
// while the language model loads, then prunes the options.
func (m *Model) loadTables(ctx context.Context, opts LoadOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	fail := func(err error) {
		once.Do(func() {
			firstErr = fmt.Errorf("decoder: %w", err)
			cancel()
		})
	}
	tmf := &m.cfg.Features[m.fTM]
	allowEmpty := opts.AllowEmptyTables
	var keep *model.PhraseSet
	if opts.Sources != nil {
		keep, allowEmpty = sourcePhrases(opts.Sources, m.maxLen), true
	}
	wg.Go(func() {
		pt, err := model.LoadPhraseTable(ctx, tablePath(tmf, opts), model.PhraseTableOptions{
			NumScores: tmf.NumFeatures, Workers: opts.Workers, AllowEmpty: allowEmpty, Keep: keep})
		if err != nil {
			fail(err)
			return
		}
		m.timings.Options, m.timings.Sources = pt.NumOptions(), pt.NumSources()
		if m.fLR >= 0 {
			f := &m.cfg.Features[m.fLR]
			st, err := pt.LoadReordering(ctx, tablePath(f, opts), model.ReorderingOptions{
				Condition: m.lr.rt.Condition, NumScores: m.lr.rt.NumScores(), Workers: opts.Workers,
				AllowEmpty: allowEmpty, Keep: keep})
			if err != nil {
				fail(err)
				return
			}
			m.timings.Reordering = st
		}
		m.pt = pt
	})
	if m.fLM >= 0 {
		f := &m.cfg.Features[m.fLM]
		wg.Go(func() {
			load := opts.LoadLM
			if load == nil {
				load = func(ctx context.Context, path string) (*lm.Model, error) {
					return lm.Load(ctx, path, &lm.Options{Workers: opts.Workers})
				}
			}
			l, err := load(ctx, resolvePath(f.Path()))
			if err != nil {
				fail(err)
				return
			}
			m.lm = l
			m.timings.LMCounts = l.Counts()
		})
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("decoder: %w", err)
	}
	m.prepare(opts.Workers)
	m.dw = m.denseWeights(m.weights)
	return nil
}

// tablePath returns the file of table feature f: opts.TablePaths' or the
// moses.ini's.
func tablePath(f *model.Feature, opts LoadOptions) string {
	if p, ok := opts.TablePaths[f.Name]; ok {
		return p
	}
	return resolvePath(f.Path())
}

// resolvePath adds ".gz" to a local path that does not exist when the
// compressed file does, as Moses does for its tables.
func resolvePath(p string) string {
	if storage.IsGCS(p) {
		return p
	}
	if _, err := os.Stat(p); err != nil {
		if _, err := os.Stat(p + ".gz"); err == nil {
			return p + ".gz"
		}
	}
	return p
}

// ln10 is Moses' factor from log10 to ln (TransformLMScore), in float32.
const ln10 = float32(2.30258509299405)

// prepare maps the target vocabulary to LM ids, scores every option's target
// phrase with the LM, prunes to the table limit and computes the per-option
// arrays the search reads.
func (m *Model) prepare(workers int) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	pt := m.pt
	tv := pt.TargetVocab()
	m.tgtLM = make([]lm.WordID, tv.Len())
	if m.lm != nil {
		for i := range m.tgtLM {
			m.tgtLM[i] = m.lm.Index(tv.Word(int32(i)))
		}
	}
	// The pruning score of every option: its weighted score in isolation
	// (TargetPhrase::GetFutureScore).
	w := m.denseWeights(m.weights)
	n := pt.NumOptions()
	est, ngram := m.lmScores(n, workers)
	score := make([]float32, n)
	ns := pt.NumScores()
	parallelRange(n, workers, func(lo, hi int) {
		var logs []float32
		for o := lo; o < hi; o++ {
			logs = pt.LogScores(logs[:0], int32(o))
			s := 0.0
			for j := 0; j < ns; j++ {
				s += w.tm[j] * float64(logs[j])
			}
			s += w.wp*float64(-len(pt.Target(int32(o)))) + w.pp + w.lm*float64(est[o]+ngram[o])
			score[o] = float32(s)
		}
	})
	if m.tmpl.static() && w.sparse {
		sv := pt.SourceVocab()
		parallelRange(pt.NumSources(), workers, func(lo, hi int) {
			var sb sparseScratch
			var src []string
			for e := lo; e < hi; e++ {
				src = src[:0]
				for _, id := range pt.Source(int32(e)) {
					src = append(src, sv.Word(id))
				}
				a, b := pt.Options(int32(e))
				for o := a; o < b; o++ {
					score[o] += float32(m.staticSparseWeight(&sb, src, o, m.weights))
				}
			}
		})
	}
	limit := m.cfg.Features[m.fTM].TableLimit()
	order := pt.Prune(limit, func(o int32) float32 { return score[o] })
	score = nil
	n = pt.NumOptions()
	m.timings.Kept = n
	m.optLogs = make([]float32, n*ns)
	// The kept options' LM scores follow them: scoring them again would
	// give the same values.
	m.optLMEst, m.optLMNgram = make([]float32, n), make([]float32, n)
	for i, o := range order {
		m.optLMEst[i], m.optLMNgram[i] = est[o], ngram[o]
	}
	est, ngram = nil, nil
	nr := m.lr.n
	if m.fLR >= 0 {
		m.optLR = make([]float32, n*nr)
		m.optHasLR = make([]uint64, (n+63)/64)
	}
	parallelRange(n, workers, func(lo, hi int) {
		for o := lo; o < hi; o++ {
			pt.LogScores(m.optLogs[o*ns:o*ns:o*ns+ns], int32(o))
			if m.fLR >= 0 {
				if sc, ok := pt.Reordering(int32(o)); ok && len(sc) >= nr {
					for j := 0; j < nr; j++ {
						m.optLR[o*nr+j] = model.LogScore(sc[j])
					}
					// Word-aligned chunks: each worker's range starts at a
					// multiple of 64.
					m.optHasLR[o/64] |= 1 << (o % 64)
				}
			}
		}
	})
}

// lmScores returns the LM estimate and n-gram score (ln, as Moses'
// LanguageModel::EvaluateInIsolation computes them) of every option's
// target phrase.
func (m *Model) lmScores(n, workers int) (est, ngram []float32) {
	est = make([]float32, n)
	ngram = make([]float32, n)
	if m.lm == nil {
		return est, ngram
	}
	parallelRange(n, workers, func(lo, hi int) {
		var ids []lm.WordID
		for o := lo; o < hi; o++ {
			ids = ids[:0]
			for _, t := range m.pt.Target(int32(o)) {
				ids = append(ids, m.tgtLM[t])
			}
			est[o], ngram[o] = mosesPhraseScore(m.lm, ids)
		}
	})
	return est, ngram
}

// mosesPhraseScore converts lm.PhraseScore to Moses' natural-log values:
// ngramScore = TransformLMScore(full - beforeBoundary) and estimate =
// TransformLMScore(full) - ngramScore, in float32.
func mosesPhraseScore(l *lm.Model, ids []lm.WordID) (est, ngram float32) {
	if len(ids) == 0 {
		return 0, 0
	}
	e, g := l.PhraseScore(ids)
	full := e + g
	ngram = g * ln10
	est = full*ln10 - ngram
	return est, ngram
}

// parallelRange calls f on [lo, hi) ranges covering [0, n), in up to workers
// goroutines. Every range but the last starts and ends at a multiple of 64.
func parallelRange(n, workers int, f func(lo, hi int)) {
	if workers < 1 {
		workers = 1
	}
	chunk := (n + workers - 1) / workers
	chunk = (chunk + 63) &^ 63
	if chunk == 0 || workers == 1 || n < 4096 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Go(func() { f(lo, hi) })
	}
	wg.Wait()
}

// Index returns the Index the model's feature names are interned in.
func (m *Model) Index() *feature.Index { return m.index }

// Weights returns a copy of the model's weights (the moses.ini's, with the
// weights files of LoadOptions applied), over Index.
func (m *Model) Weights() feature.Weights { return m.weights.Clone() }

// Groups returns the dense features as Moses writes them in n-best lists:
// the stateful features (language model, distortion, lexicalized
// reordering) in moses.ini order, then the stateless ones, leaving out
// those that are not tuneable (UnknownWordPenalty by default).
func (m *Model) Groups() []feature.Group { return append([]feature.Group(nil), m.groups...) }

// AllGroups returns every dense feature in moses.ini order, tuneable or not.
func (m *Model) AllGroups() []feature.Group { return append([]feature.Group(nil), m.all...) }

// Config returns the moses.ini the model was loaded from. Do not modify it.
func (m *Model) Config() *model.Config { return m.cfg }

// Stats returns figures about the load.
func (m *Model) Stats() LoadStats { return m.timings }

// Search returns the model's search settings, every field set.
func (m *Model) Search() SearchOptions {
	s := m.search
	d, e := *s.DistortionLimit, *s.EarlyDistortionCost
	s.DistortionLimit, s.EarlyDistortionCost = &d, &e
	return s
}
