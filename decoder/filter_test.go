package decoder

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/decoder/model"
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/testsupport/gcstest"
	"github.com/mtune/mtune/testsupport/shared"
	"github.com/mtune/mtune/testsupport/storagetest"
)

// modelEnv returns a Getenv that sets name to dir.
func modelEnv(name, dir string) func(string) (string, bool) {
	return func(n string) (string, bool) {
		if n == name {
			return dir, true
		}
		return os.LookupEnv(n)
	}
}

// sameDecodes decodes every sentence with both models (n-best 10) and
// checks that the n-best lists are the same: targets, segmentations,
// alignments, features and scores, exactly. The models must share an Index.
func sameDecodes(t *testing.T, full, filtered *Model, sentences []string) {
	t.Helper()
	sameDecodesWith(t, full, filtered, sentences, ModelAlgorithm)
}

// sameDecodesWith is sameDecodes with a search algorithm.
func sameDecodesWith(t *testing.T, full, filtered *Model, sentences []string, alg Algorithm) {
	t.Helper()
	ctx := context.Background()
	opts := DecodeOptions{NBest: 10, Search: SearchOptions{Algorithm: alg}}
	for i, s := range sentences {
		want, err := Decode(ctx, full, s, opts)
		if err != nil {
			t.Fatalf("sentence %d: full model: %v", i, err)
		}
		got, err := Decode(ctx, filtered, s, opts)
		if err != nil {
			t.Fatalf("sentence %d: filtered model: %v", i, err)
		}
		if len(got.NBest) != len(want.NBest) {
			t.Errorf("sentence %d: %d hypotheses, the full model %d", i, len(got.NBest), len(want.NBest))
			continue
		}
		for k := range want.NBest {
			g, w := &got.NBest[k], &want.NBest[k]
			switch {
			case g.Target != w.Target:
				t.Errorf("sentence %d #%d: %q, the full model %q", i, k, g.Target, w.Target)
			case g.Score != w.Score:
				t.Errorf("sentence %d #%d %q: score %v, the full model %v", i, k, g.Target, g.Score, w.Score)
			case !g.Features.Equal(w.Features):
				t.Errorf("sentence %d #%d %q: features %v, the full model %v", i, k, g.Target, g.Features, w.Features)
			case g.SegmentationString() != w.SegmentationString() || !slices.Equal(g.Alignment, w.Alignment):
				t.Errorf("sentence %d #%d %q: segmentation %s, the full model %s", i, k, g.Target, g.SegmentationString(), w.SegmentationString())
			}
		}
	}
}

// TestLoadFilteredDecodesAsFull checks that a model filtered to some
// sentences decodes them as the full model does, on the europarl-fr-en-8k
// model (tune lines 8001–8024) and Moses' lexicalized-reordering-fr-en.
func TestLoadFilteredDecodesAsFull(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes with the 8k model")
	}
	tests := []struct {
		name      string
		model     string
		sentences func(t *testing.T, dir string) []string
		// full loads the full model; nil means Load with MODEL_PATH.
		full func(t *testing.T) *Model
		// algorithms are the searches compared; nil means the model's.
		algorithms []Algorithm
	}{
		{"europarl-8k", "europarl-fr-en-8k",
			func(t *testing.T, _ string) []string { return europarlLines(t, "fr.gz", 8001, 8024) },
			func(t *testing.T) *Model { return load8k(t) }, nil},
		{"lexicalized-reordering", "lexicalized-reordering-fr-en",
			func(t *testing.T, dir string) []string { return readLines(t, filepath.Join(dir, "to-translate.txt")) },
			nil, []Algorithm{StackSearch, CubePruning}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := shared.Path(t, "moses-models", tc.model)
			ini := filepath.Join(dir, "moses.ini")
			env := modelEnv("MODEL_PATH", dir)
			var full *Model
			if tc.full != nil {
				full = tc.full(t)
			} else {
				var err error
				if full, err = Load(context.Background(), ini, LoadOptions{Getenv: env}); err != nil {
					t.Fatal(err)
				}
			}
			sents := tc.sentences(t, dir)
			m, st, err := LoadFiltered(context.Background(), ini, sents, LoadOptions{Getenv: env, Index: full.Index()},
				FilterCache{Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s", st)
			if st.CacheHit || st.Sentences != len(sents) || st.PhraseTable.Kept == 0 || st.PhraseTable.Kept >= st.PhraseTable.Lines ||
				st.Reordering.Kept == 0 || st.Reordering.Kept >= st.Reordering.Lines {
				t.Errorf("stats %+v", st)
			}
			if full.Stats().Options != st.PhraseTable.Lines {
				t.Errorf("full model has %d options, the filter read %d lines", full.Stats().Options, st.PhraseTable.Lines)
			}
			if m.Stats().Options != st.PhraseTable.Kept {
				t.Errorf("filtered model has %d options, the filter kept %d lines", m.Stats().Options, st.PhraseTable.Kept)
			}
			if tc.algorithms == nil {
				sameDecodes(t, full, m, sents)
			}
			for _, alg := range tc.algorithms {
				sameDecodesWith(t, full, m, sents, alg)
			}
		})
	}
}

