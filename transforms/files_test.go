package transforms_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/testsupport/testfile"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

func init() { register.Function1x1(formatSentence) }

func formatSentence(x tune.Sentence) string {
	return fmt.Sprintf("%d|%s|%s", x.ID, x.Src, strings.Join(x.Refs, "|"))
}

// TestReadSentences reads a tuning set with two references on the runner,
// range by range, and fails a pipeline whose files no longer hold what the
// scan saw or do not exist.
func TestReadSentences(t *testing.T) {
	dir := t.TempDir()
	write := testfile.Writer(t, dir)
	src := write("tune.fr", "le chat\nun chien\nla maison\n")
	ref0 := write("tune.en0", "the cat\na dog\nthe house\n")
	ref1 := write("tune.en1", "the cat\none dog\nthe home\n")
	ctx := context.Background()
	for _, rangeLines := range []int{1, 2, 3} {
		ix, err := corpus.Scan(ctx, src, []string{ref0, ref1}, rangeLines, 1000)
		if err != nil {
			t.Fatal(err)
		}
		p, s := beam.NewPipelineWithRoot()
		sents := transforms.ReadSentences(s, ix.Ranges())
		passert.Equals(s, beam.ParDo(s, formatSentence, sents),
			"0|le chat|the cat|the cat", "1|un chien|a dog|one dog", "2|la maison|the house|the home")
		ptest.RunAndValidate(t, p)
	}

	ix, err := corpus.Scan(ctx, src, []string{ref0}, 2, 1000)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		change  func()
		wantErr string
	}{
		{"a line longer", func() { write("tune.fr", "le chat\nun gros chien\nla maison\n") }, "tune.fr:3"},
		{"a line more", func() { write("tune.fr", "le chat\nun chien\nla maison\nune souris\n") }, "more than the 3 lines"},
		{"missing source", func() { os.Remove(src) }, "tune.fr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.change()
			p, s := beam.NewPipelineWithRoot()
			transforms.ReadSentences(s, ix.Ranges())
			if err := ptest.Run(p); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestWriteJSONRefusesOtherTypes: WriteStats and WriteMixReport share one
// DoFn over any element type, so they check their input's type themselves
// when the pipeline is built.
func TestWriteJSONRefusesOtherTypes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write func(beam.Scope, beam.PCollection, string) beam.PCollection
	}{
		{"WriteStats", transforms.WriteStats},
		{"WriteMixReport", transforms.WriteMixReport},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s := beam.NewPipelineWithRoot()
			col := beam.CreateList(s, []tune.Sentence{{ID: 0, Src: "a"}})
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "want") {
					t.Errorf("%s of a PCollection<tune.Sentence>: recovered %v, want a panic naming the type wanted", tc.name, r)
				}
			}()
			tc.write(s, col, "/nonexistent/out.json")
		})
	}
}
