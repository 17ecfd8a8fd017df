package poolfile

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/batch"
	"github.com/mtune/mtune/learner/mert"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/testsupport/shared"
	"github.com/mtune/mtune/testsupport/testfile"
)

// samePool fails t unless a and b are the same tuning problem: the index's
// names in order, the lists hypothesis by hypothesis, the starting weights.
func samePool(t *testing.T, what string, a, b Tuning) {
	t.Helper()
	if !slices.Equal(a.Index.Names(), b.Index.Names()) {
		t.Fatalf("%s: features %v, want %v", what, b.Index.Names(), a.Index.Names())
	}
	if !slices.Equal(a.Weights, b.Weights) || !slices.Equal(a.Set.Groups, b.Set.Groups) {
		t.Fatalf("%s: weights %v groups %v, want %v %v", what, b.Weights, b.Set.Groups, a.Weights, a.Set.Groups)
	}
	if len(a.Lists) != len(b.Lists) {
		t.Fatalf("%s: %d lists, want %d", what, len(b.Lists), len(a.Lists))
	}
	for i, l := range a.Lists {
		m := b.Lists[i]
		if m.Sent != l.Sent || len(m.Hyps) != len(l.Hyps) {
			t.Fatalf("%s: list %d: sentence %d with %d hypotheses, want %d with %d", what, i, m.Sent, len(m.Hyps), l.Sent, len(l.Hyps))
		}
		for k, h := range l.Hyps {
			if !m.Hyps[k].Features.Equal(h.Features) || m.Hyps[k].Stats() != h.Stats() {
				t.Fatalf("%s: list %d hypothesis %d differs", what, i, k)
			}
		}
	}
}

