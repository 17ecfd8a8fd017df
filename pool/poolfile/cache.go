package poolfile

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// A pool cache is a scored, de-duplicated pool written in binary, which a
// later run on the same inputs reads instead of parsing and scoring the
// n-best files again (as Moses' mert reuses features.dat and scores.dat).
// Its layout, integers as unsigned varints, floats as 8 little-endian bytes:
//
//	magic "mtune-pool\x00" and version byte 1
//	key: 32 bytes, the SHA-256 of the inputs' identity (cacheKey)
//	feature names: count, then each as length and bytes (the index's order)
//	dense groups: count, then each as label (length, bytes) and size
//	lists: count, then each as sentence id and hypothesis count, and each
//	  hypothesis as feature count, a byte 1 if its ids are the previous
//	  hypothesis' (else 0 and the ids), the values, the statistics' count
//	  and the statistics
//	CRC-32 (IEEE) of everything before it, 4 little-endian bytes
//
// A file whose key differs is stale and rebuilt; one that is truncated,
// corrupt or fails a check is refused with an error saying why, and
// rebuilt: a cache is never read partly.
const cacheMagic = "mtune-pool\x00\x01"

// cacheName starts every pool cache, whatever its version: a file that
// does not start so is not a pool cache, and never written over.
const cacheName = "mtune-pool\x00"

// ErrNotCache is wrapped by CheckCache's error for a file that is not a
// pool cache of any version, or one that is an input.
var ErrNotCache = errors.New("poolfile: not a pool cache")

