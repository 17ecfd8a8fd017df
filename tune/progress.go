package tune

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// decoded counts the sentences decoded in this process (decodeAll,
// decodeBatch): every decoding of a shard's learning, of a 1-best
// decoding and of batch mode. While a launch runs its workers in this
// process (prism's LOOPBACK environment, mtune's default, and the direct
// runner) the count rises as they decode; workers in other processes
// (a PROCESS or EXTERNAL environment, Dataflow) count in their own, which
// the driver cannot read while the job runs (Beam's Go SDK hands a job's
// metrics over when it ends: Metrics.Counters).
var decoded atomic.Int64

// Decoded returns the number of sentences decoded in this process so far.
func Decoded() int64 { return decoded.Load() }

// DecodeProgressEvery is how often WatchDecoding prints by default.
const DecodeProgressEvery = 10 * time.Second

// WatchDecoding prints to w, every every (DecodeProgressEvery if 0) until
// the function it returns is called, a line of the launch label (e.g.
// "epoch 3/5") is running: how many of its total sentences have been
// decoded in this process since WatchDecoding was called, and the time
// left at that rate. While none has been decoded here it says how long
// the launch has run. The returned function stops the printing and
// returns once no line is being printed. A nil w prints nothing.
func WatchDecoding(w io.Writer, label string, total int, every time.Duration) (stop func()) {
	if w == nil || total <= 0 {
		return func() {}
	}
	if every <= 0 {
		every = DecodeProgressEvery
	}
	base, start := decoded.Load(), time.Now()
	done := make(chan struct{})
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
				fmt.Fprintln(w, DecodeProgressLine(label, decoded.Load()-base, int64(total), time.Since(start)))
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		wg.Wait()
	}
}

// DecodeProgressLine is the line WatchDecoding prints when n of total
// sentences were decoded in elapsed.
func DecodeProgressLine(label string, n, total int64, elapsed time.Duration) string {
	if n <= 0 {
		return fmt.Sprintf("%s: running for %.0f s; 0/%d sentences decoded in this process (workers in other processes report theirs when the launch ends)",
			label, elapsed.Seconds(), total)
	}
	n = min(n, total)
	left := time.Duration(float64(elapsed) * float64(total-n) / float64(n))
	return fmt.Sprintf("%s: %d/%d sentences decoded, %.0f s in, about %.0f s left", label, n, total, elapsed.Seconds(), left.Seconds())
}
