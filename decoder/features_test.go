package decoder

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/testsupport/parsetest"
)

func TestParseTemplates(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want Templates
		err  bool
	}{
		{"none", nil, Templates{}, false},
		{"one", []string{"pt"}, Templates{PhrasePair: true}, false},
		{"list", []string{"al,lo", "tu"}, Templates{Alignment: true, Reordering: true, TargetUnaligned: true}, false},
		{"long names", []string{"count-bin,length-bin"}, Templates{CountBins: true, LengthBins: true}, false},
		{"all", []string{"all"}, Templates{true, true, true, true, true, true}, false},
		{"unknown", []string{"pt,xx"}, Templates{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseTemplates(tc.in...)
			if (err != nil) != tc.err {
				t.Fatalf("error %v, want error %v", err, tc.err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			back, err := ParseTemplates(strings.Join(got.Names(), ","))
			if err != nil || back != got {
				t.Errorf("Names round trip: %+v, %v", back, err)
			}
		})
	}
}

func writeFile(t testing.TB, text string) string {
	t.Helper()
	return parsetest.WriteFile(t, "file", text)
}

// TestSparseTemplates decodes with every template on: the features fire
// with the names the documentation gives, search scores equal
// features·weights with sparse weights set, and zero sparse weights change
// nothing.
func TestSparseTemplates(t *testing.T) {
	all, _ := ParseTemplates("all")
	sparse := writeFile(t, "pp_le,chat~the,cat 0.5\nlo_bm_le~the -0.3\nlo_fs_noir~black 0.4\ntu_is 0.7\nal_dort~sleeping 0.2\ncb_1 -0.1\nlb_2~2 0.3\nlb_t2 -0.2\n")
	plain := loadSmall(t, LoadOptions{})
	zero := loadSmall(t, LoadOptions{Sparse: all})
	weighted := loadSmall(t, LoadOptions{Sparse: all, SparseWeightsFile: sparse})
	for _, in := range []string{"le chat noir dort", "noir le chat dort", "le chien dort"} {
		p, err := Decode(context.Background(), plain, in, DecodeOptions{NBest: 20})
		if err != nil {
			t.Fatal(err)
		}
		z, err := Decode(context.Background(), zero, in, DecodeOptions{NBest: 20})
		if err != nil {
			t.Fatal(err)
		}
		if p.Best.Target != z.Best.Target || p.Best.Score != z.Best.Score || len(p.NBest) != len(z.NBest) {
			t.Errorf("%q: zero sparse weights changed the search: %q %g / %q %g", in, p.Best.Target, p.Best.Score, z.Best.Target, z.Best.Score)
		}
		r, err := Decode(context.Background(), weighted, in, DecodeOptions{NBest: 20})
		if err != nil {
			t.Fatal(err)
		}
		w := weighted.Weights()
		for i := range r.NBest {
			checkScore(t, "sparse", &r.NBest[i], w)
		}
	}
	res, err := Decode(context.Background(), zero, "le chat noir dort", DecodeOptions{NBest: 50, AllDerivations: true})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, h := range res.NBest {
		for _, id := range h.Features.IDs {
			names[zero.Index().Name(id)] = true
		}
	}
	for _, want := range []string{"pp_le,chat~the,cat", "pp_dort~is,sleeping", "al_chat~cat", "al_noir~black",
		"tu_is", "cb_1", "cb_4", "lb_s2", "lb_t1", "lb_2~2", "lo_bm_le~the", "lo_mono_le~the", "lo_fm_le~the",
		"lo_bd_noir~black", "lo_nonmono_noir~black"} {
		if !names[want] {
			t.Errorf("no hypothesis fires %s", want)
		}
	}
}

func TestLoadWeightsFile(t *testing.T) {
	wf := writeFile(t, "[weight]\nLM0= 0.1\nWordPenalty0= 0.5\n")
	m := loadSmall(t, LoadOptions{WeightsFile: wf})
	w := m.Weights()
	for name, want := range map[string]float64{"LM0_0": 0.1, "WordPenalty0_0": 0.5, "Distortion0_0": 0.3, "UnknownWordPenalty0_0": 1} {
		id, _ := m.Index().Lookup(name)
		if got := w.At(id); got != want {
			t.Errorf("%s = %g, want %g", name, got, want)
		}
	}
	res, err := Decode(context.Background(), m, "le chat noir dort", DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkScore(t, "reweighted", &res.Best, w)

	// Per-call weights.
	w2 := m.Weights()
	lmID, _ := m.Index().Lookup("LM0_0")
	w2.Set(lmID, 2)
	res, err = Decode(context.Background(), m, "le chat noir dort", DecodeOptions{Weights: w2})
	if err != nil {
		t.Fatal(err)
	}
	checkScore(t, "per-call weights", &res.Best, w2)
}

// TestLoadWeightOverwrite: -weight-overwrite's weights replace those of
// the moses.ini and of the weights file for the features they name, in
// Load and ShowWeights alike.
func TestLoadWeightOverwrite(t *testing.T) {
	opts := LoadOptions{WeightsFile: writeFile(t, "[weight]\nLM0= 0.1\nWordPenalty0= 0.5\n"), WeightOverwrite: "LM0= 0.25 Distortion0= 0.7"}
	ini := writeSmall(t, nil)
	m, err := Load(context.Background(), ini, opts)
	if err != nil {
		t.Fatal(err)
	}
	w := m.Weights()
	for name, want := range map[string]float64{"LM0_0": 0.25, "WordPenalty0_0": 0.5, "Distortion0_0": 0.7, "UnknownWordPenalty0_0": 1} {
		id, _ := m.Index().Lookup(name)
		if got := w.At(id); got != want {
			t.Errorf("%s = %g, want %g", name, got, want)
		}
	}
	var shown strings.Builder
	if err := ShowWeights(context.Background(), &shown, ini, opts); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nLM0= 0.25\n", "\nWordPenalty0= 0.5\n", "\nDistortion0= 0.7\n"} {
		if !strings.Contains(shown.String(), want) {
			t.Errorf("ShowWeights printed %q, want a line %q", shown.String(), want)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(string) string
		opts func(t *testing.T) LoadOptions
		want error
	}{
		{"second LM", func(s string) string {
			return strings.Replace(s, "KENLM name=LM0 factor=0 path=lm.arpa order=2", "KENLM name=LM0 factor=0 path=lm.arpa order=2\nKENLM name=LM1 factor=0 path=lm.arpa order=2", 1) + "LM1= 0.5\n"
		}, nil, ErrUnsupported},
		{"collapsed reordering", func(s string) string {
			s = strings.Replace(strings.Replace(s, "allff", "collapseff", 1), "num-features=6 type", "num-features=2 type", 1)
			return strings.Replace(s, "LexicalReordering0= 0.3 0.3 0.3 0.3 0.3 0.3", "LexicalReordering0= 0.3 0.3", 1)
		}, nil, ErrUnsupported},
		{"no phrase table", func(s string) string {
			return strings.Replace(strings.Replace(s, "PhraseDictionaryMemory name=TranslationModel0 num-features=4 path=phrase-table input-factor=0 output-factor=0\n", "", 1), "TranslationModel0= 0.2 0.2 0.2 0.2\n", "", 1)
		}, nil, ErrConfig},
		{"missing LM file", func(s string) string { return strings.Replace(s, "path=lm.arpa", "path=nope.arpa", 1) }, nil, os.ErrNotExist},
		{"weights for a missing feature", nil, func(t *testing.T) LoadOptions {
			return LoadOptions{WeightsFile: writeFile(t, "Nope0= 1\n")}
		}, ErrConfig},
		{"weights of the wrong length", nil, func(t *testing.T) LoadOptions {
			return LoadOptions{WeightsFile: writeFile(t, "TranslationModel0= 1 2\n")}
		}, ErrConfig},
		{"overwrite for a missing feature", nil, func(t *testing.T) LoadOptions {
			return LoadOptions{WeightOverwrite: "Nope0= 1"}
		}, ErrConfig},
		{"overwrite of the wrong length", nil, func(t *testing.T) LoadOptions {
			return LoadOptions{WeightOverwrite: "LM0= 1 TranslationModel0= 1"}
		}, ErrConfig},
		{"overwrite not dense weights", nil, func(t *testing.T) LoadOptions {
			return LoadOptions{WeightOverwrite: "pp_x 1"}
		}, weights.ErrSyntax},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts LoadOptions
			if tc.opts != nil {
				opts = tc.opts(t)
			}
			_, err := Load(context.Background(), writeSmall(t, tc.edit), opts)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
		})
	}
}