// CheckCache refuses, before any work, a pool cache path that is one of
// the run's inputs (compared cleaned: storage.Clean) or an existing file
// that is not a pool cache of any version (another file of the user's,
// which writing the cache would replace): no input is ever an output.
func CheckCache(path string, inputs ...string) error {
	c, err := storage.Clean(path)
	if err != nil {
		return err
	}
	for _, in := range inputs {
		if ic, err := storage.Clean(in); err == nil && ic == c {
			return fmt.Errorf("%w: --pool-cache %s is an input of the run (%s): give the cache another name", ErrNotCache, path, in)
		}
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("poolfile: pool cache: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return fmt.Errorf("%w: --pool-cache %s is a folder", ErrNotCache, path)
	}
	head := make([]byte, len(cacheName))
	n, _ := io.ReadFull(f, head)
	if n > 0 && string(head[:n]) != cacheName { // an empty file holds nothing to lose
		return fmt.Errorf("%w: --pool-cache %s holds a file that is not a pool cache of mtune's, which writing the cache would replace: give the cache another name, or remove the file", ErrNotCache, path)
	}
	return nil
}

// ErrCacheStale is wrapped by readCache's error when the cache is of other
// inputs or settings (or does not exist).
var ErrCacheStale = errors.New("poolfile: no pool cache of these inputs and settings")

// cacheKey returns the SHA-256 of the identity of a pool's inputs: the
// settings (metric, format, …) and, for each file, its path, size,
// modification time and contents' SHA-256. A file on gs:// makes it fail:
// the cache is for local files.
func cacheKey(settings []string, files []string) ([32]byte, error) {
	h := sha256.New()
	put := func(s string) { fmt.Fprintf(h, "%d:%s;", len(s), s) }
	put(cacheMagic)
	for _, s := range settings {
		put(s)
	}
	for _, p := range files {
		if storage.IsGCS(p) {
			return [32]byte{}, fmt.Errorf("poolfile: pool cache: %s is on GCS; the cache is keyed by local files only", p)
		}
		f, err := os.Open(p)
		if err != nil {
			return [32]byte{}, fmt.Errorf("poolfile: pool cache key: %w", err)
		}
		st, err := f.Stat()
		if err == nil {
			c := sha256.New()
			_, err = io.Copy(c, f)
			put(p)
			put(strconv.FormatInt(st.Size(), 10))
			put(strconv.FormatInt(st.ModTime().UnixNano(), 10))
			put(string(c.Sum(nil)))
		}
		f.Close()
		if err != nil {
			return [32]byte{}, fmt.Errorf("poolfile: pool cache key: %s: %w", p, err)
		}
	}
	var k [32]byte
	copy(k[:], h.Sum(nil))
	return k, nil
}

// writeCache writes the pool lists, with the feature names of idx and the
// dense groups, to the local file path under key, atomically: a temporary
// file beside it renamed over it once complete.
func writeCache(path string, key [32]byte, idx *feature.Index, groups []feature.Group, lists []pool.List) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("poolfile: write pool cache: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("poolfile: write pool cache %s: %w", path, err)
		}
	}()
	crc := crc32.NewIEEE()
	w := bufio.NewWriterSize(io.MultiWriter(tmp, crc), 1<<20)
	var buf [binary.MaxVarintLen64]byte
	uv := func(x uint64) { w.Write(buf[:binary.PutUvarint(buf[:], x)]) }
	str := func(s string) { uv(uint64(len(s))); w.WriteString(s) }
	f64 := func(x float64) { binary.LittleEndian.PutUint64(buf[:8], math.Float64bits(x)); w.Write(buf[:8]) }
	w.WriteString(cacheMagic)
	w.Write(key[:])
	names := idx.Names()
	uv(uint64(len(names)))
	for _, n := range names {
		str(n)
	}
	uv(uint64(len(groups)))
	for _, g := range groups {
		str(g.Label)
		uv(uint64(g.Len))
	}
	uv(uint64(len(lists)))
	for _, l := range lists {
		uv(uint64(l.Sent))
		uv(uint64(len(l.Hyps)))
		var prev []feature.ID
		for k, h := range l.Hyps {
			ids := h.Features.IDs
			uv(uint64(len(ids)))
			if len(ids) > 0 {
				if k > 0 && len(prev) == len(ids) && &prev[0] == &ids[0] {
					w.WriteByte(1)
				} else {
					w.WriteByte(0)
					for _, id := range ids {
						uv(uint64(id))
					}
				}
				for _, x := range h.Features.Vals {
					f64(x)
				}
			}
			prev = ids
			st := h.StatsValues()
			uv(uint64(len(st)))
			for _, x := range st {
				f64(x)
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(buf[:4], crc.Sum32())
	if _, err := tmp.Write(buf[:4]); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// cacheReader reads a pool cache, its first error sticking.
type cacheReader struct {
	r   *bufio.Reader
	err error
}

func (c *cacheReader) byte() byte {
	if c.err != nil {
		return 0
	}
	b, err := c.r.ReadByte()
	if err != nil {
		c.err = err
		return 0
	}
	return b
}

func (c *cacheReader) full(p []byte) {
	if c.err != nil {
		return
	}
	if _, err := io.ReadFull(c.r, p); err != nil {
		c.err = err
	}
}

// uv reads an unsigned varint no larger than max.
func (c *cacheReader) uv(max uint64, what string) uint64 {
	var x uint64
	for s := uint(0); c.err == nil; s += 7 {
		b := c.byte()
		if s >= 63 && b > 1 {
			c.err = fmt.Errorf("%s: varint overflows", what)
			return 0
		}
		x |= uint64(b&0x7f) << s
		if b < 0x80 {
			break
		}
	}
	if c.err == nil && x > max {
		c.err = fmt.Errorf("%s %d: more than %d", what, x, max)
	}
	return x
}

func (c *cacheReader) f64() float64 {
	var b [8]byte
	c.full(b[:])
	return math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
}

func (c *cacheReader) str(what string) string {
	b := make([]byte, c.uv(1<<16, what+" length"))
	c.full(b)
	return string(b)
}

// readCache reads the pool cache at path if its key is key: the lists,
// their features interned in idx, and the dense groups. The names of the
// cache must intern in idx to the ids they had when it was written (idx
// holds the initial weights' names first, as the key's inputs fix them).
// A missing file or another key is an error wrapping ErrCacheStale; a
// truncated or corrupt file is an error naming what is wrong.
func readCache(path string, key [32]byte, idx *feature.Index) ([]pool.List, []feature.Group, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("%w: %s does not exist", ErrCacheStale, path)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("poolfile: read pool cache: %w", err)
	}
	defer f.Close()
	if err := checkCache(f, key); errors.Is(err, ErrCacheStale) {
		return nil, nil, fmt.Errorf("%w (%s)", err, path)
	} else if err != nil {
		return nil, nil, fmt.Errorf("poolfile: read pool cache %s: %w", path, err)
	}
	lists, groups, err := decodeCache(bufio.NewReaderSize(f, 1<<20), key, idx)
	if err != nil && !errors.Is(err, ErrCacheStale) {
		return nil, nil, fmt.Errorf("poolfile: read pool cache %s: %w", path, err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w (%s)", err, path)
	}
	return lists, groups, nil
}

// checkCache checks the magic and key of the pool cache f (another key is
// ErrCacheStale) and the checksum at its end against the rest, reading it
// once, and leaves f at its start.
func checkCache(f *os.File, key [32]byte) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	var head [len(cacheMagic) + 32]byte
	if _, err := io.ReadFull(f, head[:]); err != nil || string(head[:len(cacheMagic)]) != cacheMagic {
		return errors.New("not a pool cache of this version (bad magic)")
	}
	if [32]byte(head[len(cacheMagic):]) != key {
		return ErrCacheStale
	}
	crc := crc32.NewIEEE()
	crc.Write(head[:])
	if _, err := io.CopyN(crc, f, st.Size()-4-int64(len(head))); err != nil {
		return err
	}
	var tail [4]byte
	if _, err := io.ReadFull(f, tail[:]); err != nil {
		return err
	}
	if binary.LittleEndian.Uint32(tail[:]) != crc.Sum32() {
		return errors.New("checksum mismatch: the file is corrupt or truncated")
	}
	_, err = f.Seek(0, io.SeekStart)
	return err
}

// decodeCache decodes a pool cache from r (readCache), whose checksum
// checkCache has checked: it checks every count and id still.
func decodeCache(r *bufio.Reader, key [32]byte, idx *feature.Index) ([]pool.List, []feature.Group, error) {
	c := &cacheReader{r: r}
	var head [len(cacheMagic) + 32]byte
	c.full(head[:])
	if c.err != nil || string(head[:len(cacheMagic)]) != cacheMagic {
		return nil, nil, errors.New("not a pool cache of this version (bad magic)")
	}
	if [32]byte(head[len(cacheMagic):]) != key {
		return nil, nil, ErrCacheStale
	}
	nNames := c.uv(1<<28, "feature count")
	for i := uint64(0); i < nNames && c.err == nil; i++ {
		name := c.str("feature name")
		if c.err == nil && idx.ID(name) != feature.ID(i) {
			c.err = fmt.Errorf("feature %q interns to id %d, not %d as when the cache was written", name, idx.ID(name), i)
		}
	}
	var groups []feature.Group
	nGroups := c.uv(1<<16, "group count")
	for i := uint64(0); i < nGroups && c.err == nil; i++ {
		g := feature.Group{Label: c.str("group label")}
		g.Len = int(c.uv(nNames, "group size"))
		groups = append(groups, g)
	}
	var lists []pool.List
	nLists := c.uv(1<<40, "list count")
	var (
		fs   []feature.Vector
		sts  []metric.Stats
		ids  []feature.ID
		vals []float64
	)
	last := -1
	for i := uint64(0); i < nLists && c.err == nil; i++ {
		sent := int(c.uv(1<<40, "sentence id"))
		if c.err == nil && sent <= last {
			c.err = fmt.Errorf("list %d: sentence id %d after %d", i, sent, last)
		}
		last = sent
		nHyps := c.uv(1<<32, "hypothesis count")
		fs, sts, ids, vals = fs[:0], sts[:0], ids[:0], vals[:0]
		var prev []feature.ID
		for k := uint64(0); k < nHyps && c.err == nil; k++ {
			n := int(c.uv(nNames, "feature count of a hypothesis"))
			var v feature.Vector
			if n > 0 {
				switch c.byte() {
				case 1:
					if len(prev) != n {
						c.err = fmt.Errorf("list %d hypothesis %d: shares %d ids with a hypothesis of %d", i, k, n, len(prev))
					}
					v.IDs = prev
				case 0:
					start := len(ids)
					for j := 0; j < n && c.err == nil; j++ {
						id := feature.ID(c.uv(nNames-1, "feature id"))
						if j > 0 && id <= ids[len(ids)-1] {
							c.err = fmt.Errorf("list %d hypothesis %d: feature ids not increasing", i, k)
						}
						ids = append(ids, id)
					}
					v.IDs = ids[start:len(ids):len(ids)]
				default:
					c.err = fmt.Errorf("list %d hypothesis %d: bad id flag", i, k)
				}
				start := len(vals)
				for j := 0; j < n && c.err == nil; j++ {
					vals = append(vals, c.f64())
				}
				v.Vals = vals[start:len(vals):len(vals)]
			}
			prev = v.IDs
			var st metric.Stats
			st.N = int(c.uv(metric.MaxStats, "statistics count"))
			for j := 0; j < st.N && c.err == nil; j++ {
				st.V[j] = c.f64()
			}
			fs, sts = append(fs, v), append(sts, st)
		}
		if c.err == nil {
			lists = append(lists, pool.List{Sent: sent, Hyps: pool.NewHyps(fs, sts)})
		}
	}
	if c.err != nil {
		if errors.Is(c.err, io.EOF) || errors.Is(c.err, io.ErrUnexpectedEOF) {
			return nil, nil, errors.New("truncated")
		}
		return nil, nil, c.err
	}
	var tail [4]byte
	if _, err := io.ReadFull(r, tail[:]); err != nil {
		return nil, nil, errors.New("truncated (no checksum)")
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return nil, nil, errors.New("data after the checksum")
	}
	return lists, groups, nil
}
