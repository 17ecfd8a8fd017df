package model_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/mtune/mtune/decoder/model"
)

func ExampleReadPhraseTable() {
	const table = `das Haus ||| the house ||| 0.8 0.5 0.7 0.4 ||| 0-0 1-1 ||| 10 8 6
das Haus ||| house ||| 0.1 0.1 0.05 0 ||| 1-0 ||| 12 8 1
`
	ctx := context.Background()
	pt, err := model.ReadPhraseTable(ctx, strings.NewReader(table), "phrase-table", model.PhraseTableOptions{NumScores: 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = pt.ReadReordering(ctx, strings.NewReader("das Haus ||| house ||| 0.1 0.2 0.7 0.3 0.3 0.4\n"),
		"reordering-table", model.ReorderingOptions{NumScores: 6})
	if err != nil {
		fmt.Println(err)
		return
	}
	src := make([]int32, 0, 2)
	for _, w := range []string{"das", "Haus"} {
		id, _ := pt.SourceVocab().ID(w)
		src = append(src, id)
	}
	start, end := pt.Lookup(src)
	for o := start; o < end; o++ {
		var words []string
		for _, id := range pt.Target(o) {
			words = append(words, pt.TargetVocab().Word(id))
		}
		reord, ok := pt.Reordering(o)
		fmt.Printf("%q scores %v log %.3f alignment %v reordering %v %v\n",
			strings.Join(words, " "), pt.Scores(o), pt.LogScores(nil, o), []uint8(pt.Alignment(o)), ok, reord)
	}
	// Output:
	// "the house" scores [0.8 0.5 0.7 0.4] log [-0.223 -0.693 -0.357 -0.916] alignment [0 0 1 1] reordering false []
	// "house" scores [0.1 0.1 0.05 0] log [-2.303 -2.303 -2.996 -100.000] alignment [1 0] reordering true [0.1 0.2 0.7 0.3 0.3 0.4]
}
