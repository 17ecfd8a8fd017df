package nbest

import (
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/testsupport/parsetest"
)

// TestErrorsDoNotQuoteLines reads files that are not n-best lists (a
// corpus file) or carry a long bad token, and checks that the error names
// the file and line and does not print the line: at most a short token.
func TestErrorsDoNotQuoteLines(t *testing.T) {
	secret, long := parsetest.Secret, parsetest.Long
	cases := []struct {
		name string
		in   string
		line int
	}{
		{"corpus file", secret + " ||| a ||| b\n", 1},
		{"bad total score", "0 ||| a ||| LM0= -1 ||| " + long + "\n", 1},
		{"bad feature value", "0 ||| a ||| LM0= " + long + "\n", 1},
		{"value without a name", "0 ||| a ||| " + long + "\n", 1},
		{"empty feature name", "0 ||| a ||| =" + long + "\n", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(c.in), "corpus.en", feature.NewIndex())
			var err error
			for err == nil {
				_, err = r.Read()
			}
			parsetest.NoContent(t, err, "corpus.en", c.line)
		})
	}
}
