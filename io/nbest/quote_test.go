package nbest

import (
	"os"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/testsupport/parsetest"
)

// TestErrorsDoNotQuoteLines reads files that are not n-best lists (a
// corpus file) or carry a long bad token, and checks that the error names
// the file and line and does not print the line: at most a short token.
func TestErrorsDoNotQuoteLines(t *testing.T) {
	secret, long := parsetest.Secret, parsetest.Long
	parsetest.NoQuoteCases(t, []parsetest.QuoteCase{
		{Name: "corpus file", Parse: readNbestFile, In: secret + " ||| a ||| b\n", Line: 1},
		{Name: "bad total score", Parse: readNbestFile, In: "0 ||| a ||| LM0= -1 ||| " + long + "\n", Line: 1},
		{Name: "bad feature value", Parse: readNbestFile, In: "0 ||| a ||| LM0= " + long + "\n", Line: 1},
		{Name: "value without a name", Parse: readNbestFile, In: "0 ||| a ||| " + long + "\n", Line: 1},
		{Name: "empty feature name", Parse: readNbestFile, In: "0 ||| a ||| =" + long + "\n", Line: 1},
	})
}

// readNbestFile reads the n-best list at path to its end.
func readNbestFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := NewReader(f, path, feature.NewIndex())
	for err == nil {
		_, err = r.Read()
	}
	return err
}
