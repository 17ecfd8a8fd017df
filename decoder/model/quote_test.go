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
	cases := []struct {
		name string
		read func(path string) error
		in   string
		line int
	}{
		{"corpus file as moses.ini", readConfigFile, secret + "\n", 1},
		{"section header", readConfigFile, "[feature " + secret + "\n", 1},
		{"distortion limit", readConfigFile, "[distortion-limit]\n" + long + "\n[feature]\nWordPenalty\n[weight]\nWordPenalty0= 1\n", 2},
		{"corpus file as phrase table", readPhraseTableFile, secret + "\n", 1},
		{"phrase table score", readPhraseTableFile, "a ||| b ||| " + long + "\n", 1},
		{"phrase table alignment", readPhraseTableFile, "a ||| b ||| 0.5 ||| " + long + "\n", 1},
		{"phrase table sparse features", readPhraseTableFile, "a ||| b ||| 0.5 ||| 0-0 ||| 1 1 1 ||| " + secret + " |||\n", 1},
		{"corpus file as reordering table", readReorderingFile, secret + "\n", 1},
		{"reordering score", readReorderingFile, "a ||| b ||| " + long + " 0.5 0.5\n", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := parsetest.WriteFile(t, "corpus.en", c.in)
			err := c.read(path)
			parsetest.NoContent(t, err, path, c.line)
		})
	}
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
