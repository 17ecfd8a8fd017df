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
// BLEU, and the last night of its history (`mtune registry status`). A
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
	fmt.Fprintf(w, "promoted: run %s since %s (%s ago)\nweights:  %s%s\ndev BLEU: %.2f\n",
		ptr.Run, ptr.Since.Format(time.RFC3339), time.Since(ptr.Since).Round(time.Second), ptr.Weights, missing, ptr.DevBLEU)
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
// a row: its decision, the candidate's and the promoted weights' dev
// BLEU, the gain's 95% confidence interval, the p-value, the gate, when it
// ended and its note or error (`mtune registry history`).
func (r Registry) WriteHistory(ctx context.Context, w io.Writer) error {
	hist, _, err := r.ReadHistory(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tdecision\tcandidate\tpromoted\tgain 95% CI\tp\tgate\tend\tnote")
	opt := func(x *float64) string {
		if x == nil {
			return "–"
		}
		return fmt.Sprintf("%.2f", *x)
	}
	for _, e := range hist {
		ci, p := "–", "–"
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Run, e.Decision, opt(e.CandidateBLEU), opt(e.PromotedBLEU),
			ci, p, gate, e.End.Format(time.RFC3339), note)
	}
	return tw.Flush()
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
