package model

import (
	"bytes"
	"context"
	"log/slog"
	"reflect"
	"strings"
	"testing"
)

func FuzzReadConfig(f *testing.F) {
	f.Add("[feature]\nKENLM name=LM0 factor=0 path=${MODEL_PATH}/lm.gz order=5\nDistortion\n[weight]\nLM0= 0.5\nDistortion0= 0.3\n")
	f.Add("[input-factors]\n0\n[mapping]\n0 T 0\n[distortion-limit]\n6\n[early-distortion-cost]\nyes\n[n-best-list]\nnbest\n50\n[feature]\nPhraseDictionaryMemory path=pt.gz num-features=5 table-limit=20\nWordPenalty\n[weight]\nWordPenalty0= -1\nPhraseDictionaryMemory0= 0.2 0.2 0.2 0.2 0.2\n")
	f.Add("[feature]\nLexicalReordering type=wbe-msd-bidirectional-fe-allff path=r.gz default-scores=0.5,0.5,0.5,0.5,0.5,0.5\nKENLM path=/lm tuneable=false\n[weight]\nLexicalReordering0= 0.3 0.3 0.3 0.3 0.3 0.3\nKENLM0= 1\n[stack]\n100\n[beam-threshold]\n0\n")
	f.Add("[weight-file]\n${X}/w\n[feature]\nUnknownWordPenalty\n[weight]\n")
	f.Add("[search-algorithm]\n1\n[cube-pruning-pop-limit]\n200\n[cube-pruning-diversity]\n3\n[feature]\nWordPenalty\n[weight]\nWordPenalty0= -1\n")
	getenv := func(k string) (string, bool) {
		switch k {
		case "MODEL_PATH":
			return "/m", true
		case "X":
			return "x", true
		}
		return "", false
	}
	quiet := slog.New(slog.DiscardHandler)
	f.Fuzz(func(t *testing.T, in string) {
		c, err := ReadConfig(strings.NewReader(in), "/d/moses.ini", ConfigOptions{Getenv: getenv, Logger: quiet})
		if err != nil {
			if _, ok := err.(*ParseError); !ok && !strings.HasPrefix(err.Error(), "model: ") {
				t.Fatalf("error %q", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteConfig(&buf, c); err != nil {
			// Only values the writer cannot write back are refused.
			return
		}
		c2, err := ReadConfig(bytes.NewReader(buf.Bytes()), "/d/moses.ini", ConfigOptions{Getenv: getenv, Logger: quiet})
		if err != nil {
			t.Fatalf("reading back: %v\n%s", err, buf.String())
		}
		if msg := configDiff(c, c2); msg != "" {
			t.Fatalf("round trip: %s\n%s", msg, buf.String())
		}
	})
}

func FuzzPhraseLine(f *testing.F) {
	f.Add("das Haus ||| the house ||| 0.8 0.5 0.7 0.4 ||| 0-0 1-1 ||| 10 8 6")
	f.Add(`! " ||| ! " ||| 0.333333 0.232809 0.5 0.244802 ||| 0-0 1-1 ||| 3 2 1 ||| |||`)
	f.Add("a ||| b ||| 0 1e-05 2.718")
	f.Add("ist ||| ||| 0.01 ||| |||  5 50 1")
	f.Add("a ||| b ||| nan")
	f.Add("a ||| b ||| 0.5 ||| 1-0")
	f.Add("a\tb  |||c|||1")
	f.Fuzz(func(t *testing.T, line string) {
		p, err := ParsePhraseLine(line)
		if err == nil {
			out, err := AppendPhraseLine(nil, p)
			if err != nil {
				t.Fatalf("AppendPhraseLine(%+v): %v", p, err)
			}
			p2, err := ParsePhraseLine(strings.TrimSuffix(string(out), "\n"))
			if err != nil || !reflect.DeepEqual(p, p2) {
				t.Fatalf("round trip of %q: %q gives %+v, %v; want %+v", line, out, p2, err, p)
			}
		} else if _, ok := err.(*ParseError); !ok {
			t.Fatalf("error %T %v", err, err)
		}
		// The whole input as a table, cut into tiny blocks.
		pt, err := ReadPhraseTable(context.Background(), strings.NewReader(line+"\n"+line), "pt", PhraseTableOptions{ChunkSize: 7, Workers: 2})
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("table error %T %v", err, err)
			}
			return
		}
		for e := range int32(pt.NumSources()) {
			s, end := pt.Lookup(pt.Source(e))
			if s2, e2 := pt.Options(e); s != s2 || end != e2 || s == end {
				t.Fatalf("source %d: lookup [%d,%d), options [%d,%d)", e, s, end, s2, e2)
			}
			for o := s; o < end; o++ {
				a := pt.Alignment(o)
				for i := range a.Len() {
					if si, ti := a.At(i); si >= len(pt.Source(e)) || ti >= len(pt.Target(o)) {
						t.Fatalf("alignment point %d-%d outside", si, ti)
					}
				}
			}
		}
	})
}

func FuzzReorderingLine(f *testing.F) {
	f.Add("das Haus ||| the house ||| 0.6 0.2 0.2 0.5 0.25 0.25")
	f.Add("das ||| 0.5 0.5")
	f.Add("ist ||| ||| 0.5 0 0.5")
	f.Add("das ||| the ||| x ||| 1")
	f.Fuzz(func(t *testing.T, line string) {
		for _, cond := range []Condition{ConditionFE, ConditionF} {
			e, err := ParseReorderingLine(line, cond)
			if err == nil {
				out, err := AppendReorderingLine(nil, e, cond)
				if err != nil {
					t.Fatalf("AppendReorderingLine(%+v): %v", e, err)
				}
				e2, err := ParseReorderingLine(strings.TrimSuffix(string(out), "\n"), cond)
				if err != nil || !reflect.DeepEqual(e, e2) {
					t.Fatalf("round trip of %q: %q gives %+v, %v", line, out, e2, err)
				}
			} else if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T %v", err, err)
			}
			pt := readTable(t, smallTable, PhraseTableOptions{})
			st, err := pt.ReadReordering(context.Background(), strings.NewReader(line+"\n"+line), "ro", ReorderingOptions{Condition: cond, ChunkSize: 5})
			if err != nil {
				if _, ok := err.(*ParseError); !ok {
					t.Fatalf("table error %T %v", err, err)
				}
				continue
			}
			if st.Attached > pt.NumOptions() || st.Lines > 2 {
				t.Fatalf("stats %+v", st)
			}
		}
	})
}
