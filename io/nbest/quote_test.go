package nbest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
)

// TestErrorsDoNotQuoteLines reads files that are not n-best lists (a
// corpus file) or carry a long bad token, and checks that the error names
// the file and line and does not print the line: at most a short token.
func TestErrorsDoNotQuoteLines(t *testing.T) {
	const secret = "resumptionofthesession declared adjourned on friday 17 december"
	long := strings.ReplaceAll(secret, " ", "_")
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
			msg := err.Error()
			if !strings.Contains(msg, fmt.Sprintf("corpus.en:%d", c.line)) {
				t.Errorf("error %q does not name corpus.en:%d", msg, c.line)
			}
			if strings.Contains(msg, "declared") || strings.Contains(msg, "resumptionofthesession") {
				t.Errorf("error %q quotes the file's content", msg)
			}
		})
	}
}
