package transforms_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/mtune/mtune/testsupport/testfile"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

func init() { register.Function1x1(formatSentence) }

func formatSentence(x tune.Sentence) string {
	return fmt.Sprintf("%d|%s|%s", x.ID, x.Src, strings.Join(x.Refs, "|"))
}

// TestReadSentences reads a tuning set with two references on the runner,
// and fails a pipeline whose files no longer hold the expected count or
// do not exist.
func TestReadSentences(t *testing.T) {
	dir := t.TempDir()
	write := testfile.Writer(t, dir)
	src := write("tune.fr", "le chat\nun chien\nla maison\n")
	ref0 := write("tune.en0", "the cat\na dog\nthe house\n")
	ref1 := write("tune.en1", "the cat\none dog\nthe home\n")

	p, s := beam.NewPipelineWithRoot()
	sents := transforms.ReadSentences(s, src, []string{ref0, ref1}, 3)
	passert.Equals(s, beam.ParDo(s, formatSentence, sents),
		"0|le chat|the cat|the cat", "1|un chien|a dog|one dog", "2|la maison|the house|the home")
	ptest.RunAndValidate(t, p)

	tests := []struct {
		name, src string
		refs      []string
		want      int
		wantErr   string
	}{
		{"size changed", src, []string{ref0}, 4, "not the 4"},
		{"missing source", filepath.Join(dir, "nope.fr"), []string{ref0}, 0, "nope.fr"},
		{"count mismatch", src, []string{write("short.en", "the cat\n")}, 0, "short.en"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, s := beam.NewPipelineWithRoot()
			transforms.ReadSentences(s, tt.src, tt.refs, tt.want)
			if err := ptest.Run(p); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}
