package decoder

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mtune/mtune/decoder/model"
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/proctemp"
	"github.com/mtune/mtune/io/storage"
)

// Per-shard model filtering, as Moses' filter-model-given-input.pl: a
// worker that decodes a few sentences loads only the phrase-table and
// reordering entries whose source phrase occurs in them. Decoding those
// sentences with the filtered model gives what the full model gives: every
// option of a kept source phrase is kept, so the table limit prunes them
// alike, and a source phrase that is not kept is never looked up. The
// language model is not filtered.
//
// The filtered tables are cached on the local disk, under a key that hashes
// the identity of each table (path, size and modification time; a gs://
// object's generation, CRC32C and size) and the sentences, so a worker that
// decodes the same shard in every epoch filters once.

// filterVersion names the filter's output format and rules in the cache key:
// change it when they change.
const filterVersion = "mtune filtered tables v1"

// FilterCache says where LoadFiltered keeps the filtered tables between
// calls.
type FilterCache struct {
	// Dir is the cache folder on the local disk; "" means
	// os.UserCacheDir()/mtune/filtered, or no cache when there is no user
	// cache folder or it cannot be made.
	Dir string
	// Off filters without a cache: the filtered tables go to a temporary
	// folder that is removed once they are loaded.
	Off bool
}

// FilterStats reports what LoadFiltered did.
type FilterStats struct {
	// PhraseTable and Reordering count the lines of the full table
	// (Lines) and of the filtered one (Kept, Bytes); Reordering is zero
	// without a reordering table. On a cache hit they are those of the
	// call that filtered, read from the cache entry.
	PhraseTable, Reordering model.FilterStats
	// Sentences is the number of distinct sentences filtered for, Phrases
	// the number of distinct word sequences of them (up to the
	// max-phrase-length).
	Sentences, Phrases int
	// CacheHit is set when the filtered tables came from the cache, whose
	// entry (a folder) is Entry; Entry is "" without a cache.
	CacheHit bool
	Entry    string
	// Filter is the time taken to find the filtered tables: streaming the
	// full tables on a miss, checking the entry on a hit. Load is the
	// time Load took on the filtered tables, Wall the whole call's.
	Filter, Load, Wall time.Duration
}

// LoadFiltered is Load for a model that decodes only the sentences
// sources (words separated by white space, as Decode reads them): its
// phrase table and lexicalized reordering table hold only the entries
// whose source phrase occurs in one of them, as a contiguous sequence of
// at most max-phrase-length words. Decoding any sentence of sources with
// the model gives the same n-best lists, features and scores as with the
// model Load returns; other sentences lose the phrases they do not share
// with sources.
//
// The filtered tables are read from cache when an earlier call made them
// for the same tables (as identified by path, size and modification time,
// or a gs:// object's generation) and the same set of sentences (order and
// repeats do not matter); otherwise the full tables are streamed, never
// held in memory, and the filtered ones written to the cache. A cache
// entry that does not match its manifest (cut short, changed) is rebuilt.
// Every line of the full tables is checked for its "|||" fields, and every
// kept line as Load checks it; errors name the full table's file and line.
func LoadFiltered(ctx context.Context, iniPath string, sources []string, opts LoadOptions, cache FilterCache) (*Model, FilterStats, error) {
	start := time.Now()
	var st FilterStats
	cfg, err := model.LoadConfig(ctx, iniPath, model.ConfigOptions{Getenv: opts.Getenv, Index: feature.NewIndex()})
	if err != nil {
		return nil, st, fmt.Errorf("decoder: %w", err)
	}
	tables, err := filterTables(cfg, opts)
	if err != nil {
		return nil, st, err
	}
	sents := distinctSentences(sources)
	maxLen := cfg.MaxPhraseLength
	if maxLen <= 0 {
		maxLen = model.DefaultMaxPhraseLength
	}
	st.Sentences = len(sents)
	for i := range tables {
		if tables[i].identity, err = tableIdentity(ctx, tables[i].path); err != nil {
			return nil, st, err
		}
	}
	key := filterKey(tables, sents, maxLen)

	dir, err := cache.dir()
	if err != nil {
		return nil, st, err
	}
	var entry string
	if dir != "" {
		entry = filepath.Join(dir, key)
		st.Entry = entry
		st.CacheHit = readEntry(entry, key, tables)
	}
	var set *model.PhraseSet
	if !st.CacheHit {
		if entry == "" {
			// No cache: a temporary folder, removed on return, or by
			// the next process's sweep if this one is killed.
			if entry, err = proctemp.MkdirTemp("mtune-filtered"); err != nil {
				return nil, st, fmt.Errorf("decoder: filter: %w", err)
			}
			defer os.RemoveAll(entry)
		}
		set = sourcePhrases(sents, maxLen)
		if err := buildEntry(ctx, entry, key, tables, set, opts.Workers); err != nil {
			return nil, st, err
		}
		st.Phrases = set.Len()
	}
	st.Filter = time.Since(start)

	lo := opts
	lo.TablePaths = make(map[string]string, len(opts.TablePaths)+len(tables))
	for k, v := range opts.TablePaths {
		lo.TablePaths[k] = v
	}
	for _, t := range tables {
		lo.TablePaths[t.feature] = filepath.Join(entry, t.file)
		if t.reordering {
			st.Reordering = t.stats
		} else {
			st.PhraseTable = t.stats
		}
		st.Phrases = max(st.Phrases, t.phrases)
	}
	lo.AllowEmptyTables = true
	loadStart := time.Now()
	m, err := Load(ctx, iniPath, lo)
	if err != nil {
		return nil, st, err
	}
	st.Load = time.Since(loadStart)
	st.Wall = time.Since(start)
	return m, st, nil
}

