package registry

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/testsupport/gcstest"
	"github.com/mtune/mtune/testsupport/htmltest"
	"github.com/mtune/mtune/testsupport/storagetest"
)

// Hand-written history lines of a registry R, by night.
const (
	lineN1 = `{"run":"n1","decision":"promoted","candidate_bleu":20,"promoted_bleu":18,"p_value":0.01,"ci":[1.2,2.8],"gate":{"metric":"bleu","min_gain":0,"max_p":0.05,"samples":1000,"seed":1},"inputs":[{"role":"src","path":"tune.fr","sha256":"ab12"}],"start":"2026-11-21T03:00:00Z","end":"2026-11-21T04:00:00Z"}`
	lineN2 = `{"run":"n2","decision":"kept","candidate_bleu":20.4,"promoted_bleu":19.9,"p_value":0.21,"ci":[-0.3,1.1],"gate":{"metric":"bleu","min_gain":0.5,"max_p":0.1,"samples":200,"seed":1},"promoted_run":"n1","start":"2026-11-22T03:00:00Z","end":"2026-11-22T04:00:00Z"}`
	lineN3 = `{"run":"n3","decision":"failed","error":"decoding: <script>alert(1)</script>","start":"2026-11-23T03:00:00Z","end":"2026-11-23T03:05:00Z"}`
	lineN4 = `{"run":"n4","decision":"promoted","candidate_bleu":22.5,"promoted_bleu":20,"p_value":0.002,"ci":[1.5,3.4],"promoted_run":"n1","start":"2026-11-24T03:00:00Z","end":"2026-11-24T04:00:00Z"}`
	lineRB = `{"run":"n1","decision":"rollback","candidate_bleu":20,"promoted_run":"n4","note":"rolled back from run n4","start":"2026-11-25T09:00:00Z","end":"2026-11-25T09:00:01Z"}`

	// promotedN1 is promoted.json after the rollback; WEIGHTS stands for
	// R/runs/n1/best/weights.json.
	promotedN1 = `{"run":"n1","weights":"WEIGHTS","dev_bleu":20,"since":"2026-11-25T09:00:01Z"}`
)

// reportPage is a drawn R/report.html.
type reportPage struct {
	text string
	doc  *html.Node
}