// lrModel returns the moses.ini of Moses' lexicalized-reordering-fr-en,
// its Getenv and its sentences.
func lrModel(t *testing.T) (ini string, env func(string) (string, bool), sents []string) {
	dir := shared.Path(t, "moses-models", "lexicalized-reordering-fr-en")
	return filepath.Join(dir, "moses.ini"), modelEnv("MODEL_PATH", dir), readLines(t, filepath.Join(dir, "to-translate.txt"))
}

// TestLoadFilteredCache checks the cache: a second call with the same
// sentences (in another order, repeated, spaced otherwise) hits it and
// gives the same model; other sentences miss; an entry that was cut short,
// changed or left without its manifest is rebuilt; a table that changes
// gets a new entry.
func TestLoadFilteredCache(t *testing.T) {
	ini, env, sents := lrModel(t)
	ctx := context.Background()
	idx := feature.NewIndex()
	opts := LoadOptions{Getenv: env, Index: idx}
	cache := FilterCache{Dir: t.TempDir()}
	first, st1, err := LoadFiltered(ctx, ini, sents, opts, cache)
	if err != nil {
		t.Fatal(err)
	}
	if st1.CacheHit || st1.Entry == "" || filepath.Dir(st1.Entry) != cache.Dir {
		t.Fatalf("first call: %+v", st1)
	}

	same := slices.Clone(sents)
	slices.Reverse(same)
	same = append(same, "  "+strings.ReplaceAll(sents[0], " ", "\t "))
	second, st2, err := LoadFiltered(ctx, ini, same, opts, cache)
	if err != nil {
		t.Fatal(err)
	}
	if !st2.CacheHit || st2.Entry != st1.Entry || st2.PhraseTable != st1.PhraseTable || st2.Reordering != st1.Reordering ||
		st2.Phrases != st1.Phrases || st2.Sentences != st1.Sentences {
		t.Fatalf("second call: %+v, first %+v", st2, st1)
	}
	if first.Stats().Kept != second.Stats().Kept || first.Stats().Reordering != second.Stats().Reordering {
		t.Errorf("second model: %+v, first %+v", second.Stats(), first.Stats())
	}
	sameDecodes(t, first, second, sents)

	if _, st, err := LoadFiltered(ctx, ini, sents[:2], opts, cache); err != nil || st.CacheHit || st.Entry == st1.Entry {
		t.Errorf("other sentences: %+v, %v", st, err)
	}

	entry := st1.Entry
	tests := []struct {
		name  string
		spoil func(t *testing.T)
	}{
		{"phrase table truncated", func(t *testing.T) { truncate(t, entryFile(t, entry, "phrase-table"), 0.5) }},
		{"reordering table truncated", func(t *testing.T) { truncate(t, entryFile(t, entry, "reordering-table"), 0.9) }},
		{"phrase table changed", func(t *testing.T) {
			p := entryFile(t, entry, "phrase-table")
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			data[len(data)/2] ^= 1
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"table missing", func(t *testing.T) { remove(t, entryFile(t, entry, "reordering-table")) }},
		{"manifest missing", func(t *testing.T) { remove(t, filepath.Join(entry, manifestName)) }},
		{"manifest truncated", func(t *testing.T) { truncate(t, filepath.Join(entry, manifestName), 0.5) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.spoil(t)
			m, st, err := LoadFiltered(ctx, ini, sents, opts, cache)
			if err != nil {
				t.Fatal(err)
			}
			if st.CacheHit || st.Entry != entry || st.PhraseTable != st1.PhraseTable || st.Reordering != st1.Reordering {
				t.Fatalf("spoilt entry: %+v, first call %+v", st, st1)
			}
			sameDecodes(t, first, m, sents)
			if _, st, err := LoadFiltered(ctx, ini, sents, opts, cache); err != nil || !st.CacheHit {
				t.Fatalf("after the rebuild: %+v, %v", st, err)
			}
		})
	}

	t.Run("table changed", func(t *testing.T) {
		// A copy of the model whose phrase table is then touched.
		dir := t.TempDir()
		src := filepath.Dir(ini)
		for _, name := range []string{"moses.ini", "phrase-table.0-0.gz", "reordering-table.msd-bidirectional-fe.0.5.0-0.gz", "europarl.lm.gz"} {
			data, err := os.ReadFile(filepath.Join(src, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ini := filepath.Join(dir, "moses.ini")
		o := LoadOptions{Getenv: modelEnv("MODEL_PATH", dir), Index: idx}
		_, a, err := LoadFiltered(ctx, ini, sents, o, cache)
		if err != nil {
			t.Fatal(err)
		}
		pt := filepath.Join(dir, "phrase-table.0-0.gz")
		fi, err := os.Stat(pt)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(pt, fi.ModTime(), fi.ModTime().Add(1e9)); err != nil {
			t.Fatal(err)
		}
		_, b, err := LoadFiltered(ctx, ini, sents, o, cache)
		if err != nil {
			t.Fatal(err)
		}
		if a.CacheHit || b.CacheHit || a.Entry == b.Entry {
			t.Errorf("before the change %+v, after %+v", a, b)
		}
	})
}

// entryFile returns the file of a cache entry whose name starts with
// prefix.
func entryFile(t *testing.T, entry, prefix string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(entry, prefix+".*"))
	if err != nil || len(m) != 1 {
		t.Fatalf("entry %s: files %s.*: %v, %v", entry, prefix, m, err)
	}
	return m[0]
}

// truncate cuts the file at path to frac of its size.
func truncate(t *testing.T, path string, frac float64) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, int64(float64(fi.Size())*frac)); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

// TestLoadFilteredConcurrent fills one cache entry from several goroutines
// at once: every call succeeds, and the entry is then a hit.
func TestLoadFilteredConcurrent(t *testing.T) {
	ini := writeSmall(t, nil)
	cache := FilterCache{Dir: t.TempDir()}
	ctx := context.Background()
	sents := []string{"le chat noir dort", "le chat"}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			_, _, err := LoadFiltered(ctx, ini, sents, LoadOptions{Workers: 1}, cache)
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if _, st, err := LoadFiltered(ctx, ini, sents, LoadOptions{}, cache); err != nil || !st.CacheHit || st.PhraseTable.Kept != 9 {
		t.Fatalf("after concurrent fills: %+v, %v", st, err)
	}
}

// smallSourceCases are the small model's inputs (writeSmall) with the
// lines of its phrase table and reordering model they use: what
// LoadFiltered keeps and Load with Sources attaches.
var smallSourceCases = []struct {
	name           string
	sents          []string
	ptKept, loKept int // phrase table and reordering lines kept (attached)
}{
	{"all phrases", []string{"le chat noir dort"}, 9, 7},
	{"one word", []string{"dort"}, 2, 1},
	// "le noir" holds le and noir, not "chat noir" or "le chat".
	{"no phrase across sentences", []string{"le noir", "chat"}, 4, 4},
	{"unknown words", []string{"un chien aboie", "xyz"}, 0, 0},
	{"unknown and known", []string{"le chien dort"}, 4, 3},
	{"no sentence", []string{}, 0, 0}, // not nil: Load takes nil Sources for every line
	{"empty sentence", []string{"", "  "}, 0, 0},
}

// nonBlank returns the sentences of sents that hold a word.
func nonBlank(sents []string) []string {
	var out []string
	for _, s := range sents {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// TestLoadFilteredSmall checks the lines kept of the tiny system and its
// decodes, with and without a cache, including sentences that hold no
// known phrase (every word is then copied, as the full model copies it).
func TestLoadFilteredSmall(t *testing.T) {
	ini := writeSmall(t, nil)
	ctx := context.Background()
	idx := feature.NewIndex()
	full, err := Load(ctx, ini, LoadOptions{Index: idx})
	if err != nil {
		t.Fatal(err)
	}
	tests := smallSourceCases
	for _, tc := range tests {
		for _, cache := range []FilterCache{{Off: true}, {Dir: t.TempDir()}} {
			t.Run(tc.name, func(t *testing.T) {
				m, st, err := LoadFiltered(ctx, ini, tc.sents, LoadOptions{Index: idx}, cache)
				if err != nil {
					t.Fatal(err)
				}
				if st.PhraseTable.Lines != 9 || st.Reordering.Lines != 7 || st.PhraseTable.Kept != tc.ptKept || st.Reordering.Kept != tc.loKept {
					t.Errorf("stats %+v, want %d and %d lines kept", st, tc.ptKept, tc.loKept)
				}
				if cache.Off != (st.Entry == "") {
					t.Errorf("cache %+v: entry %q", cache, st.Entry)
				}
				if m.Stats().Options != tc.ptKept {
					t.Errorf("model has %d options, want %d", m.Stats().Options, tc.ptKept)
				}
				sameDecodes(t, full, m, nonBlank(tc.sents))
			})
		}
	}
	if _, st, err := LoadFiltered(ctx, ini, []string{"dort"}, LoadOptions{Index: idx}, FilterCache{Off: true}); err != nil {
		t.Fatal(err)
	} else if _, err := os.Stat(st.Entry); st.Entry != "" || err == nil {
		t.Errorf("without a cache the filtered tables are left at %q", st.Entry)
	}
}

// TestLoadFilteredErrors checks that bad tables give errors naming the
// file and line, whether the bad line is kept or not.
func TestLoadFilteredErrors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		file   string // the file spoilt
		edit   func(string) string
		sents  []string
		want   []string // in the message
		wantIs error
	}{
		{"missing phrase table", "phrase-table", nil, []string{"le chat"},
			[]string{"phrase-table"}, fs.ErrNotExist},
		{"missing reordering table", "reordering-table", nil, []string{"le chat"},
			[]string{"reordering-table"}, fs.ErrNotExist},
		{"phrase line without fields, dropped", "phrase-table",
			func(s string) string { return s + "chien dog 0.5 0.5 0.5 0.5\n" }, []string{"le chat"},
			[]string{"phrase-table:10", "3 fields"}, model.ErrSyntax},
		{"phrase line with a bad score, kept", "phrase-table",
			func(s string) string { return strings.Replace(s, "0.8 0.7 0.9 0.8", "0.8 x 0.9 0.8", 1) }, []string{"le chat"},
			[]string{"phrase-table:3:", `"x"`}, model.ErrNumber},
		{"phrase line with too few scores, kept", "phrase-table",
			func(s string) string { return strings.Replace(s, "0.9 0.9 0.9 0.9", "0.9 0.9 0.9", 1) }, []string{"dort"},
			[]string{"phrase-table:7:", "3 scores, want 4"}, model.ErrCount},
		{"phrase line with a bad alignment, kept", "phrase-table",
			func(s string) string { return strings.Replace(s, "0-0 1-1 ||| 3 3 2", "0-0 1-7 ||| 3 3 2", 1) }, []string{"le chat"},
			[]string{"phrase-table:4:", "1-7"}, model.ErrSyntax},
		{"phrase lines with other counts, kept", "phrase-table",
			func(s string) string { return strings.Replace(s, "||| 4 4 3", "||| 4 4", 1) }, []string{"le chat"},
			[]string{"phrase-table:3:", "counts"}, model.ErrCount},
		{"reordering line without fields", "reordering-table",
			func(s string) string { return strings.Replace(s, "dort ||| sleeps |||", "dort sleeps |||", 1) }, []string{"le chat"},
			[]string{"reordering-table:7", "2 fields, want 3"}, model.ErrSyntax},
		{"reordering line with a bad score, kept", "reordering-table",
			func(s string) string { return strings.Replace(s, "0.8 0.1 0.1 0.7", "0.8 -1 0.1 0.7", 1) }, []string{"le chat"},
			[]string{"reordering-table:4:", `"-1"`}, model.ErrNumber},
		{"reordering line with 5 scores, kept", "reordering-table",
			func(s string) string { return strings.Replace(s, "0.3 0.6 0.1 0.2 0.6 0.2", "0.3 0.6 0.1 0.2 0.6", 1) }, []string{"noir"},
			[]string{"reordering-table:5:", "5 scores, want 6"}, model.ErrCount},
		{"empty phrase table", "phrase-table", func(string) string { return "\n" }, []string{"le chat"},
			[]string{"phrase-table", "no entries"}, model.ErrEmpty},
		{"invalid UTF-8, kept", "phrase-table",
			func(s string) string { return strings.Replace(s, "le chat ||| the cat", "le chat ||| the \xff", 1) }, []string{"le chat"},
			[]string{"phrase-table:4:"}, model.ErrUTF8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ini := writeSmall(t, nil)
			p := filepath.Join(filepath.Dir(ini), tc.file)
			if tc.edit == nil {
				remove(t, p)
			} else {
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(tc.edit(string(data))), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cache := FilterCache{Dir: t.TempDir()}
			m, _, err := LoadFiltered(ctx, ini, tc.sents, LoadOptions{}, cache)
			if err == nil {
				t.Fatalf("no error; model %+v", m.Stats())
			}
			t.Logf("%v", err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if !errors.Is(err, tc.wantIs) {
				t.Errorf("error %q is not %v", err, tc.wantIs)
			}
			// Nothing is cached: a failed filter leaves no manifest.
			if matches, _ := filepath.Glob(filepath.Join(cache.Dir, "*", manifestName)); len(matches) > 0 {
				t.Errorf("a failed filter left %v", matches)
			}
		})
	}
}

// TestLoadFilteredGCS filters tables on gs:// (an in-process emulator): the
// cache key takes the objects' generations, so a second call hits the
// cache and a rewritten object misses it.
func TestLoadFilteredGCS(t *testing.T) {
	c, _ := gcstest.Fake(t, "mtune-test")
	storagetest.UseGCS(t, c)
	ctx := context.Background()
	for name, text := range map[string]string{"phrase-table.gz": smallPhraseTable, "reordering-table": smallReordering} {
		if err := storage.WriteFile(ctx, "gs://mtune-test/m/"+name, []byte(text)); err != nil {
			t.Fatal(err)
		}
	}
	ini := writeSmall(t, func(s string) string {
		s = strings.Replace(s, "path=phrase-table", "path=gs://mtune-test/m/phrase-table.gz", 1)
		return strings.Replace(s, "path=reordering-table", "path=gs://mtune-test/m/reordering-table", 1)
	})
	idx := feature.NewIndex()
	full, err := Load(ctx, ini, LoadOptions{Index: idx})
	if err != nil {
		t.Fatal(err)
	}
	cache := FilterCache{Dir: t.TempDir()}
	sents := []string{"le chat dort"}
	var entries []string
	for i, want := range []bool{false, true, false} {
		if i == 2 { // the same content, a new generation
			if err := storage.WriteFile(ctx, "gs://mtune-test/m/reordering-table", []byte(smallReordering)); err != nil {
				t.Fatal(err)
			}
		}
		m, st, err := LoadFiltered(ctx, ini, sents, LoadOptions{Index: idx}, cache)
		if err != nil {
			t.Fatal(err)
		}
		if st.CacheHit != want || st.PhraseTable.Kept != 6 || st.Reordering.Kept != 5 {
			t.Errorf("call %d: %+v, want hit %v", i, st, want)
		}
		entries = append(entries, st.Entry)
		sameDecodes(t, full, m, sents)
	}
	if entries[0] != entries[1] || entries[1] == entries[2] {
		t.Errorf("entries %q", entries)
	}
	storage.Remove(ctx, "gs://mtune-test/m/phrase-table.gz")
	_, _, err = LoadFiltered(ctx, ini, sents, LoadOptions{Index: idx}, cache)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "gs://mtune-test/m/phrase-table.gz") {
		t.Errorf("missing object: %v", err)
	}
}