// filterTable is one table LoadFiltered filters, and what the filter or
// the cache entry says of it.
type filterTable struct {
	feature    string
	reordering bool
	path       string
	numScores  int
	cond       model.Condition
	identity   string
	file       string // in the cache entry
	stats      model.FilterStats
	phrases    int
	crc        uint32
}

// filterTables returns the tables of cfg's phrase table and lexicalized
// reordering features, in ini order, with their paths as Load opens them.
func filterTables(cfg *model.Config, opts LoadOptions) ([]filterTable, error) {
	var out []filterTable
	for i := range cfg.Features {
		f := &cfg.Features[i]
		t := filterTable{feature: f.Name, path: tablePath(f, opts), numScores: f.NumFeatures}
		switch f.Type {
		case model.TypePhraseDictionaryMemory:
			t.file = fmt.Sprintf("phrase-table.%d", len(out))
		case model.TypeLexicalReordering:
			rt, err := f.ReorderingType()
			if err != nil {
				return nil, fmt.Errorf("decoder: %s: %w", f.Name, err)
			}
			t.reordering, t.cond = true, rt.Condition
			t.file = fmt.Sprintf("reordering-table.%d", len(out))
		default:
			continue
		}
		if t.path == "" {
			return nil, fmt.Errorf("decoder: %w: %s has no path=", ErrConfig, f.Name)
		}
		out = append(out, t)
	}
	return out, nil
}

// sourcePhrases returns the set of the source phrases sentences can use:
// their contiguous word sequences (words split as Decode splits them) of at
// most maxLen words. LoadFiltered and Load with LoadOptions.Sources keep
// the table lines whose source phrase is in it.
func sourcePhrases(sentences []string, maxLen int) *model.PhraseSet {
	words := make([][]string, len(sentences))
	for i, s := range sentences {
		words[i] = strings.Fields(s)
	}
	return model.NewPhraseSet(words, maxLen)
}

