package registry

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/mtune/mtune/io/storage"
)

// WriteStatus writes to w what r has promoted, since when, with its dev
// score under the metric that promoted it (dev chrF2: 55.90), and the
// last night of its history (`mtune registry status`). A
// promoted weights file that is missing is reported and returned as an
// error: the next night cannot start from it.
func (r Registry) WriteStatus(ctx context.Context, w io.Writer) error {
	ptr, _, err := r.ReadPointer(ctx)
	if err != nil {
		return err
	}
	hist, _, err := r.ReadHistory(ctx)
	if err != nil {
		return err
	}
	if ptr == nil {
		fmt.Fprintf(w, "nothing promoted in %s yet (%d history lines)\n", r.Root, len(hist))
		return nil
	}
	ok, err := storage.Exists(ctx, ptr.Weights)
	if err != nil {
		return err
	}
	missing := ""
	if !ok {
		missing = " (MISSING)"
	}
	fmt.Fprintf(w, "promoted: run %s since %s (%s ago)\nweights:  %s%s\ndev %s: %.2f\n",
		ptr.Run, ptr.Since.Format(time.RFC3339), time.Since(ptr.Since).Round(time.Second), ptr.Weights, missing, metricName(ptr.Metric), ptr.DevScore)
	if len(hist) > 0 {
		e := hist[len(hist)-1]
		fmt.Fprintf(w, "last:     run %s, %s at %s\n", e.Run, e.Decision, e.End.Format(time.RFC3339))
	}
	if !ok {
		return fmt.Errorf("the promoted weights file %s is missing: the next night cannot start from it; put it back, or promote another night's weights with `mtune registry rollback --registry %s --to ID`", ptr.Weights, r.Root)
	}
	return nil
}

// WriteHistory writes r's history to w as a table, a night (or rollback)
// a row: its decision, the dev scores with their metric (Entry.Scores:
// "chrF2 55.10 → 55.90"), the gain and its 95% confidence interval, the
// p-value, the gate, when it ended and its note or error (`mtune registry
// history`).
func (r Registry) WriteHistory(ctx context.Context, w io.Writer) error {
	hist, _, err := r.ReadHistory(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tdecision\tdev: promoted → candidate\tgain\t95% CI\tp\tgate\tend\tnote")
	for _, e := range hist {
		gain, ci, p := "–", "–", "–"
		if e.Gain != nil {
			gain = fmt.Sprintf("%+.2f", *e.Gain)
		}
		if e.CI != nil {
			ci = fmt.Sprintf("[%.2f, %.2f]", e.CI[0], e.CI[1])
		}
		if e.PValue != nil {
			p = fmt.Sprintf("%.4g", *e.PValue)
		}
		note, gate := e.Note, "–"
		if e.Error != "" {
			note = e.Error
		}
		if e.Gate != nil {
			gate = e.Gate.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Run, e.Decision, e.Scores(),
			gain, ci, p, gate, e.End.Format(time.RFC3339), note)
	}
	return tw.Flush()
}

// Scores gives e's dev scores with their metric: the weights in use
// before the night, then its candidate ("chrF2 55.10 → 55.90"; for TER,
// lower is better); the run's score when it ran for a rollback ("BLEU
// 21.14"); "–" for a night that failed before its gate.
func (e Entry) Scores() string {
	switch {
	case e.CandidateScore == nil:
		return "–"
	case e.PromotedScore == nil:
		return fmt.Sprintf("%s %.2f", metricName(e.Metric), *e.CandidateScore)
	}
	return fmt.Sprintf("%s %.2f → %.2f", metricName(e.Metric), *e.PromotedScore, *e.CandidateScore)
}

// Summary says what night e decided and why, as retrain prints it:
// "promoted (dev chrF2 55.10 → 55.90, gain +0.80 [0.21, 1.40], p =
// 0.003; promotes if chrF2 gain ≥ 0.00, p < 0.05, 1000 samples)"; the
// decision, scores and note of a line without a gate.
func (e Entry) Summary() string {
	if e.Gate == nil || e.Gain == nil || e.CI == nil || e.PValue == nil {
		s := fmt.Sprintf("%s (dev %s)", e.Decision, e.Scores())
		if why := e.Note + e.Error; why != "" {
			s += ": " + why
		}
		return s
	}
	return fmt.Sprintf("%s (dev %s, gain %+.2f [%.2f, %.2f], p = %.4g; promotes if %s)",
		e.Decision, e.Scores(), *e.Gain, e.CI[0], e.CI[1], *e.PValue, e.Gate)
}

// WriteRepaired writes to w what Repair did to r, as rep reports it: the
// history lines it dropped, the promoted.json it rebuilt, or that both
// parse (`mtune registry repair`).
func (r Registry) WriteRepaired(w io.Writer, rep Repaired) {
	if len(rep.DroppedLines) > 0 {
		fmt.Fprintf(w, "dropped line(s) %v of %s that did not parse; the history as it was: %s\n", rep.DroppedLines, r.History(), rep.HistoryCopy)
	}
	if rep.PointerError != "" {
		now := "nothing is promoted: the model's own weights are in use"
		if p := rep.Pointer; p != nil {
			now = fmt.Sprintf("promoted: run %s (%s)", p.Run, p.Weights)
		}
		fmt.Fprintf(w, "rebuilt %s from the history (%s); it was: %s\n", r.Promoted(), now, rep.PointerCopy)
	}
	if len(rep.DroppedLines) == 0 && rep.PointerError == "" {
		fmt.Fprintf(w, "%s and %s parse: nothing to repair\n", r.Promoted(), r.History())
	}
}
