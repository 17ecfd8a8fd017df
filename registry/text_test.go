package registry

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteStatusHistory: the text of a registry's records: nothing
// promoted, then a promoted night whose weights file is missing (an
// error), and the history as a table with "–" for what a night lacks.
func TestWriteStatusHistory(t *testing.T) {
	ctx := context.Background()
	r := Registry{Root: filepath.Join(t.TempDir(), "reg")}
	var out strings.Builder
	if err := r.WriteStatus(ctx, &out); err != nil || !strings.Contains(out.String(), "nothing promoted in "+r.Root+" yet (0 history lines)") {
		t.Errorf("empty registry: %q, %v", out.String(), err)
	}
	put(t, r.Promoted(), `{"run":"n1","weights":"runs/n1/best/weights.json","dev_bleu":20,"since":"2026-11-21T04:00:00Z"}`+"\n")
	put(t, r.History(), `{"run":"n1","decision":"promoted","candidate_bleu":20,"promoted_bleu":18,"p_value":0.01,"ci":[1.2,2.8],"start":"2026-11-21T03:00:00Z","end":"2026-11-21T04:00:00Z"}`+"\n"+
		`{"run":"n2","decision":"failed","error":"decoder crashed","start":"2026-11-22T03:00:00Z","end":"2026-11-22T03:10:00Z"}`+"\n")
	out.Reset()
	err := r.WriteStatus(ctx, &out)
	if err == nil || !strings.Contains(err.Error(), "is missing") {
		t.Errorf("missing weights: error %v", err)
	}
	for _, want := range []string{"promoted: run n1 since 2026-11-21T04:00:00Z", "weights.json (MISSING)\n", "dev BLEU: 20.00\n", "last:     run n2, failed at 2026-11-22T03:10:00Z\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status %q lacks %q", out.String(), want)
		}
	}
	out.Reset()
	if err := r.WriteHistory(ctx, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "run ") {
		t.Fatalf("history %q: want a header and 2 rows", out.String())
	}
	for i, want := range [][]string{{"n1", "promoted", "20.00", "18.00", "[1.20, 2.80]", "0.01", "–"}, {"n2", "failed", "–", "decoder crashed"}} {
		for _, w := range want {
			if !strings.Contains(lines[i+1], w) {
				t.Errorf("row %d %q lacks %q", i+1, lines[i+1], w)
			}
		}
	}
	out.Reset()
	r.WriteRepaired(&out, Repaired{})
	if !strings.HasSuffix(out.String(), "parse: nothing to repair\n") {
		t.Errorf("nothing repaired: %q", out.String())
	}
}
