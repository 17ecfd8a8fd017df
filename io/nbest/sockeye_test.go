package nbest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
)

// TestSockeyeFiles reads the Sockeye JSON lines of testdata/sockeye line
// by line.
func TestSockeyeFiles(t *testing.T) {
	hyp := func(line int, score float64, target string) Hypothesis {
		return Hypothesis{Target: target, Score: score, HasScore: true, Line: line}
	}
	s := func(x ...float64) fv {
		m := fv{}
		for i, v := range x {
			if v != 0 {
				m[feature.DenseName(SockeyeFeature, i)] = v
			}
		}
		return m
	}
	for _, tc := range []struct {
		file  string
		want  map[int][]Hypothesis
		feats map[int][]fv
		width int
	}{
		{"nbest.jsonl", map[int][]Hypothesis{
			0: {hyp(1, 0.7329161763191223, "ein Test ."), hyp(1, 0.9124304056167603, "der Test ."), hyp(1, 1.0383447408676147, "ein Versuch .")},
			1: {hyp(2, 0.2105, "danke ."), hyp(2, 0.4375, "vielen Dank ."), hyp(2, 0.5, "")},
		}, map[int][]fv{
			0: {s(0.7329161763191223), s(0.9124304056167603), s(1.0383447408676147)},
			1: {s(0.2105), s(0.4375), s(0.5)},
		}, 1},
		{"nbest-factors.jsonl", map[int][]Hypothesis{
			0: {hyp(1, 0.41, "ein Test"), hyp(1, 0.57, "der Test")},
		}, map[int][]fv{0: {s(0.41, 0.03), s(0.57, 0.09)}}, 2},
		{"single-factors.jsonl", map[int][]Hypothesis{
			0: {hyp(1, 0.5, "ein Test")},
			1: {hyp(2, 1.25, "danke")},
		}, map[int][]fv{0: {s(0.5, 0.03)}, 1: {s(1.25, 0)}}, 2},
		{"nbest-v1.jsonl", map[int][]Hypothesis{
			0: {hyp(1, 0.41, "ein Test"), hyp(1, 0.57, "der Test")},
		}, map[int][]fv{0: {s(0.41), s(0.57)}}, 1},
		{"output-handler-test.jsonl", map[int][]Hypothesis{
			0: {hyp(1, 0, "ein Test"), hyp(1, 0.1, "der Test")},
		}, map[int][]fv{0: {s(0), s(0.1)}}, 1},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "sockeye", tc.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			idx := feature.NewIndex()
			r := NewSockeyeReader(strings.NewReader(string(data)), path, idx)
			checkSentences(t, r, idx, tc.want, tc.feats, []feature.Group{{Label: SockeyeFeature, Len: tc.width}})
		})
	}
}

// TestSockeyeIDs checks sentence ids: from the first line's sentence_id,
// or line order without them.
func TestSockeyeIDs(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []int
	}{
		{"from 1", `{"sentence_id": 1, "translation": "a", "score": 1}` + "\n" + `{"sentence_id": 2, "translation": "b", "score": 1}` + "\n", []int{0, 1}},
		{"a gap", `{"sentence_id": 1, "translation": "a", "score": 1}` + "\n" + `{"sentence_id": 3, "translation": "b", "score": 1}` + "\n", []int{0, 2}},
		{"no ids", `{"translations": ["a", "b"], "scores": [1, 2]}` + "\n\n" + `{"translations": ["c", "d"], "scores": [1, 2]}` + "\n", []int{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids, _ := readSentences(t, NewSockeyeReader(strings.NewReader(tc.in), "s", feature.NewIndex()))
			if len(ids) != len(tc.want) {
				t.Fatalf("ids %v, want %v", ids, tc.want)
			}
			for i := range ids {
				if ids[i] != tc.want[i] {
					t.Fatalf("ids %v, want %v", ids, tc.want)
				}
			}
		})
	}
}

