package weights

import (
	"context"
	"testing"

	"github.com/mtune/mtune/testsupport/parsetest"
)

// TestErrorsDoNotQuoteLines reads files that are not weights (a corpus
// file) or carry a long bad token, and checks that the error names the
// file and line and does not print the line: at most a short token.
func TestErrorsDoNotQuoteLines(t *testing.T) {
	secret, long := parsetest.Secret, parsetest.Long
	cases := []struct {
		name   string
		format Format
		in     string
		line   int
	}{
		{"corpus file", Auto, secret + "\n", 1},
		{"section header", Moses, "[weight " + secret + "\n", 1},
		{"value before any label", Moses, "[weight]\n" + long + "\n", 2},
		{"bad number", Moses, "[weight]\nLM0= " + long + "\n", 2},
		{"bad sparse name", Sparse, long + "== 1\n", 1},
		{"bad sparse number", Sparse, "pt_a_b " + long + "\n", 1},
		{"JSON string", JSON, "{\"version\": \"" + secret + "\"}\n", 1},
		{"JSON key", JSON, "{\"" + secret + "\": 1}\n", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := parsetest.WriteFile(t, "corpus.en", c.in)
			_, err := ReadFormat(context.Background(), path, c.format, nil)
			parsetest.NoContent(t, err, path, c.line)
		})
	}
}
