package tune

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/mtune/mtune/io/storage"
)

// decoded counts the sentences decoded in this process (decodeAll,
// decodeBatch): every decoding of a shard's learning, of a 1-best
// decoding and of batch mode. While a launch runs its workers in this
// process (prism's LOOPBACK environment, mtune's default, and the direct
// runner) the count rises as they decode. Workers in other processes (a
// PROCESS or EXTERNAL environment, Dataflow) count in their own, which
// Beam's Go SDK hands the driver only when the job ends: they also write
// their count, every progressWriteEvery, to the launch's progress folder
// (DecodeOptions.Progress), where WatchDecoding reads it.
var decoded atomic.Int64

// progressWriteEvery is how often a process writes its count of a
// progress folder.
const progressWriteEvery = 2 * time.Second

// progressSink is one process's count of the sentences it decoded for
// one progress folder, and when it last wrote it there.
type progressSink struct {
	n       atomic.Int64
	mu      sync.Mutex // held while writing
	last    time.Time
	written int64 // the count last written
}

var (
	sinksMu sync.Mutex
	sinks   = map[string]*progressSink{}
	// processTag names this process's progress files: host, pid and a
	// random part, so that processes of other hosts or PID namespaces do
	// not share a file.
	processTag = func() string {
		host, _ := os.Hostname()
		host = strings.Map(func(r rune) rune {
			if r == '/' || r == '\\' || unicode.IsSpace(r) {
				return '_'
			}
			return r
		}, host)
		return fmt.Sprintf("%s-%d-%08x", host, os.Getpid(), rand.Uint32())
	}()
)

// countDecoded records n more sentences decoded under o: in this
// process's count and, when o names a progress folder, in this process's
// file there (written at most every progressWriteEvery; progress is
// advisory, so a failed write is passed over: it loses a line of
// progress, never a result).
func countDecoded(ctx context.Context, o DecodeOptions, n int) {
	decoded.Add(int64(n))
	if o.Progress == "" {
		return
	}
	s := progressSinkOf(o.Progress)
	s.n.Add(int64(n))
	if !s.mu.TryLock() {
		return // another goroutine is writing it
	}
	defer s.mu.Unlock()
	if time.Since(s.last) < progressWriteEvery {
		return
	}
	s.write(ctx, o.Progress)
}

// flushDecoded writes this process's count of o's progress folder if it
// changed since it was last written: at the end of a shard's learning
// (Session.Run, RunStale; once a shard, not once a mini-batch, which on
// GCS would be a write every few sentences), so that once a launch's job
// has ended the files count every sentence its workers decoded, whatever
// progressWriteEvery held back.
func flushDecoded(ctx context.Context, o DecodeOptions) {
	if o.Progress == "" {
		return
	}
	s := progressSinkOf(o.Progress)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n.Load() != s.written {
		s.write(ctx, o.Progress)
	}
}

// progressSinkOf returns this process's count of the progress folder dir.
func progressSinkOf(dir string) *progressSink {
	sinksMu.Lock()
	defer sinksMu.Unlock()
	s := sinks[dir]
	if s == nil {
		s = &progressSink{}
		sinks[dir] = s
	}
	return s
}

// write writes s's count to this process's file of dir; s.mu is held.
func (s *progressSink) write(ctx context.Context, dir string) {
	s.last = time.Now()
	n := s.n.Load()
	if storage.WriteFile(ctx, storage.Join(dir, "decoded-"+processTag), []byte(strconv.FormatInt(n, 10)+"\n")) == nil {
		s.written = n
	}
}

// readProgress returns the sum of the counts the processes wrote to the
// progress folder dir (0 if there are none yet).
func readProgress(ctx context.Context, dir string) int64 {
	files, err := storage.List(ctx, dir)
	if err != nil {
		return 0
	}
	var sum int64
	for _, f := range files {
		data, err := storage.ReadFile(ctx, f)
		if err != nil {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil && n > 0 {
			sum += n
		}
	}
	return sum
}

// Decoded returns the number of sentences decoded in this process so far.
func Decoded() int64 { return decoded.Load() }

// DecodeProgressEvery is how often WatchDecoding prints by default.
const DecodeProgressEvery = 10 * time.Second

// WatchDecoding prints to w, every every (DecodeProgressEvery if 0) until
// the function it returns is called, a line of the launch label (e.g.
// "epoch 3/5") is running: how many of its total sentences have been
// decoded — in this process since WatchDecoding was called, or as the
// workers' files in the launch's progress folder dir ("" for none) count
// them, whichever is more — and the time left at that rate. While none has
// been decoded it says how long the launch has run. The returned function
// stops the printing and, when a line was printed, prints the closing
// line (DecodeDoneLine) with the count at the launch's end; it returns
// once no line is being printed. A nil w prints nothing.
func WatchDecoding(ctx context.Context, w io.Writer, label string, total int, every time.Duration, dir string) (stop func()) {
	if w == nil || total <= 0 {
		return func() {}
	}
	if every <= 0 {
		every = DecodeProgressEvery
	}
	base, start := decoded.Load(), time.Now()
	count := func() int64 {
		n := decoded.Load() - base
		if dir != "" {
			n = max(n, readProgress(ctx, dir))
		}
		return n
	}
	done := make(chan struct{})
	printed := false // written by the goroutine, read after wg.Wait
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fmt.Fprintln(w, DecodeProgressLine(label, count(), int64(total), time.Since(start)))
				printed = true
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
			if n := count(); printed && n > 0 {
				fmt.Fprintln(w, DecodeDoneLine(label, n, int64(total), time.Since(start)))
			}
		})
	}
}

// DecodeProgressLine is the line WatchDecoding prints when n of total
// sentences were decoded in elapsed.
func DecodeProgressLine(label string, n, total int64, elapsed time.Duration) string {
	if n <= 0 {
		return fmt.Sprintf("%s: running for %.0f s; 0/%d sentences decoded so far", label, elapsed.Seconds(), total)
	}
	n = min(n, total)
	left := time.Duration(float64(elapsed) * float64(total-n) / float64(n))
	return fmt.Sprintf("%s: %d/%d sentences decoded, %.0f s in, about %.0f s left", label, n, total, elapsed.Seconds(), left.Seconds())
}

// DecodeDoneLine is the line WatchDecoding closes with when the launch
// decoded n of its total sentences in elapsed.
func DecodeDoneLine(label string, n, total int64, elapsed time.Duration) string {
	return fmt.Sprintf("%s: %d/%d sentences decoded in %.0f s", label, min(n, total), total, elapsed.Seconds())
}
