package nbest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/mtune/mtune/feature"
)

// addSeeds adds the test lists of testdata/dir and the lines given.
func addSeeds(f *testing.F, dir string, lines ...string) {
	files, _ := filepath.Glob(filepath.Join("testdata", dir, "*"))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, l := range lines {
		f.Add([]byte(l))
	}
}

// checkSentenceReader reads data in format ft to the end and checks what
// any reader must do: no panic, hypotheses with valid vectors whose
// features are components of the reader's groups, positions, sentence ids
// that are not negative, and errors that are sticky *ParseErrors naming
// the file.
func checkSentenceReader(t *testing.T, data []byte, ft Format) {
	idx := feature.NewIndex()
	r, err := NewSentenceReader(bytes.NewReader(data), "fuzz", idx, ft)
	if err != nil {
		t.Fatalf("NewSentenceReader: %v", err)
	}
	prev := -1
	for {
		id, hyps, err := r.ReadSentence()
		if err == io.EOF {
			return
		}
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "fuzz" || pe.Line < 0 || pe.Column < 0 {
				t.Fatalf("error %v (%T) is not a *ParseError of fuzz", err, err)
			}
			if _, _, again := r.ReadSentence(); again != err {
				t.Fatalf("error not sticky: %v, then %v", err, again)
			}
			return
		}
		if id < 0 || len(hyps) == 0 || r.SentenceLine() != hyps[0].Line {
			t.Fatalf("sentence %d: %d hypotheses, SentenceLine %d", id, len(hyps), r.SentenceLine())
		}
		if r.Format() == FormatFairseq && id <= prev {
			t.Fatalf("sentence %d after %d", id, prev)
		}
		prev = id
		groups := r.Groups()
		for _, h := range hyps {
			if h.Sentence != id || h.File != "fuzz" || h.Line < 1 {
				t.Fatalf("hypothesis of sentence %d at %s", h.Sentence, h.Pos())
			}
			if err := h.Features.Validate(); err != nil {
				t.Fatalf("invalid vector: %v", err)
			}
			for _, fid := range h.Features.IDs {
				label, i, ok := feature.SplitDenseName(idx.Name(fid))
				found := false
				for _, g := range groups {
					found = found || (ok && g.Label == label && i < g.Len)
				}
				if !found && r.Format() != FormatMoses {
					t.Fatalf("feature %s is in no group of %v", idx.Name(fid), groups)
				}
			}
		}
	}
}

func FuzzMarianReader(f *testing.F) {
	addSeeds(f, "marian",
		"0 ||| a ||| F0= -1 F0= -2 ||| -1\n",
		"3 ||| a ||| F0= -1 ||| -1\n2 ||| a ||| F0= -1 ||| -1\n",
		"0 ||| a ||| WordScores= -1 ||| 0-0 ||| F0= -1 ||| -1\n",
		"0 ||| a ||| 0-0 0.5,0.5 ||| F0= -1 ||| -1\n",
		"0 ||| a |||  ||| F0= ||| x\n0 ||| b ||| =1 ||| -1",
		"0 ||| a ||| F0= -1 Score= -2 ||| -1\n0 ||| b ||| F0= -1 ||| -1\n1 ||| b ||| Score=-1 F0=-1 ||| -1\n")
	f.Fuzz(func(t *testing.T, data []byte) { checkSentenceReader(t, data, FormatMarian) })
}

func FuzzFairseqReader(f *testing.F) {
	addSeeds(f, "fairseq",
		"H-0\t-1\ta\nD-0\t-1\tA\nH-1\t-2\tb\nH-0\t-1\tc\n",
		"D-0\t-1\ta\n",
		"H-0\t-1\n",
		"E-3_1\tx\nH-x\t1\ta\n",
		"S-0\tlog\n")
	f.Fuzz(func(t *testing.T, data []byte) { checkSentenceReader(t, data, FormatFairseq) })
}

func FuzzSockeyeReader(f *testing.F) {
	addSeeds(f, "sockeye",
		`{"translation": "", "score": -Infinity}`+"\n",
		`{"translations": ["a", "b"], "scores": [[1.5], [NaN]]}`+"\n",
		`{"sentence_id": 1, "translation": "a", "score": 1}`+"\n"+`{"sentence_id": 1, "translation": "a", "score": 1}`,
		`{"translation": "a", "score": 1, "factor2_score": 1, "factor1_score": 0}`+"\n",
		`{"translations": [], "scores": [[]]} x`,
		`[1, {"a": 2}]`)
	f.Fuzz(func(t *testing.T, data []byte) { checkSentenceReader(t, data, FormatSockeye) })
}

// FuzzDetect reads any input with FormatAuto: detection must not panic
// and the reader it picks must behave as any reader.
func FuzzDetect(f *testing.F) {
	addSeeds(f, "*")
	for _, s := range nbestSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		DetectLine(data)
		checkSentenceReader(t, data, FormatAuto)
	})
}