// TestPoolCache: a pool read from its cache is the pool read from the
// n-best files; a missing, stale, truncated or corrupt cache is rebuilt
// with the reason said, and the pool is still the files'.
func TestPoolCache(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write := testfile.Writer(t, dir)
	ref := write("ref", "a b\nc d\ne f\n")
	sc := loadScorer(t, ref)
	nb := write("nb", "0 ||| a b ||| LM0= -1 TM0= 0 -2 ||| 0\n0 ||| a x ||| LM0= -3 TM0= 0.5 -1 ||| 0\n0 ||| a y ||| LM0= -3 TM0= 1 -1 pp_a 2 ||| 0\n"+
		"1 ||| c d ||| LM0= -2 TM0= -1 0.25 pp_c 1 ||| 0\n2 ||| e ||| LM0= -2 TM0= -1 3 ||| 0\n")
	init := write("init", "LM0= 0.5\nTM0= 0.25 -0.25\n")
	want, err := LoadTuning(ctx, []string{nb}, init, sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "pool.cache")
	opts := Options{Cache: cache, CacheInputs: []string{ref}}
	load := func(what, note string) {
		t.Helper()
		got, err := LoadTuning(ctx, []string{nb}, init, sc, opts)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !strings.Contains(got.Cache, note) {
			t.Errorf("%s: cache %q, want one with %q", what, got.Cache, note)
		}
		samePool(t, what, want, got)
	}
	load("missing", "does not exist")
	load("written", "read "+cache)
	data, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, note string
		data       []byte
	}{
		{"empty", "bad magic", nil},
		{"another format", "bad magic", append([]byte("mtune-pool\x00\x02"), data[12:]...)},
		{"truncated in the names", "checksum mismatch", data[:60]},
		{"truncated in the lists", "checksum mismatch", data[:len(data)/2]},
		{"no checksum", "checksum mismatch", data[:len(data)-4]},
		{"bad checksum", "checksum mismatch", append(slices.Clone(data[:len(data)-1]), data[len(data)-1]^1)},
		{"a value flipped", "checksum mismatch", func() []byte { d := slices.Clone(data); d[len(d)-20] ^= 0x40; return d }()},
		{"data after", "checksum mismatch", append(slices.Clone(data), 0)},
		{"other key", "no pool cache of these inputs", func() []byte { d := slices.Clone(data); d[12] ^= 1; return d }()},
	} {
		if err := os.WriteFile(cache, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		load(tc.name, tc.note)
		load(tc.name+", rebuilt", "read "+cache)
	}
	// Another input (references, weights, n-best list) makes it stale.
	if err := os.WriteFile(init, []byte("LM0= 0.5\nTM0= 0.25 -0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if want, err = LoadTuning(ctx, []string{nb}, init, sc, Options{}); err != nil {
		t.Fatal(err)
	}
	load("init changed", "no pool cache of these inputs")
	load("init changed, rebuilt", "read "+cache)
}

// TestPoolCacheWeights: on europarl100, MERT's and kb-MIRA's weights from
// the pool read from its cache are those from the n-best file.
func TestPoolCacheWeights(t *testing.T) {
	ctx := context.Background()
	src := shared.Path(t, "nbest", "europarl100")
	sc := loadScorer(t, filepath.Join(src, "reference"))
	nb, init := []string{filepath.Join(src, "nbest.gz")}, filepath.Join(src, "init.weights")
	opts := Options{Cache: filepath.Join(t.TempDir(), "cache"), CacheInputs: []string{filepath.Join(src, "reference")}}
	var runs []Tuning
	for _, o := range []Options{{}, opts, opts} {
		tu, err := LoadTuning(ctx, nb, init, sc, o)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, tu)
	}
	if !strings.HasPrefix(runs[2].Cache, "read ") {
		t.Fatalf("third load: cache %q", runs[2].Cache)
	}
	learn := func(tu Tuning) (feature.Weights, feature.Weights) {
		m := mert.New(tu.Weights, mert.Options{Seed: 1, Restarts: 3})
		if err := m.Learn(ctx, tu.Lists); err != nil {
			t.Fatal(err)
		}
		k, err := batch.NewMIRA(tu.Weights, batch.MIRAOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Learn(ctx, tu.Lists); err != nil {
			t.Fatal(err)
		}
		return m.Weights(), k.Weights()
	}
	m0, k0 := learn(runs[0])
	m2, k2 := learn(runs[2])
	if !slices.Equal(m0, m2) || !slices.Equal(k0, k2) {
		t.Errorf("weights from the cache: MERT %v kb-MIRA %v; from the file: %v %v", m2, k2, m0, k0)
	}
	if pool.Size(runs[2].Lists) != pool.Size(runs[0].Lists) {
		t.Errorf("%d hypotheses from the cache, %d from the file", pool.Size(runs[2].Lists), pool.Size(runs[0].Lists))
	}
}

// FuzzPoolCache: decoding any bytes returns an error or a pool whose
// feature ids the index holds and whose vectors are well formed; it never
// panics.
func FuzzPoolCache(f *testing.F) {
	var key [32]byte
	idx := feature.NewIndexOf("a", "b", "c")
	v := func(ids []feature.ID, x ...float64) feature.Vector { return feature.Vector{IDs: ids, Vals: x} }
	sts := []metric.Stats{metric.StatsOf(1, 2, 3), metric.StatsOf(4, 5, 6)}
	lists := []pool.List{
		{Sent: 0, Hyps: pool.NewHyps([]feature.Vector{v([]feature.ID{0, 1}, 1, 2), v([]feature.ID{0, 1}, 3, 4)}, sts)},
		{Sent: 3, Hyps: pool.NewHyps([]feature.Vector{v([]feature.ID{2}, 5), {}}, sts)},
	}
	path := filepath.Join(f.TempDir(), "c")
	if err := writeCache(path, key, idx, []feature.Group{{Label: "a", Len: 2}}, lists); err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte(cacheMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		idx := feature.NewIndex()
		got, _, err := decodeCache(bufio.NewReader(bytes.NewReader(b)), key, idx)
		if err != nil {
			return
		}
		for _, l := range got {
			for _, h := range l.Hyps {
				if len(h.Features.IDs) != len(h.Features.Vals) {
					t.Fatalf("vector with %d ids and %d values", len(h.Features.IDs), len(h.Features.Vals))
				}
				for j, id := range h.Features.IDs {
					if int(id) >= idx.Len() || (j > 0 && id <= h.Features.IDs[j-1]) {
						t.Fatalf("ids %v over %d features", h.Features.IDs, idx.Len())
					}
				}
			}
		}
	})
}
