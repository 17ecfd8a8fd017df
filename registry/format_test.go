package registry

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/storagetest"
)

// The files of night n1 of TestNights' world (quality 0.5 over the
// model's 0.2, gate seed 1) as mtune at ec9081d wrote them, before the
// gate took a metric: gate.json, its history line, promoted.json.
const (
	oldGate     = `{"promote":true,"weights":"runs/n1/best/weights.json","candidate_bleu":35.126989025170666,"promoted_bleu":13.362095503312666,"gain":21.764893521858003,"ci":[21.530729788715377,22.032306356758287],"p_value":0.000999000999000999,"sentences":80,"metric":"bleu","min_gain":0,"max_p":0.05,"samples":1000,"seed":1}`
	oldLine     = `{"run":"n1","decision":"promoted","candidate_bleu":35.126989025170666,"promoted_bleu":13.362095503312666,"p_value":0.000999000999000999,"ci":[21.530729788715377,22.032306356758287],"gate":{"metric":"bleu","min_gain":0,"max_p":0.05,"samples":1000,"seed":1},"inputs":[{"role":"src","path":"tune.src","sha256":"00ff"}],"start":"2026-11-28T17:45:32.809281601Z","end":"2026-11-28T17:45:32.839035449Z"}`
	oldPromoted = `{"run":"n1","weights":"runs/n1/best/weights.json","dev_bleu":35.126989025170666,"since":"2026-11-28T17:45:32.837692815Z"}`
	// oldestGate is a gate.json written before the gate's metric was
	// recorded at all.
	oldestGate = `{"promote":true,"weights":"runs/n1/best/weights.json","candidate_bleu":20,"promoted_bleu":18,"gain":2,"ci":[1.2,2.8],"p_value":0.01,"sentences":80,"min_gain":0.5,"max_p":0.1,"samples":1000,"seed":1}`
)

// TestReadOldFiles: a registry as earlier versions wrote it reads as
// BLEU's, with its scores where this version keeps them.
func TestReadOldFiles(t *testing.T) {
	for name, r := range registries(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			put(t, r.Gate("n1"), oldGate+"\n")
			put(t, r.Gate("n0"), oldestGate+"\n")
			put(t, r.History(), oldLine+"\n")
			put(t, r.Promoted(), oldPromoted+"\n")

			for _, tc := range []struct {
				id               string
				cand, prom, gain float64
			}{{"n1", 35.126989025170666, 13.362095503312666, 21.764893521858003}, {"n0", 20, 18, 2}} {
				d, ok, err := r.readGate(ctx, tc.id)
				if err != nil || !ok {
					t.Fatalf("%s: %v, %v", tc.id, ok, err)
				}
				if d.Metric != "BLEU" || d.CandidateScore != tc.cand || d.PromotedScore != tc.prom || d.Gain != tc.gain || !d.Promote ||
					d.Weights != r.Run("n1").Best().JSON() || d.GateSettings.String() != "BLEU gain ≥ "+map[string]string{"n1": "0.00, p < 0.05", "n0": "0.50, p < 0.1"}[tc.id]+", 1000 samples" {
					t.Errorf("%s: read %+v", tc.id, d)
				}
			}

			h := storagetest.Read(t, r.ReadHistory)
			e := h[0]
			if e.Metric != "BLEU" || *e.CandidateScore != 35.126989025170666 || *e.PromotedScore != 13.362095503312666 ||
				e.Gain == nil || *e.Gain != 35.126989025170666-13.362095503312666 || e.Gate.Metric != "BLEU" {
				t.Errorf("history line read as %+v (gate %+v)", e, e.Gate)
			}
			if got, want := e.Scores(), "BLEU 13.36 → 35.13"; got != want {
				t.Errorf("scores %q, want %q", got, want)
			}
			p := storagetest.Read(t, r.ReadPointer)
			if p.Metric != "BLEU" || p.DevScore != 35.126989025170666 {
				t.Errorf("promoted.json read as %+v", p)
			}

			// Written again (a rollback or repair rewrites them), they keep
			// the names earlier readers read, with the same values.
			for _, v := range []any{e, *p} {
				b, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range []string{`"metric":"BLEU"`, `35.126989025170666`} {
					if !strings.Contains(string(b), w) {
						t.Errorf("%s lacks %s", b, w)
					}
				}
				if !strings.Contains(string(b), `"candidate_bleu":35.126989025170666,"promoted_bleu":13.362095503312666`) &&
					!strings.Contains(string(b), `"dev_bleu":35.126989025170666`) {
					t.Errorf("%s lacks the BLEU names", b)
				}
			}
		})
	}
}

