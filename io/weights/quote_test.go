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
	parsetest.NoQuoteCases(t, []parsetest.QuoteCase{
		{Name: "corpus file", Parse: readAs(Auto), In: secret + "\n", Line: 1},
		{Name: "section header", Parse: readAs(Moses), In: "[weight " + secret + "\n", Line: 1},
		{Name: "value before any label", Parse: readAs(Moses), In: "[weight]\n" + long + "\n", Line: 2},
		{Name: "bad number", Parse: readAs(Moses), In: "[weight]\nLM0= " + long + "\n", Line: 2},
		{Name: "bad sparse name", Parse: readAs(Sparse), In: long + "== 1\n", Line: 1},
		{Name: "bad sparse number", Parse: readAs(Sparse), In: "pt_a_b " + long + "\n", Line: 1},
		{Name: "JSON string", Parse: readAs(JSON), In: "{\"version\": \"" + secret + "\"}\n", Line: 1},
		{Name: "JSON key", Parse: readAs(JSON), In: "{\"" + secret + "\": 1}\n", Line: 1},
	})
}

// readAs returns a function that reads the weights file at path in format.
func readAs(format Format) func(path string) error {
	return func(path string) error {
		_, err := ReadFormat(context.Background(), path, format, nil)
		return err
	}
}
