package weights

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorsDoNotQuoteLines reads files that are not weights (a corpus
// file) or carry a long bad token, and checks that the error names the
// file and line and does not print the line: at most a short token.
func TestErrorsDoNotQuoteLines(t *testing.T) {
	const secret = "resumptionofthesession declared adjourned on friday 17 december"
	long := strings.ReplaceAll(secret, " ", "_")
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
			path := filepath.Join(t.TempDir(), "corpus.en")
			if err := os.WriteFile(path, []byte(c.in), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadFormat(context.Background(), path, c.format, nil)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, fmt.Sprintf("%s:%d", path, c.line)) {
				t.Errorf("error %q does not name %s:%d", msg, path, c.line)
			}
			if strings.Contains(msg, "declared") || strings.Contains(msg, "resumptionofthesession") {
				t.Errorf("error %q quotes the file's content", msg)
			}
		})
	}
}