// TestBLEUNightUnchanged: a BLEU night writes the scores earlier versions
// wrote, to the last digit, under the names they wrote them (oldGate,
// oldLine, oldPromoted), with the metric-neutral names beside them.
func TestBLEUNightUnchanged(t *testing.T) {
	r := Registry{Root: filepath.Join(t.TempDir(), "reg")}
	w := &world{t: t, quality: 0.5, model: 0.2}
	if _, err := w.night(r, "n1").Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file string
		old  string
		keys []string
	}{
		{r.Gate("n1"), oldGate, []string{"promote", "weights", "candidate_bleu", "promoted_bleu", "gain", "ci", "p_value", "sentences", "min_gain", "max_p", "samples", "seed"}},
		{r.History(), oldLine, []string{"run", "decision", "candidate_bleu", "promoted_bleu", "p_value", "ci", "inputs"}},
		{r.Promoted(), oldPromoted, []string{"run", "weights", "dev_bleu"}},
	} {
		var got, want map[string]any
		if err := json.Unmarshal(readBytes(t, tc.file), &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(tc.old), &want); err != nil {
			t.Fatal(err)
		}
		for _, k := range tc.keys {
			if g, w := mustJSON(t, got[k]), mustJSON(t, want[k]); g != w {
				t.Errorf("%s: %s = %s, earlier versions wrote %s", filepath.Base(tc.file), k, g, w)
			}
		}
		if got["metric"] != "BLEU" {
			t.Errorf("%s: metric %v, want BLEU", filepath.Base(tc.file), got["metric"])
		}
	}
	var d map[string]any
	json.Unmarshal(readBytes(t, r.Gate("n1")), &d)
	if d["candidate_score"] != d["candidate_bleu"] || d["promoted_score"] != d["promoted_bleu"] {
		t.Errorf("gate.json %v: the scores differ from their BLEU names", d)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFormatRoundTrip: the files of nights gated on each metric read
// back as written; only BLEU's carry the BLEU names.
func TestFormatRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		metric string
		bleu   bool
	}{{"BLEU", true}, {"chrF2", false}, {"chrF2++", false}, {"TER", false}, {"0.5·BLEU+0.5·−TER", false}} {
		t.Run(tc.metric, func(t *testing.T) {
			d := Decision{Promote: true, Weights: "w", CandidateScore: 55.9, PromotedScore: 55.1, Gain: 0.8, CI: [2]float64{0.2, 1.4}, PValue: 0.01, Sentences: 3,
				GateSettings: GateSettings{Metric: tc.metric, MinGain: 0.5, MaxP: 0.05, Samples: 100, Seed: 2}}
			e := Entry{Run: "n", Decision: Promoted, Metric: tc.metric, CandidateScore: f64(55.9), PromotedScore: f64(55.1), Gain: f64(0.8), Gate: &d.GateSettings}
			p := Pointer{Run: "n", Weights: "w", Metric: tc.metric, DevScore: 55.9}
			for _, v := range []any{d, e, p} {
				b, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(b), "_bleu") != tc.bleu {
					t.Errorf("%s: BLEU names %v, want %v", b, !tc.bleu, tc.bleu)
				}
				if !strings.Contains(string(b), `"metric":"`+tc.metric+`"`) {
					t.Errorf("%s does not name the metric", b)
				}
				switch v := v.(type) {
				case Decision:
					var got Decision
					if err := json.Unmarshal(b, &got); err != nil || got != v {
						t.Errorf("gate.json %s read as %+v (%v)", b, got, err)
					}
				case Entry:
					var got Entry
					if err := json.Unmarshal(b, &got); err != nil || got.Metric != tc.metric || *got.CandidateScore != 55.9 || *got.PromotedScore != 55.1 || *got.Gain != 0.8 || *got.Gate != *v.Gate {
						t.Errorf("history line %s read as %+v (%v)", b, got, err)
					}
				case Pointer:
					var got Pointer
					if err := json.Unmarshal(b, &got); err != nil || !got.same(v) {
						t.Errorf("promoted.json %s read as %+v (%v)", b, got, err)
					}
				}
			}
		})
	}
	// A failed night has no metric and no BLEU names.
	b, _ := json.Marshal(Entry{Run: "n", Decision: Failed, Error: "x"})
	if strings.Contains(string(b), "metric") || strings.Contains(string(b), "bleu") {
		t.Errorf("failed night %s", b)
	}
}

// FuzzReadRegistryFiles: any bytes read as a gate.json, a history line or
// a promoted.json give an error or a value that writes and reads back the
// same, never a panic.
func FuzzReadRegistryFiles(f *testing.F) {
	for _, s := range []string{oldGate, oldLine, oldPromoted, oldestGate, `{"candidate_bleu":null}`, `{"metric":"chrf","dev_score":1}`, `{"candidate_score":1,"candidate_bleu":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d Decision
		if json.Unmarshal(data, &d) == nil {
			b, err := json.Marshal(d)
			var again Decision
			if err != nil || json.Unmarshal(b, &again) != nil || again != d {
				t.Errorf("gate.json %q → %+v → %s → %+v (%v)", data, d, b, again, err)
			}
		}
		var e Entry
		if json.Unmarshal(data, &e) == nil {
			if _, err := json.Marshal(e); err != nil {
				t.Errorf("history line %q → %+v: %v", data, e, err)
			}
		}
		var p Pointer
		if json.Unmarshal(data, &p) == nil {
			b, err := json.Marshal(p)
			var again Pointer
			if err != nil || json.Unmarshal(b, &again) != nil || !again.same(p) {
				t.Errorf("promoted.json %q → %+v → %s → %+v (%v)", data, p, b, again, err)
			}
		}
	})
}
