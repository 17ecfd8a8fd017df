package model

import (
	"context"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/parsetest"
)

// TestErrorsDoNotQuoteLines reads files that are not what they are named
// as (a corpus file as a moses.ini, phrase table or reordering table) or
// carry a long bad token, and checks that the error names the file and
// line and does not print the line: at most a short token.
func TestErrorsDoNotQuoteLines(t *testing.T) {
	secret, long := parsetest.Secret, parsetest.Long
	parsetest.NoQuoteCases(t, []parsetest.QuoteCase{
		{Name: "corpus file as moses.ini", Parse: readConfigFile, In: secret + "\n", Line: 1},
		{Name: "section header", Parse: readConfigFile, In: "[feature " + secret + "\n", Line: 1},
		{Name: "distortion limit", Parse: readConfigFile, In: "[distortion-limit]\n" + long + "\n[feature]\nWordPenalty\n[weight]\nWordPenalty0= 1\n", Line: 2},
		{Name: "corpus file as phrase table", Parse: readPhraseTableFile, In: secret + "\n", Line: 1},
		{Name: "phrase table score", Parse: readPhraseTableFile, In: "a ||| b ||| " + long + "\n", Line: 1},
		{Name: "phrase table alignment", Parse: readPhraseTableFile, In: "a ||| b ||| 0.5 ||| " + long + "\n", Line: 1},
		{Name: "phrase table sparse features", Parse: readPhraseTableFile, In: "a ||| b ||| 0.5 ||| 0-0 ||| 1 1 1 ||| " + secret + " |||\n", Line: 1},
		{Name: "corpus file as reordering table", Parse: readReorderingFile, In: secret + "\n", Line: 1},
		{Name: "reordering score", Parse: readReorderingFile, In: "a ||| b ||| " + long + " 0.5 0.5\n", Line: 1},
	})
}

func readConfigFile(path string) error {
	_, err := LoadConfig(context.Background(), path, ConfigOptions{Getenv: noEnv})
	return err
}

func readPhraseTableFile(path string) error {
	_, err := LoadPhraseTable(context.Background(), path, PhraseTableOptions{})
	return err
}

func readReorderingFile(path string) error {
	pt, err := ReadPhraseTable(context.Background(), strings.NewReader("a ||| b ||| 0.5\n"), "pt", PhraseTableOptions{})
	if err != nil {
		return err
	}
	_, err = pt.LoadReordering(context.Background(), path, ReorderingOptions{NumScores: 3})
	return err
}