func TestWriteReport(t *testing.T) {
	tests := []struct {
		name     string
		promoted string // promoted.json; "" for none
		history  string // history.jsonl; "" for none
		wantErr  string // the error names this file (R stands for the root) and line
		check    func(t *testing.T, r Registry, p reportPage)
	}{
		{
			name:     "promoted, kept, failed, promoted, rollback",
			promoted: promotedN1,
			history:  strings.Join([]string{lineN1, lineN2, lineN3, lineN4, lineRB}, "\n") + "\n",
			check: func(t *testing.T, r Registry, p reportPage) {
				htmltest.CheckRows(t, htmltest.Rows(t, p.doc, "promoted"), [][]string{
					{"n1"}, {"2026-11-25T09:00:01Z"}, {r.Run("n1").Best().JSON()}, {"20.00"},
				})
				if got := htmltest.Hrefs(htmltest.ByID(t, p.doc, "promoted")); fmt.Sprint(got) != "[runs/n1/report.html]" {
					t.Errorf("promoted run links %q, want runs/n1/report.html", got)
				}
				htmltest.CheckRows(t, htmltest.Rows(t, p.doc, "history"), [][]string{
					{"1", "n1", "promoted", "BLEU", "20.00", "18.00", "+2.00", "[1.20, 2.80]", "0.01", "BLEU gain ≥ 0.00, p < 0.05, 1000 samples", "the model's own weights", "2026-11-21T03:00:00Z", "2026-11-21T04:00:00Z", ""},
					{"2", "n2", "kept", "BLEU", "20.40", "19.90", "+0.50", "[-0.30, 1.10]", "0.21", "BLEU gain ≥ 0.50, p < 0.1, 200 samples", "run n1", "2026-11-22T03:00:00Z", "2026-11-22T04:00:00Z", ""},
					{"3", "n3", "failed", "–", "–", "–", "–", "–", "–", "–", "–", "2026-11-23T03:00:00Z", "2026-11-23T03:05:00Z", "decoding: <script>alert(1)</script>"},
					{"4", "n4", "promoted", "BLEU", "22.50", "20.00", "+2.50", "[1.50, 3.40]", "0.002", "–", "run n1", "2026-11-24T03:00:00Z", "2026-11-24T04:00:00Z", ""},
					{"–", "n1", "rollback", "BLEU", "20.00", "–", "–", "–", "–", "–", "–", "2026-11-25T09:00:00Z", "2026-11-25T09:00:01Z", "rolled back from run n4"},
				})
				var classes []string
				for _, tr := range htmltest.Elements(htmltest.ByID(t, p.doc, "history"), "tr")[1:] {
					classes = append(classes, htmltest.Attr(tr, "class"))
				}
				if want := "[decision-promoted decision-kept decision-failed decision-promoted decision-rollback]"; fmt.Sprint(classes) != want {
					t.Errorf("row classes %v, want %s", classes, want)
				}
				if got, want := htmltest.Hrefs(htmltest.ByID(t, p.doc, "history")), "[runs/n1/report.html runs/n2/report.html runs/n3/report.html runs/n4/report.html runs/n1/report.html]"; fmt.Sprint(got) != want {
					t.Errorf("history links %v, want %s", got, want)
				}
				for i, h := range htmltest.Hrefs(htmltest.ByID(t, p.doc, "history")) {
					if run := []string{"n1", "n2", "n3", "n4", "n1"}[i]; storage.Join(r.Root, h) != r.Run(run).Report() {
						t.Errorf("link %s, relative to %s, is not %s", h, r.Root, r.Run(run).Report())
					}
				}
				if !strings.Contains(p.text, "5 line(s) of history, 2 promoted, 1 kept, 1 failed, 1 rollback(s)") {
					t.Error("page lacks the counts of decisions")
				}
				if strings.Contains(p.text, "<script>") || !strings.Contains(p.text, "&lt;script&gt;alert(1)&lt;/script&gt;") {
					t.Error("the failed night's error is not escaped")
				}
				svgs := htmltest.Elements(p.doc, "svg")
				if len(svgs) != 1 {
					t.Fatalf("%d svg elements, want 1", len(svgs))
				}
				ss := htmltest.Series(t, svgs[0])
				// The promoted weights after nights 1, 2, 4 (not the
				// failed 3): n1's 20, still 20 (not the 19.9 the kept
				// night's gate measured), n4's 22.5, and the rollback's
				// step back to 20 at night 4: a rollback is no night.
				checkLine(t, "promoted", ss["promoted"], []float64{20, 20, 22.5, 20})
				if prom := ss["promoted"]; len(prom) == 4 && prom[3][0] != prom[2][0] {
					t.Errorf("the rollback drawn at x %g, night 4 at %g: want a step at night 4, not a night of its own", prom[3][0], prom[2][0])
				}
				// The candidates of the nights 1, 2, 4 (no failed night,
				// no rollback).
				checkLine(t, "candidate", ss["candidate"], []float64{20, 20.4, 22.5})
				prom, cand := ss["promoted"], ss["candidate"]
				if len(prom) == 4 && len(cand) == 3 {
					for i, j := range []int{0, 1, 2} { // candidate i sits at promoted j's x
						if cand[i][0] != prom[j][0] {
							t.Errorf("candidate %d at x %g, promoted %d at %g: want the same night", i, cand[i][0], j, prom[j][0])
						}
					}
					// x is the line number: equal steps from 1 to 2, 2 to 4 twice that.
					if d1, d2 := prom[1][0]-prom[0][0], prom[2][0]-prom[1][0]; d1 <= 0 || d2-2*d1 > 0.02 || 2*d1-d2 > 0.02 {
						t.Errorf("x of lines 1, 2, 4 %v: not the line numbers", prom)
					}
				}
				legend := strings.Join(strings.Fields(htmltest.Text(svgs[0])), " ")
				for _, w := range []string{"promoted", "candidate", "night", "dev BLEU"} {
					if !strings.Contains(legend, w) {
						t.Errorf("chart lacks the text %q", w)
					}
				}
			},
		},
		{
			name:    "first night kept, nothing promoted",
			history: `{"run":"k1","decision":"kept","candidate_bleu":17.5,"promoted_bleu":18,"p_value":0.9,"ci":[-1,0.2],"start":"2026-11-21T03:00:00Z","end":"2026-11-21T04:00:00Z"}` + "\n",
			check: func(t *testing.T, r Registry, p reportPage) {
				if !strings.Contains(htmltest.Text(htmltest.ByID(t, p.doc, "promoted")), "Nothing is promoted") {
					t.Error("page does not say nothing is promoted")
				}
				ss := htmltest.Series(t, htmltest.Elements(p.doc, "svg")[0])
				checkLine(t, "promoted", ss["promoted"], []float64{18}) // the model's own, as the gate measured them
				checkLine(t, "candidate", ss["candidate"], []float64{17.5})
				htmltest.CheckRows(t, htmltest.Rows(t, p.doc, "history"), [][]string{
					{"1", "k1", "kept", "BLEU", "17.50", "18.00", "-0.50", "[-1.00, 0.20]", "0.9", "–", "the model's own weights", "2026-11-21T03:00:00Z", "2026-11-21T04:00:00Z", ""},
				})
			},
		},
		{
			name:    "failed nights only, one with an odd run id",
			history: lineN3 + "\n" + `{"run":"../x y","decision":"failed","error":"bad input","start":"2026-11-24T03:00:00Z","end":"2026-11-24T03:01:00Z"}`,
			check: func(t *testing.T, r Registry, p reportPage) {
				if n := len(htmltest.Elements(p.doc, "svg")); n != 0 {
					t.Errorf("%d charts of failed nights, want none", n)
				}
				if !strings.Contains(p.text, "No night has reached its gate yet") {
					t.Error("page does not say no night reached its gate")
				}
				rows := htmltest.Rows(t, p.doc, "history")
				if len(rows) != 2 || rows[1][1] != "../x y" || rows[1][13] != "bad input" {
					t.Errorf("history rows %q", rows)
				}
				if got := htmltest.Hrefs(htmltest.ByID(t, p.doc, "history")); fmt.Sprint(got) != "[runs/n3/report.html]" {
					t.Errorf("links %q, want runs/n3/report.html only (not the odd id)", got)
				}
			},
		},
		{
			name: "empty registry",
			check: func(t *testing.T, r Registry, p reportPage) {
				for _, w := range []string{"Nothing has run yet", "Nothing is promoted", "</html>"} {
					if !strings.Contains(p.text, w) {
						t.Errorf("page lacks %q", w)
					}
				}
				if n := len(htmltest.Elements(p.doc, "svg")); n != 0 {
					t.Errorf("%d charts, want none", n)
				}
				if n := len(htmltest.Elements(p.doc, "table")); n != 0 {
					t.Errorf("%d tables, want none", n)
				}
			},
		},
		{
			name:     "malformed history line",
			promoted: promotedN1,
			history:  lineN1 + "\n" + `{"run":"n2","decision":"kept","candidate_bleu":"x"}` + "\n" + lineN3 + "\n",
			wantErr:  "R/history.jsonl:2:",
		},
		{
			name:    "history line without a decision",
			history: lineN1 + "\n\n" + `{"run":"n2"}` + "\n" + lineN3 + "\n",
			wantErr: "R/history.jsonl:3: no run or decision; `mtune registry repair",
		},
		{
			name:     "torn last line",
			promoted: promotedN1,
			history:  lineN1 + "\n" + lineN2 + "\n" + lineN4[:40],
			check: func(t *testing.T, r Registry, p reportPage) {
				if rows := htmltest.Rows(t, p.doc, "history"); len(rows) != 2 || rows[1][1] != "n2" {
					t.Errorf("history rows %q, want n1 and n2 (the torn line dropped)", rows)
				}
			},
		},
		{
			name:     "malformed promoted.json",
			promoted: `{"run":"n1",`,
			history:  lineN1 + "\n",
			wantErr:  "R/promoted.json",
		},
	}

	c, _ := gcstest.Fake(t, "reg")
	storagetest.UseGCS(t, c)

	ctx := context.Background()
	for i, tc := range tests {
		for _, where := range []string{"local", "gcs"} {
			t.Run(tc.name+"/"+where, func(t *testing.T) {
				r := Registry{Root: filepath.Join(t.TempDir(), "reg")}
				if where == "gcs" {
					r.Root = "gs://reg/case" + strconv.Itoa(i)
				}
				put := func(p, data string) {
					t.Helper()
					if err := storage.WriteFile(ctx, p, []byte(data)); err != nil {
						t.Fatal(err)
					}
				}
				if tc.promoted != "" {
					put(r.Promoted(), strings.ReplaceAll(tc.promoted, "WEIGHTS", r.Run("n1").Best().JSON()))
				}
				if tc.history != "" {
					put(r.History(), tc.history)
				}

				err := WriteReport(ctx, r)
				if tc.wantErr != "" {
					want := strings.ReplaceAll(tc.wantErr, "R/", strings.TrimSuffix(storage.Join(r.Root, "x"), "x"))
					if err == nil || !strings.Contains(err.Error(), want) {
						t.Fatalf("error %v, want one naming %s", err, want)
					}
					if ok, serr := storage.Exists(ctx, r.Report()); serr != nil || ok {
						t.Errorf("%s written despite the error (%v)", r.Report(), serr)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				b, err := storage.ReadFile(ctx, r.Report())
				if err != nil {
					t.Fatal(err)
				}
				htmltest.CheckSelfContained(t, string(b), "runs/")
				doc, err := html.Parse(bytes.NewReader(b))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(b), "<code>"+r.Root+"</code>") {
					t.Errorf("page does not name the registry %s", r.Root)
				}
				tc.check(t, r, reportPage{text: string(b), doc: doc})

				// Drawn again from the same files: the same page, replaced
				// in place.
				if err := WriteReport(ctx, r); err != nil {
					t.Fatal(err)
				}
				if b2, err := storage.ReadFile(ctx, r.Report()); err != nil || !bytes.Equal(b, b2) {
					t.Errorf("second drawing differs (%v)", err)
				}
			})
		}
	}
}

// TestWriteReportWriteError: a report that cannot be written is an error
// naming it.
func TestWriteReportWriteError(t *testing.T) {
	r := Registry{Root: t.TempDir()}
	if err := os.MkdirAll(filepath.Join(r.Report(), "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := WriteReport(context.Background(), r)
	if err == nil || !strings.Contains(err.Error(), r.Report()) {
		t.Errorf("error %v, want one naming %s", err, r.Report())
	}
}

// checkLine checks pts has a point per value, x not decreasing, and y in the
// values' order (upside down: SVG y grows downwards), equal values at
// equal heights.
func checkLine(t *testing.T, name string, pts [][2]float64, vals []float64) {
	t.Helper()
	if len(pts) != len(vals) {
		t.Errorf("%s: %d points %v, want %d", name, len(pts), pts, len(vals))
		return
	}
	for i := range pts {
		if i > 0 && pts[i][0] < pts[i-1][0] {
			t.Errorf("%s: x decreasing: %v", name, pts)
		}
		for j := range pts {
			if vals[i] > vals[j] && !(pts[i][1] < pts[j][1]) || vals[i] == vals[j] && pts[i][1] != pts[j][1] {
				t.Errorf("%s: values %g and %g at y %g and %g", name, vals[i], vals[j], pts[i][1], pts[j][1])
			}
		}
	}
}