// distinctSentences returns the sentences with their words separated by
// one space, sorted, without repeats.
func distinctSentences(sources []string) []string {
	out := make([]string, 0, len(sources))
	for _, s := range sources {
		out = append(out, strings.Join(strings.Fields(s), " "))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// filterKey is the cache key: the SHA-256, in hex, of the filter version,
// the phrase length limit, each table's feature, kind and identity, and
// the distinct sentences.
func filterKey(tables []filterTable, sents []string, maxLen int) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\nmax-phrase-length %d\n", filterVersion, maxLen)
	for _, t := range tables {
		fmt.Fprintf(h, "table %q %s %d %d %q\n", t.feature, t.file, t.numScores, t.cond, t.identity)
	}
	fmt.Fprintf(h, "sentences %d\n", len(sents))
	for _, s := range sents {
		fmt.Fprintf(h, "%d %s\n", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// dir returns the cache folder, "" for no cache.
func (c FilterCache) dir() (string, error) {
	if c.Off {
		return "", nil
	}
	if c.Dir != "" {
		if err := os.MkdirAll(c.Dir, 0o777); err != nil {
			return "", fmt.Errorf("decoder: filter cache: %w", err)
		}
		return c.Dir, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", nil
	}
	d := filepath.Join(base, "mtune", "filtered")
	if err := os.MkdirAll(d, 0o777); err != nil {
		return "", nil
	}
	return d, nil
}

// tableIdentity returns what names the content of the table at path
// without reading it (storage.Identity).
func tableIdentity(ctx context.Context, path string) (string, error) {
	id, err := storage.Identity(ctx, path)
	if err != nil {
		return "", fmt.Errorf("decoder: filter: %w", err)
	}
	return id, nil
}

// manifestName is the file of a cache entry written last: what the entry
// holds, with the size and checksum of each file.
const manifestName = "MANIFEST.json"

type manifest struct {
	Version string          `json:"version"`
	Key     string          `json:"key"`
	Phrases int             `json:"phrases"`
	Tables  []manifestTable `json:"tables"`
}

type manifestTable struct {
	Feature  string `json:"feature"`
	Source   string `json:"source"`
	Identity string `json:"identity"`
	File     string `json:"file"`
	Lines    int    `json:"lines"`
	Kept     int    `json:"kept"`
	Bytes    int64  `json:"bytes"`
	CRC32C   uint32 `json:"crc32c"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// readEntry reports whether the cache entry is complete and intact: its
// manifest names the tables and key, and every file has the manifest's
// size and CRC32C. It then sets the tables' stats and files.
func readEntry(entry, key string, tables []filterTable) bool {
	data, err := os.ReadFile(filepath.Join(entry, manifestName))
	if err != nil {
		return false
	}
	var man manifest
	if err := json.Unmarshal(data, &man); err != nil || man.Version != filterVersion || man.Key != key || len(man.Tables) != len(tables) {
		return false
	}
	for i, mt := range man.Tables {
		t := &tables[i]
		if mt.Feature != t.feature || mt.Identity != t.identity || mt.File != t.file || mt.Kept > mt.Lines {
			return false
		}
		size, crc, err := checksum(filepath.Join(entry, mt.File))
		if err != nil || size != mt.Bytes || crc != mt.CRC32C {
			return false
		}
	}
	for i, mt := range man.Tables {
		tables[i].stats = model.FilterStats{Lines: mt.Lines, Kept: mt.Kept, Bytes: mt.Bytes}
		tables[i].phrases = man.Phrases
	}
	return true
}

// checksum returns the size and CRC32C of the file at path.
func checksum(path string) (int64, uint32, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	h := crc32.New(castagnoli)
	n, err := io.Copy(h, f)
	return n, h.Sum32(), err
}

// buildEntry filters the tables into the folder entry, the tables at once,
// then writes the manifest. Every file is written atomically (a temporary
// file renamed), so two processes that fill the same entry at once write
// the same content and a reader never sees a file cut short; a process
// killed before the manifest leaves an entry that readEntry refuses.
func buildEntry(ctx context.Context, entry, key string, tables []filterTable, set *model.PhraseSet, workers int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(tables))
	var wg sync.WaitGroup
	for i := range tables {
		wg.Go(func() {
			if errs[i] = filterOne(ctx, entry, &tables[i], set, workers); errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	// The first error in ini order that is not the cancellation another
	// error caused.
	var first error
	for _, err := range errs {
		if err != nil && (first == nil || errors.Is(first, context.Canceled) && !errors.Is(err, context.Canceled)) {
			first = err
		}
	}
	if first != nil {
		return first
	}
	man := manifest{Version: filterVersion, Key: key, Phrases: set.Len()}
	for i := range tables {
		t := &tables[i]
		t.phrases = set.Len()
		// A table replaced while it was read must not be cached under the
		// identity of the old one.
		id, err := tableIdentity(ctx, t.path)
		if err != nil {
			return err
		}
		if id != t.identity {
			return fmt.Errorf("decoder: filter: %s changed while it was filtered", t.path)
		}
		man.Tables = append(man.Tables, manifestTable{Feature: t.feature, Source: t.path, Identity: t.identity,
			File: t.file, Lines: t.stats.Lines, Kept: t.stats.Kept, Bytes: t.stats.Bytes, CRC32C: t.crc})
	}
	data, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return fmt.Errorf("decoder: filter: %w", err)
	}
	if err := storage.WriteFile(ctx, filepath.Join(entry, manifestName), append(data, '\n')); err != nil {
		return fmt.Errorf("decoder: filter cache: %w", err)
	}
	return nil
}

// filterOne streams table t into its file of entry.
func filterOne(ctx context.Context, entry string, t *filterTable, set *model.PhraseSet, workers int) error {
	rc, err := storage.Open(ctx, t.path)
	if err != nil {
		return fmt.Errorf("decoder: filter: %w", err)
	}
	defer rc.Close()
	out := filepath.Join(entry, t.file)
	w, err := storage.Create(ctx, out)
	if err != nil {
		return fmt.Errorf("decoder: filter: %w", err)
	}
	h := crc32.New(castagnoli)
	mw := io.MultiWriter(w, h)
	fo := model.FilterOptions{NumScores: t.numScores, Condition: t.cond, Workers: workers}
	if t.reordering {
		t.stats, err = model.FilterReordering(ctx, rc, t.path, mw, set, fo)
	} else {
		t.stats, err = model.FilterPhraseTable(ctx, rc, t.path, mw, set, fo)
	}
	if err != nil {
		w.Abort()
		return fmt.Errorf("decoder: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("decoder: filter: %w", err)
	}
	t.crc = h.Sum32()
	return nil
}

// String returns the figures of s on one line, for logs.
func (s FilterStats) String() string {
	hit := "miss"
	if s.CacheHit {
		hit = "hit"
	}
	return fmt.Sprintf("%d sentences; phrase table %d of %d lines kept; reordering %d of %d; cache %s; filter %v, load %v",
		s.Sentences, s.PhraseTable.Kept, s.PhraseTable.Lines, s.Reordering.Kept, s.Reordering.Lines, hit,
		s.Filter.Round(time.Millisecond), s.Load.Round(time.Millisecond))
}