func TestDecodeAllOrder(t *testing.T) {
	all, _ := ParseTemplates("all")
	m := loadSmall(t, LoadOptions{Sparse: all, SparseWeightsFile: writeFile(t, "lb_s1 0.1\n")})
	in := []string{"le chat noir dort", "dort", "le chien", "noir le chat", "", "chat noir", "le le le", "dort dort le chat"}
	var want []Result
	for _, s := range in {
		r, err := Decode(context.Background(), m, s, DecodeOptions{NBest: 5})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, r)
	}
	for _, threads := range []int{0, 1, 3, 20} {
		got, err := DecodeAll(context.Background(), m, in, DecodeOptions{NBest: 5}, threads)
		if err != nil {
			t.Fatal(err)
		}
		for i := range in {
			if got[i].Best.Target != want[i].Best.Target || got[i].Best.Score != want[i].Best.Score || len(got[i].NBest) != len(want[i].NBest) {
				t.Errorf("threads %d, sentence %d: %q %g, want %q %g", threads, i, got[i].Best.Target, got[i].Best.Score, want[i].Best.Target, want[i].Best.Score)
			}
		}
	}
	_, err := DecodeAll(context.Background(), m, []string{"le", "\xff", "chat"}, DecodeOptions{}, 2)
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "sentence 1") {
		t.Errorf("error %v, want ErrInput for sentence 1", err)
	}
}

