package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"github.com/mtune/mtune/decoder"
	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/io/storage"
)

// decodeFlags registers the flags of "mtune decode" and returns the
// command.
func decodeFlags(fs *flag.FlagSet) runFunc {
	ini := fs.String("config", "", "the model's moses.ini (paths may use ${NAME} from the environment)")
	weightsPath := fs.String("weights", "", "weights replacing the moses.ini's [weight] section (any format rerank takes)")
	sparsePath := fs.String("sparse-weights", "", "Moses sparse weights file ('name value' lines)")
	sparse := fs.String("sparse", "", "sparse feature templates to switch on, comma-separated: pt (phrase pairs), al (alignments), lo (reordering classes), tu (target unaligned), cb (count bins), lb (length bins), or all")
	nb := fs.Int("nbest", 0, "size of the n-best lists (distinct targets); 0 = none unless the moses.ini asks")
	nbOut := fs.String("nbest-out", "", "file for the n-best lists (local or gs://, .gz/.zst allowed)")
	threads := fs.Int("threads", runtime.NumCPU(), "decoding goroutines (the default is this machine's cores)")
	var search decoder.SearchOptions
	fs.Func("search-algorithm", "search: 0 (normal, Moses' stack search) or 1 (cube pruning); default: the moses.ini's [search-algorithm]", func(v string) (err error) {
		search.Algorithm, err = decoder.ParseAlgorithm(v)
		return err
	})
	fs.IntVar(&search.CubePruningPopLimit, "cube-pruning-pop-limit", 0, "cube pruning: hypotheses popped into each stack (default: the moses.ini's, else Moses' 1000)")
	fs.IntVar(&search.CubePruningDiversity, "cube-pruning-diversity", 0, "cube pruning: hypotheses of each coverage popped after the pop limit; 0 = none (default: the moses.ini's, else 0)")
	return func(ctx context.Context, a *app, args []string) error {
		if len(args) > 1 {
			return usagef("one input file at most, got %d", len(args))
		}
		if *ini == "" {
			return usagef("--config is required")
		}
		if err := positiveFlags(fs, "threads"); err != nil {
			return err
		}
		if *nb < 0 {
			return usagef("--nbest %d: must be positive (leave it out for no n-best lists)", *nb)
		}
		if (*nb > 0) != (*nbOut != "") {
			return usagef("--nbest and --nbest-out go together")
		}
		if err := positiveFlags(fs, "cube-pruning-pop-limit"); err != nil {
			return err
		}
		if search.CubePruningDiversity < 0 {
			return usagef("--cube-pruning-diversity %d: must not be negative", search.CubePruningDiversity)
		}
		if search.CubePruningDiversity == 0 && flagSet(fs, "cube-pruning-diversity") {
			search.CubePruningDiversity = -1 // a typed-in 0: none, whatever the moses.ini says
		}
		opts := decoder.LoadOptions{WeightsFile: *weightsPath, SparseWeightsFile: *sparsePath, SparseFromWeights: true, Search: search}
		if *sparse != "" {
			t, err := decoder.ParseTemplates(strings.Split(*sparse, ",")...)
			if err != nil {
				return usagef("--sparse: %v", err)
			}
			opts.Sparse = t
		}
		var input []string
		var err error
		if len(args) == 1 {
			input, err = corpus.ReadFile(ctx, args[0])
		} else {
			input, err = corpus.ReadLines(a.stdin)
		}
		if err != nil {
			return err
		}
		start := time.Now()
		m, err := decoder.Load(ctx, *ini, opts)
		if err != nil {
			return err
		}
		loaded := time.Since(start)
		if t := m.Templates(); t != opts.Sparse {
			slog.Info("decode: the weights have sparse features: switched on their templates", "sparse", strings.Join(t.Names(), ","))
		}
		if none := m.SparseWithoutTemplate(); len(none) > 0 {
			slog.Warn("decode: weights for sparse features no template fires (they have no effect)", "count", len(none), "names", namesForMessage(none))
		}
		slog.Info("decode: loaded the model", "seconds", fmt.Sprintf("%.1f", loaded.Seconds()), "sentences", len(input), "threads", *threads)
		return decodeAll(ctx, a, m, input, *nb, *nbOut, *threads, loaded)
	}
}

// decodeAll translates input in chunks (so that output flows while a long
// input is decoded), writing the 1-best to stdout and the n-best lists to
// nbOut, which appears atomically when all is written.
func decodeAll(ctx context.Context, a *app, m *decoder.Model, input []string, nb int, nbOut string, threads int, loaded time.Duration) error {
	out := bufio.NewWriter(a.stdout)
	var nbw *storage.Writer
	var lists *nbest.Writer
	if nbOut != "" {
		var err error
		if nbw, err = storage.Create(ctx, nbOut); err != nil {
			return err
		}
		defer nbw.Abort()
		lists = m.NewNBestWriter(nbw)
	}
	start := time.Now()
	prog := newProgress(a.stderr, len(input), time.Now)
	const chunk = 256
	for lo := 0; lo < len(input); lo += chunk {
		hi := min(lo+chunk, len(input))
		res, err := decoder.DecodeAll(ctx, m, input[lo:hi], decoder.DecodeOptions{NBest: nb}, threads)
		if err != nil {
			return err
		}
		for k := range res {
			if _, err := fmt.Fprintln(out, res[k].Best.Target); err != nil {
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
		prog.update(hi)
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if nbw != nil {
		if err := nbw.Close(); err != nil {
			return err
		}
	}
	secs := time.Since(start).Seconds()
	slog.Info("decode", "sentences", len(input), "load_s", fmt.Sprintf("%.2f", loaded.Seconds()),
		"decode_s", fmt.Sprintf("%.2f", secs), "sent_per_s", fmt.Sprintf("%.1f", float64(len(input))/max(secs, 1e-9)))
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