// TestSockeyeErrors checks the error, line and column of malformed JSON
// lines.
func TestSockeyeErrors(t *testing.T) {
	const ok = `{"sentence_id": 1, "translation": "a", "score": 1}` + "\n"
	for _, tc := range []struct {
		name, in  string
		kind      error
		line, col int
		msg       string
	}{
		{"not JSON", "hello\n", ErrBadJSON, 1, 1, "invalid character"},
		{"not an object", "[1, 2]\n", ErrBadField, 1, 1, "not a JSON object"},
		{"not closed", `{"translation": "a", "score": 1` + "\n", ErrBadJSON, 1, 32, "not closed"},
		{"text after", `{"translation": "a", "score": 1} x` + "\n", ErrBadField, 1, 34, "text after the JSON object"},
		{"duplicate key", `{"translation": "a", "score": 1, "score": 2}` + "\n", ErrDuplicate, 1, 34, `"score"`},
		{"-Infinity", `{"translation": "", "score": -Infinity}` + "\n", ErrBadNumber, 1, 30, `score "-Infinity"`},
		{"NaN in scores", `{"translations": ["a", "b"], "scores": [[1.5], [NaN]]}` + "\n", ErrBadNumber, 1, 49, `"NaN"`},
		{"score a string", `{"translation": "a", "score": "1"}` + "\n", ErrBadField, 1, 22, `"score": want a number`},
		{"translation a number", `{"translation": 1, "score": 1}` + "\n", ErrBadField, 1, 2, `"translation": want a string`},
		{"scores of strings", `{"translations": ["a"], "scores": ["x"]}` + "\n", ErrBadField, 1, 25, "an array of numbers"},
		{"no translation", `{"score": 1}` + "\n", ErrNoHypothesis, 1, 1, "neither"},
		{"empty translations", `{"translations": [], "scores": []}` + "\n", ErrNoHypothesis, 1, 2, "empty"},
		{"scores count", `{"translations": ["a", "b"], "scores": [1]}` + "\n", ErrBadField, 1, 2, "2 translations and 1 scores"},
		{"no score", `{"translation": "a"}` + "\n", ErrBadField, 1, 2, "without \"score\""},
		{"no scores", `{"translations": ["a"]}` + "\n", ErrBadField, 1, 2, "1 translations and 0 scores"},
		{"translation null", `{"translation": null, "score": 1}` + "\n", ErrBadField, 1, 2, `"translation": want a string`},
		{"translations null", `{"translations": null, "scores": [1]}` + "\n", ErrBadField, 1, 2, `"translations": want an array of strings`},
		{"translations holds null", `{"translations": [null], "scores": [1]}` + "\n", ErrBadField, 1, 2, `"translations": want an array of strings`},
		{"score null", `{"translation": "a", "score": null}` + "\n", ErrBadField, 1, 22, `"score": want a number`},
		{"scores holds null", `{"translations": ["a"], "scores": [null]}` + "\n", ErrBadField, 1, 25, "an array of numbers"},
		{"scores holds [null]", `{"translations": ["a"], "scores": [[null]]}` + "\n", ErrBadField, 1, 25, "an array of numbers"},
		{"string id", `{"sentence_id": "7", "translation": "a", "score": 1}` + "\n", ErrBadField, 1, 2, `"sentence_id": want a non-negative integer`},
		{"null id", `{"sentence_id": null, "translation": "a", "score": 1}` + "\n", ErrBadField, 1, 2, `"sentence_id": want a non-negative integer`},
		{"bad id", `{"sentence_id": -1, "translation": "a", "score": 1}` + "\n", ErrBadField, 1, 2, "non-negative integer"},
		{"id below the first", ok + `{"sentence_id": 0, "translation": "a", "score": 1}` + "\n", ErrBadID, 2, 2, "below the first line's 1"},
		{"id again", ok + ok, ErrNotGrouped, 2, 2, "sentence_id 1 again"},
		{"id on some lines", ok + `{"translation": "a", "score": 1}` + "\n", ErrBadID, 2, 1, "some lines only"},
		{"width", ok + `{"sentence_id": 2, "translations": ["a", "b"], "scores": [[1, 2], [1, 2]]}` + "\n", ErrDenseLayout, 2, 48, "2 scores, line 1 has 1"},
		{"factor gap", `{"translation": "a", "score": 1, "factor2_score": 1}` + "\n", ErrBadField, 1, 1, "factor1_score missing"},
		{"invalid UTF-8", "{\"translation\": \"a\xff\", \"score\": 1}\n", ErrInvalidUTF8, 1, 19, ""},
		{"cut off", ok + `{"sentence_id": 2, "transl`, ErrBadJSON, 2, 27, "cut off by the end of input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewSockeyeReader(strings.NewReader(tc.in), "s.json", feature.NewIndex())
			var err error
			for err == nil {
				_, _, err = r.ReadSentence()
			}
			checkAt(t, err, tc.kind, "s.json", tc.line, tc.col, tc.msg)
			if _, _, again := r.ReadSentence(); again != err {
				t.Errorf("error not sticky: %v, then %v", err, again)
			}
		})
	}
}
