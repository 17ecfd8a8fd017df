package decoder

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/io/storage"
)

// StreamOptions control Translate. The zero value decodes with one
// goroutine, writes no n-best lists and shows no progress.
type StreamOptions struct {
	// Decode controls each sentence's search and its n-best list.
	Decode DecodeOptions
	// Threads is the number of decoding goroutines (0 or less: 1).
	Threads int
	// NBestPath is the file the n-best lists go to (local or gs://,
	// .gz/.zst allowed), which appears atomically when all is written;
	// "" means none.
	NBestPath string
	// Progress, if not nil, receives a line on how far a long input is
	// (see progress); nil means none.
	Progress io.Writer
}

// chunkSize is the number of sentences Translate decodes between two
// writes, so that output flows while a long input is decoded.
const chunkSize = 256

// Translate decodes input with m in chunks of chunkSize sentences, writing
// each sentence's 1-best target, one a line, to out as its chunk is done,
// and the n-best lists to o.NBestPath.
func Translate(ctx context.Context, m *Model, input []string, out io.Writer, o StreamOptions) error {
	bw := bufio.NewWriter(out)
	var nbw *storage.Writer
	var lists *nbest.Writer
	if o.NBestPath != "" {
		var err error
		if nbw, err = storage.Create(ctx, o.NBestPath); err != nil {
			return err
		}
		defer nbw.Abort()
		lists = m.NewNBestWriter(nbw)
	}
	var prog *progress
	if o.Progress != nil {
		prog = newProgress(o.Progress, len(input), time.Now)
	}
	for lo := 0; lo < len(input); lo += chunkSize {
		hi := min(lo+chunkSize, len(input))
		res, err := DecodeAll(ctx, m, input[lo:hi], o.Decode, o.Threads)
		if err != nil {
			return err
		}
		for k := range res {
			if _, err := fmt.Fprintln(bw, res[k].Best.Target); err != nil {
				return err
			}
			if lists != nil {
				for i := range res[k].NBest {
					if err := lists.Write(m.NBestEntry(lo+k, &res[k].NBest[i])); err != nil {
						return err
					}
				}
			}
		}
		if lists != nil {
			if lists.Flush(); lists.Error() != nil {
				return lists.Error()
			}
		}
		if prog != nil {
			prog.update(hi)
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if nbw != nil {
		return nbw.Close()
	}
	return nil
}

// progressInterval is how long a run lasts before progress shows, and the
// time between two progress lines.
const progressInterval = 5 * time.Second

// progress prints how far a long run is: sentences done, sentences a
// second and the time left, one line at most every progressInterval, and
// nothing for a run shorter than that.
type progress struct {
	w     io.Writer
	now   func() time.Time
	total int
	start time.Time
	last  time.Time
}

func newProgress(w io.Writer, total int, now func() time.Time) *progress {
	t := now()
	return &progress{w: w, now: now, total: total, start: t, last: t}
}

// update reports that done sentences are translated.
func (p *progress) update(done int) {
	t := p.now()
	if t.Sub(p.last) < progressInterval || done >= p.total {
		return
	}
	p.last = t
	secs := t.Sub(p.start).Seconds()
	rate := float64(done) / secs
	eta := "unknown"
	if rate > 0 {
		eta = (time.Duration(float64(p.total-done) / rate * float64(time.Second))).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "decode: %d/%d sentences, %.1f sentences/s, %s left\n", done, p.total, rate, eta)
}
