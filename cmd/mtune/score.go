package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"

	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/metric"
)

// scoreJSON is score --json's object for a metric without a report of
// its own (metric.Reporter).
type scoreJSON struct {
	Name      string    `json:"name"`
	Score     float64   `json:"score"`
	Signature string    `json:"signature"`
	Stats     []float64 `json:"stats"`
}

// scoreFlags registers the flags of "mtune score" and returns the command.
func scoreFlags(fs *flag.FlagSet) runFunc {
	var sf scoringFlags
	sf.add(fs, "reference file, folder of references, or prefix of REF0, REF1, … (repeat for several)")
	asJSON := fs.Bool("json", false, "print the statistics and score as JSON (with the metric's name and signature)")
	sig := fs.Bool("signature", false, "print the metric's sacreBLEU-style signature after the score")
	return func(ctx context.Context, a *app, args []string) error {
		if len(sf.refs) == 0 {
			return usagef("no references: give -r REF")
		}
		if len(args) > 1 {
			return usagef("one hypothesis file at most, got %d", len(args))
		}
		var hyps []string
		var err error
		hypName := "standard input"
		if len(args) == 1 {
			hypName = args[0]
			hyps, err = corpus.ReadFile(ctx, args[0])
		} else {
			hyps, err = corpus.ReadLines(a.stdin)
		}
		if err != nil {
			return err
		}
		sc, err := sf.scorer(ctx)
		if err != nil {
			return err
		}
		if len(hyps) != sc.Len() {
			return fmt.Errorf("%s has %d lines but the references have %d", hypName, len(hyps), sc.Len())
		}
		var sum metric.Stats
		for i, h := range hyps {
			st, err := sc.Stats(i, h)
			if err != nil {
				return err
			}
			sum.Add(st)
		}
		m := sc.Metric()
		if *asJSON {
			enc := json.NewEncoder(a.stdout)
			enc.SetIndent("", "  ")
			if r, ok := m.(metric.Reporter); ok {
				return enc.Encode(r.Report(sum, m.Signature(sc.Refs())))
			}
			return enc.Encode(scoreJSON{Name: m.Name(), Score: m.Score(sum), Signature: m.Signature(sc.Refs()), Stats: sum.Values()})
		}
		_, err = fmt.Fprintln(a.stdout, scoreLine(m, sum, sc.Refs(), *sig))
		return err
	}
}
