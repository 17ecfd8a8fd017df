package parsetest_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/mtune/mtune/decoder/model"
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/testsupport/parsetest"
)

// TestErrorsDoNotQuoteLines reads, with each parser that reads files by
// path (weights, n-best lists, moses.ini, phrase and reordering tables),
// files that are not what they are named as (a corpus file) or carry a
// long bad token, and checks that the error names the file and line and
// does not print the line: at most a short token.
func TestErrorsDoNotQuoteLines(t *testing.T) {
	secret, long := parsetest.Secret, parsetest.Long
	parsetest.NoQuoteCases(t, []parsetest.QuoteCase{
		{Name: "weights/corpus file", Parse: readWeights(weights.Auto), In: secret + "\n", Line: 1},
		{Name: "weights/section header", Parse: readWeights(weights.Moses), In: "[weight " + secret + "\n", Line: 1},
		{Name: "weights/value before any label", Parse: readWeights(weights.Moses), In: "[weight]\n" + long + "\n", Line: 2},
		{Name: "weights/bad number", Parse: readWeights(weights.Moses), In: "[weight]\nLM0= " + long + "\n", Line: 2},
		{Name: "weights/bad sparse name", Parse: readWeights(weights.Sparse), In: long + "== 1\n", Line: 1},
		{Name: "weights/bad sparse number", Parse: readWeights(weights.Sparse), In: "pt_a_b " + long + "\n", Line: 1},
		{Name: "weights/JSON string", Parse: readWeights(weights.JSON), In: "{\"version\": \"" + secret + "\"}\n", Line: 1},
		{Name: "weights/JSON key", Parse: readWeights(weights.JSON), In: "{\"" + secret + "\": 1}\n", Line: 1},

		{Name: "nbest/corpus file", Parse: readNbest, In: secret + " ||| a ||| b\n", Line: 1},
		{Name: "nbest/bad total score", Parse: readNbest, In: "0 ||| a ||| LM0= -1 ||| " + long + "\n", Line: 1},
		{Name: "nbest/bad feature value", Parse: readNbest, In: "0 ||| a ||| LM0= " + long + "\n", Line: 1},
		{Name: "nbest/value without a name", Parse: readNbest, In: "0 ||| a ||| " + long + "\n", Line: 1},
		{Name: "nbest/empty feature name", Parse: readNbest, In: "0 ||| a ||| =" + long + "\n", Line: 1},
		{Name: "nbest/marian field", Parse: readNbestAs(nbest.FormatMarian), In: "0 ||| a ||| " + secret + " ||| F0= -1 ||| -1\n", Line: 1},
		{Name: "nbest/marian feature", Parse: readNbestAs(nbest.FormatMarian), In: "0 ||| a ||| " + long + " ||| -1\n", Line: 1},
		{Name: "nbest/marian duplicate", Parse: readNbestAs(nbest.FormatMarian), In: "0 ||| a ||| " + long + "=1 " + long + "=2 ||| -1\n", Line: 1},
		{Name: "nbest/fairseq score", Parse: readNbestAs(nbest.FormatFairseq), In: "H-0\t" + long + "\t" + secret + "\n", Line: 1},
		{Name: "nbest/fairseq no H- line", Parse: readNbestAs(nbest.FormatFairseq), In: secret + "\n", Line: 1},
		{Name: "nbest/sockeye not JSON", Parse: readNbestAs(nbest.FormatSockeye), In: secret + "\n", Line: 1},
		{Name: "nbest/sockeye key", Parse: readNbestAs(nbest.FormatSockeye), In: "{\"" + long + "\": 1, \"" + long + "\": 2}\n", Line: 1},
		{Name: "nbest/sockeye score", Parse: readNbestAs(nbest.FormatSockeye), In: "{\"translation\": \"" + secret + "\", \"score\": \"" + secret + "\"}\n", Line: 1},

		{Name: "model/corpus file as moses.ini", Parse: readConfig, In: secret + "\n", Line: 1},
		{Name: "model/section header", Parse: readConfig, In: "[feature " + secret + "\n", Line: 1},
		{Name: "model/distortion limit", Parse: readConfig, In: "[distortion-limit]\n" + long + "\n[feature]\nWordPenalty\n[weight]\nWordPenalty0= 1\n", Line: 2},
		{Name: "model/corpus file as phrase table", Parse: readPhraseTable, In: secret + "\n", Line: 1},
		{Name: "model/phrase table score", Parse: readPhraseTable, In: "a ||| b ||| " + long + "\n", Line: 1},
		{Name: "model/phrase table alignment", Parse: readPhraseTable, In: "a ||| b ||| 0.5 ||| " + long + "\n", Line: 1},
		{Name: "model/phrase table sparse features", Parse: readPhraseTable, In: "a ||| b ||| 0.5 ||| 0-0 ||| 1 1 1 ||| " + secret + " |||\n", Line: 1},
		{Name: "model/corpus file as reordering table", Parse: readReordering, In: secret + "\n", Line: 1},
		{Name: "model/reordering score", Parse: readReordering, In: "a ||| b ||| " + long + " 0.5 0.5\n", Line: 1},
	})
}

// readWeights returns a function that reads the weights file at path in
// format.
func readWeights(format weights.Format) func(path string) error {
	return func(path string) error {
		_, err := weights.ReadFormat(context.Background(), path, format, nil)
		return err
	}
}

// readNbest reads the n-best list at path to its end.
func readNbest(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := nbest.NewReader(f, path, feature.NewIndex())
	for err == nil {
		_, err = r.Read()
	}
	return err
}

// readNbestAs returns a function that reads the n-best list at path in
// format to its end.
func readNbestAs(format nbest.Format) func(path string) error {
	return func(path string) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		r, err := nbest.NewSentenceReader(f, path, feature.NewIndex(), format)
		for err == nil {
			_, _, err = r.ReadSentence()
		}
		return err
	}
}

// readConfig loads the moses.ini at path with no environment variables.
func readConfig(path string) error {
	noEnv := func(string) (string, bool) { return "", false }
	_, err := model.LoadConfig(context.Background(), path, model.ConfigOptions{Getenv: noEnv})
	return err
}

// readPhraseTable loads the phrase table at path.
func readPhraseTable(path string) error {
	_, err := model.LoadPhraseTable(context.Background(), path, model.PhraseTableOptions{})
	return err
}

// readReordering loads the reordering table at path, of three scores,
// into a one-entry phrase table.
func readReordering(path string) error {
	pt, err := model.ReadPhraseTable(context.Background(), strings.NewReader("a ||| b ||| 0.5\n"), "pt", model.PhraseTableOptions{})
	if err != nil {
		return err
	}
	_, err = pt.LoadReordering(context.Background(), path, model.ReorderingOptions{NumScores: 3})
	return err
}
