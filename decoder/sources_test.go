package decoder

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/decoder/model"
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/testsupport/shared"
)

// TestLoadSourcesSmall checks that Load with Sources keeps the phrase-table
// and reordering lines LoadFiltered keeps, and decodes the sentences as
// the full model does.
func TestLoadSourcesSmall(t *testing.T) {
	ini := writeSmall(t, nil)
	ctx := context.Background()
	idx := feature.NewIndex()
	full, err := Load(ctx, ini, LoadOptions{Index: idx})
	if err != nil {
		t.Fatal(err)
	}
	tests := smallSourceCases
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Load(ctx, ini, LoadOptions{Index: idx, Sources: tc.sents})
			if err != nil {
				t.Fatal(err)
			}
			lf, st, err := LoadFiltered(ctx, ini, tc.sents, LoadOptions{Index: idx}, FilterCache{Off: true})
			if err != nil {
				t.Fatal(err)
			}
			if m.Stats().Options != tc.ptKept || lf.Stats().Options != st.PhraseTable.Kept || st.PhraseTable.Kept != tc.ptKept {
				t.Errorf("%d options (LoadFiltered %d, kept %d), want %d", m.Stats().Options, lf.Stats().Options, st.PhraseTable.Kept, tc.ptKept)
			}
			if got := m.Stats().Reordering; got.Lines != 7 || got.Attached != tc.loKept || got.Attached != lf.Stats().Reordering.Attached {
				t.Errorf("reordering %+v, want 7 lines, %d attached (LoadFiltered %+v)", got, tc.loKept, lf.Stats().Reordering)
			}
			sents := nonBlank(tc.sents)
			for _, alg := range []Algorithm{StackSearch, CubePruning} {
				sameDecodesWith(t, full, m, sents, alg)
				sameDecodesWith(t, lf, m, sents, alg)
			}
		})
	}
	// Nil Sources loads everything.
	if m, err := Load(ctx, ini, LoadOptions{Index: idx, Sources: nil}); err != nil {
		t.Fatal(err)
	} else if m.Stats().Options != full.Stats().Options {
		t.Errorf("Sources nil: %d options, want %d", m.Stats().Options, full.Stats().Options)
	}
}

// TestLoadSourcesDecodesAsFull checks, on Moses' lexicalized-reordering
// model (stack search and cube pruning) and on europarl-fr-en-8k (tune
// lines 8001–8024), that Load with Sources decodes the sentences to the
// full model's n-best lists.
func TestLoadSourcesDecodesAsFull(t *testing.T) {
	ctx := context.Background()
	t.Run("lexicalized-reordering", func(t *testing.T) {
		ini, env, sents := lrModel(t)
		full, err := Load(ctx, ini, LoadOptions{Getenv: env})
		if err != nil {
			t.Fatal(err)
		}
		m, err := Load(ctx, ini, LoadOptions{Getenv: env, Index: full.Index(), Sources: sents})
		if err != nil {
			t.Fatal(err)
		}
		if k, n := m.Stats().Options, full.Stats().Options; k == 0 || k >= n {
			t.Errorf("%d of %d options loaded", k, n)
		}
		for _, alg := range []Algorithm{StackSearch, CubePruning} {
			sameDecodesWith(t, full, m, sents, alg)
		}
	})
	t.Run("europarl-8k", func(t *testing.T) {
		if testing.Short() {
			t.Skip("decodes with the 8k model")
		}
		full := load8k(t)
		d := shared.Path(t, "moses-models", "europarl-fr-en-8k")
		sents := europarlLines(t, "fr.gz", 8001, 8024)
		m, err := Load(ctx, filepath.Join(d, "moses.ini"), LoadOptions{Getenv: modelEnv("MODEL_PATH", d), Index: full.Index(), Sources: sents})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d of %d options", m.Stats().Options, full.Stats().Options)
		if k, n := m.Stats().Options, full.Stats().Options; k == 0 || k >= n {
			t.Errorf("%d of %d options loaded", k, n)
		}
		sameDecodesWith(t, full, m, sents, StackSearch)
		sameDecodesWith(t, full, m, sents, CubePruning)
	})
}

// TestLoadSourcesErrors checks what Load with Sources reports of bad
// tables: a line whose source phrase the sentences lack is checked for its
// "|||" fields (as LoadFiltered checks every line), a kept line as Load
// checks it; a bad number in a line not kept goes unseen, as with
// LoadFiltered.
func TestLoadSourcesErrors(t *testing.T) {
	ctx := context.Background()
	sents := []string{"le chat"}
	tests := []struct {
		name   string
		file   string
		edit   func(string) string
		want   []string // in the message; nil: no error
		wantIs error
	}{
		{"phrase line without fields, not kept", "phrase-table",
			func(s string) string { return s + "chien dog 0.5 0.5 0.5 0.5\n" },
			[]string{"phrase-table:10", "3 fields"}, model.ErrSyntax},
		{"phrase line with 8 fields, not kept", "phrase-table",
			func(s string) string { return s + "chien ||| dog ||| 0.5 0.5 0.5 0.5 ||| ||| ||| ||| ||| \n" },
			[]string{"phrase-table:10", "more than 7 fields"}, model.ErrSyntax},
		{"phrase line with a bad score, kept", "phrase-table",
			func(s string) string { return strings.Replace(s, "0.8 0.7 0.9 0.8", "0.8 x 0.9 0.8", 1) },
			[]string{"phrase-table:3:", `"x"`}, model.ErrNumber},
		{"phrase line with a bad score, not kept", "phrase-table",
			func(s string) string { return strings.Replace(s, "0.9 0.9 0.9 0.9", "0.9 x 0.9 0.9", 1) }, nil, nil},
		{"reordering line without fields, not kept", "reordering-table",
			func(s string) string { return strings.Replace(s, "dort ||| sleeps |||", "dort sleeps |||", 1) },
			[]string{"reordering-table:7", "2 fields, want 3"}, model.ErrSyntax},
		{"reordering line with a bad score, kept", "reordering-table",
			func(s string) string { return strings.Replace(s, "0.8 0.1 0.1 0.7", "0.8 -1 0.1 0.7", 1) },
			[]string{"reordering-table:4:", `"-1"`}, model.ErrNumber},
		{"reordering line with 5 scores, not kept", "reordering-table",
			func(s string) string { return strings.Replace(s, "0.3 0.6 0.1 0.2 0.6 0.2", "0.3 0.6 0.1 0.2 0.6", 1) }, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ini := writeSmall(t, nil)
			p := filepath.Join(filepath.Dir(ini), tc.file)
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			edited := tc.edit(string(data))
			if edited == string(data) {
				t.Fatal("the edit changed nothing")
			}
			if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = Load(ctx, ini, LoadOptions{Sources: sents})
			_, _, ferr := LoadFiltered(ctx, ini, sents, LoadOptions{}, FilterCache{Off: true})
			if (err == nil) != (ferr == nil) {
				t.Errorf("Load with Sources: %v; LoadFiltered: %v", err, ferr)
			}
			if tc.want == nil {
				if err != nil {
					t.Errorf("error %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if !errors.Is(err, tc.wantIs) {
				t.Errorf("error %q is not %v", err, tc.wantIs)
			}
		})
	}
}