// TestNBestWriterMoses writes an n-best list of Moses' early-distortion
// model and checks it reads back as Moses' own list does.
func TestNBestWriterMoses(t *testing.T) {
	m := loadMosesModel(t, "early-distortion-de-en", "TEST_PATH")
	res, err := Decode(context.Background(), m, "trotz Fortschritten Menschen Rechts dem Ende der ist unbekannt .", DecodeOptions{NBest: 3, AllDerivations: true})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := m.NewNBestWriter(&buf)
	for i := range res.NBest {
		if err := w.Write(m.NBestEntry(0, &res.NBest[i])); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(buf.String(), "\n", 2)[0]
	wantPrefix := "0 ||| despite progress human rights is unknown . the end of ||| KENLM0= -52.0397"
	if !strings.HasPrefix(first, wantPrefix) || !strings.HasSuffix(first, "||| 0=0 1=1 2-3=2-3 7=4 8=5 9=6 4-6=7-9") {
		t.Errorf("first line %q", first)
	}
	for _, label := range []string{" Distortion0= -12 ", " WordPenalty0= -10 ", " PhraseDictionaryMemory0= "} {
		if !strings.Contains(first, label) {
			t.Errorf("first line lacks %q: %q", label, first)
		}
	}
	r := nbest.NewReader(&buf, "written", m.Index())
	_, hs, err := r.ReadSentence()
	if err != nil || len(hs) != 3 {
		t.Fatalf("read back %d hypotheses, %v", len(hs), err)
	}
	for i, h := range hs {
		e := m.NBestEntry(0, &res.NBest[i])
		if !h.Features.Equal(e.Features) || h.Score != e.Score {
			t.Errorf("hypothesis %d reads back as %v %g", i, h.Features, h.Score)
		}
	}
}

// TestSparseFromWeights loads weights with sparse features but no
// templates: with SparseFromWeights the templates they need come on, and
// the model decodes as one loaded with those templates named; without it
// they stay off.
func TestSparseFromWeights(t *testing.T) {
	sparse := writeFile(t, "pp_le,chat~the,cat 0.5\nlb_t2 -0.2\naldel_le 0.1\nOOVPenalty 1\n")
	tests := []struct {
		name string
		opts LoadOptions
		want Templates
		none []string
	}{
		{"off", LoadOptions{SparseWeightsFile: sparse}, Templates{}, nil},
		{"on", LoadOptions{SparseWeightsFile: sparse, SparseFromWeights: true},
			Templates{PhrasePair: true, Alignment: true, LengthBins: true}, []string{"OOVPenalty"}},
		{"adds to Sparse", LoadOptions{SparseWeightsFile: sparse, SparseFromWeights: true, Sparse: Templates{CountBins: true}},
			Templates{PhrasePair: true, Alignment: true, CountBins: true, LengthBins: true}, []string{"OOVPenalty"}},
		{"dense weights only", LoadOptions{WeightsFile: writeFile(t, "LM0= 0.1\n"), SparseFromWeights: true}, Templates{}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := loadSmall(t, tc.opts)
			if m.Templates() != tc.want || !slices.Equal(m.SparseWithoutTemplate(), tc.none) {
				t.Fatalf("templates %+v, without template %q; want %+v, %q", m.Templates(), m.SparseWithoutTemplate(), tc.want, tc.none)
			}
		})
	}
	auto := loadSmall(t, LoadOptions{SparseWeightsFile: sparse, SparseFromWeights: true})
	named := loadSmall(t, LoadOptions{SparseWeightsFile: sparse, Sparse: Templates{PhrasePair: true, Alignment: true, LengthBins: true}})
	for _, in := range []string{"le chat noir dort", "le chien dort"} {
		a, err := Decode(context.Background(), auto, in, DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Decode(context.Background(), named, in, DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if a.Best.Target != b.Best.Target || a.Best.Score != b.Best.Score {
			t.Errorf("%q: %q %g, want %q %g", in, a.Best.Target, a.Best.Score, b.Best.Target, b.Best.Score)
		}
	}
}

func TestTemplatesFor(t *testing.T) {
	got, none := TemplatesFor([]string{"pp_a~b", "lo_bm_a~b", "tu_x", "cb_1", "al_a~b", "lb_s1", "x_y", "LM0_0"})
	if want := (Templates{true, true, true, true, true, true}); got != want || !slices.Equal(none, []string{"x_y", "LM0_0"}) {
		t.Fatalf("TemplatesFor: %+v, %q", got, none)
	}
}
