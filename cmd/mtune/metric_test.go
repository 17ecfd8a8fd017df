package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
)

// TestScoreMetric: mtune score --metric prints sacreBLEU's figures on
// wmt15-en-ru-100 (chrF2 56.76 and chrF2++ 53.43, sacreBLEU 2.6.0 run from
// its source: metric/testdata/sacrebleu-chrf-wmt15.json), the signature
// with --signature, the name and signature in --json, and refuses an
// unknown metric and external scores (exit 2).
func TestScoreMetric(t *testing.T) {
	dir := shared.Path(t, "bleu", "wmt15-en-ru-100")
	hyp, ref := filepath.Join(dir, "newstest-2015-100sents.en-ru.google.ru"), filepath.Join(dir, "newstest-2015-100sents.en-ru.ref.ru")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--metric", "chrf"}, "chrF2 = 56.76\n"},
		{[]string{"--metric", "chrf++"}, "chrF2++ = 53.43\n"},
		{[]string{"--metric", "chrf", "--signature"}, "chrF2 = 56.76 nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0\n"},
		{[]string{"--metric", "bleu"}, "BLEU = 17.41, 44.4/23.4/12.7/7.0 (BP=1.000, ratio=1.077, hyp_len=1710, ref_len=1588)\n"},
		{nil, "BLEU = 17.41, 44.4/23.4/12.7/7.0 (BP=1.000, ratio=1.077, hyp_len=1710, ref_len=1588)\n"},
		{[]string{"--metric", "bleu:0.5,chrf:0.5"}, "0.5·BLEU+0.5·chrF2 = 37.08\n"},
	} {
		code, stdout, errOut := mtune(t, "", append([]string{"score", "-r", ref, hyp}, tc.args...)...)
		if code != 0 || stdout != tc.want {
			t.Errorf("score %v: exit %d, %q (%s); want %q", tc.args, code, stdout, errOut, tc.want)
		}
	}
	code, stdout, errOut := mtune(t, "", "score", "--metric", "chrf++", "--json", "-r", ref, hyp)
	var got struct {
		Name, Signature string
		Score           float64
		Stats           []float64
	}
	if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil || got.Name != "chrF2++" || len(got.Stats) != 24 ||
		!strings.Contains(got.Signature, "nw:2") || got.Score < 53.43 || got.Score > 53.44 {
		t.Errorf("score --json: exit %d, %+v, %v (%s)", code, got, err, errOut)
	}
	for _, tc := range []struct{ metric, msg string }{
		{"blue", `unknown "blue"`}, {"external", "score file"}, {"bleu:0", "positive"},
	} {
		code, _, errOut := mtune(t, "", "score", "--metric", tc.metric, "-r", ref, hyp)
		if code != 2 || !strings.Contains(errOut, tc.msg) {
			t.Errorf("score --metric %s: exit %d, %q; want 2 and %q", tc.metric, code, errOut, tc.msg)
		}
	}
}
