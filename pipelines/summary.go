package pipelines

import (
	"fmt"
	"strings"
	"time"

	"github.com/mtune/mtune/rundir"
)

// Summary is the end of the summary of a tuning run o whose result is r,
// after elapsed: ran, for the terminal's log, says what ran (the epochs of
// this session, those a --resume kept) and the best epoch; files are the
// lines that name the report, the complete best weights
// (best/weights.json, dense and sparse) and the decode command that uses
// them (none with an external decoder, whose weights they are; a pointer
// to re-ranking with added features).
func Summary(r Result, o Options, elapsed time.Duration) (ran string, files []string) {
	last := r.Epochs[len(r.Epochs)-1]
	ran = fmt.Sprintf("%s in %.1f s", plural(last.Epoch-r.Resumed, "epoch"), elapsed.Seconds())
	switch {
	case r.Resumed == 1:
		ran += " (epoch 1 resumed)"
	case r.Resumed > 1:
		ran = fmt.Sprintf("%s (epochs 1-%d resumed)", ran, r.Resumed)
	}
	best := r.Epochs[0]
	for _, m := range r.Epochs {
		if m.Epoch == r.Best && m.Replica == r.BestReplica {
			best = m
		}
	}
	score := "tune " + best.MetricName()
	if best.DevScore != nil {
		score = "dev " + best.MetricName()
	} else if best.TuneDecoded {
		score += " (decoded)"
	}
	if o.Replicas > 1 {
		ran = fmt.Sprintf("%s of %d replicas; best: replica %d, epoch %d of %d, %s %.2f",
			ran, o.Replicas, r.BestReplica, r.Best, last.Epoch, score, best.Value())
	} else {
		ran = fmt.Sprintf("%s; best: epoch %d of %d, %s %.2f", ran, r.Best, last.Epoch, score, best.Value())
	}
	l := rundir.Layout{Root: o.Out}
	files = []string{"report:  " + l.Report(), fmt.Sprintf("weights: %s (dense and sparse; metrics: %s)", r.BestWeights, l.Metrics())}
	if o.DecoderCommand != "" {
		return ran, files // the weights are the external decoder's
	}
	if len(o.FeatureCommands) > 0 {
		// The decoder's 1-best is not the system's choice.
		return ran, append(files, "decode:  n-best lists decoded without the added features' weights, scored by their commands and re-ranked with every weight (mtune rerank --feature): docs/rerank.md#tune-with-added-features-tune---feature-command")
	}
	cmd := []string{"mtune", "decode", "--config", o.Config, "--weights", r.BestWeights}
	if len(o.Sparse) > 0 {
		cmd = append(cmd, "--sparse", strings.Join(o.Sparse, ","))
	}
	if o.SearchAlgorithm != "" {
		cmd = append(cmd, "--search-algorithm", o.SearchAlgorithm)
	}
	return ran, append(files, fmt.Sprintf("decode:  %s INPUT > OUTPUT", rundir.ShellJoin(cmd)))
}

// plural returns "n thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
